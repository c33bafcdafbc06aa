"""The select list of one SELECT block: its items named as Calcite names them, stars expanded
where the sources' columns are known, and each item's projection (a bare FLATTEN writes its
output column through a flatten operator)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from drillspark.names import fold, unique_name
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.block import Block, star_prefix
from drillspark.sql.expressions import ExprLowering, lower_expr
from drillspark.sql.lower import STAR, column_parts
from drillspark.sql.plan_parts import Pair


@dataclass
class Item:
    """One select-list entry after naming."""

    node: exp.Expr
    name: str
    star: bool = False


def select_items(ctx: Block) -> list[Item]:
    """The select list, named as Calcite names it: an alias, a column's name, or
    `EXPR$n` where n counts the distinct names (case-sensitively) derived for the items
    before it, each star counting once (`SELECT id, id, id + 0` gives `id, id0, EXPR$1`,
    asked of Drill 1.22); then repeats get a digit, ignoring case (`id, ID` -> `id, ID0`)."""
    items: list[Item] = []
    used: set[str] = set()
    derived: set[str] = set()
    for i, e in enumerate(ctx.node.expressions):
        while isinstance(e, exp.Paren):  # `SELECT DISTINCT(x)`: parentheses are no name
            e = e.this
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            expanded = _expand_star(ctx, e)
            if expanded is None:
                derived.add(f"*{i}")  # the dynamic star, one column for Calcite
                items.append(Item(e, STAR, star=True))
                continue
            for col, base in expanded:
                derived.add(base)
                items.append(Item(col, unique_name(base, used)))
            continue
        if isinstance(e, exp.Alias):
            name = e.alias
        elif (
            isinstance(e, exp.Column)
            and not isinstance(e.this, exp.Star)
            and len(column_parts(e)) == ctx.qualifier_len(e) + 1
        ):
            name = e.name
        else:
            name = f"EXPR${len(derived)}"
        derived.add(name)
        items.append(Item(e.this if isinstance(e, exp.Alias) else e, unique_name(name, used)))
    return items


def _expand_star(ctx: Block, star: exp.Expr) -> list[tuple[exp.Expr, str]] | None:
    """`*` / `t.*` as (column reference, name) when the sources' columns are known
    (subqueries with explicit select lists); None for schema-free tables. A plain `*`
    over a join with USING lists each USING column once, first (its joined value), as
    Drill does (`a(k, v) JOIN b(k, w) USING (k)`: k, v, w)."""
    sources = ctx.scope.sources
    using = [] if isinstance(star, exp.Column) and star.table else ctx.using_columns
    if isinstance(star, exp.Column) and star.table:
        src = ctx.scope.find(star.table)
        if src is None:
            raise ctx.fail(f"table '{star.table}' not found", star)
        sources = [src]
    if not sources or any(s.columns is None for s in sources):
        return None
    cols: list[tuple[exp.Expr, str]] = [(e.copy(), name) for name, e in using]
    skip = {fold(name) for name, _ in using}
    for s in sources:
        for c in s.columns or []:
            if fold(c) in skip:
                continue
            table = exp.to_identifier(s.alias, quoted=True) if s.alias else None
            cols.append((exp.Column(this=exp.to_identifier(c, quoted=True), table=table), c))
    return cols


def projection(ctx: Block, item: Item, items: list[Item]) -> Pair:
    """The projection of `item`, one of the select list `items` of an ungrouped block."""
    if item.star:
        return (STAR, pp.column(STAR))
    node = item.node
    if (
        isinstance(node, exp.Flatten)
        and not any(i.star for i in items)
        and not _name_is_read(ctx, item, items)
    ):
        # A bare FLATTEN writes straight into its output column (under SELECT * it
        # replaces the input column of that name).
        inner, computed = ExprLowering(ctx).flatten_argument(node)
        ctx.flattens.append((item.name, inner, node, computed))
        return (item.name, pp.column(item.name))
    return (item.name, lower_expr(ctx, node))


def star_projections(ctx: Block, star: exp.Expr) -> list[Pair]:
    """The projections a `*` / `t.*` of the select list stands for: the whole record of a
    lone table; in a join, per covered source in FROM order, its known columns or its
    prefixed fields (`t¦¦*`, see joins.rename_side)."""
    sources = ctx.starred_by(star)
    if len(ctx.scope.sources) == 1:
        return [(STAR, pp.column(STAR))]
    out: list[Pair] = []
    for s in sources:
        if s.columns is None:
            out.append((STAR, dx.path(star_prefix(s) + STAR)))
        else:
            out.extend((c, pp.column(s.field_name(c))) for c in s.columns)
    return out


def _name_is_read(ctx: Block, item: Item, items: list[Item]) -> bool:
    """Whether another expression of this SELECT reads an input column named like
    `item` (then its FLATTEN must not overwrite that column before the projection)."""
    name = fold(item.name)
    for i in items:
        for col in i.node.find_all(exp.Column):
            parts = column_parts(col)
            if (
                ctx.qualifier_len(col) < len(parts)
                and fold(parts[ctx.qualifier_len(col)]) == name
                and i is not item
            ):
                return True
    return False


def alias_swap(
    items: list[Item], reads: Callable[[exp.Column, exp.Expr], bool]
) -> Callable[[exp.Expr], exp.Expr]:
    """A transform putting the aliased expression in place of an unqualified column that names
    a select-list alias, where `reads(column, aliased)` says the clause reads the alias (QUALIFY
    and HAVING read different ones)."""
    named = {fold(i.name): i.node for i in items if not i.star}

    def swap(n: exp.Expr) -> exp.Expr:
        if (
            isinstance(n, exp.Column)
            and not n.table
            and isinstance(n.this, exp.Identifier)
            and fold(n.name) in named
            and reads(n, named[fold(n.name)])
        ):
            return named[fold(n.name)].copy()
        return n

    return swap
