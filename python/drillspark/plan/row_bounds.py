"""How many records a plan's result can have at most, where its operators say so."""

from __future__ import annotations

from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import Limit, Operator, Order, Project, Store


def most_records(plan: LogicalPlan) -> int | None:
    """The most records the plan's one result can have, when a `limit` bounds it below the
    operators that keep the record count (project, order, the result's store); else None."""
    roots = plan.roots()
    if len(roots) != 1:
        return None
    op: Operator = roots[0]
    while isinstance(op, Store | Project | Order):
        op = plan.node(op.input)
    if isinstance(op, Limit) and op.last is not None:
        return max(op.last - (op.first or 0), 0)
    return None
