"""LATERAL and UNNEST in FROM (Drill 1.15+): `FROM t, UNNEST(t.arr) u(x)`,
`FROM t, LATERAL (SELECT ... FROM UNNEST(t.arr) u(x) ...) s`, `CROSS JOIN LATERAL`,
`LEFT JOIN LATERAL (...) s ON TRUE`, chained laterals.

Each lowers to a `lateral-join` of the stream so far (left) with a right side built on an
`unnest` of that row's array. The right side's operators keep the unnest's implicit row
number `$drill_implicit_field$` (added here to their projections, grouping keys and window
partitions, as Drill's planner does), so an aggregate or LIMIT inside the lateral subquery
works per outer row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.expressions import Expr, FieldPath
from drillspark.plan.operators import (
    Filter,
    GroupingAggregate,
    LateralJoin,
    Limit,
    Order,
    Project,
    SetOperator,
    Unnest,
    Window,
)
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.expressions import lower_expr
from drillspark.sql.joins import rename_side
from drillspark.sql.lower import Rel, Source

if TYPE_CHECKING:
    from drillspark.sql.block import Block

IMPLICIT = "$drill_implicit_field$"
# the implicit row number, passed through the operators between an unnest and its lateral join
KEEP_IMPLICIT = (IMPLICIT, pp.column(IMPLICIT))
UNNAMED = "$unnest"  # Drill's column name of an UNNEST without column alias


@dataclass
class LateralSource(Source):
    """A LATERAL subquery or UNNEST in FROM; its rel is built when the join reaches it."""

    node: exp.Expr | None = None


def is_lateral(node: exp.Expr) -> bool:
    return isinstance(node, exp.Unnest | exp.Lateral)


def placeholder(ctx: Block, node: exp.Expr) -> LateralSource:
    if isinstance(node, exp.Lateral) and isinstance(node.this, exp.Unnest):
        # LATERAL UNNEST(t.a) u(x): the alias sits on the LATERAL
        unnest = node.this.copy()
        if node.args.get("alias") is not None:
            unnest.set("alias", node.args["alias"].copy())
        node = unnest
    alias_node = node.args.get("alias")
    alias = alias_node.name if alias_node is not None else ""
    if isinstance(node, exp.Unnest):
        _check_unnest(ctx, node)
        if alias_node is not None and alias_node.columns:
            columns = [c.name for c in alias_node.columns]
        else:
            columns = [alias or UNNAMED]
    else:
        query = node.this
        if not isinstance(query, exp.Subquery) or node.args.get("view"):
            raise ctx.low.unsupported("LATERAL over anything but a subquery", node)
        columns = _select_names(ctx, query.this, node)
        if alias_node is not None and alias_node.columns:
            names = [c.name for c in alias_node.columns]
            if len(names) != len(columns):
                raise ctx.fail("column aliases need a subquery with that many columns", alias_node)
            columns = names
    return LateralSource(alias, Rel(-1, columns), node=node)


def _check_unnest(ctx: Block, node: exp.Unnest) -> None:
    if len(node.expressions) != 1:
        raise ctx.low.unsupported("UNNEST of several arrays", node)
    if node.args.get("offset"):
        raise ctx.low.unsupported("UNNEST ... WITH ORDINALITY / OFFSET", node)


def _select_names(ctx: Block, query: exp.Expr, node: exp.Expr) -> list[str]:
    """The output names of a lateral subquery's select list (Drill's naming: alias, column
    name, else EXPR$n)."""
    if not isinstance(query, exp.Select):
        raise ctx.low.unsupported("LATERAL over a set operation", node)
    names: list[str] = []
    from_ = query.args.get("from_") or query.args.get("from")
    source = from_.this if from_ is not None else None
    aliases = {
        fold(n.alias_or_name)
        for n in [source] + [j.this for j in query.args.get("joins") or []]
        if n is not None
    }
    for i, e in enumerate(query.expressions):
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            alias = source.args.get("alias") if isinstance(source, exp.Unnest) else None
            if query.args.get("joins") or not isinstance(source, exp.Unnest):
                raise ctx.low.unsupported(
                    "SELECT * in a LATERAL subquery over more than one UNNEST", e
                )
            names.append(
                alias.columns[0].name
                if alias is not None and alias.columns
                else alias.name
                if alias is not None
                else UNNAMED
            )
            continue
        if isinstance(e, exp.Alias):
            names.append(e.alias)
        elif isinstance(e, exp.Column) and (
            len(e.parts) == 1 or (len(e.parts) == 2 and fold(e.parts[0].name) in aliases)
        ):
            names.append(e.name)  # a column, not a member of one (that is EXPR$n)
        else:
            names.append(f"EXPR${i}")
    return names


def reads_outer(ctx: Block, col: exp.Column) -> bool:
    """Whether `col` is the argument of the UNNEST first in `ctx`'s FROM (inside a lateral
    subquery: a column of the enclosing query, resolved there)."""
    from_ = ctx.node.args.get("from_") or ctx.node.args.get("from")
    first = from_.this if from_ is not None else None
    if not isinstance(first, exp.Unnest):
        return False
    p = col.parent
    while p is not None and p is not ctx.node:
        if p is first:
            return True
        p = p.parent
    return False


def unnest_source(ctx: Block, node: exp.Unnest) -> Source:
    """The UNNEST in the FROM of a lateral subquery: its argument names a column of the
    enclosing query's current row."""
    outer = ctx.low.__dict__.get("lateral_outer") or []
    if not outer:
        raise ctx.low.unsupported(
            "UNNEST outside a lateral join (write FROM t, UNNEST(t.a) u(x))", node
        )
    _check_unnest(ctx, node)
    alias_node = node.args.get("alias")
    alias = alias_node.name if alias_node is not None else ""
    if alias_node is not None and alias_node.columns:
        if len(alias_node.columns) != 1:
            raise ctx.fail("UNNEST gives one column", alias_node)
        name = alias_node.columns[0].name
    else:
        name = alias or UNNAMED
    rel = _unnest(outer[-1], node, name)
    return Source(alias, rel)


def _unnest(outer: Block, node: exp.Unnest, name: str) -> Rel:
    """An `unnest` of the array `node` names in `outer`'s stream, its element named `name`
    (plus the implicit row number)."""
    arg = node.expressions[0]
    if not isinstance(arg, exp.Column | exp.Dot | exp.Bracket):
        raise outer.low.unsupported("UNNEST of a computed value (unnest a column)", arg)
    parsed = lower_expr(outer, arg)
    assert isinstance(parsed, FieldPath)
    produced = [s for s in parsed.segments if isinstance(s, str)][-1]
    low = outer.low
    op = low.builder.add(Unnest(column=parsed), node)
    low.__dict__.setdefault("lateral_unnests", []).append(op)
    return Rel(
        low.builder.add(
            Project(
                input=op,
                projections=pp.named_all([(name, pp.column(produced)), KEEP_IMPLICIT]),
            )
        ),
        [name],
    )


def join(ctx: Block, left: Rel, side: LateralSource, j: exp.Join) -> Rel:
    """`left` lateral-joined with `side`, whose right subtree is lowered now (it reads the
    left stream's fields)."""
    node = side.node
    assert node is not None
    jtype = "INNER"
    on = j.args.get("on")
    if (j.args.get("side") or "").upper() == "LEFT":
        jtype = "LEFT"
    elif j.args.get("side"):
        raise ctx.low.unsupported(f"{j.args['side']} JOIN LATERAL (Drill has INNER and LEFT)", j)
    if on is not None and not (isinstance(on, exp.Boolean) and on.this):
        raise ctx.low.unsupported(
            "a lateral join condition other than ON TRUE (filter inside the lateral subquery)", on
        )
    low = ctx.low
    start = len(low.builder.ops)
    unnests = low.__dict__.setdefault("lateral_unnests", [])
    first_unnest = len(unnests)
    if isinstance(node, exp.Unnest):
        rel = _unnest(ctx, node, side.rel.columns[0])  # type: ignore[index]
    else:
        stack = low.__dict__.setdefault("lateral_outer", [])
        stack.append(ctx)
        try:
            rel = low.lower_query(node.this.this)
        finally:
            stack.pop()
        if rel.columns is None or len(rel.columns) != len(side.rel.columns or []):
            raise ctx.fail("a lateral subquery needs an explicit select list", node)
        if rel.columns != side.rel.columns:
            rel = low.rename(rel, list(side.rel.columns or []))
    mine = unnests[first_unnest:]  # its own unnest first, then those of nested laterals
    if not mine:
        raise ctx.low.unsupported("a lateral subquery without UNNEST in its FROM", node)
    side.rel = rel
    rename_side(ctx, side)
    _keep_implicit(ctx, mine[0], start)
    columns = None
    if left.columns is not None and side.rel.columns is not None:
        columns = left.columns + side.rel.columns
    op = LateralJoin(left=left.op, right=side.rel.op, type=jtype)  # type: ignore[arg-type]
    return Rel(low.builder.add(op, j), columns)


def _keep_implicit(ctx: Block, unnest_id: int, start: int) -> None:
    """Adds the implicit row number to every operator between the unnest and the lateral
    join: projections keep it, aggregates and windows group by it, a LIMIT counts per row."""
    low = ctx.low
    downstream = {unnest_id}
    keep = pp.named(*KEEP_IMPLICIT)
    for op in list(low.builder.ops[start:]):
        if op.id == unnest_id or not any(i in downstream for i in op.input_ids if i):
            continue
        downstream.add(op.id)
        if type(op) is Project and keep not in op.projections:
            low.builder.put(replace(op, projections=(*op.projections, keep)))
        elif type(op) is GroupingAggregate:
            low.builder.put(replace(op, keys=(*op.keys, keep)))
        elif type(op) is Window:
            low.builder.put(replace(op, withins=(*op.withins, keep)))
        elif type(op) is Limit:
            _per_row_limit(ctx, op)
        elif isinstance(op, SetOperator):
            raise low.unsupported(f"{op.op} inside a lateral subquery", None)


def _per_row_limit(ctx: Block, op: Limit) -> None:
    """A LIMIT inside a lateral subquery limits each outer row's records: a row_number()
    window per row number (in the preceding ORDER BY's order), then a filter in place of the
    limit."""
    low = ctx.low
    before = low.builder.node(op.input)
    rn = low.hidden("rn")
    window = low.builder.add(
        Window(
            input=op.input,
            withins=(pp.named(*KEEP_IMPLICIT),),
            orderings=before.orderings if type(before) is Order else (),
            aggregations=(pp.named(rn, dx.call("row_number")),),
        )
    )
    conds = [dx.binary(">", dx.path(rn), dx.integer(op.first or 0))]
    if op.last is not None:
        conds.append(dx.binary("<=", dx.path(rn), dx.integer(op.last)))
    # the filter takes the limit's place (and @id)
    low.builder.put(Filter(id=op.id, input=window, expr=dx.boolean_chain("and", conds)))


def over_unnest(query: exp.Expr) -> bool:
    """Whether a subquery reads an UNNEST of the enclosing row (`EXISTS (SELECT ... FROM
    UNNEST(t.a) u(x) ...)`)."""
    from_ = (
        query.args.get("from_") or query.args.get("from") if isinstance(query, exp.Select) else None
    )
    return from_ is not None and isinstance(from_.this, exp.Unnest)


def exists(ctx: Block, rel: Rel, query: exp.Select) -> tuple[Rel, Expr]:
    """EXISTS over an UNNEST of the current row: a LEFT lateral join with the subquery's row
    count (one row per outer row that has any); the value is whether that row is there."""
    low = ctx.low
    q = query.copy()
    n = low.hidden("n")
    q.set("expressions", [exp.alias_(exp.Count(this=exp.Star()), n, quoted=True)])
    for key in ("order", "limit", "offset", "distinct"):
        q.set(key, None)
    start = len(low.builder.ops)
    unnests = low.__dict__.setdefault("lateral_unnests", [])
    first_unnest = len(unnests)
    stack = low.__dict__.setdefault("lateral_outer", [])
    stack.append(ctx)
    try:
        inner = low.lower_query(q)
    finally:
        stack.pop()
    _keep_implicit(ctx, unnests[first_unnest], start)
    op = low.builder.add(LateralJoin(left=rel.op, right=inner.op, type="LEFT"), query)
    return Rel(op, None), dx.call("isnotnull", [dx.path(n)])
