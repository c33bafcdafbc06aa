"""Drill's name for a Spark type is the JVM's rule (functions/DrillTypeNames.scala, behind
`typeof` and `drilltypeof`); the Python side names types without Spark in one place,
spark/drill_types.py (`drill_name_of`: the REST API's column metadata). This asks the JVM
over a column of every type the Python table names (a new entry without a column here fails),
so the two cannot drift apart."""

from __future__ import annotations

from pyspark.sql import functions as F

from drillspark.spark.drill_types import _MINOR_TYPES, drill_name_of

# a column of each Spark type drillspark meets
VALUES = {
    "bit": "true",
    "tinyint": "CAST(1 AS TINYINT)",
    "smallint": "CAST(1 AS SMALLINT)",
    "int": "1",
    "bigint": "CAST(1 AS BIGINT)",
    "float4": "CAST(1.5 AS FLOAT)",
    "float8": "CAST(1.5 AS DOUBLE)",
    "decimal": "CAST(1.5 AS DECIMAL(9, 2))",
    "varchar": "'a'",
    "char_n": "CAST('a' AS CHAR(3))",  # CharType / VarcharType kept (preserveCharVarcharTypeInfo)
    "varchar_n": "CAST('a' AS VARCHAR(3))",
    "varbinary": "X'01'",
    "date": "DATE'2024-01-02'",
    "timestamp": "TIMESTAMP_NTZ'2024-01-02 03:04:05'",
    "timestamp_ltz": "TIMESTAMP_LTZ'2024-01-02 03:04:05'",
    "time": "CAST('03:04:05' AS TIME(3))",
    "interval_year": "INTERVAL '1' YEAR",
    "interval_day": "INTERVAL '1' DAY",
    "interval": "make_interval(1, 2)",
    "map": "named_struct('a', 1)",
    "dict": "map('k', 1)",
    "array": "array(1, 2)",
    "array_of_maps": "array(named_struct('a', 1))",
    "list": "array(array(1))",
    "union": "parse_json('1')",
    "null": "NULL",
}


def test_python_and_jvm_name_every_type_alike(spark):
    select = ", ".join(f"{v} AS {k}" for k, v in VALUES.items())
    spark.conf.set("spark.sql.preserveCharVarcharTypeInfo", "true")
    try:
        df = spark.sql(f"SELECT {select}")
    finally:
        spark.conf.unset("spark.sql.preserveCharVarcharTypeInfo")
    kinds = {type(f.dataType) for f in df.schema.fields}
    assert set(_MINOR_TYPES) <= kinds, "a type the Python table names has no column here"
    # drilltypeof: the column's type (typeof names each VARIANT row's own)
    jvm = df.select(
        [F.call_function("drill_drilltypeof", F.col(k)).alias(k) for k in VALUES]
    ).first()
    python = {f.name: drill_name_of(f.dataType) for f in df.schema.fields}
    assert python == jvm.asDict()
