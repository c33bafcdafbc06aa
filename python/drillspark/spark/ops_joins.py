"""Joins beyond `join`: semi-join (and its anti form), lateral-join and unnest.

A lateral-join numbers its left rows (the implicit field `$drill_implicit_field$`, as Drill's
planner calls it); an `unnest` on its right side emits one record per element of the current
row's array together with that number, and the operators between the unnest and the
lateral-join keep the field (the SQL lowering adds it to their projections and grouping keys,
as Drill's planner does). The lateral-join then joins each left row with the right records of
its number.
"""

from __future__ import annotations

from collections import Counter
from functools import reduce
from typing import TYPE_CHECKING

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from drillspark.names import fold
from drillspark.plan import operators as lo
from drillspark.plan.expressions import FieldPath
from drillspark.spark.ops_sets import both_sides_condition
from drillspark.spark.rel import Rel
from drillspark.spark.relationships import EQUALITY, RELATIONSHIPS
from drillspark.spark.scope import NamedColumns, Scope, quote

if TYPE_CHECKING:
    from drillspark.spark.translator import Translator

IMPLICIT = "$drill_implicit_field$"
_RIGHT = "__drill_semi_r_"
_OUTER = "__drill_outer_implicit"
_RIGHT_ORDER = "__drill_lateral_order"


def semi_join(tr: Translator, op: lo.SemiJoin) -> Rel:
    """The left rows that have a match in `right` (type ANTI: that have none). A NULL key
    matches nothing, so the anti form keeps rows with NULL keys (NOT EXISTS). Type NOT_IN
    keeps the rows no right row matches or might match (the conditions unknown: a NULL on
    either side), SQL's `NOT IN`; Spark plans its one-key form as a null-aware anti join
    (a hash lookup, not a nested loop)."""
    left, right = tr.df(op.left), tr.df(op.right)
    kind = str(op.type).upper()
    how = {"INNER": "left_semi", "ANTI": "left_anti", "NOT_IN": "left_anti"}.get(kind)
    if how is None:
        raise tr.fail(op, f"a semi-join's type is inner, anti or not_in, not {op.type!r}")
    # the right side's columns never reach the output: rename them all apart
    rdf = right.select(*[F.col(quote(c)).alias(_RIGHT + c) for c in right.columns])
    rcols = NamedColumns({fold(c): _RIGHT + c for c in right.columns})
    lscope = Scope(left, tr.where(op))
    rscope = Scope(rdf, tr.where(op), rcols, right.schema)
    conds: list[Column] = []
    rkeys: list[Column] = []
    for i, c in enumerate(op.conditions):
        lc = tr.compiler(op, lscope, f"conditions[{i}].left").compile(c.left)
        rc = tr.compiler(op, rscope, f"conditions[{i}].right").compile(c.right)
        conds.append(RELATIONSHIPS[c.relationship](lc, rc))
        if c.relationship in EQUALITY:
            rkeys.append(rc)
    if op.condition is not None:
        lcols = NamedColumns({c.lower(): c for c in left.columns})
        conds.append(both_sides_condition(tr, op, (left, lcols, left), (right, rcols, rdf)))
    cond = reduce(lambda a, b: a & b, conds) if conds else F.lit(True)
    if kind == "NOT_IN":  # the form Spark's null-aware anti join is recognized by
        cond = cond | cond.isNull()
    if kind != "NOT_IN" and rkeys and having_groups(tr, op):
        # a HAVING's groups: Spark knows how many only once they have run, and plans the
        # semi-join as a sort-merge join that shuffles the left side beside them. Their own
        # exchange is a stage AQE measures before the left side's (BuildSideFirst), so when they
        # are few (TPC-H q18: 57 of 1.5 million orders) the join broadcasts them instead
        rdf = rdf.hint("rebalance", *rkeys)
    if kind == "INNER" and keys_once(tr, op):
        # each left row matches at most one right row, so an inner join keeps the same rows;
        # unlike a semi-join it may build its hash table from the left side, which AQE then
        # broadcasts when that side is the small one (TPC-H q04: 57 thousand orders, not the
        # 1.4 million line items' order keys)
        joined = left.join(rdf, cond, "inner")
        return Rel(joined.select(*[F.col(quote(c)) for c in left.columns]))
    return Rel(left.join(rdf, cond, how))


def keys_once(tr: Translator, op: lo.SemiJoin) -> bool:
    """Whether the right side holds each key once and the conditions are exactly equalities
    on those keys: a `groupingaggregate` of keys only (the SQL lowering's distinct keys of an
    EXISTS or IN subquery), every key compared with `==` to the left, nothing else."""
    agg = tr.ops.get(op.right)
    if not isinstance(agg, lo.GroupingAggregate) or agg.exprs or op.condition is not None:
        return False
    keys = [_name(k.ref) for k in agg.keys]
    compared = [_name(c.right) if c.relationship in EQUALITY else None for c in op.conditions]
    # the same names the same number of times (a None, not a plain key, matches nothing)
    return bool(keys) and None not in keys and Counter(keys) == Counter(compared)


def having_groups(tr: Translator, op: lo.SemiJoin) -> bool:
    """Whether the right side is the groups a HAVING kept: a `filter` over a
    `groupingaggregate` with keys, under at most a `project`."""
    right = tr.ops.get(op.right)
    if isinstance(right, lo.Project):
        right = tr.ops.get(right.input)
    if not isinstance(right, lo.Filter):
        return False
    agg = tr.ops.get(right.input)
    return isinstance(agg, lo.GroupingAggregate) and bool(agg.keys)


def _name(e: object) -> str | None:
    """A one-name field's folded name; None for anything else."""
    if isinstance(e, FieldPath) and len(e.segments) == 1 and isinstance(e.segments[0], str):
        return fold(e.segments[0])
    return None


def lateral_join(tr: Translator, op: lo.LateralJoin) -> Rel:
    """Each left row with the records its right side produces for it (rows whose right side
    is empty are dropped, as in Drill's inner lateral join; type LEFT keeps them with NULLs)."""
    left = tr.df(op.left)
    # inside the right side of another lateral-join: its row number rides along under
    # another name and comes back after the join
    nested = IMPLICIT in left.columns
    if nested:
        left = left.withColumnRenamed(IMPLICIT, _OUTER)
    # numbered once and materialized, so the right side reads the very same numbers
    numbered = left.withColumn(IMPLICIT, F.monotonically_increasing_id()).localCheckpoint()
    stack = tr.__dict__.setdefault("_lateral_rows", [])
    stack.append(numbered)
    try:
        right = tr.df(op.right)
    finally:
        stack.pop()
    if IMPLICIT not in right.columns:
        raise tr.fail(
            op,
            f"the right input (@{op.right}) does not keep the field {IMPLICIT} "
            "of its unnest: the operators between an unnest and its lateral-join must keep it "
            "(in projections and grouping keys)",
        )
    taken = {fold(c) for c in left.columns}
    rcols = []
    for c in right.columns:
        if c == IMPLICIT:
            continue
        name, n = c, 0
        while fold(name) in taken:  # Drill names a repeated column x0, x1, ...
            name, n = f"{c}{n}", n + 1
        taken.add(fold(name))
        rcols.append(F.col(quote(c)).alias(name))
    # the right records numbered in the order they are made (a row's elements in order), so
    # the joined rows keep Drill's order, each left row's in turn: a LIMIT without ORDER BY
    # takes the rows Drill takes
    rdf = right.select(
        F.col(quote(IMPLICIT)).alias("__drill_lateral_r"),
        F.monotonically_increasing_id().alias(_RIGHT_ORDER),
        *rcols,
    )
    how = "left" if str(getattr(op, "type", "INNER")).upper() == "LEFT" else "inner"
    joined = numbered.join(rdf, numbered[quote(IMPLICIT)] == rdf["__drill_lateral_r"], how)
    joined = joined.orderBy(F.col(quote(IMPLICIT)), F.col(_RIGHT_ORDER))
    joined = joined.drop("__drill_lateral_r", _RIGHT_ORDER).drop(IMPLICIT)
    if nested:
        joined = joined.withColumnRenamed(_OUTER, IMPLICIT)
    return Rel(joined)


def unnest(tr: Translator, op: lo.Unnest) -> Rel:
    """One record per element of the array `column` of the current lateral row (none for an
    empty array, a NULL or a missing field), named after the path's last name, with the row's
    number."""
    stack = tr.__dict__.get("_lateral_rows") or []
    if not stack:
        raise tr.fail(
            op,
            "an unnest reads the current row of a "
            "lateral-join: it must be on a lateral-join's right side",
        )
    rows: DataFrame = stack[-1]
    value = tr.compiler(op, tr.scope(op, rows), "column").compile(op.column)
    name = [s for s in op.column.segments if isinstance(s, str)][-1]
    return Rel(
        rows.select(F.col(quote(IMPLICIT)), F.call_function("drill_flatten", value).alias(name))
    )
