"""EXPLAIN for logical plans: normalized JSON, an indented text tree, Graphviz DOT, or SVG."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from drillspark.errors import PlanFailure
from drillspark.plan.expressions import path_text, quote_name, to_text
from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import (
    CollapsingAggregate,
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
    role_of,
)

FORMATS = ("text", "json", "dot", "svg")
GRAPHVIZ_HINT = (
    "the 'dot' program (Graphviz) is needed for SVG output and was not found on PATH; install it "
    "with `apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
    "`conda install graphviz`, or use --format dot and render the DOT text elsewhere"
)


class ExplainError(PlanFailure, RuntimeError):
    pass


def explain(plan: LogicalPlan, format: str = "text") -> str:
    if format == "json":
        return json.dumps(plan.to_json(), indent=2)
    if format == "text":
        return text_tree(plan)
    if format == "dot":
        return to_dot(plan)
    if format == "svg":
        return to_svg(plan)
    raise ValueError(f"unknown explain format {format!r}; use one of {', '.join(FORMATS)}")


def describe(op: Operator, dialect: str = "drill") -> str:
    """One line about an operator's arguments."""

    def ref(r: Any) -> str:
        # quote only where needed: explain output is for reading
        return path_text(r) if dialect == "2013" or len(r.segments) > 1 else quote_name(r.root)

    def named(items: tuple[NamedExpression, ...]) -> str:
        return ", ".join(f"{ref(n.ref)} = {to_text(n.expr)}" for n in items)

    if isinstance(op, Scan):
        out = f"{op.storage_engine} {json.dumps(op.selection, separators=(',', ':'))}"
        return out + (f" as {ref(op.ref)}" if op.ref is not None else "")
    if isinstance(op, Values) or op.op == "constant":
        content = getattr(op, "content", None)
        return f"{len(content) if isinstance(content, list) else '?'} record(s)"
    if isinstance(op, Join):
        conds = " and ".join(f"{to_text(c.left)} {c.relationship} {to_text(c.right)}" for c in op.conditions)
        return f"{op.type} on {conds or 'true (cartesian)'}"
    if isinstance(op, LateralJoin):
        return op.type
    if isinstance(op, SetOperator):
        return "distinct" if op.distinct else "all"
    if isinstance(op, Unnest):
        return path_text(op.column)
    if isinstance(op, Store):
        target = "" if op.target is None else " " + json.dumps(op.target, separators=(",", ":"))
        return f"{op.storage_engine or '(result)'}{target}"
    if isinstance(op, Project):
        return named(op.projections)
    if isinstance(op, Transform):
        return named(op.transforms)
    if isinstance(op, Filter):
        return to_text(op.expr)
    if isinstance(op, Order):
        parts = [f"{to_text(o.expr)} {o.direction} nulls {'first' if o.nulls_first else 'last'}" for o in op.orderings]
        return ", ".join(parts) + (f" within {ref(op.within)}" if op.within else "")
    if isinstance(op, Limit):
        return f"[{op.first if op.first is not None else 0}, {op.last if op.last is not None else '∞'})"
    if isinstance(op, Flatten):
        return f"{ref(op.name)} = flatten({to_text(op.expr)}){' drop' if op.drop else ''}"
    if isinstance(op, Segment):
        return f"{ref(op.ref)} by {', '.join(to_text(e) for e in op.exprs)}"
    if isinstance(op, WindowFrame):
        return (f"[{op.start}, {op.end}] -> {ref(op.ref.segment)}, {ref(op.ref.position)}"
                + (f" within {ref(op.within)}" if op.within else ""))
    if isinstance(op, CollapsingAggregate):
        out = named(op.aggregations)
        if op.carryovers:
            out += f"; carry {', '.join(ref(c) for c in op.carryovers)}"
        return out + (f" within {ref(op.within)}" if op.within else "")
    if isinstance(op, RunningAggregate):
        return named(op.aggregations) + (f" within {ref(op.within)}" if op.within else "")
    if isinstance(op, GroupingAggregate):
        return f"keys {named(op.keys)}; {named(op.exprs)}"
    if isinstance(op, Window):
        units = "range" if op.frame_units_rows is False else "rows"
        return f"{named(op.aggregations)} {units} [{op.start}, {op.end}]"
    if isinstance(op, CustomOperator):
        return json.dumps(dict(op.properties), separators=(",", ":"))
    return ""


def text_tree(plan: LogicalPlan) -> str:
    """Each root (usually a store) with its inputs indented below; an operator read by
    several others is written once and referred to as `(see @id N)` afterwards."""
    lines: list[str] = []
    seen: set[int] = set()

    def walk(op: Operator, depth: int, label: str) -> None:
        pad = "  " * depth
        head = f"{pad}{label}{op.op} @{op.id}"
        if op.id in seen:
            lines.append(f"{head} (see above)")
            return
        seen.add(op.id)
        detail = describe(op, plan.dialect)
        lines.append(f"{head}: {detail}" if detail else head)
        labels = ["left: ", "right: "] if isinstance(op, Join | LateralJoin) else [""] * len(op.input_ids)
        for lab, child_id in zip(labels, op.input_ids, strict=True):
            if child_id in plan:
                walk(plan.node(child_id), depth + 1, lab)
            else:
                lines.append(f"{pad}  {lab}<missing @{child_id}>")

    for root in plan.roots() or plan.operators[-1:]:
        walk(root, 0, "")
    return "\n".join(lines)


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_SHAPES = {"source": "cylinder", "sink": "box3d", "single": "box", "multi": "hexagon"}


def to_dot(plan: LogicalPlan) -> str:
    out = ["digraph logical_plan {", "  rankdir=BT;", '  node [fontname="Helvetica", fontsize=10];']
    for op in plan.operators:
        detail = describe(op, plan.dialect)
        if len(detail) > 60:
            detail = detail[:57] + "..."
        label = f"{op.op} @{op.id}" + (f"\n{detail}" if detail else "")
        out.append(f'  op{op.id} [label="{_dot_escape(label)}", shape={_SHAPES[role_of(op)]}];')
    for op in plan.operators:
        names = ["left", "right"] if isinstance(op, Join | LateralJoin) else [None] * len(op.input_ids)
        for name, child in zip(names, op.input_ids, strict=True):
            attr = f' [label="{name}"]' if name else ""
            out.append(f"  op{child} -> op{op.id}{attr};")
    out.append("}")
    return "\n".join(out)


def to_svg(plan: LogicalPlan) -> str:
    dot = shutil.which("dot")
    if dot is None:
        raise ExplainError(GRAPHVIZ_HINT)
    done = subprocess.run([dot, "-Tsvg"], input=to_dot(plan), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ExplainError(f"dot failed: {done.stderr.strip()}")
    return done.stdout
