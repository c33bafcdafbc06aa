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

from typing import Any

from drillspark.plan.expressions import FieldPath, path_text, to_text
from drillspark.plan.model import DIALECT_OPTION, LogicalPlan
from drillspark.plan.operators import (
    CollapsingAggregate,
    Constant,
    CustomOperator,
    Filter,
    Flatten,
    GroupingAggregate,
    Join,
    LateralJoin,
    Limit,
    NamedExpression,
    Operator,
    Order,
    Ordering,
    Project,
    RunningAggregate,
    Scan,
    Segment,
    SetOperator,
    Store,
    Transform,
    Unnest,
    Values,
    Window,
    WindowFrame,
)


def plan_to_json(plan: LogicalPlan) -> dict[str, Any]:
    head = dict(plan.head)
    if plan.dialect == "2013":
        head["options"] = {**(head.get("options") or {}), DIALECT_OPTION: "2013"}
    return {
        "head": head,
        "storage": {name: cfg.to_json() for name, cfg in plan.storage.items()},
        "query": [operator_to_json(op, plan.dialect) for op in plan.operators],
    }


def ref_text(ref: FieldPath, dialect: str = "drill") -> str:
    """A one-name ref is written backquoted like Drill's FieldReference serializer (both
    dialects read that as the same single name); a 2013 multi-segment ref stays a dotted path
    (an extension: the dialect option tells the reader to split it)."""
    if len(ref.segments) == 1 and isinstance(ref.segments[0], str):
        return "`" + ref.segments[0].replace("`", "") + "`"
    return path_text(ref)


def operator_to_json(op: Operator, dialect: str = "drill") -> dict[str, Any]:
    # 2013's constant is today's values (same content, same meaning)
    out: dict[str, Any] = {"op": "values" if isinstance(op, Constant) else op.op, "@id": op.id}
    if op.memo:
        out["memo"] = op.memo

    def ref(r: FieldPath | None) -> str | None:
        return None if r is None else ref_text(r, dialect)

    def named(items: tuple[NamedExpression, ...]) -> list[dict[str, str]]:
        return [{"ref": ref_text(n.ref, dialect), "expr": to_text(n.expr)} for n in items]

    def orderings(items: tuple[Ordering, ...]) -> list[dict[str, str]]:
        # 2013's nullCollation first/last is today's nullDirection FIRST/LAST
        return [
            {"order": o.direction, "expr": to_text(o.expr), "nullDirection": o.null_direction}
            for o in items
        ]

    if isinstance(op, Store | Project | Filter | Transform | Order | Limit | Flatten | Segment
                  | WindowFrame | CollapsingAggregate | RunningAggregate | GroupingAggregate | Window):
        out["input"] = op.input
    if isinstance(op, Scan):
        out["storageengine"] = op.storage_engine
        out["selection"] = op.selection
        if op.ref is not None:
            out["ref"] = ref(op.ref)
    elif isinstance(op, Values | Constant):
        out["content"] = op.content
    elif isinstance(op, Join):
        out.update(left=op.left, right=op.right, type=op.type)
        out["conditions"] = [
            {"relationship": c.relationship, "left": to_text(c.left), "right": to_text(c.right)}
            for c in op.conditions
        ]
        if op.duplicates != "merge":
            out["duplicates"] = op.duplicates
    elif isinstance(op, LateralJoin):
        out.update(left=op.left, right=op.right)
        if op.type != "INNER":
            out["type"] = op.type
    elif isinstance(op, Unnest):
        out["column"] = path_text(op.column)
    elif isinstance(op, SetOperator):
        out.update(inputs=list(op.inputs), distinct=op.distinct)
    elif isinstance(op, Store):
        if op.storage_engine is not None:
            out["storageEngine"] = op.storage_engine  # as today's Drill writes it (getter name)
        out["target"] = op.target
        if op.partition is not None:
            out["partition"] = op.partition
    elif isinstance(op, Project):
        out["projections"] = named(op.projections)
    elif isinstance(op, Filter):
        out["expr"] = to_text(op.expr)
    elif isinstance(op, Transform):
        out["transforms"] = named(op.transforms)
    elif isinstance(op, Order):
        if op.within is not None:
            out["within"] = ref(op.within)
        out["orderings"] = orderings(op.orderings)
    elif isinstance(op, Limit):
        out.update(first=op.first, last=op.last)
    elif isinstance(op, Flatten):
        out.update(name=ref(op.name), expr=to_text(op.expr), drop=op.drop)
    elif isinstance(op, Segment):
        out.update(ref=ref(op.ref), exprs=[to_text(e) for e in op.exprs])
    elif isinstance(op, WindowFrame):
        if op.within is not None:
            out["within"] = ref(op.within)
        out.update(start=op.start, end=op.end)
        out["ref"] = {"segment": ref(op.ref.segment), "position": ref(op.ref.position)}
    elif isinstance(op, CollapsingAggregate):
        out.update(within=ref(op.within), target=ref(op.target))
        out["carryovers"] = [ref(c) for c in op.carryovers]
        out["aggregations"] = named(op.aggregations)
    elif isinstance(op, RunningAggregate):
        out["within"] = ref(op.within)
        out["aggregations"] = named(op.aggregations)
    elif isinstance(op, GroupingAggregate):
        out.update(keys=named(op.keys), exprs=named(op.exprs))
    elif isinstance(op, Window):
        out.update(withins=named(op.withins), aggregations=named(op.aggregations),
                   orderings=orderings(op.orderings), start=op.start, end=op.end)
        if op.frame_units_rows is not None:
            out["frameUnitsRows"] = op.frame_units_rows
    elif isinstance(op, CustomOperator):
        if op.single_input and len(op.inputs) == 1:
            out["input"] = op.inputs[0]
        elif op.inputs or not op.single_input:
            out["inputs"] = list(op.inputs)
        out.update(op.properties)
    else:
        raise TypeError(f"cannot write operator {op!r}")
    return out
