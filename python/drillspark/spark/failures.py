"""Finding the plan operator behind a row-level runtime failure.

drillspark's own refusals of a value name their operator in the error (spark/row_errors.py):
read off the message, no second run. Spark reports its own bad values (a division by zero, an
overflow) when rows are computed, long after translation, and its error context points at
drillspark's own code rather than at the plan (naming the operator there would need Catalyst's
origin through py4j: no JVM access on the Python side, and none at all on Spark Connect). When
such an error reaches the result, the operators' DataFrames are run again in topological order
through Spark's `noop` sink (every column is computed, nothing is kept): the first one that
fails holds the failing expression, since all its inputs ran cleanly before it. This costs a
re-run, but only on the failure path."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame

from drillspark.spark.row_errors import tagged_operator

MAX_OPERATORS = 50  # larger plans are not searched (the message then names only the plan)
_DATA_EXCEPTION = re.compile(r"SQLSTATE: (22\d\d\d|P0001)")
# raise_error's USER_RAISED_EXCEPTION: drillspark's Drill-style value errors (a text a cast
# cannot read: "NumberFormatException: abc", casts.py; split_part, to_number) are raise_error
# on the bad row's value, as is a query's own raise_error
_RAISED = "P0001"


def is_row_error(error: BaseException) -> bool:
    """Whether `error` is caused by a value in some row rather than by the plan: a data
    exception (SQLSTATE class 22: bad cast input, division by zero, overflow, ...) or an
    error raised by `raise_error` on a row."""
    state = None
    getter = getattr(error, "getSqlState", None)
    if callable(getter):
        try:
            state = getter()
        except Exception:
            state = None
    if state:
        return str(state).startswith("22") or state == _RAISED
    return bool(_DATA_EXCEPTION.search(str(error)))


@dataclass(frozen=True)
class Located:
    """The plan operator a row-level failure was traced to."""

    op_id: int
    op: str

    def __str__(self) -> str:
        return f"operator @{self.op_id} ({self.op})"


def locate(error: BaseException, frames: Iterable[tuple[Any, DataFrame]]) -> Located | None:
    """The operator a row error names (spark/row_errors), else the first operator whose
    DataFrame fails, or None."""
    if not is_row_error(error):
        return None
    tagged = tagged_operator(str(error))
    if tagged is not None:  # drillspark's own value refusal: no second run
        return Located(*tagged)
    for i, (op, df) in enumerate(frames):
        if i >= MAX_OPERATORS:
            return None
        try:
            df.write.format("noop").mode("overwrite").save()
        except Exception as e:
            return Located(op.id, op.op) if is_row_error(e) else None
    return None
