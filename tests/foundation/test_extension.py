"""The extension loads from the jar and its functions work from SQL and the DataFrame API."""

from __future__ import annotations

import pyspark.sql.functions as F

import drillspark


def test_drill_version_from_sql(spark):
    assert spark.sql("SELECT drill_version() AS v").first().v == drillspark.__version__


def test_drill_version_from_call_function_and_expr(spark):
    df = spark.range(1)
    row = df.select(
        F.call_function("drill_version").alias("a"), F.expr("drill_version()").alias("b")
    ).first()
    assert row.a == row.b == drillspark.__version__


def test_spark_builtin_flatten_still_spark_s(spark):
    # Injecting a function named `flatten` would replace Spark's own; ours are drill_-prefixed.
    assert spark.sql("SELECT flatten(array(array(1, 2), array(3))) AS f").first().f == [1, 2, 3]


def test_describe_function_shows_usage(spark):
    text = "\n".join(r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED drill_version").collect())
    assert "Returns the version of the drillspark extension jar" in text


def test_wrong_arity_names_the_function_and_position(spark):
    import pytest
    from pyspark.errors import PySparkException

    with pytest.raises(
        PySparkException,
        match=r"WRONG_NUM_ARGS.*`drill_version` requires 0 parameters.*line 1 pos 7",
    ):
        spark.sql("SELECT drill_version(1)").collect()
