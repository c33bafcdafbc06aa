"""Drill type names (as in `cast(x as varchar(10))`, mock scans and provided schemas) mapped to
Spark SQL types."""

from __future__ import annotations

import re
from functools import cache

from pyspark.sql import types as T

from drillspark import rules
from drillspark.errors import ExecutionError

_TYPE_RE = re.compile(
    r"^\s*([A-Za-z_][A-Za-z_0-9 ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?\))?\s*$"
)


class UnknownTypeError(ExecutionError, ValueError):
    pass


def drill_type(
    name: str, precision: int | None = None, scale: int | None = None, *, schema: bool = False
) -> T.DataType:
    """The Spark type for a Drill type name such as `varchar(10)`, `BIGINT`, `decimal18(9, 2)`:
    the table rules/drill_types.tsv, which the extension's provided schema reads too. Digits
    count for decimals only. `schema`: the name is a provided schema's column type, where the
    table refuses some names (as Drill does)."""
    m = _TYPE_RE.match(name)
    if not m:
        raise UnknownTypeError(f"unknown Drill type {name!r}")
    base = " ".join(m.group(1).upper().split())
    if m.group(2) is not None and precision is None:
        precision = int(m.group(2))
        scale = int(m.group(3)) if m.group(3) is not None else scale
    known = rules.drill_types()
    row = known.get(base)
    if row is None:
        raise UnknownTypeError(f"unknown Drill type {name!r}; known: {', '.join(sorted(known))}")
    if schema and row.schema == "refused":
        raise UnknownTypeError(f"Drill type {name!r} is not taken by a provided schema: {row.note}")
    spark = _spark_type(row.spark)
    if isinstance(spark, T.DecimalType) and precision is not None:
        p = min(precision, 38)
        return T.DecimalType(p, max(0, min(scale if scale is not None else 0, p)))
    return spark


@cache
def _spark_type(json_name: str) -> T.DataType:
    """A type as Spark's JSON schema names it (`long`, `decimal(38,0)`, `time(3)`)."""
    field = {"name": "c", "type": json_name, "nullable": True, "metadata": {}}
    return T.StructField.fromJson(field).dataType


# Spark type -> Drill's minor type name: the JVM's rule (functions/DrillTypeNames.scala, behind
# typeof and drilltypeof) for the Python code that names a type without running Spark (the
# REST API's column metadata); tests/foundation/test_type_names.py asks the JVM over a column of
# every type, so the two cannot drift. Drill's maps are structs here, its DICT a Spark map, its
# UNION a VARIANT.
_MINOR_TYPES: dict[type[T.DataType], str] = {
    T.NullType: "NULL",
    T.BooleanType: "BIT",
    T.ByteType: "TINYINT",
    T.ShortType: "SMALLINT",
    T.IntegerType: "INT",
    T.LongType: "BIGINT",
    T.FloatType: "FLOAT4",
    T.DoubleType: "FLOAT8",
    T.DecimalType: "VARDECIMAL",
    T.StringType: "VARCHAR",
    T.CharType: "VARCHAR",
    T.VarcharType: "VARCHAR",
    T.BinaryType: "VARBINARY",
    T.DateType: "DATE",
    T.TimestampType: "TIMESTAMP",
    T.TimestampNTZType: "TIMESTAMP",
    T.TimeType: "TIME",
    T.YearMonthIntervalType: "INTERVALYEAR",
    T.DayTimeIntervalType: "INTERVALDAY",
    T.CalendarIntervalType: "INTERVAL",
    T.StructType: "MAP",
    T.MapType: "DICT",
    T.ArrayType: "LIST",
    T.VariantType: "UNION",
}


def drill_name_of(spark_type: T.DataType) -> str:
    """Drill's minor type name for a Spark type (`drilltypeof()`): an array reports its
    element's (Drill's repeated type), an array of arrays is Drill's LIST."""
    if isinstance(spark_type, T.ArrayType) and not isinstance(spark_type.elementType, T.ArrayType):
        spark_type = spark_type.elementType
    return _MINOR_TYPES.get(type(spark_type), spark_type.typeName().upper())
