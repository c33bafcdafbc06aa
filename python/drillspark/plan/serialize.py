"""LogicalPlan -> today's JSON: topological order, explicit @ids, no sequences, expressions in
today's grammar, today's operator names and keys. parse(to_json(plan)) == plan for plans of
both dialects.

A 2013 plan is translated where today's Drill has the same thing (constant -> values,
nullCollation -> nullDirection, store `storageEngine`, one-segment refs as today's single
names). What has no counterpart is written as a drillspark extension of today's format (see
docs/logical-plans.md): the operators segment, windowframe and collapsingaggregate, scan `ref`,
store `partition`, dotted multi-segment refs, and `head.options."drillspark.dialect": "2013"`,
which says the refs follow 2013 rules (a project ref's first segment names the output record).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drillspark.plan.depth import room
from drillspark.plan.operator_writer import JsonWriter
from drillspark.plan.operators import Operator, SingleInput
from drillspark.plan.registry import write_body

if TYPE_CHECKING:  # LogicalPlan.to_json calls this module
    from drillspark.plan.model import LogicalPlan

# head.options key marking a plan serialized from the 2013 dialect (the parser reads it back)
DIALECT_OPTION = "drillspark.dialect"


def plan_to_json(plan: LogicalPlan) -> dict[str, Any]:
    with room():  # an expression's text recurses in its depth (500 `+` terms: plan/depth.py)
        return _plan_to_json(plan)


def _plan_to_json(plan: LogicalPlan) -> dict[str, Any]:
    head = dict(plan.head)
    if plan.dialect == "2013":
        head["options"] = {**(head.get("options") or {}), DIALECT_OPTION: "2013"}
    return {
        "head": head,
        "storage": {name: cfg.to_json() for name, cfg in plan.storage.items()},
        "query": [operator_to_json(op, plan.dialect) for op in plan.operators],
    }


def operator_to_json(op: Operator, dialect: str = "drill") -> dict[str, Any]:
    name, body = write_body(op, JsonWriter(dialect))
    out: dict[str, Any] = {"op": name, "@id": op.id}
    if op.memo is not None:  # an empty memo too: the plan read back is the same plan
        out["memo"] = op.memo
    if isinstance(op, SingleInput):
        out["input"] = op.input
    out.update(body)
    return out
