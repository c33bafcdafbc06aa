"""Lowering one SELECT block: the driver that runs its clauses in Drill's order over one
`Block` context (sql/block.py): FROM and joins (from_clause), WHERE and the select list's
subqueries (where), GROUP BY / HAVING / aggregates (grouping), the select list (select_list),
window functions (windows, met while expressions are lowered), QUALIFY, the projection,
DISTINCT and ORDER BY (order_by), LIMIT (the statement's Lowering.limit)."""

from __future__ import annotations

from sqlglot import exp

from drillspark.plan.expressions import Expr
from drillspark.plan.operators import Filter, Order, Project
from drillspark.sql import plan_parts as pp
from drillspark.sql.block import Block
from drillspark.sql.errors import SqlError, SqlSyntaxError
from drillspark.sql.expressions import lower_expr
from drillspark.sql.from_clause import lower_from
from drillspark.sql.grouping import is_grouped, lower_grouped
from drillspark.sql.lower import STAR, Lowering, Rel
from drillspark.sql.order_by import distinct, orderings, star_orderings
from drillspark.sql.plan_parts import Pair
from drillspark.sql.select_list import Item, alias_swap, projection, select_items, star_projections
from drillspark.sql.subqueries import has_subquery
from drillspark.sql.where import lower_where, select_subqueries


class SelectLowering:
    """Lowers one SELECT block by its clauses, in the order Drill applies them."""

    def __init__(self, low: Lowering, node: exp.Select):
        self.low = low
        self.node = node
        self.ctx = Block(low, node)

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
            raise self.low.fail("SELECT needs at least one expression", node, SqlSyntaxError)
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
        ctx = self.ctx
        rel = lower_from(ctx)
        where = node.args.get("where")
        if where is not None:
            rel = lower_where(ctx, rel, where.this)
        rel = select_subqueries(ctx, rel)
        items = select_items(ctx)
        grouped = is_grouped(ctx, items)
        ctx.computed = []
        if grouped:
            rel, projections = lower_grouped(ctx, rel, items)
        else:
            projections = [projection(ctx, i, items) for i in items]
        has_star = any(i.star for i in items)
        qualify = self._qualify(items, grouped)
        order_hidden: list[Pair] = []
        if has_star:
            sorts = star_orderings(ctx, items, projections)
        else:
            sorts = orderings(ctx, items, order_hidden)
        computed, ctx.computed = ctx.computed, None
        rel = self._pre_project(rel, computed)
        if qualify is not None:  # after the windows it reads, before the projection
            rel = Rel(
                self.low.builder.add(Filter(input=rel.op, expr=qualify), self.node.args["qualify"]),
                rel.columns,
            )
        visible = [i.name for i in items if not i.star]
        if has_star:
            # A star has no field list at plan time: the project's stars stand for the input's
            # fields in place, and the project names repeats as Drill does (`floor, *` gives
            # floor, dept, floor0). ORDER BY reads the input, so it runs before the project.
            if sorts:
                rel = Rel(self.low.builder.add(Order(input=rel.op, orderings=tuple(sorts))), None)
                sorts = []
            stars: list[Pair] = []
            for i, p in zip(items, projections, strict=True):
                stars.extend(star_projections(ctx, i.node) if i.star else [p])
            if stars == [(STAR, pp.column(STAR))]:
                rel = Rel(rel.op, None)  # the whole input record as it is
            else:
                rel = Rel(
                    self.low.builder.add(
                        Project(input=rel.op, projections=pp.named_all(stars)), self.node
                    ),
                    None,
                )
        else:
            parts = {f"projections[{k}]": i.node for k, i in enumerate(items)}
            rel = Rel(
                self.low.builder.add(
                    Project(input=rel.op, projections=pp.named_all(projections + order_hidden)),
                    self.node,
                    parts,
                ),
                visible + [n for n, _ in order_hidden],
            )
        if node.args.get("distinct"):
            flat = next((f for i in items for f in i.node.find_all(exp.Flatten)), None)
            if flat is not None:
                raise self.fail("Flatten function is not supported in Distinct (DRILL-2181)", flat)
            if order_hidden:
                raise self.fail(
                    "ORDER BY of a SELECT DISTINCT must use selected columns", node.args["order"]
                )
            rel = distinct(ctx, rel)
        if sorts:
            rel = Rel(
                self.low.builder.add(Order(input=rel.op, orderings=tuple(sorts))), rel.columns
            )
        rel = self.low.limit(rel, node)
        if order_hidden:
            rel = Rel(
                self.low.builder.add(
                    Project(
                        input=rel.op, projections=pp.named_all((n, pp.column(n)) for n in visible)
                    )
                ),
                visible,
            )
        return rel

    def _qualify(self, items: list[Item], grouped: bool) -> Expr | None:
        """QUALIFY (Drill 1.22 runs it over a plain SELECT): a filter on the window functions
        it names, or select-list aliases of window functions (`QUALIFY rn <= 2`)."""
        q = self.node.args.get("qualify")
        if q is None:
            return None
        if grouped:  # Drill 1.22 fails (ClassCastException) on QUALIFY with aggregates
            raise self.low.unsupported("QUALIFY in an aggregate query", q)
        if has_subquery(q.this):
            raise self.low.unsupported("a subquery in QUALIFY", q)
        swap = alias_swap(items, lambda _col, aliased: aliased.find(exp.Window) is not None)
        return lower_expr(self.ctx, q.this.copy().transform(swap))

    def _pre_project(self, rel: Rel, computed: list[Pair] | None = None) -> Rel:
        """Flatten and window operators that the projection reads from, and the values it
        indexes (`computed`)."""
        ctx = self.ctx
        rel = ctx.flatten_operators(rel)
        rel = ctx.with_computed(rel, computed or [])
        return ctx.win.operators(rel)
