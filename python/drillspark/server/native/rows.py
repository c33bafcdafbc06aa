"""Result rows on their way to the native protocol: each row as one line of JSON text (a
QueryManager `row_writer`), typed so that vectors.py can build Drill's value vectors from it.

The writer runs where the rows are made, in Spark's Python workers for a streamed answer, so it
imports nothing heavy. A row is a JSON array, one entry per column:

| Spark type | entry |
|---|---|
| boolean, integers, float, double | as is (NaN and infinities as JSON's NaN / Infinity) |
| decimal(p, s) | the unscaled integer (1.50 in decimal(5, 2) is 150) |
| string | the string |
| binary | base64 text |
| date | days since 1970-01-01 |
| timestamp (with or without zone) | milliseconds since the epoch |
| time | milliseconds of the day |
| day-time interval | [days, milliseconds] (both with the interval's sign) |
| year-month interval | months |
| struct | an array of its members' entries |
| array | an array of its elements' entries |
| map | an array of [key, value] entries |
| null | null |

For an answer made without Spark (the schema is None) the values are plain Python ones and
are written by their Python type, as the REST side names their types (values.python_type)."""

from __future__ import annotations

import base64
import calendar
import datetime as _dt
import decimal
import json
from collections.abc import Callable
from typing import Any

_EPOCH = _dt.date(1970, 1, 1)
_DAY_MS = 86_400_000

Encode = Callable[[Any], Any]


def unscaled(value: decimal.Decimal, scale: int) -> int:
    """The decimal's digits as an integer at `scale` (exact: no context rounding)."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):  # NaN / infinity: Spark's decimals never are
        raise ValueError(f"not a finite decimal: {value}")
    n = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    n = n * 10**shift if shift >= 0 else n // 10 ** (-shift)
    return -n if sign else n


def day_time(value: _dt.timedelta) -> list[int]:
    """[days, milliseconds] of an interval, Drill's INTERVALDAY parts (truncated to zero)."""
    total = round(value.total_seconds() * 1000)
    days = int(total / _DAY_MS)
    return [days, total - days * _DAY_MS]


def _timestamp_ntz(value: _dt.datetime) -> int:
    return calendar.timegm(value.timetuple()) * 1000 + value.microsecond // 1000


def _timestamp_ltz(value: _dt.datetime) -> int:
    # PySpark gives a TIMESTAMP WITH LOCAL TIME ZONE as a naive datetime in the process's zone
    return int(value.timestamp() * 1000) if value.tzinfo is None else _aware(value)


def _aware(value: _dt.datetime) -> int:
    return int(value.timestamp() * 1000)


def _time(value: _dt.time) -> int:
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def _nullable(f: Encode) -> Encode:
    return lambda v: None if v is None else f(v)


def encoder(data_type: Any) -> Encode:
    """How a value of a Spark type is written (the table above)."""
    name = type(data_type).__name__
    if name == "StructType":
        members = [encoder(f.dataType) for f in data_type.fields]
        return _nullable(lambda v: [enc(v[i]) for i, enc in enumerate(members)])
    if name == "ArrayType":
        element = encoder(data_type.elementType)
        return _nullable(lambda v: [element(x) for x in v])
    if name == "MapType":
        key, val = encoder(data_type.keyType), encoder(data_type.valueType)
        return _nullable(lambda v: [[key(k), val(x)] for k, x in v.items()])
    if name == "DecimalType":
        scale = data_type.scale
        return _nullable(lambda v: unscaled(v, scale))
    simple: dict[str, Encode] = {
        "BinaryType": lambda v: base64.b64encode(bytes(v)).decode("ascii"),
        "DateType": lambda v: (v - _EPOCH).days,
        "TimestampType": _timestamp_ltz,
        "TimestampNTZType": _timestamp_ntz,
        "TimeType": _time,
        "DayTimeIntervalType": day_time,
        "YearMonthIntervalType": int,
    }
    f = simple.get(name)
    return _nullable(f) if f is not None else (lambda v: v)


def python_entry(value: Any) -> Any:
    """A plain Python value (an answer made without Spark) as its entry."""
    if isinstance(value, _dt.datetime):
        return _timestamp_ntz(value) if value.tzinfo is None else _aware(value)
    if isinstance(value, _dt.date):
        return (value - _EPOCH).days
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict | list | tuple):  # MAP and lists: their JSON text
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)  # VARCHAR for any other type (values.python_type)


_AS_IS = {
    "BooleanType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
    "FloatType",
    "DoubleType",
    "StringType",
    "VarcharType",
    "CharType",
    "NullType",
}
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def row_writer(columns: list[str], schema: Any) -> Callable[[Any], str]:
    """A QueryManager `row_writer`: one row as a JSON array line."""
    if schema is None:
        return lambda row: _dumps([python_entry(v) for v in row])
    kinds = [type(f.dataType).__name__ for f in schema.fields]
    if all(k in _AS_IS for k in kinds):  # nothing to convert: the values as they are
        return lambda row: _dumps(list(row))
    encoders = [
        None if k in _AS_IS else encoder(f.dataType)
        for k, f in zip(kinds, schema.fields, strict=True)
    ]

    def write(row: Any) -> str:
        return _dumps([v if enc is None else enc(v) for enc, v in zip(encoders, row, strict=True)])

    return write
