"""Join details beyond ON comparisons: JOIN ... USING (cols), outer-join conditions that
read only one side, and each side's renaming to join-unique field names (also done for a
lateral join's right side, sql/lateral.py).

USING (c) is the condition `l.c = r.c`; an unqualified `c` elsewhere in the SELECT block means
the joined column: the left side's for INNER and LEFT joins, the right side's for RIGHT,
COALESCE of both for FULL (as in Drill). `l.c` and `r.c` stay available.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.operators import JoinCondition, Project
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.block import star_prefix
from drillspark.sql.expressions import lower_expr
from drillspark.sql.lower import STAR, Rel, Source, column_parts
from drillspark.sql.plan_parts import Pair
from drillspark.sql.syntax import inside_subquery

if TYPE_CHECKING:
    from drillspark.sql.block import Block


def rewrite_using(ctx: Block, sides: list[Source], joins: list[exp.Join]) -> None:
    """Turns each USING into an ON condition and unqualified references to its columns into
    qualified ones (in the AST of `ctx`'s block)."""
    merged: dict[str, exp.Expr] = {}  # lower-case name -> the joined value
    names: dict[str, str] = {}
    for k, j in enumerate(joins):
        using = j.args.get("using")
        if not using:
            continue
        right = sides[k + 1]
        side = (j.args.get("side") or "").upper()
        conds = []
        for ident in using:
            name = ident.name
            names[fold(name)] = name
            left = _left_owner(ctx, sides[: k + 1], name, j)
            lcol = _qualified(left, name)
            rcol = _qualified(right, name)
            conds.append(exp.EQ(this=lcol, expression=rcol))
            if side == "FULL":
                merged[fold(name)] = exp.Coalesce(this=lcol.copy(), expressions=[rcol.copy()])
            elif side == "RIGHT":
                merged[fold(name)] = rcol.copy()
            else:
                merged[fold(name)] = lcol.copy()
        j.set("using", None)
        j.set("on", exp.and_(*conds))
    ctx.using_columns = [(names[k], e.copy()) for k, e in merged.items()]
    if not merged:
        return
    node = ctx.node
    aliases = {fold(e.alias) for e in node.expressions if isinstance(e, exp.Alias)}
    for col in list(node.find_all(exp.Column)):
        parts = column_parts(col)
        if len(parts) != 1 or fold(parts[0]) not in merged or inside_subquery(col, node):
            continue
        if isinstance(col.parent, exp.Join) or (
            fold(parts[0]) in aliases and _in_order_by(col, node)
        ):
            continue
        replacement = merged[fold(parts[0])].copy()
        if col.parent is node and col.arg_key == "expressions":
            replacement = exp.alias_(replacement, col.name, quoted=True)
        col.replace(replacement)


def _in_order_by(col: exp.Expr, node: exp.Expr) -> bool:
    p = col.parent
    while p is not None and p is not node:
        if isinstance(p, exp.Order | exp.Having):
            return True
        p = p.parent
    return False


def _left_owner(ctx: Block, left: list[Source], name: str, j: exp.Join) -> Source:
    known = [s for s in left if s.columns is not None and s.has(name)]
    if len(known) == 1:
        return known[0]
    if len(known) > 1:
        raise ctx.fail(f"column '{name}' of USING is in more than one table on the left", j)
    free = [s for s in left if s.columns is None]
    if len(free) == 1:
        return free[0]
    if not free:
        raise ctx.fail(f"column '{name}' of USING is not a column of the left side", j)
    raise ctx.fail(
        f"column '{name}' of USING is ambiguous between schema-free tables on the "
        "left: write ON with qualified columns",
        j,
    )


def _qualified(src: Source, name: str) -> exp.Column:
    if not src.alias:
        return exp.column(exp.to_identifier(name, quoted=True))
    return exp.column(
        exp.to_identifier(name, quoted=True), table=exp.to_identifier(src.alias, quoted=True)
    )


def one_side_condition(ctx: Block, conj: exp.Expr, right: Source) -> JoinCondition | None:
    """An outer join's ON conjunct that reads one side only (or none), as a join condition
    `cond == true` on that side; None for a conjunct mixing both sides."""
    sides = ctx.sides(conj)
    r = fold(right.alias)
    expr = lower_expr(ctx, conj)
    if sides == {r}:
        return pp.condition("==", dx.TRUE, expr)
    if r not in sides:
        return pp.condition("==", expr, dx.TRUE)
    return None


def whole(ctx: Block, s: Source) -> bool:
    """Whether a star of the select list needs `s`'s whole record (its fields unknown)."""
    return s.columns is None and any(t is s for t in ctx.renaming.starred)


def side_fields(ctx: Block, s: Source) -> dict[str, str]:
    """A join side's referenced columns (folded) and their join-unique field names."""
    known = {fold(c): c for c in s.columns or []}
    cols = set(ctx.renaming.refs.get(fold(s.alias), set()))
    if any(t is s for t in ctx.renaming.starred) and s.columns is not None:
        cols |= set(known)
    if whole(ctx, s):
        return {c: star_prefix(s) + c for c in sorted(cols)}
    return {c: f"{s.alias}${c}" for c in sorted(cols)}


def rename_side(ctx: Block, s: Source) -> None:
    """One join side's project to its join-unique field names: `alias$column` for the
    columns the query names; a side a star needs whole has every field renamed
    `alias¦¦column` (Drill's star prefix), which the star's project takes off again."""
    s.names = s.rel.columns
    known = {fold(c): c for c in s.columns or []}
    s.fields = side_fields(ctx, s)
    if whole(ctx, s):
        s.rel = Rel(
            ctx.low.builder.add(
                Project(
                    input=s.rel.op,
                    projections=(pp.named(star_prefix(s) + STAR, pp.column(STAR)),),
                )
            ),
            None,
        )
        return
    cols_sorted = sorted(s.fields)
    projections: list[Pair] = [(s.fields[c], pp.column(known.get(c, c))) for c in cols_sorted]
    if not projections:  # a side used only for its row count
        projections = [(f"{s.alias}$", dx.integer(1))]
    s.rel = Rel(
        ctx.low.builder.add(Project(input=s.rel.op, projections=pp.named_all(projections))),
        [n for n, _ in projections],
    )
