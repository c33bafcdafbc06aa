"""FROM and its joins, for one SELECT block: each FROM item lowered to a source of the
block's scope (a table, a subquery, VALUES, a PIVOT, a lateral UNNEST or subquery), the
sides of a join renamed to join-unique field names (sql/joins.py), and the join operators
with the ON conditions they take as key comparisons."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.expressions import Expr
from drillspark.plan.operators import Filter, Join, JoinCondition, Values
from drillspark.sql import drill_expr as dx
from drillspark.sql import joins as join_details
from drillspark.sql import lateral
from drillspark.sql import plan_parts as pp
from drillspark.sql.aggregates import pivot_query
from drillspark.sql.block import Block, JoinRenaming
from drillspark.sql.expressions import lower_expr, lower_into
from drillspark.sql.lower import Rel, Source, column_parts
from drillspark.sql.subqueries import has_subquery
from drillspark.sql.syntax import ancestors, conjuncts, inside_subquery


def lower_from(ctx: Block) -> Rel:
    """The block's FROM and joins, their sources added to `ctx.scope`."""
    node = ctx.node
    from_ = node.args.get("from_") or node.args.get("from")
    if from_ is None:
        # A SELECT without FROM reads one empty row (Drill's VALUES(0)).
        return Rel(ctx.low.builder.add(Values(content=[{"$dummy": 0}])), [])
    joins = node.args.get("joins") or []
    if isinstance(from_.this, exp.Unnest):
        first = lateral.unnest_source(ctx, from_.this)
    else:
        first = _source(ctx, from_.this)
    if not joins:
        ctx.scope.sources.append(first)
        return first.rel
    sides = [first] + [
        lateral.placeholder(ctx, j.this) if lateral.is_lateral(j.this) else _source(ctx, j.this)
        for j in joins
    ]
    _check_aliases(ctx, sides)
    join_details.rewrite_using(ctx, sides, joins)
    ctx.scope.sources.extend(sides)
    renamed = _rename_for_join(ctx, sides)
    rel = renamed[0].rel
    for j, side in zip(joins, renamed[1:], strict=True):
        if isinstance(side, lateral.LateralSource):
            rel = lateral.join(ctx, rel, side, j)
        else:
            rel = _join(ctx, rel, side, j)
    return rel


def _source(ctx: Block, node: exp.Expr) -> Source:
    low = ctx.low
    if node.args.get("pivots"):
        return _pivot(ctx, node)
    alias_node = node.args.get("alias")
    alias = alias_node.name if alias_node is not None else ""
    if isinstance(node, exp.Table):
        rel = low.table(node)
        if not alias:
            alias = node.name if not isinstance(node.this, exp.Anonymous) else ""
    elif isinstance(node, exp.Subquery):
        rel = low.lower_query(node.this)
        if rel.columns is not None and _listed(node.this):
            # its select list names its columns: another name is an error, as in Drill 1.22
            # (`SELECT nosuch FROM (SELECT n_name FROM ...)`: "Column 'nosuch' not found")
            rel = replace(rel, strict=True)
    elif isinstance(node, exp.Values):
        # its columns are known: another name is an error, as in Drill 1.22 (`SELECT
        # nosuch FROM (VALUES(1))`: "Column 'nosuch' not found in any table")
        rel = replace(low.values(node), strict=True)
        alias_node = None  # the column aliases name the VALUES columns already
    elif isinstance(node, exp.Unnest | exp.Lateral):
        raise low.unsupported(
            "LATERAL / UNNEST first in FROM (it follows the table whose arrays it reads)", node
        )
    else:
        raise low.unsupported(f"{node.key.upper()} in FROM", node)
    if alias_node is not None and alias_node.columns:
        names = [c.name for c in alias_node.columns]
        if rel.columns is None or len(names) != len(rel.columns):
            raise ctx.fail("column aliases need a subquery with that many columns", alias_node)
        rel = low.rename(rel, names)
    if not alias and isinstance(node, exp.Subquery):
        # `FROM (SELECT ...), (SELECT ...)`: Drill takes several unaliased subqueries;
        # each gets a name no query can write, to keep them apart in joins
        alias = low.hidden("subquery")
    return Source(alias, rel)


def _pivot(ctx: Block, node: exp.Expr) -> Source:
    """`FROM src PIVOT (...)`: a grouped SELECT over `src` (aggregates.pivot_query), which
    needs the source's columns (a subquery with a select list, VALUES)."""
    low = ctx.low
    pivots = node.args["pivots"]
    if len(pivots) != 1:
        raise low.unsupported("several PIVOT clauses on one table", pivots[1])
    pivot = pivots[0]
    source = node.copy()
    source.set("pivots", None)
    inner = _source(ctx, source)
    if inner.columns is None:
        raise low.unsupported(
            "PIVOT over a table whose columns are not known (pivot "
            "a subquery that selects its columns)",
            pivot,
        )
    if not source.args.get("alias"):
        source.set(
            "alias",
            exp.TableAlias(this=exp.to_identifier(low.hidden("pivot"), quoted=True)),
        )
    query = pivot_query(ctx, source, pivot, inner.columns)
    rel = low.lower_query(query)
    alias = pivot.args.get("alias")
    return Source(alias.name if alias is not None else "", rel)


def _check_aliases(ctx: Block, sides: list[Source]) -> None:
    seen: set[str] = set()
    for s in sides:
        if fold(s.alias) in seen:
            raise ctx.fail(f"duplicate table alias '{s.alias}' in FROM", ctx.node)
        seen.add(fold(s.alias))


def _referenced(ctx: Block) -> dict[str, set[str]]:
    """Column names each alias is referenced with anywhere in this SELECT block, including
    outer references from inside its subqueries (correlated EXISTS)."""
    node, scope = ctx.node, ctx.scope
    refs: dict[str, set[str]] = {}
    aliases = {fold(e.alias) for e in node.expressions if isinstance(e, exp.Alias)}
    schema_free = [s for s in scope.sources if s.columns is None]
    for col in node.find_all(exp.Column):
        if isinstance(col.this, exp.Star) or lateral.reads_outer(ctx, col):
            continue
        parts = column_parts(col)
        if inside_subquery(col, node):
            if (
                len(parts) >= 2
                and scope.find(parts[0]) is not None
                and fold(parts[0]) not in _inner_aliases(ctx, col)
            ):
                refs.setdefault(fold(parts[0]), set()).add(fold(parts[1]))
            continue
        if len(parts) >= 2 and scope.find(parts[0]) is not None:
            refs.setdefault(fold(parts[0]), set()).add(fold(parts[1]))
        elif len(parts) == 1 and fold(parts[0]) in aliases:
            continue  # ORDER BY / HAVING naming a select-list alias
        elif len(parts) >= 1:
            owners = [s for s in scope.sources if s.has(parts[0])]
            if not owners and len(schema_free) == 1:
                owners = schema_free
            if len(owners) == 1:
                refs.setdefault(fold(owners[0].alias), set()).add(fold(parts[0]))
            else:
                raise ctx.fail(
                    f"column '{parts[0]}' is ambiguous in a join of "
                    "schema-free tables: qualify it with a table alias",
                    col,
                )
    return refs


def _inner_aliases(ctx: Block, col: exp.Column) -> set[str]:
    """Table aliases the subqueries around `col` (inside this block) define."""
    out: set[str] = set()
    for p in ancestors(col, ctx.node):
        if isinstance(p, exp.Select):
            for n in p.find_all(exp.Table, exp.Subquery, exp.Values):
                name = n.alias_or_name if isinstance(n, exp.Table) else n.alias
                if name:
                    out.add(fold(name))
    return out


def _starred(ctx: Block) -> list[Source] | None:
    """The sources a `*` / `t.*` of the select list covers (None: no star)."""
    stars = [
        e
        for e in ctx.node.expressions
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
    ]
    if not stars:
        return None
    return [s for star in stars for s in ctx.starred_by(star)]


def _rename_for_join(ctx: Block, sides: list[Source]) -> list[Source]:
    """Gives each side's referenced columns a name unique in the join (`alias$column`) so
    both inputs' records can be merged and `a.x` / `b.x` stay apart. A star over sides
    with known columns references all of them (the star expands to `a.x`, `b.x`, ...);
    a star over a schema-free side needs its whole record, whose fields all get the
    side's star prefix (`alias¦¦x`, see joins.rename_side)."""
    starred = _starred(ctx) or []
    refs = _referenced(ctx)
    ctx.renaming = JoinRenaming(starred, refs)
    for s in sides:
        if isinstance(s, lateral.LateralSource):
            s.names = s.rel.columns
            s.fields = join_details.side_fields(ctx, s)  # its rel is built at its join
        else:
            join_details.rename_side(ctx, s)
    return sides


def _join(ctx: Block, left: Rel, right: Source, j: exp.Join) -> Rel:
    low = ctx.low
    side = (j.args.get("side") or "").upper()
    kind = (j.args.get("kind") or "").upper()
    jtype = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FULL": "FULL"}.get(side, "INNER")
    on = j.args.get("on")
    if j.args.get("using"):
        raise low.unsupported("JOIN ... USING", j)
    conditions: list[JoinCondition] = []
    residual: list[exp.Expr] = []
    # values the conditions index (`split(a.s, ' ')[0] = b.w`), computed on their side
    sides: tuple[list, list] = ([], [])
    if on is not None:
        for conj in conjuncts(on):
            cond = _join_condition(ctx, conj, right, sides)
            if cond is None:
                residual.append(conj)
            else:
                conditions.append(cond)
    elif kind != "CROSS" and jtype != "INNER":
        raise ctx.fail("an outer join needs an ON condition", j)
    left = ctx.with_computed(left, sides[0])
    right.rel = ctx.with_computed(right.rel, sides[1])
    general: list[exp.Expr] = []  # an outer join's ON conjuncts of another form
    if residual and jtype != "INNER":
        for conj in residual:
            if has_subquery(conj):
                raise low.unsupported("a subquery in an outer join's ON", conj)
            cond = join_details.one_side_condition(ctx, conj, right)
            if cond is None:
                general.append(conj)  # `a.x = b.y OR a.z = b.z`: over both records
            else:
                conditions.append(cond)
        residual = []
    columns = None
    if left.columns is not None and right.rel.columns is not None:
        columns = left.columns + right.rel.columns
    op = Join(
        left=left.op,
        right=right.rel.op,
        type=jtype,  # type: ignore[arg-type]
        conditions=tuple(conditions),
        condition=(
            dx.boolean_chain("and", [lower_expr(ctx, c) for c in general]) if general else None
        ),
    )
    rel = Rel(low.builder.add(op, j), columns)
    if residual:
        computed: list[tuple[str, Expr]] = []
        expr = dx.boolean_chain("and", [lower_into(ctx, computed, c) for c in residual])
        rel = ctx.with_computed(rel, computed)
        rel = Rel(low.builder.add(Filter(input=rel.op, expr=expr)), rel.columns)
    return rel


def _join_condition(
    ctx: Block, conj: exp.Expr, right: Source, computed: tuple[list, list]
) -> JoinCondition | None:
    """An ON conjunct comparing the left side with `right` as the join's key comparison
    (flipped when written right-side first); None for any other conjunct."""
    rel = dx.JOIN_RELATIONSHIPS.get(type(conj).__name__)
    if rel is None:
        return None
    sides = [ctx.sides(conj.this), ctx.sides(conj.expression)]
    r = fold(right.alias)
    if sides[0] and sides[1] and r not in sides[0] and sides[1] == {r}:
        return pp.condition(
            rel,
            lower_into(ctx, computed[0], conj.this),
            lower_into(ctx, computed[1], conj.expression),
        )
    if sides[0] and sides[1] and sides[0] == {r} and r not in sides[1]:
        return pp.condition(
            dx.FLIPPED[rel],
            lower_into(ctx, computed[0], conj.expression),
            lower_into(ctx, computed[1], conj.this),
        )
    return None


def _listed(query: exp.Expr) -> bool:
    """A SELECT whose select list has no `*` (its columns are those it names)."""
    return isinstance(query, exp.Select) and not any(
        isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
        for e in query.expressions
    )
