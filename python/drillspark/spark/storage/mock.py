"""The `mock` storage engine: generated rows, as Drill's test plans use
(`selection: {entries: [{records: N, types: [{name, type, mode}]}]}`).

Values are deterministic functions of the row number so tests can predict them: integers
count up from 0 (wrapping at the type's width), floats are n + 0.5, booleans alternate,
strings are the column name plus the row number, dates/timestamps count days from 1970-01-01.
A `REPEATED` column holds two values per row.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.spark.drill_types import drill_type


class MockSelectionError(ExecutionError, ValueError):
    pass


def _value(name: str, type_name: str, n: Column) -> Column:
    t = drill_type(type_name)
    if isinstance(t, T.ByteType | T.ShortType | T.IntegerType | T.LongType):
        width = {T.ByteType: 7, T.ShortType: 15, T.IntegerType: 31, T.LongType: 63}[type(t)]
        return (n % F.lit(2**width) if width < 63 else n).cast(t)
    if isinstance(t, T.FloatType | T.DoubleType | T.DecimalType):
        return (n + F.lit(0.5)).cast(t)
    if isinstance(t, T.BooleanType):
        return (n % 2) == 0
    if isinstance(t, T.StringType):
        return F.concat(F.lit(f"{name}_"), n.cast("string"))
    if isinstance(t, T.BinaryType):
        return F.encode(F.concat(F.lit(f"{name}_"), n.cast("string")), "UTF-8")
    if isinstance(t, T.DateType):
        return F.date_add(F.lit("1970-01-01").cast("date"), n.cast("int"))
    if isinstance(t, T.TimestampNTZType | T.TimestampType):
        return F.timestamp_seconds(n * 86400).cast(t)
    return F.lit(None).cast(t)


def read_mock(spark: SparkSession, selection: Any) -> DataFrame:
    entries = (selection or {}).get("entries") if isinstance(selection, dict) else None
    if not entries:
        raise MockSelectionError("mock scan needs selection.entries: [{records, types}]")
    frames: list[DataFrame] = []
    for i, entry in enumerate(entries):
        records = int(entry.get("records", 0))
        types = entry.get("types") or []
        if not types:
            raise MockSelectionError(f"mock entry {i} has no types")
        n = F.col("id")
        cols = []
        for t in types:
            name, type_name = t["name"], t.get("type", "INT")
            v = _value(name, type_name, n)
            if str(t.get("mode", "")).upper() == "REPEATED":
                v = F.array(v, _value(name, type_name, n + 1))
            cols.append(v.alias(name))
        frames.append(spark.range(records).select(*cols))
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f, allowMissingColumns=True)
    return out
