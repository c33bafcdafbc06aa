"""Operators over several inputs: join, union, Except, intersect."""

from __future__ import annotations

from collections.abc import Mapping
from functools import reduce
from typing import TYPE_CHECKING

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.names import fold
from drillspark.plan import operators as lo
from drillspark.spark.expressions import paths_in
from drillspark.spark.rel import Rel
from drillspark.spark.relationships import RELATIONSHIPS
from drillspark.spark.scope import NamedColumns, Scope, quote

if TYPE_CHECKING:
    from drillspark.spark.translator import Translator

_JOIN_TYPES = {"INNER": "inner", "LEFT": "left", "RIGHT": "right", "FULL": "full", "OUTER": "full"}
_LEFT, _RIGHT, _PRESENT = "__drill_l_", "__drill_r_", "__drill_left_present"


def _side(df: DataFrame, prefix: str, clash: set[str]) -> tuple[DataFrame, Mapping[str, Column]]:
    """`df` with the clashing names renamed apart, and root name -> column for conditions."""
    if clash:
        df = df.select(
            *[
                F.col(quote(c)).alias(prefix + c) if fold(c) in clash else F.col(quote(c))
                for c in df.columns
            ]
        )
    return df, NamedColumns(
        {fold(c).removeprefix(prefix) if c.startswith(prefix) else fold(c): c for c in df.columns}
    )


def join(tr: Translator, op: lo.Join) -> Rel:
    """Names both sides share are renamed apart before joining, so conditions and the merged
    record never see ambiguous names (other columns are left alone, so a join without clashes
    is exactly Spark's join). On a clash the left record's field wins wherever there is a left
    record; rows with only a right record (right/full joins) take the right value. Two tables
    of one jdbc plugin are joined by their database (spark/storage/jdbc_join.py)."""
    from drillspark.spark.storage.jdbc_join import pushed_join

    pushed = pushed_join(tr.spark, tr.ops, tr.storage.get, op)
    if pushed is not None:
        return Rel(pushed)
    left, right = tr.df(op.left), tr.df(op.right)
    how = _JOIN_TYPES.get(str(op.type).upper())
    if how is None:
        raise tr.fail(op, f"unknown join type {op.type!r}")
    clash = {fold(c) for c in left.columns} & {fold(c) for c in right.columns}
    ldf, lcols = _side(left, _LEFT, clash)
    if clash:
        ldf = ldf.withColumn(_PRESENT, F.lit(True))
    rdf, rcols = _side(right, _RIGHT, clash)
    lscope = Scope(ldf, tr.where(op), lcols, left.schema)
    rscope = Scope(rdf, tr.where(op), rcols, right.schema)
    conds: list[Column] = []
    for i, cond in enumerate(op.conditions):
        rel = RELATIONSHIPS.get(cond.relationship)
        if rel is None:
            raise tr.fail(
                op,
                f"conditions[{i}]: unknown relationship "
                f"{cond.relationship!r} (known: ==, !=, <, <=, >, >=, IS NOT DISTINCT FROM)",
            )
        lc = tr.compiler(op, lscope, f"conditions[{i}].left").compile(cond.left)
        rc = tr.compiler(op, rscope, f"conditions[{i}].right").compile(cond.right)
        conds.append(rel(lc, rc))
    if op.condition is not None:
        conds.append(both_sides_condition(tr, op, (left, lcols, ldf), (right, rcols, rdf)))
    if conds:
        joined = ldf.join(rdf, reduce(lambda a, b: a & b, conds), how)
    else:
        joined = ldf.crossJoin(rdf) if how == "inner" else ldf.join(rdf, F.lit(True), how)
    if not clash:
        return Rel(joined)
    if getattr(op, "duplicates", "merge") == "rename":
        return Rel(joined.select(*_renamed_apart(left.columns, right.columns)))
    out: list[Column] = []
    right_names = {fold(c): c for c in right.columns}
    for c in left.columns:
        r = right_names.pop(fold(c), None)
        if r is None:
            out.append(F.col(quote(c)))
        else:
            out.append(
                F.when(F.col(_PRESENT).isNotNull(), F.col(quote(_LEFT + c)))
                .otherwise(F.col(quote(_RIGHT + r)))
                .alias(c)
            )
    out.extend(F.col(quote(c)) for c in right.columns if fold(c) in right_names)
    return Rel(joined.select(*out))


def both_sides_condition(
    tr: Translator,
    op: lo.Join,
    left: tuple[DataFrame, Mapping[str, Column], DataFrame],
    right: tuple[DataFrame, Mapping[str, Column], DataFrame],
) -> Column:
    """A join's `condition` over the fields of both inputs (each side: its input, root name ->
    column after renaming apart, the renamed frame); a name both inputs have is ambiguous."""
    (lin, lcols, ldf), (rin, rcols, rdf) = left, right
    assert op.condition is not None
    clash = set(lcols) & set(rcols)
    for p in paths_in(op.condition):
        if str(p.root).lower() in clash:
            raise tr.fail(op, f"condition: the field {p.root!r} is in both inputs")
    fields = [f for f in lin.schema.fields if f.name.lower() not in clash]
    fields += [f for f in rin.schema.fields if f.name.lower() not in clash]
    scope = Scope(ldf.crossJoin(rdf), tr.where(op), {**lcols, **rcols}, T.StructType(fields))
    return tr.compiler(op, scope, "condition").compile(op.condition)


def _renamed_apart(left: list[str], right: list[str]) -> list[Column]:
    """Every column of both sides; a right name the left already has gets a digit (`dept0`,
    then `dept1`, ...), as Drill names the columns of SELECT * over a join."""
    taken = {fold(c) for c in left}
    out = [
        F.col(quote(_LEFT + c) if fold(c) in {fold(r) for r in right} else quote(c)).alias(c)
        for c in left
    ]
    for c in right:
        if fold(c) not in taken:
            taken.add(fold(c))
            out.append(F.col(quote(c)))
            continue
        n = 0
        while fold(f"{c}{n}") in taken:
            n += 1
        taken.add(fold(f"{c}{n}"))
        out.append(F.col(quote(_RIGHT + c)).alias(f"{c}{n}"))
    return out


def _inputs(tr: Translator, op: lo.SetOperator) -> list[DataFrame]:
    if len(op.inputs) < 2:
        raise tr.fail(op, "needs two or more inputs")
    return [tr.df(i) for i in op.inputs]


def union(tr: Translator, op: lo.Union) -> Rel:
    # by name; fields missing from an input (also inside maps) are null
    out = _union_by_name(_inputs(tr, op))
    return Rel(out.distinct() if op.distinct else out)


def _union_by_name(dfs: list[DataFrame]) -> DataFrame:
    """The inputs' rows in input order, as a balanced tree of pairwise `unionByName`s. Spark
    analyses each new DataFrame's whole plan, so a left-deep chain over n inputs analysed
    n²/2 union nodes (a 500-way UNION ALL: 125,000); the tree analyses n log n. Columns come
    out in the same order as the chain's (first seen first)."""
    while len(dfs) > 1:
        dfs = [
            dfs[i].unionByName(dfs[i + 1], allowMissingColumns=True) if i + 1 < len(dfs) else dfs[i]
            for i in range(0, len(dfs), 2)
        ]
    return dfs[0]


def _aligned(tr: Translator, op: lo.SetOperator) -> list[DataFrame]:
    """The inputs with the first one's column order. Records compare field by field, so every
    input must have the same fields (by name, ignoring case): a field only some inputs have
    is an error, never silently dropped."""
    dfs = _inputs(tr, op)
    names = dfs[0].columns
    want = sorted(fold(n) for n in names)
    for i, d in zip(op.inputs[1:], dfs[1:], strict=True):
        if sorted(fold(c) for c in d.columns) != want:
            first = {fold(n) for n in names}
            other = {fold(c) for c in d.columns}
            only_first = sorted(n for n in names if fold(n) not in other)
            only_other = sorted(c for c in d.columns if fold(c) not in first)
            raise tr.fail(
                op,
                f"input {i} has other fields than input {op.inputs[0]}: "
                f"only in input {op.inputs[0]}: [{', '.join(only_first)}], only in input {i}: "
                f"[{', '.join(only_other)}] ({op.op} compares whole records; project the "
                "inputs to the same fields)",
            )
    return [dfs[0]] + [d.select(*[F.col(quote(n)) for n in names]) for d in dfs[1:]]


def except_(tr: Translator, op: lo.Except) -> Rel:
    dfs = _aligned(tr, op)
    out = reduce(lambda a, b: a.subtract(b) if op.distinct else a.exceptAll(b), dfs)
    return Rel(out)


def intersect(tr: Translator, op: lo.Intersect) -> Rel:
    dfs = _aligned(tr, op)
    out = reduce(lambda a, b: a.intersect(b) if op.distinct else a.intersectAll(b), dfs)
    return Rel(out)
