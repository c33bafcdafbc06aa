"""GROUP BY, HAVING and the aggregates of one SELECT block: the group keys (by expression,
select-list ordinal or alias), the grouping-aggregate operator with the aggregates the
select list, HAVING and ORDER BY read (sql/aggregates.py for DISTINCT arguments), FLATTENs
under an aggregate run ahead of it, and subqueries of the select list and HAVING joined to
the groups."""

from __future__ import annotations

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.function_kinds import is_aggregate
from drillspark.plan.operators import Filter, GroupingAggregate
from drillspark.sql import plan_parts as pp
from drillspark.sql.aggregates import check_group_by, distinct_input
from drillspark.sql.block import Block
from drillspark.sql.expressions import ExprLowering, lower_expr
from drillspark.sql.lower import Rel
from drillspark.sql.order_by import order_name, with_aliases
from drillspark.sql.plan_parts import Pair
from drillspark.sql.select_list import Item, alias_swap
from drillspark.sql.subqueries import SubqueryLowering, has_subquery
from drillspark.sql.syntax import ancestors, inside_subquery


def lower_grouped(ctx: Block, rel: Rel, items: list[Item]) -> tuple[Rel, list[Pair]]:
    """The groups of `rel` (filtered by HAVING) and the select list's projections over
    them; `ctx.mode` is "grouped" afterwards (columns must be group keys)."""
    node, low = ctx.node, ctx.low
    if any(i.star for i in items):
        raise ctx.fail("SELECT * cannot be used with GROUP BY or aggregates", node)
    group = node.args.get("group")
    rel = _flatten_under_aggregates(ctx, rel, items, group)
    keys: list[Pair] = []
    if group is not None:
        check_group_by(group, low)
    after, ctx.computed = ctx.computed, ctx.pre_aggregate
    for g in group.expressions if group is not None else []:
        target = _select_ref(ctx, g, items)
        name = low.hidden("g")
        keys.append((name, lower_expr(ctx, target)))
        ctx.group_nodes.append((target, name))
    ctx.computed = after  # the grouped rows' values; aggregates switch back (expressions)
    ctx.mode = "grouped"
    pending: list = []
    for i in items:  # select-list subqueries: computed for each group
        if has_subquery(i.node):
            i.node, more = SubqueryLowering(ctx).defer(i.node)
            pending.extend(more)
    projections: list[Pair] = [(i.name, lower_expr(ctx, i.node)) for i in items]
    having = node.args.get("having")
    if having is not None:
        having.set("this", _having_aliases(ctx, having.this, items))
    if having is not None and has_subquery(having.this):
        cond, more = SubqueryLowering(ctx).defer(having.this)
        having.set("this", cond)
        pending.extend(more)
    after, ctx.computed = ctx.computed, None  # HAVING's filter comes before the project
    having_expr = lower_expr(ctx, having.this) if having is not None else None
    ctx.computed = after
    order = node.args.get("order")
    ctx.grouped_order_exprs = {
        idx: lower_expr(ctx, with_aliases(items, o.this))
        for idx, o in enumerate(order.expressions if order else [])
        if order_name(ctx, o.this, items) is None
    }
    exprs = list(ctx.aggs)
    rel = ctx.with_computed(rel, ctx.pre_aggregate)
    if ctx.distinct_args:
        rel, keys, exprs = distinct_input(ctx, rel, keys, exprs)
    rel = Rel(
        low.builder.add(
            GroupingAggregate(input=rel.op, keys=pp.named_all(keys), exprs=pp.named_all(exprs)),
            group if group is not None else node,
        ),
        [n for n, _ in keys] + [n for n, _ in ctx.aggs],
    )
    if pending:  # HAVING's subqueries, joined to the groups
        rel = Rel(SubqueryLowering(ctx).finish(rel, pending).op, rel.columns)
    if having_expr is not None:
        rel = Rel(
            low.builder.add(Filter(input=rel.op, expr=having_expr)),
            rel.columns,
        )
    return rel, projections


def _flatten_under_aggregates(
    ctx: Block, rel: Rel, items: list[Item], group: exp.Expr | None
) -> Rel:
    """`SUM(FLATTEN(x))`, `MAX(FLATTEN(t.o)['amount'])`: Drill aggregates the flattened
    values, so the flatten operators run ahead of the aggregate. Drill refuses FLATTEN in
    GROUP BY, in COUNT, and outside an aggregate of a grouped SELECT (DRILL-2181)."""
    if group is not None and group.find(exp.Flatten):
        raise ctx.fail(
            "Flatten function is not supported in Group By (DRILL-2181)",
            group.find(exp.Flatten),
        )
    having = ctx.node.args.get("having")
    found = [f for i in items for f in i.node.find_all(exp.Flatten)]
    if having is not None:
        found += list(having.find_all(exp.Flatten))
    if not found:
        return rel
    lowering = ExprLowering(ctx)
    for f in found:
        if isinstance(f.parent, exp.Flatten) or inside_subquery(f, ctx.node):
            continue  # the outer FLATTEN of FLATTEN(FLATTEN(m)) is lowered with it
        agg = next(
            (
                a
                for a in ancestors(f, ctx.node)
                if isinstance(a, exp.AggFunc)
                or (isinstance(a, exp.Anonymous) and is_aggregate(a.name))
            ),
            None,
        )
        if agg is None:
            raise ctx.fail(
                "FLATTEN together with GROUP BY or aggregates: flatten in a "
                "subquery and aggregate in the outer query (as in Drill)",
                f,
            )
        if isinstance(agg, exp.Count):
            raise ctx.fail(
                "Flatten function in aggregate functions is not supported (DRILL-2181)", f
            )
        ctx.preflattened[id(f)] = lowering.flattened(f)
    rel = ctx.flatten_operators(rel)
    ctx.flattens.clear()
    return rel


def _select_ref(ctx: Block, g: exp.Expr, items: list[Item]) -> exp.Expr:
    """GROUP BY 1 / GROUP BY alias -> the select expression."""
    if isinstance(g, exp.Literal) and not g.is_string:
        idx = int(g.this) - 1
        if not 0 <= idx < len(items):
            raise ctx.fail(f"Ordinal out of range: GROUP BY {g.this}", g)
        return items[idx].node
    if isinstance(g, exp.Column) and not g.table:
        for i in items:
            if fold(i.name) == fold(g.name) and not _is_input_column(ctx, g):
                return i.node
    return g


def _having_aliases(ctx: Block, cond: exp.Expr, items: list[Item]) -> exp.Expr:
    """HAVING naming a select-list alias (`... count(*) AS c ... HAVING c > 4`): Drill
    reads the alias, even where an input column has the same name, unless the name is a
    GROUP BY key (a grouped column can only mean the column)."""
    keys = [k for k, _ in ctx.group_nodes]
    # inside an aggregate a name is the input column (`SUM(salary) AS salary ... HAVING
    # SUM(salary) > 10000`, asked of Drill 1.22)
    in_aggregate = {
        id(c)
        for a in cond.walk()
        if isinstance(a, exp.AggFunc) or (isinstance(a, exp.Anonymous) and is_aggregate(a.name))
        for c in a.find_all(exp.Column)
    }

    swap = alias_swap(
        items,
        lambda col, _aliased: (
            col not in keys and id(col) not in in_aggregate and not inside_subquery(col, ctx.node)
        ),
    )
    return cond.transform(swap, copy=False)


def _is_input_column(ctx: Block, col: exp.Column) -> bool:
    return any(s.has(col.name) for s in ctx.scope.sources)


def is_grouped(ctx: Block, items: list[Item]) -> bool:
    """Whether the block is grouped: GROUP BY, HAVING or an aggregate in the select list."""
    node = ctx.node
    return (
        bool(node.args.get("group"))
        or any(ctx.has_aggregate(i.node) for i in items)
        or node.args.get("having") is not None
    )
