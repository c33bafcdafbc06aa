"""The operator registry: for every built-in logical operator class, its JSON `op` name and
the functions that read it from plan JSON (plan/operator_reader.py) and write it back
(plan/operator_writer.py). The parser and the serializer look operators up here and nowhere
else; tests/plan/test_operator_registry.py checks that this table, the validator's,
the explainer's and the translator's cover the same set (plan.operators.BUILTIN_OPERATORS).

User operators (`CustomOperator`, registered with `@drillspark.operator(name)`) are read by
`OperatorProps.custom` (their name is looked up in plugins) and written by `write_custom`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from drillspark.errors import PlanFailure
from drillspark.plan import operator_reader as r
from drillspark.plan import operator_writer as w
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
)

Op = TypeVar("Op", bound=Operator)


@dataclass(frozen=True)
class OperatorSpec(Generic[Op]):
    """How one operator class maps to plan JSON. `json_op` is the name `to_json` writes: the
    class's own `OP` except where today's Drill has another name for the same operator."""

    cls: type[Op]
    read: Callable[[r.OperatorProps], Op]
    write: Callable[[Op, w.JsonWriter], dict[str, Any]]
    json_op: str

    @property
    def op(self) -> str:
        """The name the reader accepts."""
        return self.cls.OP


def spec(
    cls: type[Op],
    read: Callable[[r.OperatorProps], Op],
    write: Callable[[Op, w.JsonWriter], dict[str, Any]],
    json_op: str | None = None,
) -> OperatorSpec[Op]:
    # one call per operator, so mypy checks that its reader and writer are of that class
    return OperatorSpec(cls, read, write, json_op or cls.OP)


SPECS: tuple[OperatorSpec[Any], ...] = (
    spec(Scan, r.read_scan, w.write_scan),
    spec(Values, r.read_content(Values), w.write_content),
    # 2013's constant is today's values (same content, same meaning)
    spec(Constant, r.read_content(Constant), w.write_content, json_op="values"),
    spec(Unnest, r.read_unnest, w.write_unnest),
    spec(Join, r.read_join, w.write_join),
    spec(SemiJoin, r.read_semi_join, w.write_join),
    spec(LateralJoin, r.read_lateral, w.write_lateral),
    spec(Union, r.read_set(Union), w.write_set),
    spec(Except, r.read_set(Except), w.write_set),
    spec(Intersect, r.read_set(Intersect), w.write_set),
    spec(Store, r.read_store, w.write_store),
    spec(Project, r.read_project, w.write_project),
    spec(Filter, r.read_filter, w.write_filter),
    spec(Transform, r.read_transform, w.write_transform),
    spec(Order, r.read_order, w.write_order),
    spec(Limit, r.read_limit, w.write_limit),
    spec(Flatten, r.read_flatten, w.write_flatten),
    spec(Segment, r.read_segment, w.write_segment),
    spec(WindowFrame, r.read_windowframe, w.write_windowframe),
    spec(CollapsingAggregate, r.read_collapsing, w.write_collapsing),
    spec(RunningAggregate, r.read_running, w.write_running),
    spec(GroupingAggregate, r.read_grouping, w.write_grouping),
    spec(Window, r.read_window, w.write_window),
)
REGISTRY: dict[type[Operator], OperatorSpec[Any]] = {s.cls: s for s in SPECS}


class UnregisteredOperator(PlanFailure, TypeError):
    """An operator class no spec describes (a programming error in code that builds plans)."""


def spec_of(op: Operator | type[Operator]) -> OperatorSpec[Any]:
    cls = op if isinstance(op, type) else type(op)
    found = REGISTRY.get(cls)
    if found is None:
        where = "" if isinstance(op, type) else f"@{op.id} ({op.op}): "
        raise UnregisteredOperator(
            f"cannot write operator {where}{cls.__name__} is not in "
            "plan.registry (add an OperatorSpec)"
        )
    return found


def read_operator(cls: type[Operator], props: r.OperatorProps) -> Operator:
    """Build an operator of built-in class `cls` from its JSON (raises `Stop` when its
    errors are recorded on the plan reader)."""
    return REGISTRY[cls].read(props)


def write_body(op: Operator, writer: w.JsonWriter) -> tuple[str, dict[str, Any]]:
    """(`op` name to write, the operator's own properties) for any operator."""
    if isinstance(op, CustomOperator):
        return op.op, w.write_custom(op, writer)
    s = spec_of(op)
    return s.json_op, s.write(op, writer)
