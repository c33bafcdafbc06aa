"""The root of drillspark's errors, its families, and turning errors from Spark (JVM or
Connect) into one readable paragraph.

    Error
    ├── PlanFailure       a plan that cannot be read or checked (PlanError, JsonSyntaxError, ...)
    ├── SqlError          a SQL statement that cannot be compiled (drillspark.sql.errors)
    ├── ExecutionError    a plan that fails while it is translated or run; carries `op_id`,
    │                     `op`, `property` and `detail` (PlanExecutionError, DrillRuntimeError,
    │                     storage, function and operator errors)
    └── UsageError        bad configuration or command-line use (CliError, BindError, ...)

Each class keeps the builtin base its callers catch (`class PlanError(PlanFailure,
ValueError)`), so `except ValueError` still works. This module imports nothing of drillspark:
every layer may import it.
"""

from __future__ import annotations

import re
from typing import Any, Self


class Error(Exception):
    """Every error drillspark raises on purpose."""


class PlanFailure(Error):
    """A logical plan (or one of its expressions) that cannot be read, checked or explained."""


class UsageError(Error):
    """Bad configuration, command-line arguments or server set-up."""


class ExecutionError(Error):
    """A plan that fails while it is translated to Spark or while its rows are computed.

    `op_id` / `op` name the plan operator (`@id` and its `op` name) when known, `property`
    the operator property whose expression failed (`projections[0].expr`), `line` / `column`
    the place in that expression, and `detail` the message without the operator's place
    (None when the message does not name the operator, e.g. a file error naming its file).
    Whoever knows a fact sets it where the error is raised; `locate` fills the ones still
    missing on the way out, never overwriting what an inner layer knew."""

    op_id: Any = None  # the plan's @id (an int), or the id a caller gave an Arrow operator
    op: str | None = None
    property: str | None = None
    line: int | None = None
    column: int | None = None
    detail: str | None = None

    def locate(
        self,
        op_id: Any = None,
        op: str | None = None,
        property: str | None = None,
        detail: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> Self:
        for name, value in (
            ("op_id", op_id),
            ("op", op),
            ("property", property),
            ("detail", detail),
            ("line", line),
            ("column", column),
        ):
            if value is not None and getattr(self, name) is None:
                setattr(self, name, value)
        return self


# drillspark's own refusals of a row's value start their message with the plan operator that
# built them (spark/row_errors.py), so that a failure is located without running the query
# again; messages for people leave the tag out
ROW_ERROR_TAG = re.compile(r"\{drillspark operator @(-?\d+) ([^{}]+)\} ")


def untag(text: str) -> str:
    """`text` without the operator tags of row errors."""
    return ROW_ERROR_TAG.sub("", text)


def describe(error: BaseException) -> str:
    """A short message for `error`: Spark's error condition and first message line, without
    the JVM stack trace that py4j or Connect attach."""
    return untag(_describe(error))


def _describe(error: BaseException) -> str:
    try:
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - pyspark is a dependency
        PySparkException = ()  # type: ignore[assignment,misc]
    if "java.lang.StackOverflowError" in str(error):
        return (
            "the query or plan nests too deeply for Spark (java.lang.StackOverflowError in "
            "the JVM); shorten the chain of operators or expressions"
        )
    waited = _waited_for(str(error))
    if waited is not None:
        return waited
    if isinstance(error, PySparkException):
        condition = error.getCondition() if hasattr(error, "getCondition") else None
        # a JVM exception without an error condition (IllegalArgumentException) has an empty
        # getMessage(); its text is str()
        text = (error.getMessage() if hasattr(error, "getMessage") else "") or str(error)
        first = _first_paragraph(text)
        return f"[{condition}] {first}" if condition and condition not in first else first
    return _first_paragraph(str(error)) or type(error).__name__


# Spark's ThreadUtils.awaitResult (the Arrow answer's served stream, a broadcast, a subquery)
# wraps the failure it waited for, whose message is then only a "Caused by:" of the trace
_AWAIT = "Exception thrown in awaitResult"


def _waited_for(text: str) -> str | None:
    """The first paragraph of the failure a wait wrapped (the first cause that is not itself
    such a wrapper), or None when `text` is no such wrapper's or names no cause (Spark
    Connect's texts carry no trace: described as any other error)."""
    cause = None
    while _AWAIT in _first_paragraph(text) and "Caused by:" in text:
        text = cause = text.split("Caused by:", 1)[1]
    if cause is None:
        return None
    return _first_paragraph(cause) or None


def _first_paragraph(text: str) -> str:
    lines: list[str] = []
    for line in text.strip().splitlines():
        stripped = line.strip()
        if stripped.startswith(("at ", "JVM stacktrace:", "Caused by:", "...")) or not stripped:
            if lines:
                break
            continue
        lines.append(stripped)
    return " ".join(lines)
