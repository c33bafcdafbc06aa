"""Plan errors: every problem found, each with its place."""

from __future__ import annotations

from dataclasses import dataclass

from drillspark.errors import PlanFailure


@dataclass(frozen=True)
class PlanIssue:
    """One problem in a plan.

    `op_id` is the operator's @id (None for problems outside operators, e.g. in `storage`);
    `path` the JSON path (`$.query[2].expr`); `line`/`column` the 1-based place in the source
    text when the plan was parsed from text; `file` the source file if any.
    """

    message: str
    op_id: int | None = None
    path: str = "$"
    line: int | None = None
    column: int | None = None
    file: str | None = None

    def __str__(self) -> str:
        where = self.file or "<plan>"
        if self.line is not None:
            where += f":{self.line}:{self.column}"
        op = f" @id {self.op_id}" if self.op_id is not None else ""
        return f"{where}:{op} {self.path}: {self.message}"


class PlanError(PlanFailure, ValueError):
    """An invalid plan; `.errors` lists every problem found (in source order)."""

    def __init__(self, errors: list[PlanIssue]):
        self.errors = list(errors)
        count = len(self.errors)
        head = f"invalid logical plan ({count} error{'s' if count != 1 else ''})"
        super().__init__(head + ":\n" + "\n".join(f"  {e}" for e in self.errors))


class PlanWarning(UserWarning):
    """Something Drill accepts but that is likely a mistake (a repeated field name: the last
    value wins). `parse` issues one per case via `warnings.warn`; `LogicalPlan.warnings`
    keeps them as PlanIssues."""
