"""Drill's type functions: drill_typeof, drill_drilltypeof, drill_sqltypeof, drill_modeof."""

from __future__ import annotations

import re

from tests.functions.helpers import DRILL_ROOT, assert_case, case, read_json


def test_literals_case(spark, shared):
    c = case(shared, "drill.typeof.literals")
    # Drill SQL's typeOf is drill_typeof here. Spark 4.1+ has a TIME type, so the TIME literal
    # (c4) runs as written; the check below makes sure it really is Spark's TIME, not a string.
    q = re.sub(r"\btypeOf\(", "drill_typeof(", c["sql"])
    assert_case(spark.sql(q), c)
    row = spark.sql(
        "select typeof(time '01:00:20.123') s, drill_typeof(time '01:00:20.123') d"
    ).first()
    assert row.s.startswith("time(") and row.d == "TIME"


def test_json_file_v2_case(spark, shared):
    c = case(shared, "drill.typeof.json_file_v2")
    read_json(spark, shared / DRILL_ROOT / c["data"][0]).createOrReplaceTempView("t")
    # `x` is missing from the file: with Spark's own reader it is the typed NULL the
    # missing-column rule would produce (nullable VARCHAR); the drill source is tested elsewhere.
    q = re.sub(r"\btypeof\(", "drill_typeof(", c["sql"]).replace("(x)", "(cast(null as string))")
    q = re.sub(r"dfs\.`[^`]+`", "t", q)
    assert_case(spark.sql(q), c)


def test_null_values_report_their_columns_type(spark, shared):
    c = case(shared, "drill.typeof.json_file_v2")
    read_json(spark, shared / DRILL_ROOT / c["data"][0]).createOrReplaceTempView("t")
    row = spark.sql(
        "select drill_typeof(nu) a, drill_typeof(cast(null as int)) b, drill_typeof(null) c from t"
    ).first()
    assert tuple(row) == ("VARCHAR", "INT", "NULL")


def test_sql_type_names_and_modes(spark, citibike):
    row = citibike.selectExpr(
        "drill_sqltypeof(executionTime)",
        "drill_sqltypeof(stationBeanList)",
        "drill_sqltypeof(stationBeanList[0].id)",
        "drill_sqltypeof(stationBeanList[0].latitude)",
        "drill_sqltypeof(stationBeanList[0].testStation)",
        "drill_sqltypeof(stationBeanList[0])",
        "drill_sqltypeof(12.3)",
        "drill_sqltypeof(1)",
        "drill_modeof(executionTime)",
        "drill_modeof(stationBeanList)",
        "drill_modeof(stationBeanList[0])",
        "drill_modeof(1)",
    ).first()
    # Drill 1.22: sqltypeof of a repeated map is its element's, STRUCT (measured with query.sh)
    assert tuple(row) == (
        "CHARACTER VARYING",
        "STRUCT",
        "BIGINT",
        "DOUBLE",
        "BOOLEAN",
        "STRUCT",
        "DECIMAL(3, 1)",
        "INTEGER",
        "NULLABLE",
        "ARRAY",
        "NOT NULL",
        "NOT NULL",
    )


def test_typeof_of_array_is_element_type(spark, citibike):
    row = citibike.selectExpr(
        "drill_typeof(stationBeanList)",
        "drill_typeof(stationBeanList.id)",
        "drill_drilltypeof(stationBeanList.latitude)",
    ).first()
    assert tuple(row) == ("MAP", "BIGINT", "FLOAT8")


def test_variant_typeof_per_row_drilltypeof_union(spark):
    df = spark.sql("""select drill_typeof(v) t, drill_drilltypeof(v) d, drill_sqltypeof(v) s from
        (select parse_json(j) v from values ('1'), ('"a"'), ('1.5'), ('true'), ('{"a":1}'), ('[1]'), ('null') as x(j))""")
    got = [tuple(r) for r in df.collect()]
    assert [g[0] for g in got] == ["BIGINT", "VARCHAR", "FLOAT8", "BIT", "MAP", "LIST", "NULL"]
    assert {g[1] for g in got} == {"UNION"} and {g[2] for g in got} == {"UNION"}
