"""Aggregate queries beyond plain calls: `FILTER (WHERE ...)`, `f(DISTINCT x)` next to any other
aggregates, Drill's refusal of ROLLUP / CUBE / GROUPING SETS, and PIVOT (rewritten to a
grouped SELECT of filtered aggregates).

f(DISTINCT x) reads x only on the first row of each (group keys, x) combination: a `window`
operator partitioned by the keys and x numbers the rows (`row_number()`), and the aggregate
reads `case when $n == 1 then x end`; since aggregates skip NULLs this is f over the distinct
values, for every aggregate, and any number of DISTINCT arguments and plain aggregates share
one `groupingaggregate`. When every aggregate reads the same single DISTINCT argument, the
plan groups by the keys and x first instead (Drill's two-phase plan)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.expressions import Expr
from drillspark.plan.operators import GroupingAggregate, Window
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.errors import UnsupportedSqlError
from drillspark.sql.lower import DISTINCT_ARG, Rel
from drillspark.sql.plan_parts import Pair

if TYPE_CHECKING:
    from drillspark.sql.block import Block
    from drillspark.sql.lower import Lowering


def unwrap_filter(node: exp.Expr) -> tuple[exp.Expr, exp.Expr | None]:
    """`agg FILTER (WHERE c)` -> (agg, c); any other node -> (node, None)."""
    if isinstance(node, exp.Filter):
        cond = node.expression
        return node.this, cond.this if isinstance(cond, exp.Where) else cond
    return node, None


def check_group_by(group: exp.Group, low: Lowering) -> None:
    """Drill 1.22 refuses ROLLUP, CUBE and GROUPING SETS (DRILL-3962)."""
    for key in ("rollup", "cube", "grouping_sets"):
        value = group.args.get(key)
        if value:
            node = value[0] if isinstance(value, list) else value
            target = node if isinstance(node, exp.Expr) else group
            raise low.fail(
                "Rollup, Cube, Grouping Sets are not supported in GROUP BY clause (DRILL-3962)",
                target,
                UnsupportedSqlError,
            )
    for g in group.expressions:
        if isinstance(g, exp.Rollup | exp.Cube | exp.GroupingSets) or (
            isinstance(g, exp.Anonymous) and g.name.lower() in ("grouping", "grouping_id")
        ):
            raise low.fail(
                "Rollup, Cube, Grouping Sets are not supported in GROUP BY clause (DRILL-3962)",
                g,
                UnsupportedSqlError,
            )


def distinct_call(ctx: Block, fname: str, value: Expr) -> Expr:
    """The aggregate call for `fname(DISTINCT value)` (see the module's doc)."""
    marker = ctx.distinct_args.get(value)
    if marker is None:
        marker = ctx.distinct_args[value] = ctx.low.hidden("first")
    call = dx.call(
        fname, [dx.case([(dx.binary("==", dx.path(marker), dx.integer(1)), value)], dx.NULL)]
    )
    ctx.distinct_calls[call] = (fname, value)
    return call


def distinct_input(
    ctx: Block, rel: Rel, keys: list[Pair], exprs: list[Pair]
) -> tuple[Rel, list[Pair], list[Pair]]:
    """The input, keys and aggregate exprs of the query's groupingaggregate once its DISTINCT
    arguments are prepared."""
    low = ctx.low
    if len(ctx.distinct_args) == 1 and all(e in ctx.distinct_calls for _, e in exprs):
        (value,) = ctx.distinct_args
        inner = [*keys, (DISTINCT_ARG, value)]
        rel = Rel(
            low.builder.add(GroupingAggregate(input=rel.op, keys=pp.named_all(inner), exprs=())),
            [n for n, _ in inner],
        )
        keys = [(n, pp.column(n)) for n, _ in keys]
        exprs = [(n, dx.call(ctx.distinct_calls[e][0], [dx.path(DISTINCT_ARG)])) for n, e in exprs]
        return rel, keys, exprs
    for value, marker in ctx.distinct_args.items():
        withins = [(low.hidden("w"), e) for e in [e for _, e in keys] + [value]]
        rel = Rel(
            low.builder.add(
                Window(
                    input=rel.op,
                    withins=pp.named_all(withins),
                    orderings=(),
                    aggregations=(pp.named(marker, dx.call("row_number")),),
                )
            ),
            None,
        )
    return rel, keys, exprs


def pivot_query(ctx: Block, source: exp.Expr, pivot: exp.Pivot, columns: list[str]) -> exp.Select:
    """`src PIVOT (agg(x) [AS a], ... FOR col IN (v [AS n], ...))` as
    `SELECT <other columns>, agg(x) FILTER (WHERE col = v) AS n_a, ... FROM src GROUP BY
    <other columns>`: the other columns are those neither pivoted nor aggregated, and the
    outputs go value by value, aggregate by aggregate (Drill's order and `n_a` names)."""
    low = ctx.low
    if pivot.args.get("unpivot"):
        raise low.unsupported("UNPIVOT", pivot)
    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In):
        raise low.unsupported("PIVOT with other than one FOR column IN (...)", pivot)
    pin = fields[0]
    if not isinstance(pin.this, exp.Column):
        raise low.unsupported("PIVOT FOR over an expression", pin.this)
    aggs: list[tuple[exp.Expr, str | None]] = []
    for a in pivot.expressions:
        node, alias = (a.this, a.alias) if isinstance(a, exp.Alias) else (a, None)
        if not isinstance(node, exp.AggFunc | exp.Anonymous):
            raise ctx.fail("PIVOT needs aggregate functions", a)
        aggs.append((node, alias))
    used = {fold(pin.this.name)}
    for node, _ in aggs:
        used |= {fold(c.name) for c in node.find_all(exp.Column)}
    keep = [c for c in columns if fold(c) not in used]
    items: list[exp.Expr] = [exp.column(exp.to_identifier(c, quoted=True)) for c in keep]
    for v in pin.expressions:
        value, vname = (v.this, v.alias) if isinstance(v, exp.PivotAlias | exp.Alias) else (v, None)
        if vname is None:
            vname = value.sql("drill")  # Drill names the column by the value's SQL: 'M'_a
        for node, alias in aggs:
            cond = exp.EQ(this=pin.this.copy(), expression=value.copy())
            item = exp.Filter(this=node.copy(), expression=exp.Where(this=cond))
            name = f"{vname}_{alias}" if alias else vname
            items.append(exp.alias_(item, exp.to_identifier(name, quoted=True)))
    query = exp.Select(expressions=items)
    query.set("from_", exp.From(this=source))
    if keep:
        query.set(
            "group",
            exp.Group(expressions=[exp.column(exp.to_identifier(c, quoted=True)) for c in keep]),
        )
    return query


# Drill rewrites AVG, STDDEV* and VAR* into sums over the argument cast to DOUBLE; with two or
# more of them in one aggregate, the other aggregates over a column that a STDDEV / VAR reads
# see that cast too (real Drill 1.22: `SELECT AVG(i), STDDEV(i), SUM(i), MIN(i)` gives SUM and
# MIN as DOUBLE; BIT_AND / BIT_OR as INT). The lowering reproduces those result types.
REDUCED = {
    "avg",
    "stddev",
    "stddev_samp",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "variance_pop",
    "variance_samp",
}
SPREAD = REDUCED - {"avg"}
RETYPED = {
    "sum": "FLOAT8",
    "min": "FLOAT8",
    "max": "FLOAT8",
    "any_value": "FLOAT8",
    "bit_and": "INT",
    "bit_or": "INT",
}


def doubled_columns(ctx: Block, names: Callable[[exp.Func], str]) -> set[str]:
    """The columns (SQL text) whose plain aggregates Drill types as DOUBLE in this block."""
    node = ctx.node
    parts = list(node.expressions) + [
        node.args[k] for k in ("having", "order") if node.args.get(k) is not None
    ]
    reduced: set[str] = set()
    spread: set[str] = set()
    for part in parts:
        for n in part.walk():
            if (
                not isinstance(n, exp.AggFunc)
                or isinstance(n.parent, exp.Window)
                or n.find_ancestor(exp.Select) is not node
            ):
                continue
            name = names(n)
            arg = n.this
            if name not in REDUCED or isinstance(arg, exp.Distinct):
                continue
            reduced.add(n.sql("drill"))
            if name in SPREAD and isinstance(arg, exp.Column):
                spread.add(arg.sql("drill"))
    return spread if len(reduced) >= 2 else set()
