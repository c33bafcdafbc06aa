"""EXPLAIN for logical plans: normalized JSON, an indented text tree, Graphviz DOT, or SVG."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from typing import Any, TypeVar

from drillspark.errors import PlanFailure
from drillspark.plan.expressions import path_text, quote_name, to_text
from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import (
    CollapsingAggregate,
    Constant,
    CustomOperator,
    Except,
    Filter,
    Flatten,
    GroupingAggregate,
    Intersect,
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
    SemiJoin,
    Store,
    Transform,
    Union,
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


class _Text:
    """Refs and named expressions for reading: quoted only where needed."""

    def __init__(self, dialect: str):
        self.dialect = dialect

    def ref(self, r: Any) -> str:
        return path_text(r) if self.dialect == "2013" or len(r.segments) > 1 else quote_name(r.root)

    def named(self, items: tuple[NamedExpression, ...]) -> str:
        return ", ".join(f"{self.ref(n.ref)} = {to_text(n.expr)}" for n in items)

    def within(self, r: Any) -> str:
        return f" within {self.ref(r)}" if r else ""


Op = TypeVar("Op", bound=Operator)
Describer = Callable[[Any, _Text], str]


def _scan(op: Scan, t: _Text) -> str:
    out = f"{op.storage_engine} {json.dumps(op.selection, separators=(',', ':'))}"
    return out + (f" as {t.ref(op.ref)}" if op.ref is not None else "")


def _content(op: Values | Constant, t: _Text) -> str:
    return f"{len(op.content) if isinstance(op.content, list) else '?'} record(s)"


def _join(op: Join, t: _Text) -> str:
    conds = " and ".join(
        [f"{to_text(c.left)} {c.relationship} {to_text(c.right)}" for c in op.conditions]
        + ([f"({to_text(op.condition)})"] if op.condition is not None else [])
    )
    return f"{op.type} on {conds or 'true (cartesian)'}"


def _store(op: Store, t: _Text) -> str:
    target = "" if op.target is None else " " + json.dumps(op.target, separators=(",", ":"))
    return f"{op.storage_engine or '(result)'}{target}"


def _order(op: Order, t: _Text) -> str:
    parts = [
        f"{to_text(o.expr)} {o.direction} nulls {'first' if o.nulls_first else 'last'}"
        for o in op.orderings
    ]
    return ", ".join(parts) + t.within(op.within)


def _limit(op: Limit, t: _Text) -> str:
    return f"[{op.first if op.first is not None else 0}, {op.last if op.last is not None else '∞'})"


def _windowframe(op: WindowFrame, t: _Text) -> str:
    return (
        f"[{op.start}, {op.end}] -> {t.ref(op.ref.segment)}, {t.ref(op.ref.position)}"
        + t.within(op.within)
    )


def _collapsing(op: CollapsingAggregate, t: _Text) -> str:
    out = t.named(op.aggregations)
    if op.carryovers:
        out += f"; carry {', '.join(t.ref(c) for c in op.carryovers)}"
    return out + t.within(op.within)


def _window(op: Window, t: _Text) -> str:
    units = "range" if op.frame_units_rows is False else "rows"
    return f"{t.named(op.aggregations)} {units} [{op.start}, {op.end}]"


def _entry(cls: type[Op], describe: Callable[[Op, _Text], str]) -> tuple[type[Operator], Describer]:
    # one call per operator, so mypy checks the function takes that class
    return cls, describe


# The one-line detail of each operator class (explain's text tree and DOT labels).
DESCRIBERS: dict[type[Operator], Describer] = dict(
    [
        _entry(Scan, _scan),
        _entry(Values, _content),
        _entry(Constant, _content),
        _entry(Join, _join),
        _entry(SemiJoin, _join),
        _entry(LateralJoin, lambda op, t: op.type),
        *(
            _entry(cls, lambda op, t: "distinct" if op.distinct else "all")
            for cls in (Union, Except, Intersect)
        ),
        _entry(Unnest, lambda op, t: path_text(op.column)),
        _entry(Store, _store),
        _entry(Project, lambda op, t: t.named(op.projections)),
        _entry(Transform, lambda op, t: t.named(op.transforms)),
        _entry(Filter, lambda op, t: to_text(op.expr)),
        _entry(Order, _order),
        _entry(Limit, _limit),
        _entry(
            Flatten,
            lambda op, t: (
                f"{t.ref(op.name)} = flatten({to_text(op.expr)}){' drop' if op.drop else ''}"
            ),
        ),
        _entry(
            Segment, lambda op, t: f"{t.ref(op.ref)} by {', '.join(to_text(e) for e in op.exprs)}"
        ),
        _entry(WindowFrame, _windowframe),
        _entry(CollapsingAggregate, _collapsing),
        _entry(RunningAggregate, lambda op, t: t.named(op.aggregations) + t.within(op.within)),
        _entry(GroupingAggregate, lambda op, t: f"keys {t.named(op.keys)}; {t.named(op.exprs)}"),
        _entry(Window, _window),
        _entry(
            CustomOperator, lambda op, t: json.dumps(dict(op.properties), separators=(",", ":"))
        ),
    ]
)


def describe(op: Operator, dialect: str = "drill") -> str:
    """One line about an operator's arguments ('' for a class with no describer)."""
    found = DESCRIBERS.get(type(op))
    return found(op, _Text(dialect)) if found is not None else ""


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
        labels = (
            ["left: ", "right: "]
            if isinstance(op, Join | LateralJoin)
            else [""] * len(op.input_ids)
        )
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
        names = (
            ["left", "right"] if isinstance(op, Join | LateralJoin) else [None] * len(op.input_ids)
        )
        for name, child in zip(names, op.input_ids, strict=True):
            attr = f' [label="{name}"]' if name else ""
            out.append(f"  op{child} -> op{op.id}{attr};")
    out.append("}")
    return "\n".join(out)


def to_svg(plan: LogicalPlan) -> str:
    dot = shutil.which("dot")
    if dot is None:
        raise ExplainError(GRAPHVIZ_HINT)
    done = subprocess.run(
        [dot, "-Tsvg"], input=to_dot(plan), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ExplainError(f"dot failed: {done.stderr.strip()}")
    return done.stdout
