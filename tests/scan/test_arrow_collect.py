"""A DataFrame's answer as Arrow through the jar's `compat.ArrowCollect` (spark/arrow_collect.py,
#37): the stream of Spark's own `collectAsArrowToPython`, collected through a function Spark's
closure cleaner skips. The same table as pyspark's `toArrow()` (schema and values, the order of
several partitions' batches, no rows, Spark's Arrow settings), one job, and a failing job's
error raised as Spark raises it. Real TPC-H lineitem rows (../shared) and Drill's `cp` data."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from tests.scan.test_scan_job_counts import jobs_of

import drillspark
from drillspark.result import DrillRuntimeError
from drillspark.spark import arrow_collect
from drillspark.sql.session import default_cp_root

LINEITEM = "data/breadth/tpch/lineitem.parquet"
VIEW = "arrow_lineitem"


@pytest.fixture
def lineitem(spark, shared):
    path = shared / LINEITEM
    spark.read.parquet(str(path)).repartition(3).createOrReplaceTempView(VIEW)
    yield pq.read_table(path)
    spark.catalog.dropTempView(VIEW)


def test_several_partitions_in_the_answers_order(spark, lineitem):
    """A global ORDER BY over several partitions: each partition's batches in its place (the
    stream's order indices), the same table as Spark's own collect and as the file sorted."""
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "1000")  # several a partition
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # keep the sort's partitions
    try:
        df = spark.sql(
            f"SELECT l_orderkey, l_linenumber, l_quantity, l_shipdate, l_comment FROM {VIEW} "
            "ORDER BY l_shipdate DESC, l_orderkey, l_linenumber"
        )
        assert df.rdd.getNumPartitions() > 1
        jobs, ours = jobs_of(spark, "arrow-collect-order", lambda: arrow_collect.table(df))
        theirs = df.toArrow()
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
        spark.conf.unset("spark.sql.adaptive.enabled")
    assert jobs == 1
    assert ours.schema == theirs.schema and ours.equals(theirs)
    expected = lineitem.select(ours.column_names).sort_by(
        [("l_shipdate", "descending"), ("l_orderkey", "ascending"), ("l_linenumber", "ascending")]
    )
    assert ours.num_rows == lineitem.num_rows
    assert ours.column("l_orderkey").to_pylist() == expected.column("l_orderkey").to_pylist()
    assert ours.column("l_comment").to_pylist() == expected.column("l_comment").to_pylist()


def test_no_rows_is_an_empty_table_of_the_answers_schema(spark, lineitem):
    df = spark.sql(f"SELECT l_orderkey, l_quantity FROM {VIEW} WHERE l_orderkey < 0")
    ours = arrow_collect.table(df)
    assert ours.num_rows == 0 and ours.schema == df.toArrow().schema
    assert arrow_collect.batches(df) == []


def test_sparks_arrow_settings_are_kept(spark, lineitem):
    """Large var types (the answer's strings as large_string) and self-destruct (each column
    copied into its own allocation) as Spark's own collect has them."""
    df = spark.sql(f"SELECT l_returnflag, count(*) AS n FROM {VIEW} GROUP BY l_returnflag")
    keys = (
        "spark.sql.execution.arrow.useLargeVarTypes",
        "spark.sql.execution.arrow.pyspark.selfDestruct.enabled",
    )
    for key in keys:
        spark.conf.set(key, "true")
    try:
        ours, theirs = arrow_collect.table(df), df.toArrow()
    finally:
        for key in keys:
            spark.conf.unset(key)
    assert ours.schema.field("l_returnflag").type == pa.large_string()
    assert ours.schema == theirs.schema
    assert ours.sort_by("l_returnflag").equals(theirs.sort_by("l_returnflag"))
    flags = pc.value_counts(lineitem.column("l_returnflag")).to_pylist()
    assert dict(zip(*ours.to_pydict().values(), strict=True)) == {
        f["values"]: f["counts"] for f in flags
    }


def test_drill_sql_to_arrow_over_cp_sample_data(spark):
    """`drillspark.sql(...).to_arrow()`, a chart over the bundled `cp` employees."""
    records = [json.loads(line) for line in (default_cp_root() / "employee.json").open()]
    counts: dict[str, int] = {}
    for r in records:
        counts[r["position_title"]] = counts.get(r["position_title"], 0) + 1
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    table = drillspark.sql(
        "SELECT position_title, count(*) AS n FROM cp.`employee.json` "
        "GROUP BY position_title ORDER BY n DESC, position_title LIMIT 5"
    ).to_arrow()
    assert list(zip(*table.to_pydict().values(), strict=True)) == expected


def test_a_failing_job_raises_its_error_and_the_session_goes_on(spark):
    """A row the statement cannot compute fails the job in the serving thread: the error is
    raised here (Drill's runtime error, naming the cast), not lost with the stream."""
    lines = (default_cp_root() / "employee.json").read_text().splitlines()
    bad = drillspark.sql("SELECT CAST(full_name AS INT) AS n FROM cp.`employee.json`")
    with pytest.raises(DrillRuntimeError) as info:
        bad.to_arrow()
    first = json.loads(lines[0])["full_name"]
    assert f"NumberFormatException: {first}" in str(info.value), info.value
    again = drillspark.sql("SELECT count(*) AS n FROM cp.`employee.json`").to_arrow()
    assert again.column("n").to_pylist() == [len(lines)]


@pytest.mark.parametrize("fetch", ["to_arrow", "to_pandas", "collect"])
def test_a_tasks_own_failure_is_named_by_its_cause_through_every_fetch(spark, recwarn, fetch):
    """A task failing with an exception of the JVM's own (an invalid regular expression, not a
    row's value) is served through a wait whose wrapper ("Exception thrown in awaitResult") held
    the cause only in its trace: the message names the cause, in one paragraph, as collect's
    does, and to_pandas adds no warning carrying the JVM's stack trace."""
    bad = drillspark.sql(
        "SELECT REGEXP_MATCHES(full_name, '(') AS m FROM cp.`employee.json` LIMIT 3"
    )
    with pytest.raises(DrillRuntimeError) as info:
        getattr(bad, fetch)()
    text = str(info.value)
    assert "PatternSyntaxException: Unclosed group" in text, text
    assert "awaitResult" not in text and "\n" not in text, text
    assert not [w for w in recwarn if "java." in str(w.message)], [str(w.message) for w in recwarn]
