"""Drill type names (as in `cast(x as varchar(10))`, mock scans and provided schemas) mapped to
Spark SQL types."""

from __future__ import annotations

import re

from pyspark.sql import types as T

from drillspark.errors import ExecutionError

# Drill minor type names (upper case) -> a builder of the Spark type; precision/length args
# are passed through where Spark has them.
_SIMPLE: dict[str, T.DataType] = {
    "TINYINT": T.ByteType(),
    "SMALLINT": T.ShortType(),
    "INT": T.IntegerType(),
    "INTEGER": T.IntegerType(),
    "BIGINT": T.LongType(),
    "UINT1": T.ShortType(),
    "UINT2": T.IntegerType(),
    "UINT4": T.LongType(),
    "UINT8": T.LongType(),
    "FLOAT4": T.FloatType(),
    "FLOAT": T.FloatType(),
    "REAL": T.FloatType(),
    "FLOAT8": T.DoubleType(),
    "DOUBLE": T.DoubleType(),
    "BIT": T.BooleanType(),
    "BOOLEAN": T.BooleanType(),
    "VARCHAR": T.StringType(),
    "CHAR": T.StringType(),
    "VAR16CHAR": T.StringType(),
    "STRING": T.StringType(),
    "VARBINARY": T.BinaryType(),
    "BINARY": T.BinaryType(),
    "DATE": T.DateType(),
    "TIMESTAMP": T.TimestampNTZType(),
    "TIMESTAMPTZ": T.TimestampType(),
    # Spark 4.1+'s TIME (behind `spark.sql.timeType.enabled`, which the translator turns on);
    # Drill's TIME holds milliseconds
    "TIME": T.TimeType(3),
    "INTERVAL": T.DayTimeIntervalType(),
    "INTERVALDAY": T.DayTimeIntervalType(),
    "INTERVALYEAR": T.YearMonthIntervalType(),
}
_DECIMALS = {
    "DECIMAL9",
    "DECIMAL18",
    "DECIMAL28DENSE",
    "DECIMAL28SPARSE",
    "DECIMAL38DENSE",
    "DECIMAL38SPARSE",
    "VARDECIMAL",
    "DECIMAL",
    "NUMERIC",
    "DEC",
}
_TYPE_RE = re.compile(
    r"^\s*([A-Za-z_][A-Za-z_0-9 ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?\))?\s*$"
)


class UnknownTypeError(ExecutionError, ValueError):
    pass


def drill_type(name: str, precision: int | None = None, scale: int | None = None) -> T.DataType:
    """The Spark type for a Drill type name such as `varchar(10)`, `BIGINT`, `decimal18(9, 2)`."""
    m = _TYPE_RE.match(name)
    if not m:
        raise UnknownTypeError(f"unknown Drill type {name!r}")
    base = m.group(1).upper().replace("CHARACTER VARYING", "VARCHAR").replace(" ", "")
    if m.group(2) is not None and precision is None:
        precision = int(m.group(2))
        scale = int(m.group(3)) if m.group(3) is not None else scale
    if base in _DECIMALS:
        p = min(precision if precision is not None else 38, 38)
        s = scale if scale is not None else (0 if precision is not None else 10)
        return T.DecimalType(p, max(0, min(s, p)))
    if base in _SIMPLE:
        return _SIMPLE[base]
    raise UnknownTypeError(
        f"unknown Drill type {name!r}; known: {', '.join(sorted(_SIMPLE) + sorted(_DECIMALS))}"
    )


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
