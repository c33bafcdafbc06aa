"""How many records a plan's result can have at most, where its operators say so."""

from __future__ import annotations

from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import (
    Constant,
    Limit,
    Operator,
    Order,
    Project,
    Scan,
    Store,
    Values,
)


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


# storage engine types whose tables are the catalog's own (INFORMATION_SCHEMA, sys): a few
# hundred rows at most, known before any file is read
_CATALOG_ENGINES = frozenset({"ischema", "system-tables"})


def catalog_sources_only(plan: LogicalPlan) -> bool:
    """True when every source of the plan is a catalog table (INFORMATION_SCHEMA, sys) or
    constant values: its answer is small whatever its operators, so it can be fetched whole."""
    sources = plan.sources()
    return bool(sources) and all(
        isinstance(op, Values | Constant)
        or (
            isinstance(op, Scan)
            and op.storage_engine in plan.storage
            and plan.storage[op.storage_engine].type in _CATALOG_ENGINES
        )
        for op in sources
    )
