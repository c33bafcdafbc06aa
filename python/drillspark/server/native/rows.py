"""An answer on its way to the native protocol: its rows as Arrow record batches (the
QueryManager's `arrow` writer), which vectors.py encodes column by column as Drill's value
vectors.

A Spark answer's batches are the ones Spark's JVM writes (Flight SQL's writer, batches.write:
streamed from the tasks, or collected whole for a small answer), so no row is ever a Python
object. Spark writes no Arrow for a year-month interval: such a column goes as its months
(an int, Drill's INTERVALYEAR value), cast by Spark first. An answer made without Spark (USE,
SHOW FILES, ...) is a few plain Python rows, written as their entries (vectors.entry_array)."""

from __future__ import annotations

import base64
import calendar
import datetime as _dt
import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from drillspark.server import values
from drillspark.server.flight import batches
from drillspark.server.native import vectors

_EPOCH = _dt.date(1970, 1, 1)


def write(
    df: Any, columns: list[str], rows: list[list[Any]] | None, whole: bool = False
) -> Iterator[Any]:
    """The QueryManager's `arrow` writer for the native protocol: the answer's Arrow schema,
    then its record batches."""
    if df is None:
        plain = rows or []
        metadata = [values.python_type([r[i] for r in plain]) for i in range(len(columns))]
        typed = vectors.columns_of(columns, None, metadata)
        arrays = [
            vectors.entry_array(c, [python_entry(r[i]) for r in plain]) for i, c in enumerate(typed)
        ]
        batch = pa.RecordBatch.from_arrays(arrays, names=columns)
        yield batch.schema
        yield batch
        return
    yield from batches.write(months(df), columns, None, whole)


def months(df: Any) -> Any:
    """`df` with each year-month interval column as its months (Drill's INTERVALYEAR value),
    as every door writes them."""
    return values.months(df)


def _timestamp_ms(value: _dt.datetime) -> int:
    if value.tzinfo is not None:
        return int(value.timestamp() * 1000)
    return calendar.timegm(value.timetuple()) * 1000 + value.microsecond // 1000


def python_entry(value: Any) -> Any:
    """A plain Python value (an answer made without Spark) as its entry."""
    if isinstance(value, _dt.datetime):
        return _timestamp_ms(value)
    if isinstance(value, _dt.date):
        return (value - _EPOCH).days
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict | list | tuple):  # MAP and lists: their JSON text
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)  # VARCHAR for any other type (values.python_type)
