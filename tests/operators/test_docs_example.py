"""The plugin operator and functions written in docs/operators.md, run as a user would:
through the conformance kit, in a logical-plan node, from the DataFrame API and from SQL."""

from __future__ import annotations

import pyarrow as pa
import pytest
from docs_example import load
from pyspark.sql import functions as F

from drillspark import plugins
from drillspark.operators import OperatorPropertyError, run_fragment
from drillspark.operators.spark import (
    apply_plan_node,
    function_column,
    register_functions,
)
from drillspark.operators.testing import assert_conforms


@pytest.fixture(scope="module")
def example():
    module = load()
    yield module
    for name in ("scale", "drill_celsius", "drill_spread"):
        plugins.unregister(name)
    import sys

    sys.modules.pop("drillspark_docs_example", None)


def test_registered_under_its_names(example):
    assert plugins.registered_operator("Scale") is example.Scale
    assert plugins.registered_function("drill_celsius").kind == "scalar"
    assert plugins.registered_function("drill_spread").kind == "aggregate"


def test_its_properties_are_validated(example):
    assert example.Scale.validate_properties({"column": "v"}) == [
        "property 'factor' (a number) is required"
    ]
    with pytest.raises(OperatorPropertyError, match="'scale' @5"):
        example.Scale({"factor": 2}, op_id=5)


def test_it_passes_the_conformance_kit(example):
    sample = pa.RecordBatch.from_pydict({"v": [1, 2, 3], "w": ["a", "b", "c"]})
    assert_conforms(lambda: example.Scale(column="v", factor=2), sample)


def test_it_runs_on_arrow_batches(example):
    out = list(
        run_fragment(
            [pa.RecordBatch.from_pydict({"v": [1, 2]})], [example.Scale(column="v", factor=2.5)]
        )
    )
    assert out[0].to_pydict() == {"v": [2.5, 5.0]}


def test_it_runs_as_a_logical_plan_node_in_spark(spark, example):
    df = spark.createDataFrame([(1, "a"), (4, "b"), (None, "c")], "v int, w string").repartition(2)
    node = {"@id": 4, "op": "scale", "input": 3, "column": "v", "factor": 2.5, "memo": "x"}
    out = apply_plan_node(df, node)
    assert out.schema.simpleString() == "struct<v:double,w:string>"
    assert sorted(out.collect(), key=lambda r: r.w) == [(2.5, "a"), (10.0, "b"), (None, "c")]


def test_its_functions_run_from_the_dataframe_api(spark, example):
    df = spark.createDataFrame([("x", 32.0), ("x", 212.0), ("y", 50.0)], "city string, f double")
    celsius = df.select(function_column("drill_celsius", "f").alias("c")).collect()
    assert [r.c for r in celsius] == pytest.approx([0.0, 100.0, 10.0])
    spreads = dict(
        df.groupBy("city").agg(function_column("drill_spread", F.col("f")).alias("s")).collect()
    )
    assert spreads == {"x": 180.0, "y": 0.0}


def test_its_functions_run_from_sql(spark, example):
    spark.createDataFrame(
        [("x", 32.0), ("x", 212.0)], "city string, f double"
    ).createOrReplaceTempView("temps")
    assert {"drill_celsius", "drill_spread"} <= set(register_functions(spark))
    hot = spark.sql("SELECT drill_celsius(f) AS c FROM temps WHERE drill_celsius(f) > 50").collect()
    assert [r.c for r in hot] == [pytest.approx(100.0)]
    # Spark runs an Arrow aggregate only beside other Arrow/pandas aggregates.
    row = spark.sql("SELECT city, drill_spread(f) AS s FROM temps GROUP BY city").first()
    assert (row.city, row.s) == ("x", 180.0)
