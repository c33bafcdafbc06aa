"""Errors of the operator protocol: the error a STOP carries, and bad operator properties."""

from __future__ import annotations

from dataclasses import dataclass

from drillspark.errors import ExecutionError


class OperatorPropertyError(ExecutionError, ValueError):
    """An operator's properties are invalid; `.errors` lists every problem found."""

    def __init__(self, operator: str, errors: list[str], op_id: object = None):
        self.operator = operator
        self.op_id = op_id
        self.errors = list(errors)
        where = f"operator '{operator}'" + (f" @{op_id}" if op_id is not None else "")
        super().__init__(f"{where}: invalid properties: " + "; ".join(self.errors))


class ProtocolError(ExecutionError, RuntimeError):
    """An operator or its caller broke the iterator protocol (a bug, never bad data)."""


@dataclass(frozen=True)
class InputPosition:
    """Where in its input an operator was when it failed: the batch number (0-based) and the
    half-open row range of that batch within the operator's whole input stream."""

    batch: int
    first_row: int
    end_row: int

    def __str__(self) -> str:
        if self.batch < 0:
            return "before its first input batch"
        if self.end_row <= self.first_row:
            return f"input batch {self.batch} (starting at row {self.first_row})"
        return f"input batch {self.batch} (rows {self.first_row}..{self.end_row - 1})"


class OperatorError(ExecutionError, RuntimeError):
    """The error a STOP carries: which operator failed, where in its input, and why.

    Operators above the failing one return STOP with this same object, so whoever drives
    the tree sees the original operator and position, not the root."""

    def __init__(
        self,
        operator: str,
        position: InputPosition,
        cause: BaseException,
        op_id: object = None,
        partition: int | None = None,
    ):
        self.operator = operator
        self.op_id = op_id
        self.position = position
        self.cause = cause
        self.partition = partition
        where = f"operator '{operator}'" + (f" @{op_id}" if op_id is not None else "")
        part = f" in Spark partition {partition}" if partition is not None else ""
        detail = str(cause) or type(cause).__name__
        super().__init__(f"{where} failed at {position}{part}: {type(cause).__name__}: {detail}")
        self.__cause__ = cause

    def in_partition(self, partition: int | None) -> OperatorError:
        """The same error, also naming the Spark partition it happened in."""
        return OperatorError(self.operator, self.position, self.cause, self.op_id, partition)
