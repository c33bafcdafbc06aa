"""LogicalPlan: a DAG of operators plus the named storage engine configs."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from drillspark.plan.operators import Operator, role_of

if TYPE_CHECKING:
    from drillspark.plan.errors import PlanIssue
    from drillspark.plan.relaxed_json import Document, JsonPath

PlanDialect = Literal["drill", "2013"]

DEFAULT_HEAD: Mapping[str, Any] = {
    "type": "APACHE_DRILL_LOGICAL",
    "version": 1,
    "generator": {"type": "drillspark", "info": ""},
}


@dataclass(frozen=True)
class StorageConfig:
    """One entry of the plan's `storage` map: the engine `type` and its other properties."""

    type: str
    properties: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.properties}


@dataclass(frozen=True)
class SourceInfo:
    """Where a parsed plan came from; used for error locations, never for equality."""

    document: Document | None = None
    file: str | None = None
    op_paths: Mapping[int, JsonPath] = field(default_factory=dict)
    # operators whose @id was written in the source (others were numbered by the parser)
    explicit_ids: frozenset[int] = frozenset()
    # id(operator object) -> its JSON path (tells apart operators sharing a duplicate @id)
    object_paths: Mapping[int, JsonPath] = field(default_factory=dict)
    # things accepted but worth telling (a repeated field name), as PlanIssues
    warnings: tuple[PlanIssue, ...] = ()

    def path_of(self, op: Operator) -> JsonPath | None:
        """The JSON path of the operator object (sequence steps: inside `do`)."""
        return self.object_paths.get(id(op)) or self.op_paths.get(op.id)


@dataclass(frozen=True)
class LogicalPlan:
    """A Drill logical plan.

    `operators` is in topological order (every operator after its inputs; ties keep source
    order). `storage` maps engine names to configs. `head` is the plan properties object.
    `dialect` is "drill" (today's) or "2013" (the seed's): it decides how refs were read.
    """

    operators: tuple[Operator, ...]
    storage: Mapping[str, StorageConfig] = field(default_factory=dict)
    head: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_HEAD))
    dialect: PlanDialect = "drill"
    source: SourceInfo | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "operators", topological_order(self.operators))
        object.__setattr__(self, "_by_id", {op.id: op for op in self.operators})

    @property
    def warnings(self) -> tuple[PlanIssue, ...]:
        """What parse accepted but reported as a PlanWarning (e.g. a repeated field name)."""
        return self.source.warnings if self.source is not None else ()

    # --- lookups -------------------------------------------------------------------------------

    def node(self, op_id: int) -> Operator:
        """The operator with this @id (KeyError if none)."""
        try:
            return self._by_id[op_id]  # type: ignore[attr-defined]
        except KeyError:
            raise KeyError(f"no operator with @id {op_id}") from None

    def __contains__(self, op_id: object) -> bool:
        return op_id in self._by_id  # type: ignore[attr-defined]

    def inputs_of(self, node: Operator | int) -> tuple[Operator, ...]:
        """The operators `node` reads, in input order (join: left, right)."""
        op = self.node(node) if isinstance(node, int) else node
        return tuple(self.node(i) for i in op.input_ids)

    def consumers_of(self, node: Operator | int) -> tuple[Operator, ...]:
        """The operators that read `node`'s output."""
        op_id = node if isinstance(node, int) else node.id
        return tuple(op for op in self.operators if op_id in op.input_ids)

    def sources(self) -> tuple[Operator, ...]:
        """Operators without inputs (the DAG's leaves: scan, values, constant)."""
        return tuple(op for op in self.operators if not op.input_ids)

    def sinks(self) -> tuple[Operator, ...]:
        """Sink operators (store)."""
        return tuple(op for op in self.operators if role_of(op) == "sink")

    def roots(self) -> tuple[Operator, ...]:
        """Operators nobody reads: the plan's outputs (usually the stores)."""
        used = {i for op in self.operators for i in op.input_ids}
        return tuple(op for op in self.operators if op.id not in used)

    # --- conversions ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Today's dialect as a JSON-ready dict: sequences expanded, every @id explicit."""
        from drillspark.plan.serialize import plan_to_json

        return plan_to_json(self)

    def to_json_text(self, indent: int | None = 2) -> str:
        import json

        return json.dumps(self.to_json(), indent=indent)

    def replace_operator(self, op: Operator) -> LogicalPlan:
        """A copy with the operator of the same id replaced by `op`."""
        ops = tuple(op if o.id == op.id else o for o in self.operators)
        return LogicalPlan(ops, self.storage, self.head, self.dialect, None)


def topological_order(ops: tuple[Operator, ...] | list[Operator]) -> tuple[Operator, ...]:
    """Kahn's order, smallest source position first among ready operators. Operators on a
    cycle or reading unknown ids keep their relative order at the end (validate reports them)."""
    ops = tuple(ops)
    index = {op.id: i for i, op in enumerate(ops)}
    waiting = {i: sum(1 for d in op.input_ids if d in index) for i, op in enumerate(ops)}
    readers: dict[int, list[int]] = {}
    for i, op in enumerate(ops):
        for d in op.input_ids:
            if d in index:
                readers.setdefault(index[d], []).append(i)
    ready = [i for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    out: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        out.append(i)
        for r in readers.get(i, ()):
            waiting[r] -= 1
            if waiting[r] == 0:
                heapq.heappush(ready, r)
    done = set(out)
    out.extend(i for i in range(len(ops)) if i not in done)
    return tuple(ops[i] for i in out)
