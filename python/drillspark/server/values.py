"""Result columns as Drill 1.22's REST API sends them: the `metadata` type names and the JSON
form of each value (DATE/TIMESTAMP as epoch milliseconds, TIME as milliseconds of the day,
intervals as Joda period text, VARBINARY as base64, NaN/Infinity as strings, a FLOAT4 as the
double it widens to, map members that are null kept); and what every door does to an answer's
Spark types before it writes them (a year-month interval as its months)."""

from __future__ import annotations

import base64
import calendar
import datetime as _dt
import decimal
import json
import math
from collections.abc import Callable
from typing import Any

_EPOCH_DATE = _dt.date(1970, 1, 1)

Converter = Callable[[Any], Any]


class Raw(str):
    """JSON text written as is (a DECIMAL keeps its scale: 1.50, not 1.5)."""


def metadata_name(data_type: Any) -> str:
    """Drill's REST `metadata` entry for a Spark type: VARDECIMAL(p, s), MAP for structs,
    the element type for an array (REST does not mark repetition), LIST for a list of lists."""
    from pyspark.sql import types as T

    from drillspark.spark.drill_types import drill_name_of

    if isinstance(data_type, T.ArrayType):
        # a list of lists is Drill's repeated list, LIST (Drill 1.22's REST, Parquet and JSON)
        inner = data_type.elementType
        return "LIST" if isinstance(inner, T.ArrayType) else metadata_name(inner)
    if isinstance(data_type, T.DecimalType):
        return f"VARDECIMAL({data_type.precision}, {data_type.scale})"
    if isinstance(data_type, T.NullType):
        return "INT"  # Drill types an untyped null INT (`SELECT NULL AS x`: INT in 1.22)
    try:
        return drill_name_of(data_type)
    except Exception:  # a Spark type Drill has no name for: say what it is
        return data_type.simpleString().upper()


def _float(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _decimal(value: decimal.Decimal) -> Any:
    if not value.is_finite():
        return str(value)
    return Raw(format(value, "f"))


def _date(value: _dt.date) -> int:
    return (value - _EPOCH_DATE).days * 86_400_000


def _timestamp_ntz(value: _dt.datetime) -> int:
    return calendar.timegm(value.timetuple()) * 1000 + value.microsecond // 1000


def _timestamp_ltz(value: _dt.datetime) -> int:
    # PySpark gives a TIMESTAMP WITH LOCAL TIME ZONE as a naive datetime in the process's
    # zone, which .timestamp() reads as such
    return int(value.timestamp() * 1000)


def _time(value: _dt.time) -> int:
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def period_day(value: _dt.timedelta) -> str:
    """Joda's period text of a Drill INTERVALDAY: P1D, P1DT7384S, P1DT7384.500S, P-1D."""
    total_ms = round(value.total_seconds() * 1000)
    days, ms = int(total_ms / 86_400_000), total_ms - int(total_ms / 86_400_000) * 86_400_000
    out = "P"
    if days:
        out += f"{days}D"
    if ms or not days:
        # Joda prints the milliseconds, all three digits, only when there are some
        text = f"{ms / 1000:.3f}" if ms % 1000 else str(int(ms / 1000))
        out += f"T{text}S"
    return out


def period_year(months: int) -> str:
    """Joda's period text of a Drill INTERVALYEAR: P1Y2M, P3M, P0D for zero."""
    years, rest = int(months / 12), months - int(months / 12) * 12
    out = "P" + (f"{years}Y" if years else "") + (f"{rest}M" if rest else "")
    return out if out != "P" else "P0D"


def _binary(value: bytes | bytearray) -> str:
    return base64.b64encode(bytes(value)).decode("ascii")


# Spark scalar types, by class name (pyspark loads lazily), whose values Drill's REST API
# sends in another form; the others go as they are
_SCALARS: dict[str, Callable[[Any], Any]] = {
    # a FLOAT4 goes as the double it widens to (0.1f: 0.10000000149011612), as Drill's does
    "FloatType": _float,
    "DoubleType": _float,
    "DecimalType": _decimal,
    "TimestampNTZType": _timestamp_ntz,
    "TimestampType": _timestamp_ltz,
    "DateType": _date,
    "TimeType": _time,
    "DayTimeIntervalType": period_day,
    "YearMonthIntervalType": period_year,
    "BinaryType": _binary,
    # a schema-free value (CONVERT_FROM(..., 'JSON')): its JSON as Drill writes a map or list
    "VariantType": lambda v: python_value(v.toPython()),
}


def converter(data_type: Any) -> Converter:
    """A function from the Python value PySpark gives for `data_type` to Drill's REST JSON."""
    from pyspark.sql import types as T

    def nullable(f: Converter) -> Converter:
        return lambda v: None if v is None else f(v)

    if isinstance(data_type, T.StructType):
        fields = [(f.name, converter(f.dataType)) for f in data_type.fields]

        def struct(v: Any) -> dict[str, Any]:
            return {name: conv(v[i]) for i, (name, conv) in enumerate(fields)}

        return nullable(struct)
    # a repeated value is never null in Drill: a null list or DICT is sent empty (Drill 1.22
    # over a Parquet file's null list and map: `[]`); a DICT is its key/value pairs, as
    # Drill's REST sends a Parquet map (`[{"key":"k","value":1}]`)
    if isinstance(data_type, T.ArrayType):
        elem = converter(data_type.elementType)
        return lambda v: [] if v is None else [elem(x) for x in v]
    if isinstance(data_type, T.MapType):
        key, val = converter(data_type.keyType), converter(data_type.valueType)
        return lambda v: (
            [] if v is None else [{"key": key(k), "value": val(x)} for k, x in v.items()]
        )
    scalar = _SCALARS.get(type(data_type).__name__)
    if scalar is not None:
        return nullable(scalar)
    return lambda v: v


def python_value(value: Any) -> Any:
    """A value of a statement answered without Spark (USE, SHOW FILES, ...) in REST form."""
    if isinstance(value, _dt.datetime):
        return _timestamp_ntz(value)
    if isinstance(value, _dt.date):
        return _date(value)
    if isinstance(value, _dt.time):
        return _time(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, decimal.Decimal):
        return _decimal(value)
    if isinstance(value, bytes | bytearray):
        return _binary(value)
    if isinstance(value, dict):
        return {str(k): python_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [python_value(v) for v in value]
    return value


def python_type(values: list[Any]) -> str:
    """The metadata name for a column of Python values (the first non-null decides)."""
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            return "BIT"
        if isinstance(v, int):
            return "BIGINT"
        if isinstance(v, float):
            return "FLOAT8"
        if isinstance(v, _dt.datetime):
            return "TIMESTAMP"
        if isinstance(v, _dt.date):
            return "DATE"
        if isinstance(v, dict):
            return "MAP"
        return "VARCHAR"
    return "VARCHAR"


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
_STRING = json.encoder.encode_basestring  # json.dumps' form of a str with ensure_ascii=False


def dumps(value: Any) -> str:
    """Compact JSON as Drill's /query.json writes it (non-ASCII kept as is, Raw numbers
    verbatim). The commonest values first, each as json.dumps writes it, without json.dumps'
    per-call encoder: a large answer writes millions of them (#37)."""
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(_STRING(str(k)) + ":" + dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return _ENCODE(value)


def row_writer(names: list[str], converters: list[Converter]) -> Callable[[Any], str]:
    """One result row (a sequence of Python values) as Drill's JSON object text."""
    keys = [json.dumps(n, ensure_ascii=False) + ":" for n in names]
    pairs = list(zip(keys, converters, strict=True))

    def write(row: Any) -> str:
        return (
            "{"
            + ",".join(k + dumps(conv(v)) for (k, conv), v in zip(pairs, row, strict=True))
            + "}"
        )

    return write


def holds(data_type: Any, kind: str) -> bool:
    """Whether a Spark type is or holds (at any depth) a type of class name `kind`."""
    name = type(data_type).__name__
    if name == kind:
        return True
    if name == "StructType":
        return any(holds(f.dataType, kind) for f in data_type.fields)
    if name == "ArrayType":
        return holds(data_type.elementType, kind)
    if name == "MapType":
        return holds(data_type.keyType, kind) or holds(data_type.valueType, kind)
    return False


def is_year_month(data_type: Any) -> bool:
    """Whether a Spark type is a year-month interval (Drill's INTERVALYEAR)."""
    return type(data_type).__name__ == "YearMonthIntervalType"


def holds_year_month(data_type: Any) -> bool:
    """Whether a Spark type is or holds a year-month interval, which Spark writes no Arrow for
    and pyspark collects only as its months."""
    return holds(data_type, "YearMonthIntervalType")


def months(df: Any) -> Any:
    """`df` with each year-month interval column as its months, the int Drill's INTERVALYEAR
    stands for (Spark casts a YEAR, MONTH or YEAR TO MONTH interval to INTERVAL MONTH, and that
    to an int: a multi-unit interval has no int cast of its own)."""
    from pyspark.sql import functions as F

    fields = df.schema.fields
    if not any(is_year_month(f.dataType) for f in fields):
        return df
    names = [f"c{i}" for i in range(len(fields))]  # positional: answer names may repeat
    cols = []
    for name, f in zip(names, fields, strict=True):
        col = F.col(name)
        if is_year_month(f.dataType):
            col = col.cast("interval month").cast("int").alias(name)
        cols.append(col)
    return df.toDF(*names).select(*cols).toDF(*[f.name for f in fields])
