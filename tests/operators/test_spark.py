"""Operators and functions inside Spark (local[2]) through mapInArrow and Arrow UDFs."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyspark.errors import PySparkException
from pyspark.sql import functions as F

import drillspark
from drillspark import errors, plugins
from drillspark.operators import BatchLimits, SingleInputOperator
from drillspark.operators.nested_filter import NestedFilter
from drillspark.operators.spark import (
    apply_operator,
    apply_operator_within,
    apply_operators,
    arrow_schema,
    function_column,
    register_functions,
    spark_udf,
)

APPENDIX = [
    ({"b": 1, "x": 5}, 1),
    ([{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}], 2),
    ({"b": 2, "x": [1, 2, 3, 4, 5]}, 3),
    ({"b": 3, "x": [1, 2]}, 4),
]


def test_appendix_worked_example_in_spark(spark):
    df = spark.createDataFrame([(json.dumps(a), c) for a, c in APPENDIX], "a string, c long")
    out = apply_operator(df, "nested-filter", {"path": "a.x", "relationship": ">", "value": 3})
    got = sorted((r.c, json.loads(r.a)) for r in out.collect())
    assert got == [
        (1, {"b": 1, "x": 5}),
        (2, [{"q": 3, "x": 5}]),
        (3, {"b": 2, "x": [4, 5]}),
    ]


def test_appendix_nested_arrays_in_spark(spark):
    df = spark.createDataFrame(
        [(1, [[{"x": 1}, {"x": 4}], [{"x": 5}]]), (2, [[{"x": 2}]])],
        "id long, a array<array<struct<x:long>>>",
    )
    out = apply_operator(df, NestedFilter, {"path": "a.x", "relationship": ">", "value": 3})
    assert out.schema == df.schema
    assert [r.asDict(recursive=True) for r in out.collect()] == [
        {"id": 1, "a": [[{"x": 4}], [{"x": 5}]]}
    ]


def test_python_operator_agrees_with_spark_higher_order_functions(spark):
    # Independent oracle: the same filter written natively with filter()/size().
    df = (
        spark.range(0, 3000, numPartitions=3)
        .withColumn(
            "a",
            F.when(F.col("id") % 11 == 0, F.lit(None)).otherwise(
                F.transform(
                    F.sequence(F.lit(0), (F.col("id") % 5).cast("int")),
                    lambda i: F.struct(((F.col("id") * 7 + i * 13) % 10).alias("x"), i.alias("k")),
                )
            ),
        )
        .withColumn("c", F.col("id").cast("string"))
    )
    python = apply_operator(df, "nested-filter", {"path": "a.x", "relationship": ">=", "value": 7})
    native = df.withColumn("a", F.filter("a", lambda e: e["x"] >= 7)).where(F.size("a") > 0)
    assert python.schema == native.schema
    assert python.count() > 500
    assert python.exceptAll(native).count() == 0 and native.exceptAll(python).count() == 0


def test_more_partitions_than_rows_loses_nothing(spark):
    df = spark.createDataFrame(
        [([{"x": i}],) for i in range(3)], "a array<struct<x:long>>"
    ).repartition(5)
    out = apply_operator(df, "nested-filter", {"path": "a.x", "relationship": ">=", "value": 0})
    assert sorted(r.a[0].x for r in out.collect()) == [0, 1, 2]


def test_timestamps_use_the_session_time_zone(spark):
    df = spark.sql(
        "SELECT array(named_struct('t', timestamp'2019-05-01 00:00:00'),"
        " named_struct('t', timestamp'2021-05-01 00:00:00')) AS e"
    )
    assert arrow_schema(df).field("e").type.value_type.field("t").type == pa.timestamp(
        "us", tz="UTC"
    )
    out = apply_operator(
        df, "nested-filter", {"path": "e.t", "relationship": ">", "value": "2020-01-01"}
    )
    assert [r.e[0].t for r in out.collect()] == [dt.datetime(2021, 5, 1)]


class BatchSizes(SingleInputOperator):
    """One output row per input batch: how many rows it had."""

    def output_schema(self, input_schema):
        return pa.schema([("rows", pa.int64())])

    def process(self, batch):
        return pa.RecordBatch.from_pydict(
            {"rows": [batch.num_rows]}, schema=pa.schema([("rows", pa.int64())])
        )


def test_batch_limits_hold_inside_spark(spark):
    df = spark.range(0, 1000, numPartitions=2)
    sizes = [
        r.rows for r in apply_operators(df, [BatchSizes()], limits=BatchLimits(rows=128)).collect()
    ]
    assert sum(sizes) == 1000 and max(sizes) == 128
    default = [
        r.rows
        for r in apply_operators(spark.range(0, 20000, numPartitions=1), [BatchSizes()]).collect()
    ]
    assert sum(default) == 20000 and max(default) == 4096


def test_chain_of_operators_in_one_pass(spark):
    df = spark.createDataFrame(
        [([{"x": 1}, {"x": 8}], [{"y": 2}]), ([{"x": 9}], [{"y": 0}])],
        "a array<struct<x:long>>, b array<struct<y:long>>",
    )
    out = apply_operators(
        df,
        [
            NestedFilter(path="a.x", relationship=">", value=5),
            NestedFilter(path="b.y", relationship=">", value=1),
        ],
    )
    assert [r.asDict(recursive=True) for r in out.collect()] == [{"a": [{"x": 8}], "b": [{"y": 2}]}]


class FailOnFive(SingleInputOperator):
    def process(self, batch):
        if pc.any(pc.equal(batch.column("id"), 5)).as_py():
            raise ZeroDivisionError("five is not allowed")
        return batch


def test_failure_names_operator_id_position_and_partition(spark):
    df = spark.range(0, 10, numPartitions=1)
    with pytest.raises(PySparkException) as info:
        apply_operator(df, FailOnFive, op_id=9, limits=BatchLimits(rows=4)).collect()
    message = errors.describe(info.value)
    assert (
        "operator 'FailOnFive' @9 failed at input batch 1 (rows 4..7) in Spark partition 0: "
        "ZeroDivisionError: five is not allowed" in message
    )


def test_schema_time_errors_come_before_any_job(spark):
    df = spark.createDataFrame([([{"x": "s"}],)], "a array<struct<x:string>>")
    with pytest.raises(ValueError, match=r"'nested-filter' @3: cannot compare a\.x \(string\) > 3"):
        apply_operator(
            df, "nested-filter", {"path": "a.x", "relationship": ">", "value": 3}, op_id=3
        )


# ---- functions -----------------------------------------------------------------------------
@pytest.fixture
def registered():
    names = []
    yield names
    for name in names:
        plugins.unregister(name)


def test_pandas_style_functions(spark, registered):
    registered += ["drill_len_p", "drill_mean_p"]
    drillspark.function("drill_len_p", returns="int", style="pandas")(lambda s: s.str.len())
    drillspark.function("drill_mean_p", kind="aggregate", returns="double", style="pandas")(
        lambda s: float(s.mean())
    )
    df = spark.createDataFrame([("ab", 1.0), ("abcd", 3.0)], "s string, v double")
    assert [r[0] for r in df.select(function_column("drill_len_p", "s")).collect()] == [2, 4]
    assert df.agg(function_column("drill_mean_p", "v")).first()[0] == 2.0


def test_function_column_is_named_after_the_function(spark, registered):
    registered.append("drill_neg")
    drillspark.function("drill_neg", returns="long")(pc.negate)
    df = spark.range(3)
    assert df.select(function_column("drill_neg", "id")).columns == ["drill_neg(id)"]
    assert [r[0] for r in df.select(function_column("drill_neg", F.col("id"))).collect()] == [
        0,
        -1,
        -2,
    ]


def test_spark_builtin_names_are_refused(spark, registered):
    registered.append("upper")
    drillspark.function("upper", returns="string")(pc.utf8_upper)
    with pytest.raises(ValueError, match="register it as 'drill_upper'"):
        register_functions(spark, ["upper"])
    assert spark.sql("SELECT upper('a')").first()[0] == "A"


def test_drillspark_jar_function_names_are_refused(spark, registered):
    registered.append("drill_repeated_count")
    drillspark.function("drill_repeated_count", returns="int")(pc.list_value_length)
    with pytest.raises(ValueError) as refused:
        register_functions(spark, ["drill_repeated_count"])
    message = str(refused.value)
    assert "would hide drillspark's own function 'drill_repeated_count'" in message
    assert "drillspark.functions." in message  # the jar class it would shadow
    # The jar's function is untouched: REPEATED_COUNT of a null array is 0 (not null).
    got = spark.sql("SELECT drill_repeated_count(array(1, 2)), drill_repeated_count(NULL)")
    assert tuple(got.first()) == (2, 0)


def test_registering_the_same_python_function_twice_is_fine(spark, registered):
    registered.append("drill_twice")
    drillspark.function("drill_twice", returns="long")(lambda v: pc.multiply(v, 2))
    assert register_functions(spark, ["drill_twice"]) == ["drill_twice"]
    assert register_functions(spark, ["drill_twice"]) == ["drill_twice"]
    assert spark.sql("SELECT drill_twice(21)").first()[0] == 42


def test_re_registering_a_name_builds_a_fresh_udf(spark, registered):
    registered.append("drill_step")
    df = spark.range(2)
    got = []
    for step in (1, 10, 100):  # each registration replaces the last; none may be served stale
        plugins.unregister("drill_step")
        drillspark.function("drill_step", returns="long")(lambda v, s=step: pc.add(v, s))
        got.append([r[0] for r in df.select(function_column("drill_step", "id")).collect()])
    assert got == [[1, 2], [10, 11], [100, 101]]
    assert spark_udf("drill_step") is spark_udf("drill_step")  # cached while unchanged


class Count(SingleInputOperator):
    """Blocking: one row per run, the number of input rows, emitted by finish()."""

    SCHEMA = pa.schema([("k", pa.int64()), ("n", pa.int64())])

    def output_schema(self, input_schema):
        return self.SCHEMA

    def configure(self):
        self.n = 0
        self.k = None

    def process(self, batch):
        self.n += batch.num_rows
        self.k = batch.column("k")[0].as_py() if batch.num_rows else self.k
        return None

    def finish(self):
        return pa.RecordBatch.from_pydict({"k": [self.k], "n": [self.n]}, schema=self.SCHEMA)


def test_operator_within_segments_starts_fresh_per_group(spark):
    df = spark.range(0, 100, numPartitions=3).withColumn("k", F.col("id") % 3)
    out = apply_operator_within(df, ["k"], Count, limits=BatchLimits(rows=8))
    assert sorted(tuple(r) for r in out.collect()) == [(0, 34), (1, 33), (2, 33)]


def test_variant_columns_are_refused_at_schema_time_with_the_way_out(spark):
    df = spark.sql("""SELECT parse_json('{"x": 5}') AS a""")
    with pytest.raises(ValueError, match=r"a is a VARIANT.*to_json\(a\)"):
        apply_operator(df, "nested-filter", {"path": "a.x", "relationship": ">", "value": 3})
    as_text = df.select(F.to_json("a").alias("a"))
    out = apply_operator(as_text, "nested-filter", {"path": "a.x", "relationship": ">", "value": 3})
    assert [json.loads(r.a) for r in out.collect()] == [{"x": 5}]
