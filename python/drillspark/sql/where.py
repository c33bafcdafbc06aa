"""WHERE of one SELECT block: its conjuncts with subqueries become semi-joins or joined-in
values (sql/subqueries.py), the rest one filter; and the select list's subqueries, joined
in before the projection."""

from __future__ import annotations

from sqlglot import exp

from drillspark.plan.operators import Filter
from drillspark.sql import drill_expr as dx
from drillspark.sql.block import Block
from drillspark.sql.expressions import lower_into
from drillspark.sql.lower import Rel
from drillspark.sql.plan_parts import Pair
from drillspark.sql.subqueries import SubqueryLowering, has_subquery, without_subqueries
from drillspark.sql.syntax import conjuncts


def lower_where(ctx: Block, rel: Rel, cond: exp.Expr) -> Rel:
    """`rel` filtered by the WHERE condition `cond`."""
    plain: list[exp.Expr] = []
    subs = SubqueryLowering(ctx)
    for conj in conjuncts(cond):
        if has_subquery(conj):
            semi = subs.semi_conjunct(rel, conj)
            if semi is not None:
                rel = semi
                continue
            rel, conj = subs.rewrite(rel, conj)
        plain.append(conj)
    if plain:
        if any(c.find(exp.Flatten) for c in plain):
            raise ctx.fail(
                "FLATTEN in WHERE: filter a flattened column in an outer "
                "query (Drill needs a subquery for that)",
                cond,
            )
        computed: list[Pair] = []
        expr = dx.boolean_chain("and", [lower_into(ctx, computed, c) for c in plain])
        rel = ctx.with_computed(rel, computed)
        rel = Rel(
            ctx.low.builder.add(Filter(input=rel.op, expr=expr), plain[0]),
            rel.columns,
        )
    return rel


def select_subqueries(ctx: Block, rel: Rel) -> Rel:
    """Scalar, IN and EXISTS subqueries of the select list, joined in before the
    projection (sql/subqueries.py)."""
    node = ctx.node
    found = [e for e in node.expressions if has_subquery(e)]
    if not found:
        return rel
    if (
        node.args.get("group")
        or node.args.get("having")
        or any(ctx.has_aggregate(without_subqueries(e)) for e in node.expressions)
    ):
        return rel  # an aggregate query: joined to the groups (grouping.lower_grouped)
    subs = SubqueryLowering(ctx)
    for e in found:
        rel, new = subs.rewrite(rel, e)
        if new is not e:
            e.replace(new)
    return rel
