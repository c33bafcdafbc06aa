"""ORDER BY and DISTINCT of one SELECT block: what each ORDER BY item sorts by (an output
column by ordinal, alias or expression, else a hidden column projected for it), the
orderings over a select list with a star, and SELECT DISTINCT's grouping. LIMIT / OFFSET
are the statement's (Lowering.limit)."""

from __future__ import annotations

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.operators import GroupingAggregate, Ordering
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.block import Block
from drillspark.sql.expressions import lower_expr
from drillspark.sql.lower import Rel, column_parts, ordering, ordinal
from drillspark.sql.plan_parts import Pair
from drillspark.sql.select_list import Item, alias_swap

DYNAMIC_STAR = "**"  # Calcite's name for a schema-free table's star column


def order_name(ctx: Block, target: exp.Expr, items: list[Item]) -> str | None:
    """The output column an ORDER BY item names: ordinal, select alias or select
    expression; None when it needs a hidden column."""
    if isinstance(target, exp.Literal) and not target.is_string:
        if (n := ordinal(target)) is None:  # ORDER BY 1.5, 1e9: a constant, no ordinal
            return None
        k = n - 1
        if not 0 <= k < len(items) or items[k].star:
            raise ctx.fail(f"Ordinal out of range: ORDER BY {target.this}", target)
        return items[k].name
    if isinstance(target, exp.Column) and len(column_parts(target)) == 1:
        for i in items:
            if not i.star and fold(i.name) == fold(target.name):
                return i.name
    for i in items:
        if not i.star and i.node == target:
            return i.name
    return None


def with_aliases(items: list[Item], target: exp.Expr) -> exp.Expr:
    """An ORDER BY expression with each select alias it reads in place of that alias's
    expression (`ORDER BY x * -1` over `v AS x`: `v * -1`), as Drill reads it: the sort key is
    computed beside the select list, where the alias is no column yet (read as a missing
    column, every key had been NULL and the rows left in any order). A FLATTEN's alias is left
    as it is: put in place it would flatten again."""
    swap = alias_swap(items, lambda _col, aliased: aliased.find(exp.Flatten) is None)
    return target.copy().transform(swap)


def star_orderings(ctx: Block, items: list[Item], projections: list[Pair]) -> list[Ordering]:
    """ORDER BY of a select list with a star, over the project's input: a named item by
    its expression, anything else as written. An ordinal naming the star sorts by Drill's
    `**` column, which no record has (a NULL for every row): it changes no order."""
    order = ctx.node.args.get("order")
    out: list[Ordering] = []
    for o in order.expressions if order is not None else []:
        target = o.this
        if (n := ordinal(target)) is not None:
            k = n - 1
            if 0 <= k < len(items) and items[k].star:
                continue
        name = order_name(ctx, target, items)
        if name is None:
            out.append(ordering(lower_expr(ctx, with_aliases(items, target)), o))
            continue
        k = next(k for k, i in enumerate(items) if not i.star and i.name == name)
        out.append(ordering(projections[k][1], o))
    return out


def orderings(ctx: Block, items: list[Item], hidden: list[Pair]) -> list[Ordering]:
    """The block's orderings over its output columns; an item naming none gets a hidden
    column, appended to `hidden` for the projection to compute."""
    order = ctx.node.args.get("order")
    if order is None:
        return []
    out = []
    for idx, o in enumerate(order.expressions):
        name = order_name(ctx, o.this, items)
        if name is None:
            name = ctx.low.hidden("o")
            if ctx.mode == "grouped":
                expr = ctx.grouped_order_exprs[idx]
            else:
                expr = lower_expr(ctx, with_aliases(items, o.this))
            hidden.append((name, expr))
        out.append(ordering(pp.column(name), o))
    return out


def distinct(ctx: Block, rel: Rel) -> Rel:
    """SELECT DISTINCT: `rel` grouped by all its columns."""
    if rel.columns is None:
        # SELECT DISTINCT * over a schema-free table: Drill groups by its `**` column,
        # which no record has, and answers one row, `**` NULL (asked of Drill 1.22)
        keys: list[Pair] = [(DYNAMIC_STAR, dx.cast(dx.NULL, "INT"))]
        rel = Rel(rel.op, [DYNAMIC_STAR])
    else:
        keys = [(c, pp.column(c)) for c in rel.columns]
    return Rel(
        ctx.low.builder.add(GroupingAggregate(input=rel.op, keys=pp.named_all(keys), exprs=())),
        rel.columns,
    )
