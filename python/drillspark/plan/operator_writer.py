"""Writing one operator's JSON properties in today's format: one public writer per operator
(`write_scan`, ...; plan/registry.py pairs each with its class). A writer returns the
operator's own properties in the order Drill writes them; `serialize.operator_to_json` puts
`op`, `@id`, `memo` and a single `input` before them."""

from __future__ import annotations

from typing import Any, TypeVar

from drillspark.plan.expressions import FieldPath, path_text, to_text
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

Json = dict[str, Any]
C = TypeVar("C", Values, Constant)


def ref_text(ref: FieldPath, dialect: str = "drill") -> str:
    """A one-name ref is written backquoted like Drill's FieldReference serializer (both
    dialects read that as the same single name); a 2013 multi-segment ref stays a dotted path
    (an extension: the dialect option tells the reader to split it)."""
    if len(ref.segments) == 1 and isinstance(ref.segments[0], str):
        return "`" + ref.segments[0].replace("`", "") + "`"
    return path_text(ref)


class JsonWriter:
    """Refs, named expressions and orderings in the plan's dialect."""

    def __init__(self, dialect: str = "drill"):
        self.dialect = dialect

    def ref(self, r: FieldPath | None) -> str | None:
        return None if r is None else ref_text(r, self.dialect)

    def named(self, items: tuple[NamedExpression, ...]) -> list[dict[str, str]]:
        return [{"ref": ref_text(n.ref, self.dialect), "expr": to_text(n.expr)} for n in items]

    def orderings(self, items: tuple[Ordering, ...]) -> list[dict[str, str]]:
        # 2013's nullCollation first/last is today's nullDirection FIRST/LAST
        return [
            {"order": o.direction, "expr": to_text(o.expr), "nullDirection": o.null_direction}
            for o in items
        ]


def write_scan(op: Scan, w: JsonWriter) -> Json:
    out: Json = {"storageengine": op.storage_engine, "selection": op.selection}
    if op.ref is not None:
        out["ref"] = w.ref(op.ref)
    return out


def write_content(op: C, w: JsonWriter) -> Json:
    return {"content": op.content}


def write_join(op: Join, w: JsonWriter) -> Json:
    out: Json = {"left": op.left, "right": op.right, "type": op.type}
    out["conditions"] = [
        {"relationship": c.relationship, "left": to_text(c.left), "right": to_text(c.right)}
        for c in op.conditions
    ]
    if op.duplicates != "merge":
        out["duplicates"] = op.duplicates
    if op.condition is not None:
        out["condition"] = to_text(op.condition)
    return out


def write_lateral(op: LateralJoin, w: JsonWriter) -> Json:
    out: Json = {"left": op.left, "right": op.right}
    if op.type != "INNER":
        out["type"] = op.type
    return out


def write_unnest(op: Unnest, w: JsonWriter) -> Json:
    return {"column": path_text(op.column)}


def write_set(op: SetOperator, w: JsonWriter) -> Json:
    return {"inputs": list(op.inputs), "distinct": op.distinct}


def write_store(op: Store, w: JsonWriter) -> Json:
    out: Json = {}
    if op.storage_engine is not None:
        out["storageEngine"] = op.storage_engine  # as today's Drill writes it (getter name)
    out["target"] = op.target
    if op.partition is not None:
        out["partition"] = op.partition
    return out


def write_project(op: Project, w: JsonWriter) -> Json:
    return {"projections": w.named(op.projections)}


def write_filter(op: Filter, w: JsonWriter) -> Json:
    return {"expr": to_text(op.expr)}


def write_transform(op: Transform, w: JsonWriter) -> Json:
    return {"transforms": w.named(op.transforms)}


def write_order(op: Order, w: JsonWriter) -> Json:
    out: Json = {}
    if op.within is not None:
        out["within"] = w.ref(op.within)
    out["orderings"] = w.orderings(op.orderings)
    return out


def write_limit(op: Limit, w: JsonWriter) -> Json:
    return {"first": op.first, "last": op.last}


def write_flatten(op: Flatten, w: JsonWriter) -> Json:
    return {"name": w.ref(op.name), "expr": to_text(op.expr), "drop": op.drop}


def write_segment(op: Segment, w: JsonWriter) -> Json:
    return {"ref": w.ref(op.ref), "exprs": [to_text(e) for e in op.exprs]}


def write_windowframe(op: WindowFrame, w: JsonWriter) -> Json:
    out: Json = {}
    if op.within is not None:
        out["within"] = w.ref(op.within)
    out.update(start=op.start, end=op.end)
    out["ref"] = {"segment": w.ref(op.ref.segment), "position": w.ref(op.ref.position)}
    return out


def write_collapsing(op: CollapsingAggregate, w: JsonWriter) -> Json:
    return {
        "within": w.ref(op.within),
        "target": w.ref(op.target),
        "carryovers": [w.ref(c) for c in op.carryovers],
        "aggregations": w.named(op.aggregations),
    }


def write_running(op: RunningAggregate, w: JsonWriter) -> Json:
    return {"within": w.ref(op.within), "aggregations": w.named(op.aggregations)}


def write_grouping(op: GroupingAggregate, w: JsonWriter) -> Json:
    return {"keys": w.named(op.keys), "exprs": w.named(op.exprs)}


def write_window(op: Window, w: JsonWriter) -> Json:
    out: Json = {
        "withins": w.named(op.withins),
        "aggregations": w.named(op.aggregations),
        "orderings": w.orderings(op.orderings),
        "start": op.start,
        "end": op.end,
    }
    if op.frame_units_rows is not None:
        out["frameUnitsRows"] = op.frame_units_rows
    return out


def write_custom(op: CustomOperator, w: JsonWriter) -> Json:
    out: Json = {}
    if op.single_input and len(op.inputs) == 1:
        out["input"] = op.inputs[0]
    elif op.inputs or not op.single_input:
        out["inputs"] = list(op.inputs)
    out.update(op.properties)
    return out
