"""Lowering one SELECT block (FROM and joins, WHERE and its subqueries, FLATTEN, GROUP BY and
HAVING, window functions, the projection, DISTINCT, ORDER BY, LIMIT) to plan operators."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.function_kinds import is_aggregate
from drillspark.sql import drill_expr as dx
from drillspark.sql import joins as join_details
from drillspark.sql import lateral
from drillspark.sql.aggregates import (
    check_group_by,
    distinct_call,
    distinct_input,
    doubled_columns,
    pivot_query,
)
from drillspark.sql.errors import SqlError, SqlSyntaxError
from drillspark.sql.expressions import ExprLowering
from drillspark.sql.lower import (
    STAR,
    STAR_DELIMITER,
    Lowering,
    Rel,
    Scope,
    Source,
    _ancestors,
    _conjuncts,
    _err,
    _inside_subquery,
    column_parts,
    ordering,
)
from drillspark.sql.subqueries import SubqueryLowering, has_subquery, without_subqueries
from drillspark.sql.windows import WindowLowering

DYNAMIC_STAR = "**"  # Calcite's name for a schema-free table's star column


def star_prefix(s: Source) -> str:
    """The prefix of a whole join side's fields (`alias¦¦`, as Drill's `T0¦¦` star prefix)."""
    return f"{s.alias}{STAR_DELIMITER}"


@dataclass
class Item:
    """One select-list entry after naming."""

    node: exp.Expr
    name: str
    star: bool = False


class SelectLowering:
    """Lowers one SELECT block: FROM/joins, WHERE, FLATTEN, GROUP BY/HAVING, windows,
    projection, DISTINCT, ORDER BY, LIMIT."""

    def __init__(self, low: Lowering, node: exp.Select):
        self.low = low
        self.node = node
        self.scope = Scope()
        # (name, expr, the FLATTEN in the statement) in evaluation order
        self.flattens: list[tuple[str, str, exp.Expr]] = []
        self.aggs: list[tuple[str, str]] = []
        self.agg_keys: dict[str, str] = {}
        self.win = WindowLowering(self)
        self.group_nodes: list[tuple[exp.Expr, str]] = []
        # f(DISTINCT x): the distinct arguments, and the calls reading them (call -> f, x)
        self.distinct_args: dict[str, str] = {}  # x -> its first-row marker field
        self.distinct_calls: dict[str, tuple[str, str]] = {}
        self._doubled: set[str] | None = None
        self.mode = "input"  # or "grouped": columns must be group keys
        # Values an index or member access reads that are no column (`split(s, ' ')[1]`): the
        # stage being lowered collects (hidden name, expression) here, and a `transform` ahead
        # of the operator that reads them writes them; None where that is not done (HAVING)
        self.computed: list[tuple[str, str]] | None = None
        self.pre_aggregate: list[tuple[str, str]] = []  # those aggregates and keys read
        # JOIN ... USING: (column, its joined value) in order (sql/joins.py)
        self.using_columns: list[tuple[str, exp.Expr]] = []
        # FLATTENs under an aggregate, flattened ahead of it: id(node) -> hidden column
        self.preflattened: dict[int, str] = {}

    def fail(self, message: str, node: exp.Expr | None) -> SqlError:
        return self.low.fail(message, node)

    # ------------------------------------------------------------------ driver
    # SELECT clauses this lowering reads; any other clause present is rejected by name.
    HANDLED = {
        "expressions",
        "from",
        "from_",
        "joins",
        "where",
        "group",
        "having",
        "order",
        "limit",
        "offset",
        "distinct",
        "with",
        "with_",
        "kind",
        "windows",
        "qualify",
    }

    def _check_clauses(self) -> None:
        node = self.node
        if not node.expressions:
            raise _err(SqlSyntaxError, "SELECT needs at least one expression", node, self.low.sql)
        for key, value in node.args.items():
            if value and key not in self.HANDLED:
                target = value if isinstance(value, exp.Expr) else node
                raise self.low.unsupported(f"the {key.upper()} clause", target)
        distinct = node.args.get("distinct")
        if isinstance(distinct, exp.Distinct) and distinct.args.get("on") is not None:
            raise self.low.unsupported("DISTINCT ON", distinct)
        for j in node.args.get("joins") or []:
            if j.args.get("method"):
                raise self.low.unsupported(f"{j.args['method']} JOIN", j)
        if node.args.get("from_") is None and node.args.get("from") is None:
            # no table to read: a JOIN (`SELECT 1 JOIN t`, which sqlglot takes) or a star has
            # nothing to apply to; Drill's parser refuses both
            joins = node.args.get("joins") or []
            if joins:
                raise self.low.fail("a JOIN needs a FROM clause before it", joins[0])
            star = next((e for e in node.expressions if isinstance(e, exp.Star)), None)
            if star is not None:
                raise self.low.fail("SELECT * needs a FROM clause", star)

    def lower(self) -> Rel:
        node = self.node
        self._check_clauses()
        rel = self._from()
        where = node.args.get("where")
        if where is not None:
            rel = self._filter(rel, where.this)
        rel = self._select_subqueries(rel)
        items = self._items()
        self._all_items = items
        grouped = (
            bool(node.args.get("group"))
            or any(self._has_aggregate(i.node) for i in items)
            or node.args.get("having") is not None
        )
        self.computed = []
        if grouped:
            rel, projections = self._grouped(rel, items)
        else:
            projections = [self._projection(i) for i in items]
        has_star = any(i.star for i in items)
        qualify = self._qualify(items, grouped)
        order_hidden: list[dict] = []
        if has_star:
            orderings = self._star_orderings(items, projections)
        else:
            orderings = self._orderings(items, order_hidden)
        computed, self.computed = self.computed, None
        rel = self._pre_project(rel, computed)
        if qualify is not None:  # after the windows it reads, before the projection
            rel = Rel(
                self.low.builder.add(
                    {"op": "filter", "input": rel.op, "expr": qualify},
                    self.node.args["qualify"],
                ),
                rel.columns,
            )
        visible = [i.name for i in items if not i.star]
        if has_star:
            # A star has no field list at plan time: the project's stars stand for the input's
            # fields in place, and the project names repeats as Drill does (`floor, *` gives
            # floor, dept, floor0). ORDER BY reads the input, so it runs before the project.
            if orderings:
                rel = Rel(
                    self.low.builder.add({"op": "order", "input": rel.op, "orderings": orderings}),
                    None,
                )
                orderings = []
            stars: list[dict] = []
            for i, p in zip(items, projections, strict=True):
                stars.extend(self._star_projections(i.node) if i.star else [p])
            if stars == [{"ref": STAR, "expr": dx.path(STAR)}]:
                rel = Rel(rel.op, None)  # the whole input record as it is
            else:
                rel = Rel(
                    self.low.builder.add(
                        {"op": "project", "input": rel.op, "projections": stars}, self.node
                    ),
                    None,
                )
        else:
            parts = {f"projections[{k}]": i.node for k, i in enumerate(items)}
            rel = Rel(
                self.low.builder.add(
                    {"op": "project", "input": rel.op, "projections": projections + order_hidden},
                    self.node,
                    parts,
                ),
                visible + [p["ref"] for p in order_hidden],
            )
        if node.args.get("distinct"):
            flat = next((f for i in items for f in i.node.find_all(exp.Flatten)), None)
            if flat is not None:
                raise self.fail("Flatten function is not supported in Distinct (DRILL-2181)", flat)
            if order_hidden:
                raise self.fail(
                    "ORDER BY of a SELECT DISTINCT must use selected columns", node.args["order"]
                )
            rel = self._distinct(rel)
        if orderings:
            rel = Rel(
                self.low.builder.add({"op": "order", "input": rel.op, "orderings": orderings}),
                rel.columns,
            )
        rel = self.low.limit(rel, node)
        if order_hidden:
            rel = Rel(
                self.low.builder.add(
                    {
                        "op": "project",
                        "input": rel.op,
                        "projections": [{"ref": n, "expr": dx.path(n)} for n in visible],
                    }
                ),
                visible,
            )
        return rel

    def _qualify(self, items: list[Item], grouped: bool) -> str | None:
        """QUALIFY (Drill 1.22 runs it over a plain SELECT): a filter on the window functions
        it names, or select-list aliases of window functions (`QUALIFY rn <= 2`)."""
        q = self.node.args.get("qualify")
        if q is None:
            return None
        if grouped:  # Drill 1.22 fails (ClassCastException) on QUALIFY with aggregates
            raise self.low.unsupported("QUALIFY in an aggregate query", q)
        if has_subquery(q.this):
            raise self.low.unsupported("a subquery in QUALIFY", q)
        swap = _alias_swap(items, lambda _col, aliased: aliased.find(exp.Window) is not None)
        return self.expr(q.this.copy().transform(swap))

    # ------------------------------------------------------------------ FROM and joins
    def _from(self) -> Rel:
        from_ = self.node.args.get("from_") or self.node.args.get("from")
        if from_ is None:
            # A SELECT without FROM reads one empty row (Drill's VALUES(0)).
            return Rel(self.low.builder.add({"op": "values", "content": [{"$dummy": 0}]}), [])
        joins = self.node.args.get("joins") or []
        if isinstance(from_.this, exp.Unnest):
            first = lateral.unnest_source(self, from_.this)
        else:
            first = self._source(from_.this)
        if not joins:
            self.scope.sources.append(first)
            return first.rel
        sides = [first] + [
            lateral.placeholder(self, j.this)
            if lateral.is_lateral(j.this)
            else self._source(j.this)
            for j in joins
        ]
        self._check_aliases(sides)
        join_details.rewrite_using(self, sides, joins)
        self.scope.sources.extend(sides)
        renamed = self._rename_for_join(sides)
        rel = renamed[0].rel
        for j, side in zip(joins, renamed[1:], strict=True):
            if isinstance(side, lateral.LateralSource):
                rel = lateral.join(self, rel, side, j)
            else:
                rel = self._join(rel, side, j)
        return rel

    def _source(self, node: exp.Expr) -> Source:
        if node.args.get("pivots"):
            return self._pivot(node)
        alias_node = node.args.get("alias")
        alias = alias_node.name if alias_node is not None else ""
        if isinstance(node, exp.Table):
            rel = self.low.table(node)
            if not alias:
                alias = node.name if not isinstance(node.this, exp.Anonymous) else ""
        elif isinstance(node, exp.Subquery):
            rel = self.low.lower_query(node.this)
        elif isinstance(node, exp.Values):
            # its columns are known: another name is an error, as in Drill 1.22 (`SELECT
            # nosuch FROM (VALUES(1))`: "Column 'nosuch' not found in any table")
            rel = replace(self.low._values(node), strict=True)
            alias_node = None  # the column aliases name the VALUES columns already
        elif isinstance(node, exp.Unnest | exp.Lateral):
            raise self.low.unsupported(
                "LATERAL / UNNEST first in FROM (it follows the table whose arrays it reads)", node
            )
        else:
            raise self.low.unsupported(f"{node.key.upper()} in FROM", node)
        if alias_node is not None and alias_node.columns:
            names = [c.name for c in alias_node.columns]
            if rel.columns is None or len(names) != len(rel.columns):
                raise self.fail("column aliases need a subquery with that many columns", alias_node)
            rel = self.low.rename(rel, names)
        if not alias and isinstance(node, exp.Subquery):
            # `FROM (SELECT ...), (SELECT ...)`: Drill takes several unaliased subqueries;
            # each gets a name no query can write, to keep them apart in joins
            alias = self.low.hidden("subquery")
        return Source(alias, rel)

    def _pivot(self, node: exp.Expr) -> Source:
        """`FROM src PIVOT (...)`: a grouped SELECT over `src` (aggregates.pivot_query), which
        needs the source's columns (a subquery with a select list, VALUES)."""
        pivots = node.args["pivots"]
        if len(pivots) != 1:
            raise self.low.unsupported("several PIVOT clauses on one table", pivots[1])
        pivot = pivots[0]
        source = node.copy()
        source.set("pivots", None)
        inner = self._source(source)
        if inner.columns is None:
            raise self.low.unsupported(
                "PIVOT over a table whose columns are not known (pivot "
                "a subquery that selects its columns)",
                pivot,
            )
        if not source.args.get("alias"):
            source.set(
                "alias",
                exp.TableAlias(this=exp.to_identifier(self.low.hidden("pivot"), quoted=True)),
            )
        query = pivot_query(self, source, pivot, inner.columns)
        rel = self.low.lower_query(query)
        alias = pivot.args.get("alias")
        return Source(alias.name if alias is not None else "", rel)

    def _check_aliases(self, sides: list[Source]) -> None:
        seen: set[str] = set()
        for s in sides:
            if fold(s.alias) in seen:
                raise self.fail(f"duplicate table alias '{s.alias}' in FROM", self.node)
            seen.add(fold(s.alias))

    def _referenced(self) -> dict[str, set[str]]:
        """Column names each alias is referenced with anywhere in this SELECT block, including
        outer references from inside its subqueries (correlated EXISTS)."""
        refs: dict[str, set[str]] = {}
        aliases = {fold(e.alias) for e in self.node.expressions if isinstance(e, exp.Alias)}
        schema_free = [s for s in self.scope.sources if s.columns is None]
        for col in self.node.find_all(exp.Column):
            if isinstance(col.this, exp.Star) or lateral.reads_outer(self, col):
                continue
            parts = column_parts(col)
            if _inside_subquery(col, self.node):
                if (
                    len(parts) >= 2
                    and self.scope.find(parts[0]) is not None
                    and fold(parts[0]) not in self._inner_aliases(col)
                ):
                    refs.setdefault(fold(parts[0]), set()).add(fold(parts[1]))
                continue
            if len(parts) >= 2 and self.scope.find(parts[0]) is not None:
                refs.setdefault(fold(parts[0]), set()).add(fold(parts[1]))
            elif len(parts) == 1 and fold(parts[0]) in aliases:
                continue  # ORDER BY / HAVING naming a select-list alias
            elif len(parts) >= 1:
                owners = [s for s in self.scope.sources if s.has(parts[0])]
                if not owners and len(schema_free) == 1:
                    owners = schema_free
                if len(owners) == 1:
                    refs.setdefault(fold(owners[0].alias), set()).add(fold(parts[0]))
                else:
                    raise self.fail(
                        f"column '{parts[0]}' is ambiguous in a join of "
                        "schema-free tables: qualify it with a table alias",
                        col,
                    )
        return refs

    def _inner_aliases(self, col: exp.Column) -> set[str]:
        """Table aliases the subqueries around `col` (inside this block) define."""
        out: set[str] = set()
        for p in _ancestors(col, self.node):
            if isinstance(p, exp.Select):
                for n in p.find_all(exp.Table, exp.Subquery, exp.Values):
                    name = n.alias_or_name if isinstance(n, exp.Table) else n.alias
                    if name:
                        out.add(fold(name))
        return out

    def _starred(self) -> list[Source] | None:
        """The sources a `*` / `t.*` of the select list covers (None: no star)."""
        stars = [
            e
            for e in self.node.expressions
            if isinstance(e, exp.Star)
            or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
        ]
        if not stars:
            return None
        return [s for star in stars for s in self._starred_by(star)]

    def _starred_by(self, star: exp.Expr) -> list[Source]:
        if isinstance(star, exp.Column) and star.table:
            src = self.scope.find(star.table)
            if src is None:
                raise self.fail(f"table '{star.table}' not found", star)
            return [src]
        return list(self.scope.sources)

    def _rename_for_join(self, sides: list[Source]) -> list[Source]:
        """Gives each side's referenced columns a name unique in the join (`alias$column`) so
        both inputs' records can be merged and `a.x` / `b.x` stay apart. A star over sides
        with known columns references all of them (the star expands to `a.x`, `b.x`, ...);
        a star over a schema-free side needs its whole record, whose fields all get the
        side's star prefix (`alias¦¦x`, see _rename_side)."""
        starred = self._starred() or []
        refs = self._referenced()
        whole = any(s.columns is None for s in starred)
        self._renaming = (starred, refs, whole)
        for s in sides:
            if isinstance(s, lateral.LateralSource):
                s.names = s.rel.columns
                s.fields = self._side_fields(s)  # its rel is built at its join
            else:
                self._rename_side(s)
        return sides

    def _whole(self, s: Source) -> bool:
        """Whether a star of the select list needs `s`'s whole record (its fields unknown)."""
        starred, _refs, _whole = self._renaming
        return s.columns is None and any(t is s for t in starred)

    def _side_fields(self, s: Source) -> dict[str, str]:
        starred, refs, _whole = self._renaming
        known = {fold(c): c for c in s.columns or []}
        cols = set(refs.get(fold(s.alias), set()))
        if any(t is s for t in starred) and s.columns is not None:
            cols |= set(known)
        if self._whole(s):
            return {c: star_prefix(s) + c for c in sorted(cols)}
        return {c: f"{s.alias}${c}" for c in sorted(cols)}

    def _rename_side(self, s: Source) -> None:
        """One join side's project to its join-unique field names: `alias$column` for the
        columns the query names; a side a star needs whole has every field renamed
        `alias¦¦column` (Drill's star prefix), which the star's project takes off again."""
        s.names = s.rel.columns
        known = {fold(c): c for c in s.columns or []}
        s.fields = self._side_fields(s)
        if self._whole(s):
            s.rel = Rel(
                self.low.builder.add(
                    {
                        "op": "project",
                        "input": s.rel.op,
                        "projections": [
                            {"ref": dx.path(star_prefix(s) + STAR), "expr": dx.path(STAR)}
                        ],
                    }
                ),
                None,
            )
            return
        cols_sorted = sorted(s.fields)
        projections = [{"ref": s.fields[c], "expr": dx.path(known.get(c, c))} for c in cols_sorted]
        if not projections:  # a side used only for its row count
            projections = [{"ref": f"{s.alias}$", "expr": "1"}]
        s.rel = Rel(
            self.low.builder.add({"op": "project", "input": s.rel.op, "projections": projections}),
            [p["ref"] for p in projections],
        )

    def _join(self, left: Rel, right: Source, j: exp.Join) -> Rel:
        side = (j.args.get("side") or "").upper()
        kind = (j.args.get("kind") or "").upper()
        jtype = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FULL": "FULL"}.get(side, "INNER")
        on = j.args.get("on")
        if j.args.get("using"):
            raise self.low.unsupported("JOIN ... USING", j)
        conditions: list[dict] = []
        residual: list[exp.Expr] = []
        # values the conditions index (`split(a.s, ' ')[0] = b.w`), computed on their side
        sides: tuple[list, list] = ([], [])
        if on is not None:
            for conj in _conjuncts(on):
                cond = self._join_condition(conj, right, sides)
                if cond is None:
                    residual.append(conj)
                else:
                    conditions.append(cond)
        elif kind != "CROSS" and jtype != "INNER":
            raise self.fail("an outer join needs an ON condition", j)
        left = self.with_computed(left, sides[0])
        right.rel = self.with_computed(right.rel, sides[1])
        general: list[exp.Expr] = []  # an outer join's ON conjuncts of another form
        if residual and jtype != "INNER":
            for conj in residual:
                if has_subquery(conj):
                    raise self.low.unsupported("a subquery in an outer join's ON", conj)
                cond = join_details.one_side_condition(self, conj, right)
                if cond is None:
                    general.append(conj)  # `a.x = b.y OR a.z = b.z`: over both records
                else:
                    conditions.append(cond)
            residual = []
        columns = None
        if left.columns is not None and right.rel.columns is not None:
            columns = left.columns + right.rel.columns
        op = {
            "op": "join",
            "left": left.op,
            "right": right.rel.op,
            "type": jtype,
            "conditions": conditions,
        }
        if general:
            op["condition"] = dx.boolean_chain("and", [self.expr(c) for c in general])
        rel = Rel(self.low.builder.add(op, j), columns)
        if residual:
            computed: list[tuple[str, str]] = []
            expr = dx.boolean_chain("and", [self.into(computed, c) for c in residual])
            rel = self.with_computed(rel, computed)
            rel = Rel(
                self.low.builder.add({"op": "filter", "input": rel.op, "expr": expr}),
                rel.columns,
            )
        return rel

    def into(self, computed: list[tuple[str, str]], node: exp.Expr) -> str:
        """`node` lowered, the values it indexes collected in `computed` (written by the
        caller's `with_computed` ahead of the operator that reads them)."""
        saved, self.computed = self.computed, computed
        try:
            return self.expr(node)
        finally:
            self.computed = saved

    def _join_condition(
        self, conj: exp.Expr, right: Source, computed: tuple[list, list]
    ) -> dict | None:
        rels = {
            "EQ": "==",
            "NEQ": "!=",
            "GT": ">",
            "GTE": ">=",
            "LT": "<",
            "LTE": "<=",
            "NullSafeEQ": "IS NOT DISTINCT FROM",
        }
        flip = {
            "==": "==",
            "!=": "!=",
            ">": "<",
            ">=": "<=",
            "<": ">",
            "<=": ">=",
            "IS NOT DISTINCT FROM": "IS NOT DISTINCT FROM",
        }
        rel = rels.get(type(conj).__name__)
        if rel is None:
            return None
        sides = [self._sides(conj.this), self._sides(conj.expression)]
        r = fold(right.alias)
        if sides[0] and sides[1] and r not in sides[0] and sides[1] == {r}:
            return {
                "relationship": rel,
                "left": self.into(computed[0], conj.this),
                "right": self.into(computed[1], conj.expression),
            }
        if sides[0] and sides[1] and sides[0] == {r} and r not in sides[1]:
            return {
                "relationship": flip[rel],
                "left": self.into(computed[0], conj.expression),
                "right": self.into(computed[1], conj.this),
            }
        return None

    def _sides(self, node: exp.Expr) -> set[str]:
        out = set()
        for col in node.find_all(exp.Column):
            src, _f, _rest = self._resolve(col)
            out.add(fold(src.alias))
        return out

    # ------------------------------------------------------------------ WHERE
    def _filter(self, rel: Rel, cond: exp.Expr) -> Rel:
        plain: list[exp.Expr] = []
        subs = SubqueryLowering(self)
        for conj in _conjuncts(cond):
            if has_subquery(conj):
                semi = subs.semi_conjunct(rel, conj)
                if semi is not None:
                    rel = semi
                    continue
                rel, conj = subs.rewrite(rel, conj)
            plain.append(conj)
        if plain:
            if any(c.find(exp.Flatten) for c in plain):
                raise self.fail(
                    "FLATTEN in WHERE: filter a flattened column in an outer "
                    "query (Drill needs a subquery for that)",
                    cond,
                )
            computed: list[tuple[str, str]] = []
            expr = dx.boolean_chain("and", [self.into(computed, c) for c in plain])
            rel = self.with_computed(rel, computed)
            rel = Rel(
                self.low.builder.add({"op": "filter", "input": rel.op, "expr": expr}, plain[0]),
                rel.columns,
            )
        return rel

    def _select_subqueries(self, rel: Rel) -> Rel:
        """Scalar, IN and EXISTS subqueries of the select list, joined in before the
        projection (sql/subqueries.py)."""
        found = [e for e in self.node.expressions if has_subquery(e)]
        if not found:
            return rel
        if (
            self.node.args.get("group")
            or self.node.args.get("having")
            or any(self._has_aggregate(without_subqueries(e)) for e in self.node.expressions)
        ):
            return rel  # an aggregate query: joined to the groups (_grouped)
        subs = SubqueryLowering(self)
        for e in found:
            rel, new = subs.rewrite(rel, e)
            if new is not e:
                e.replace(new)
        return rel

    # ------------------------------------------------------------------ select list
    def _items(self) -> list[Item]:
        """The select list, named as Calcite names it: an alias, a column's name, or
        `EXPR$n` where n counts the distinct names (case-sensitively) derived for the items
        before it, each star counting once (`SELECT id, id, id + 0` gives `id, id0, EXPR$1`,
        asked of Drill 1.22); then repeats get a digit, ignoring case (`id, ID` -> `id, ID0`)."""
        items: list[Item] = []
        used: set[str] = set()
        derived: set[str] = set()
        for i, e in enumerate(self.node.expressions):
            while isinstance(e, exp.Paren):  # `SELECT DISTINCT(x)`: parentheses are no name
                e = e.this
            if isinstance(e, exp.Star) or (
                isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
            ):
                expanded = self._expand_star(e)
                if expanded is None:
                    derived.add(f"*{i}")  # the dynamic star, one column for Calcite
                    items.append(Item(e, STAR, star=True))
                    continue
                for col, base in expanded:
                    derived.add(base)
                    name, n = base, 0
                    while fold(name) in used:
                        name = f"{base}{n}"
                        n += 1
                    used.add(fold(name))
                    items.append(Item(col, name))
                continue
            if isinstance(e, exp.Alias):
                name = e.alias
            elif (
                isinstance(e, exp.Column)
                and not isinstance(e.this, exp.Star)
                and len(column_parts(e)) == self._qualifier_len(e) + 1
            ):
                name = e.name
            else:
                name = f"EXPR${len(derived)}"
            derived.add(name)
            base, n = name, 0
            while fold(name) in used:
                name = f"{base}{n}"
                n += 1
            used.add(fold(name))
            items.append(Item(e.this if isinstance(e, exp.Alias) else e, name))
        return items

    def _expand_star(self, star: exp.Expr) -> list[tuple[exp.Expr, str]] | None:
        """`*` / `t.*` as (column reference, name) when the sources' columns are known
        (subqueries with explicit select lists); None for schema-free tables. A plain `*`
        over a join with USING lists each USING column once, first (its joined value), as
        Drill does (`a(k, v) JOIN b(k, w) USING (k)`: k, v, w)."""
        sources = self.scope.sources
        using = [] if isinstance(star, exp.Column) and star.table else self.using_columns
        if isinstance(star, exp.Column) and star.table:
            src = self.scope.find(star.table)
            if src is None:
                raise self.fail(f"table '{star.table}' not found", star)
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

    def _qualifier_len(self, col: exp.Column) -> int:
        parts = column_parts(col)
        return 1 if len(parts) >= 2 and self.scope.find(parts[0]) is not None else 0

    def _projection(self, item: Item) -> dict:
        if item.star:
            return {"ref": STAR, "expr": dx.path(STAR)}
        node = item.node
        if (
            isinstance(node, exp.Flatten)
            and not any(i.star for i in self._all_items)
            and not self._name_is_read(item)
        ):
            # A bare FLATTEN writes straight into its output column (under SELECT * it
            # replaces the input column of that name).
            inner = self.expr(node.this)
            self.flattens.append((item.name, inner, node))
            return {"ref": item.name, "expr": dx.path(item.name)}
        return {"ref": item.name, "expr": self.expr(node)}

    def _star_projections(self, star: exp.Expr) -> list[dict]:
        """The projections a `*` / `t.*` of the select list stands for: the whole record of a
        lone table; in a join, per covered source in FROM order, its known columns or its
        prefixed fields (`t¦¦*`, see _rename_side)."""
        sources = self._starred_by(star)
        if len(self.scope.sources) == 1:
            return [{"ref": STAR, "expr": dx.path(STAR)}]
        out: list[dict] = []
        for s in sources:
            if s.columns is None:
                out.append({"ref": STAR, "expr": dx.path(star_prefix(s) + STAR)})
            else:
                out.extend({"ref": c, "expr": dx.path(s.field_name(c))} for c in s.columns)
        return out

    def _name_is_read(self, item: Item) -> bool:
        """Whether another expression of this SELECT reads an input column named like
        `item` (then its FLATTEN must not overwrite that column before the projection)."""
        name = fold(item.name)
        for i in self._all_items:
            for col in i.node.find_all(exp.Column):
                parts = column_parts(col)
                if (
                    self._qualifier_len(col) < len(parts)
                    and fold(parts[self._qualifier_len(col)]) == name
                    and i is not item
                ):
                    return True
        return False

    def _pre_project(self, rel: Rel, computed: list[tuple[str, str]] | None = None) -> Rel:
        """Flatten and window operators that the projection reads from, and the values it
        indexes (`computed`)."""
        for name, expr, node in self.flattens:
            rel = Rel(
                self.low.builder.add(
                    {"op": "flatten", "input": rel.op, "name": name, "expr": expr, "drop": False},
                    node,
                ),
                None,
            )
        rel = self.with_computed(rel, computed or [])
        return self.win.operators(rel)

    def with_computed(self, rel: Rel, computed: list[tuple[str, str]]) -> Rel:
        """`rel` with the computed values an expression indexes written to hidden fields."""
        if not computed:
            return rel
        transforms = [{"ref": n, "expr": e} for n, e in computed]
        op = self.low.builder.add({"op": "transform", "input": rel.op, "transforms": transforms})
        return Rel(op, None if rel.columns is None else rel.columns + [n for n, _ in computed])

    # ------------------------------------------------------------------ grouping
    def _has_aggregate(self, node: exp.Expr) -> bool:
        """Whether `node` holds an aggregate of this block: not a window function itself
        (`SUM(x) OVER ()`), but an aggregate inside one (`SUM(SUM(x)) OVER ()`) or inside its
        window specification."""
        for n in node.walk():
            is_agg = isinstance(n, exp.AggFunc) or (
                isinstance(n, exp.Anonymous) and is_aggregate(n.name)
            )
            if not is_agg or (n is not node and _inside_subquery(n, node)):
                continue
            parent = n.parent
            if isinstance(parent, exp.Filter) and parent.this is n:
                parent = parent.parent
                n = n.parent
            if isinstance(parent, exp.Window) and parent.this is n:
                continue
            return True
        return False

    def _grouped(self, rel: Rel, items: list[Item]) -> tuple[Rel, list[dict]]:
        if any(i.star for i in items):
            raise self.fail("SELECT * cannot be used with GROUP BY or aggregates", self.node)
        group = self.node.args.get("group")
        rel = self._flatten_under_aggregates(rel, items, group)
        keys: list[dict] = []
        if group is not None:
            check_group_by(group, self.low)
        after, self.computed = self.computed, self.pre_aggregate
        for g in group.expressions if group is not None else []:
            target = self._select_ref(g, items)
            name = self.low.hidden("g")
            keys.append({"ref": name, "expr": self.expr(target)})
            self.group_nodes.append((target, name))
        self.computed = after  # the grouped rows' values; aggregates switch back (expressions)
        self.mode = "grouped"
        pending: list = []
        for i in items:  # select-list subqueries: computed for each group
            if has_subquery(i.node):
                i.node, more = SubqueryLowering(self).defer(i.node)
                pending.extend(more)
        projections = [{"ref": i.name, "expr": self.expr(i.node)} for i in items]
        having = self.node.args.get("having")
        if having is not None:
            having.set("this", self._having_aliases(having.this, items))
        if having is not None and has_subquery(having.this):
            node, more = SubqueryLowering(self).defer(having.this)
            having.set("this", node)
            pending.extend(more)
        after, self.computed = self.computed, None  # HAVING's filter comes before the project
        having_expr = self.expr(having.this) if having is not None else None
        self.computed = after
        order = self.node.args.get("order")
        self._grouped_order_exprs = {
            idx: self.expr(o.this)
            for idx, o in enumerate(order.expressions if order else [])
            if self._order_name(o.this, items) is None
        }
        exprs = [{"ref": n, "expr": e} for n, e in self.aggs]
        rel = self.with_computed(rel, self.pre_aggregate)
        if self.distinct_args:
            rel, keys, exprs = distinct_input(self, rel, keys, exprs)
        rel = Rel(
            self.low.builder.add(
                {"op": "groupingaggregate", "input": rel.op, "keys": keys, "exprs": exprs},
                group if group is not None else self.node,
            ),
            [k["ref"] for k in keys] + [n for n, _ in self.aggs],
        )
        if pending:  # HAVING's subqueries, joined to the groups
            rel = Rel(SubqueryLowering(self).finish(rel, pending).op, rel.columns)
        if having_expr is not None:
            rel = Rel(
                self.low.builder.add({"op": "filter", "input": rel.op, "expr": having_expr}),
                rel.columns,
            )
        return rel, projections

    def _flatten_under_aggregates(self, rel: Rel, items: list[Item], group: exp.Expr | None) -> Rel:
        """`SUM(FLATTEN(x))`, `MAX(FLATTEN(t.o)['amount'])`: Drill aggregates the flattened
        values, so the flatten operators run ahead of the aggregate. Drill refuses FLATTEN in
        GROUP BY, in COUNT, and outside an aggregate of a grouped SELECT (DRILL-2181)."""
        if group is not None and group.find(exp.Flatten):
            raise self.fail(
                "Flatten function is not supported in Group By (DRILL-2181)",
                group.find(exp.Flatten),
            )
        having = self.node.args.get("having")
        found = [f for i in items for f in i.node.find_all(exp.Flatten)]
        if having is not None:
            found += list(having.find_all(exp.Flatten))
        if not found:
            return rel
        lowering = ExprLowering(self)
        for f in found:
            if isinstance(f.parent, exp.Flatten) or _inside_subquery(f, self.node):
                continue  # the outer FLATTEN of FLATTEN(FLATTEN(m)) is lowered with it
            agg = next(
                (
                    a
                    for a in _ancestors(f, self.node)
                    if isinstance(a, exp.AggFunc)
                    or (isinstance(a, exp.Anonymous) and is_aggregate(a.name))
                ),
                None,
            )
            if agg is None:
                raise self.fail(
                    "FLATTEN together with GROUP BY or aggregates: flatten in a "
                    "subquery and aggregate in the outer query (as in Drill)",
                    f,
                )
            if isinstance(agg, exp.Count):
                raise self.fail(
                    "Flatten function in aggregate functions is not supported (DRILL-2181)", f
                )
            self.preflattened[id(f)] = lowering._flattened(f)
        for name, expr, node in self.flattens:
            rel = Rel(
                self.low.builder.add(
                    {"op": "flatten", "input": rel.op, "name": name, "expr": expr, "drop": False},
                    node,
                ),
                None,
            )
        self.flattens.clear()
        return rel

    def doubled(self, names) -> set[str]:
        if self._doubled is None:
            self._doubled = doubled_columns(self, names)
        return self._doubled

    def distinct_call(self, fname: str, value: str) -> str:
        return distinct_call(self, fname, value)

    def _select_ref(self, g: exp.Expr, items: list[Item]) -> exp.Expr:
        """GROUP BY 1 / GROUP BY alias -> the select expression."""
        if isinstance(g, exp.Literal) and not g.is_string:
            idx = int(g.this) - 1
            if not 0 <= idx < len(items):
                raise self.fail(f"Ordinal out of range: GROUP BY {g.this}", g)
            return items[idx].node
        if isinstance(g, exp.Column) and not g.table:
            for i in items:
                if fold(i.name) == fold(g.name) and not self._is_input_column(g):
                    return i.node
        return g

    def _having_aliases(self, cond: exp.Expr, items: list[Item]) -> exp.Expr:
        """HAVING naming a select-list alias (`... count(*) AS c ... HAVING c > 4`): Drill
        reads the alias, even where an input column has the same name, unless the name is a
        GROUP BY key (a grouped column can only mean the column)."""
        keys = [k for k, _ in self.group_nodes]
        # inside an aggregate a name is the input column (`SUM(salary) AS salary ... HAVING
        # SUM(salary) > 10000`, asked of Drill 1.22)
        in_aggregate = {
            id(c)
            for a in cond.walk()
            if isinstance(a, exp.AggFunc) or (isinstance(a, exp.Anonymous) and is_aggregate(a.name))
            for c in a.find_all(exp.Column)
        }

        swap = _alias_swap(
            items,
            lambda col, _aliased: (
                col not in keys
                and id(col) not in in_aggregate
                and not _inside_subquery(col, self.node)
            ),
        )
        return cond.transform(swap, copy=False)

    def _is_input_column(self, col: exp.Column) -> bool:
        return any(s.has(col.name) for s in self.scope.sources)

    # ------------------------------------------------------------------ ORDER BY
    def _order_name(self, target: exp.Expr, items: list[Item]) -> str | None:
        """The output column an ORDER BY item names: ordinal, select alias or select
        expression; None when it needs a hidden column."""
        if isinstance(target, exp.Literal) and not target.is_string:
            k = int(target.this) - 1
            if not 0 <= k < len(items) or items[k].star:
                raise self.fail(f"Ordinal out of range: ORDER BY {target.this}", target)
            return items[k].name
        if isinstance(target, exp.Column) and len(column_parts(target)) == 1:
            for i in items:
                if not i.star and fold(i.name) == fold(target.name):
                    return i.name
        for i in items:
            if not i.star and i.node == target:
                return i.name
        return None

    def _star_orderings(self, items: list[Item], projections: list[dict]) -> list[dict]:
        """ORDER BY of a select list with a star, over the project's input: a named item by
        its expression, anything else as written. An ordinal naming the star sorts by Drill's
        `**` column, which no record has (a NULL for every row): it changes no order."""
        order = self.node.args.get("order")
        out: list[dict] = []
        for o in order.expressions if order is not None else []:
            target = o.this
            if isinstance(target, exp.Literal) and not target.is_string:
                k = int(target.this) - 1
                if 0 <= k < len(items) and items[k].star:
                    continue
            name = self._order_name(target, items)
            if name is None:
                out.append(ordering(self.expr(target), o))
                continue
            k = next(k for k, i in enumerate(items) if not i.star and i.name == name)
            out.append(ordering(projections[k]["expr"], o))
        return out

    def _orderings(self, items: list[Item], hidden: list[dict]) -> list[dict]:
        order = self.node.args.get("order")
        if order is None:
            return []
        out = []
        for idx, o in enumerate(order.expressions):
            name = self._order_name(o.this, items)
            if name is None:
                name = self.low.hidden("o")
                if self.mode == "grouped":
                    expr = self._grouped_order_exprs[idx]
                else:
                    expr = self.expr(o.this)
                hidden.append({"ref": name, "expr": expr})
            out.append(ordering(dx.path(name), o))
        return out

    def _distinct(self, rel: Rel) -> Rel:
        if rel.columns is None:
            # SELECT DISTINCT * over a schema-free table: Drill groups by its `**` column,
            # which no record has, and answers one row, `**` NULL (asked of Drill 1.22)
            keys = [{"ref": DYNAMIC_STAR, "expr": dx.cast(dx.NULL, "INT")}]
            rel = Rel(rel.op, [DYNAMIC_STAR])
        else:
            keys = [{"ref": c, "expr": dx.path(c)} for c in rel.columns]
        return Rel(
            self.low.builder.add(
                {"op": "groupingaggregate", "input": rel.op, "keys": keys, "exprs": []}
            ),
            rel.columns,
        )

    # ------------------------------------------------------------------ expressions
    def _resolve(self, col: exp.Column) -> tuple[Source, str, list[str | int]]:
        """(source, stream field name, member path) of a column reference."""
        parts = column_parts(col)
        if len(parts) >= 2:
            src = self.scope.find(parts[0])
            if src is not None:
                if src.rel.strict and not src.has(parts[1]):
                    raise self.fail(f"Column '{parts[1]}' not found in table '{parts[0]}'", col)
                return src, src.field_name(parts[1]), list(parts[2:])
            if (
                len(self.scope.sources) >= 1
                and self.scope.find(parts[0]) is None
                and not any(s.has(parts[0]) for s in self.scope.sources)
            ):
                raise self.fail(
                    f"table '{parts[0]}' not found: Drill needs the table alias "
                    f"to reach into a map (write t.{'.'.join(parts)})",
                    col,
                )
        owners = [s for s in self.scope.sources if s.has(parts[0])]
        schema_free = [s for s in self.scope.sources if s.columns is None]
        if len(owners) == 1:
            src = owners[0]
        elif len(self.scope.sources) == 1:
            src = self.scope.sources[0]
        elif not owners and len(schema_free) == 1:
            src = schema_free[0]  # the only source whose columns are not known
        elif not self.scope.sources:
            raise self.fail(f"column '{parts[0]}' not found: the query has no FROM", col)
        else:
            raise self.fail(f"column '{parts[0]}' is ambiguous: qualify it with a table alias", col)
        if src.rel.strict and not src.has(parts[0]):
            raise self.fail(f"Column '{parts[0]}' not found in any table", col)
        return src, src.field_name(parts[0]), list(parts[1:])

    def expr(self, node: exp.Expr) -> str:
        return ExprLowering(self).lower(node)


def _alias_swap(
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
