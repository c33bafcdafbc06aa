"""Every drill_* function is registered, described, and callable from SQL and the DataFrame API."""

from __future__ import annotations

import pyspark.sql.functions as F
import pytest

FUNCTIONS = {
    "drill_flatten": "FLATTEN",
    "drill_kvgen": "KVGEN",
    "drill_mappify": "KVGEN",
    "drill_repeated_count": "REPEATED_COUNT",
    "drill_repeated_contains": "REPEATED_CONTAINS",
    "drill_typeof": "TYPEOF",
    "drill_drilltypeof": "DRILLTYPEOF",
    "drill_sqltypeof": "SQLTYPEOF",
    "drill_modeof": "MODEOF",
    "drill_convert_from": "CONVERT_FROM",
    "drill_convert_to": "CONVERT_TO",
    "drill_hash32": "HASH32",
    "drill_hash64": "HASH64",
    "drill_integer_text": "CAST",
    "drill_decimal_text": "CAST",
    "drill_date_part": "CAST",
    "drill_timestamp_part": "CAST",
    "drill_time_part": "CAST",
    "drill_max_varchar": "MAX",
    "drill_min_varchar": "MIN",
    "drill_any_varchar": "ANY_VALUE",
}


@pytest.mark.parametrize("name, drill_name", sorted(FUNCTIONS.items()))
def test_describe_function_shows_usage(spark, name, drill_name):
    text = "\n".join(r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED {name}").collect())
    assert f"Usage: {name}(" in text and f"Drill's {drill_name}" in text and "Examples:" in text


@pytest.mark.parametrize("name", sorted(FUNCTIONS) + ["drill_version"])
def test_describe_function_names_a_drillspark_class(spark, name):
    # Not the Spark expression a builder happens to return (Cast, Literal).
    text = "\n".join(r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED {name}").collect())
    (line,) = [x for x in text.splitlines() if x.startswith("Class:")]
    assert line.split()[1].startswith("drillspark.functions."), line


def test_listed_and_no_builtin_replaced(spark):
    names = {r.function for r in spark.sql("SHOW FUNCTIONS LIKE 'drill_*'").collect()}
    assert set(FUNCTIONS) <= {n.split(".")[-1] for n in names}
    assert spark.sql("select flatten(array(array(1), array(2))) f, typeof(1) t").first() == (
        [1, 2],
        "int",
    )


def test_callable_from_call_function_and_expr(spark):
    df = spark.createDataFrame([(1, [1, 2], {"a": 1})], "id int, a array<int>, m map<string,int>")
    row = df.select(
        F.call_function("drill_repeated_count", "a").alias("n"),
        F.expr("drill_repeated_contains(a, 2)").alias("c"),
        F.call_function("drill_kvgen", "m").alias("kv"),
        F.expr("drill_typeof(a)").alias("t"),
        F.call_function("drill_sqltypeof", "id").alias("s"),
        F.expr("drill_modeof(a)").alias("mo"),
    ).first()
    assert (row.n, row.c, [tuple(e) for e in row.kv], row.t, row.s, row.mo) == (
        2,
        True,
        [("a", 1)],
        "INT",
        "INTEGER",
        "ARRAY",
    )
    assert [r.x for r in df.select(F.expr("drill_flatten(a)").alias("x")).collect()] == [1, 2]


def test_wrong_arity_is_sparks_error_with_the_calls_position(spark):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match="`drill_flatten` requires 1 parameters") as e:
        spark.sql("select 1 a, drill_flatten(array(1), 2) f").collect()
    assert e.value.getCondition() == "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"
    (ctx,) = e.value.getQueryContext()
    assert (ctx.fragment(), ctx.startIndex()) == ("drill_flatten(array(1), 2)", 12)


def test_the_cast_checks_run_in_generated_code_as_interpreted(spark):
    # generated code calls each check's static method; with the fallback off a call that does
    # not compile fails here instead of running the stage interpreted (drill_date_part's `part`
    # once named both the case class's field and its method: no static forwarder was made)
    texts = ["12", "-0", "1.5e3", " 7", "2023/5/6 1:2:3", "99-1-3", "May 6", "12\n", None]
    texts += ["2023-5-6 7:8:9.1239", "7:8:9.5"]
    df = spark.createDataFrame([(t,) for t in texts], "s string").repartition(2)
    exprs = [
        "drill_integer_text(s) i",
        "drill_decimal_text(s) d",
        "drill_date_part(s, 1) y",
        "drill_date_part(s, 2) m",
        "drill_date_part(s, 3) dd",
    ] + [f"drill_timestamp_part(s, {k}) ts{k}" for k in range(1, 8)]
    exprs += [f"drill_time_part(s, {k}) t{k}" for k in range(1, 5)]
    spark.conf.set("spark.sql.codegen.fallback", "false")
    try:
        generated = {r[0]: tuple(r[1:]) for r in df.selectExpr("s", *exprs).collect()}
        spark.conf.set("spark.sql.codegen.wholeStage", "false")
        spark.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        interpreted = {r[0]: tuple(r[1:]) for r in df.selectExpr("s", *exprs).collect()}
    finally:
        spark.conf.unset("spark.sql.codegen.fallback")
        spark.conf.unset("spark.sql.codegen.wholeStage")
        spark.conf.unset("spark.sql.codegen.factoryMode")
    assert generated == interpreted
    got = {text: answers[:5] for text, answers in generated.items()}
    assert got["12"] == (True, True, None, None, None)
    assert got["1.5e3"] == (False, True, None, None, None)
    assert got[" 7"] == (False, False, None, None, None)
    assert got["12\n"] == (False, False, None, None, None)
    assert got["2023/5/6 1:2:3"] == (False, False, 2023, 5, 6)
    assert got["99-1-3"] == (False, False, 99, 1, 3)
    assert got[None] == (None, None, None, None, None)
    times = {text: answers[5:] for text, answers in generated.items()}
    assert times["2023-5-6 7:8:9.1239"] == (2023, 5, 6, 7, 8, 9, 123) + (None,) * 4
    assert times["99-1-3"] == (99, 1, 3, 0, 0, 0, 0) + (None,) * 4
    assert times["7:8:9.5"] == (None,) * 7 + (7, 8, 9, 500)
    assert times["2023/5/6 1:2:3"] == (None,) * 11
