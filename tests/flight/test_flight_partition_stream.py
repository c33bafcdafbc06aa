"""An Arrow answer not bounded by a small limit is streamed from its tasks, each task sending its
partition's batches from the JVM (the jar's `drillspark.server.PartitionStream`,
server/partition_stream.py; #37): no Spark Python worker forwards the JVM's bytes. The Flight
SQL and native writers' door (`server/flight/batches.write`), on real TPC-H lineitem rows
(../shared): several partitions' batches in the answer's order, one job per partition run by
the jar's sender, a task's failure raised, and a BI tool's GROUP BY without a LIMIT through
ADBC against a real server."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.scan.test_scan_job_counts import group_jobs

from drillspark.server.flight import batches

LINEITEM = "data/breadth/tpch/lineitem.parquet"
VIEW = "stream_lineitem"
ORDER = [("l_shipdate", "descending"), ("l_orderkey", "ascending"), ("l_linenumber", "ascending")]


@pytest.fixture
def lineitem(spark, shared):
    path = shared / LINEITEM
    spark.read.parquet(str(path)).createOrReplaceTempView(VIEW)
    # a sort over four range partitions, several Arrow batches in each
    keys = {
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.execution.arrow.maxRecordsPerBatch": "5000",
    }
    for k, v in keys.items():
        spark.conf.set(k, v)
    yield pq.read_table(path)
    for k in keys:
        spark.conf.unset(k)
    spark.catalog.dropTempView(VIEW)


def _streamed(spark, group: str, df) -> list[pa.RecordBatch]:
    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        out = list(batches.write(df, df.columns, None, whole=False))
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    assert isinstance(out[0], pa.Schema)
    return out[1:]


def test_several_partitions_stream_in_order_from_the_jvm(spark, lineitem):
    df = spark.sql(
        f"SELECT l_orderkey, l_linenumber, l_shipdate, l_comment FROM {VIEW} "
        "ORDER BY l_shipdate DESC, l_orderkey, l_linenumber"
    )
    got = pa.Table.from_batches(_streamed(spark, "stream-order", df))
    expected = lineitem.select(got.column_names).sort_by(ORDER)
    assert got.num_rows == lineitem.num_rows
    for name in ("l_orderkey", "l_linenumber", "l_comment"):
        assert got.column(name).to_pylist() == expected.column(name).to_pylist(), name
    # one job per partition, each task the jar's sender: no Python RDD in any stage
    store = spark.sparkContext._jsc.sc().statusStore()
    st = spark.sparkContext.statusTracker()
    stages = [max(st.getJobInfo(j).stageIds) for j in group_jobs(spark, "stream-order")]
    details = [store.lastStageAttempt(s).details() for s in stages]  # the result stages' call sites
    assert sum("PartitionStream" in d for d in details) == 4, details
    assert not any("PythonRDD" in d for d in details), details


def test_a_tasks_failure_is_raised(spark, lineitem):
    """A row the third partition cannot compute fails its job; the stream raises that failure
    rather than ending the answer early."""
    df = spark.sql(
        f"SELECT l_orderkey, IF(l_orderkey = {lineitem.column('l_orderkey')[30000].as_py()}, "
        "raise_error('bad row in the stream'), l_linenumber) AS n "
        f"FROM {VIEW} ORDER BY l_orderkey, n"
    )
    with pytest.raises(Exception, match="bad row in the stream"):
        _streamed(spark, "stream-failure", df)


def test_a_group_by_without_a_limit_through_adbc(adbc, shared):
    """A BI tool's chart as Tableau sends it (no LIMIT): streamed, the counts the file's."""
    table = pq.read_table(shared / LINEITEM, columns=["l_returnflag", "l_linestatus"])
    expected: dict[tuple[str, str], int] = {}
    for f, s in zip(*table.to_pydict().values(), strict=True):
        expected[(f, s)] = expected.get((f, s), 0) + 1
    with adbc.cursor() as cur:
        cur.execute(
            "SELECT l_returnflag, l_linestatus, count(*) AS n "
            "FROM dfs.data.`breadth/tpch/lineitem.parquet` GROUP BY l_returnflag, l_linestatus"
        )
        got = cur.fetch_arrow_table().to_pylist()
    assert {(r["l_returnflag"], r["l_linestatus"]): r["n"] for r in got} == expected
