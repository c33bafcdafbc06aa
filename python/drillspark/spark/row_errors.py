"""Value errors raised on a row, tagged with the plan operator that computes them.

drillspark's own refusals of a value (Drill's `NumberFormatException` of a cast, split_part's
index, to_number's pattern, a query's `raise_error`) are Spark `raise_error` calls that fail
when the bad row is computed, long after translation. Each carries the operator being
translated when it was built (`operator`, set by the translator), as a tag at the start of its
message, so that `failures.locate` reads the failing operator off the error instead of running
the operators again; `errors.describe` leaves the tag out of the messages people read. Plain Python over
public functions: the same on Spark Connect.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from pyspark.sql import Column
from pyspark.sql import functions as F

from drillspark.errors import ROW_ERROR_TAG

_CURRENT: ContextVar[tuple[int, str] | None] = ContextVar("drillspark_operator", default=None)


@contextlib.contextmanager
def operator(op_id: int, op: str) -> Iterator[None]:
    """Within this context, row errors built name operator `@op_id` (`op`)."""
    token = _CURRENT.set((op_id, op) if isinstance(op_id, int) else None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def raise_row_error(message: Column) -> Column:
    """`F.raise_error(message)`, tagged with the operator being translated (if any)."""
    current = _CURRENT.get()
    if current is not None:
        message = F.concat(F.lit(f"{{drillspark operator @{current[0]} {current[1]}}} "), message)
    return F.raise_error(message)


def tagged_operator(text: str) -> tuple[int, str] | None:
    """The operator (id, op) a row error's text was tagged with, or None."""
    m = ROW_ERROR_TAG.search(text)
    return (int(m.group(1)), m.group(2)) if m else None
