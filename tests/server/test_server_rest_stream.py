"""A REST answer not bounded by a small limit (pandas' `read_sql` through sqlalchemy-drill sends
no LIMIT) is streamed from its tasks (server/partition_stream.py, `stream_rows`; #37): its first
partitions' tasks send Arrow batches from the JVM (the jar's `drillspark.server.PartitionStream`)
and the server makes their rows, as Spark Connect's client does; once ARROW_ROWS rows were made,
the next partitions are written in Spark's Python workers. Either way the rows are the ones the
same statement answers with a LIMIT (collected whole), value for value, over real files."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F
from tests.scan.test_scan_job_counts import group_jobs
from tests.server.helpers import Http

from drillspark.server import DrillServer, Limits, partition_stream
from drillspark.server.queries import rest_rows

NATION = "dfs.data.`breadth/tpch_json/nation.json`"
LINEITEM = "data/breadth/tpch/lineitem.parquet"

# one column of each kind a REST answer writes, made from each row of the file
TYPED = (
    "N_NATIONKEY AS i, N_NAME AS s, CAST(N_NATIONKEY AS INT) AS i4, "
    "CAST(N_NATIONKEY / 4.0 AS DECIMAL(6,2)) AS d, CAST(N_NATIONKEY AS FLOAT) / 3 AS f4, "
    "N_NATIONKEY / 7e0 AS f8, CAST('NaN' AS DOUBLE) AS nan, "
    "DATE_ADD(DATE '1969-12-25', N_NATIONKEY) AS dt, "
    "CAST('2024-01-02 03:04:05.678' AS TIMESTAMP) AS ts, TIME '23:59:59.999' AS tm, "
    "N_NATIONKEY > 10 AS b, CAST(NULL AS VARCHAR) AS n, CAST(N_NAME AS VARBINARY) AS vb, "
    "INTERVAL '1 02:03:04.5' DAY TO SECOND AS iv, "
    "CONVERT_FROM(CONCAT('[', CAST(N_NATIONKEY AS VARCHAR), ',', CAST(N_REGIONKEY AS VARCHAR), "
    "']'), 'JSON') AS arr, "
    "CONVERT_FROM(CONCAT('{\"a\":', CAST(N_NATIONKEY AS VARCHAR), ',\"b\":[1.5,null]}'), 'JSON') "
    "AS m"
)


@pytest.fixture(scope="module")
def http(spark, shared):
    """A server with the default limits (the shared one's 5,000 rows bound every answer:
    collected whole)."""
    srv = DrillServer(spark, port=0, workspaces={"data": str(shared / "data")}, limits=Limits())
    srv.start()
    yield Http(srv.url)
    srv.stop()


def _stages(spark, query_id: str) -> list[str]:
    """The call sites of the result stages of a query's jobs."""
    store = spark.sparkContext._jsc.sc().statusStore()
    st = spark.sparkContext.statusTracker()
    stages = [max(st.getJobInfo(j).stageIds) for j in group_jobs(spark, query_id)]
    return [store.lastStageAttempt(s).details() for s in stages]


def test_an_unbounded_answer_is_its_limit_forms_from_the_jvms_batches(http, spark):
    sql = f"SELECT {TYPED} FROM {NATION} ORDER BY N_NATIONKEY"
    streamed = http.query(sql)
    whole = http.query(sql + " LIMIT 10000")
    assert streamed["queryState"] == "COMPLETED", streamed
    assert streamed["metadata"] == whole["metadata"]
    assert len(streamed["rows"]) == 25
    assert streamed["rows"] == whole["rows"]
    row = streamed["rows"][3]
    assert row["ts"] == 1704164645678 and row["dt"] == -345600000 and row["tm"] == 86399999
    assert row["arr"] == [3, 1] and row["m"] == {"a": 3, "b": [1.5, None]}
    assert row["d"] == 0.75 and row["nan"] == "NaN" and row["iv"] == "P1DT7384.500S"
    # sent by the jar's sender: no Python worker in any result stage
    details = _stages(spark, streamed["queryId"])
    assert any("PartitionStream" in d for d in details), details
    assert not any("PythonRDD" in d for d in details), details


def test_a_year_month_interval_comes_as_its_months(http, spark):
    """Spark writes no Arrow for INTERVAL YEAR TO MONTH, and pyspark collects it only as its
    months: such a column is cast to its months in Spark (as the Arrow doors cast it), its
    rows made from the JVM's batches too, each value Drill's period text."""
    sql = f"SELECT N_NATIONKEY AS i, INTERVAL '-3' MONTH AS c, INTERVAL '2' YEAR AS y FROM {NATION}"
    streamed = http.query(sql + " ORDER BY i")
    assert streamed["queryState"] == "COMPLETED", streamed
    assert streamed["metadata"] == ["BIGINT", "INTERVALYEAR", "INTERVALYEAR"]
    assert streamed["rows"] == http.query(sql + " ORDER BY i LIMIT 10000")["rows"]
    assert streamed["rows"][0] == {"i": 0, "c": "P-3M", "y": "P2Y"}
    details = _stages(spark, streamed["queryId"])
    assert any("PartitionStream" in d for d in details), details
    assert not any("PythonRDD" in d for d in details), details


def test_an_auto_limit_cuts_a_streamed_answer_as_it_is_read(http, spark):
    """A client's autoLimit too large to collect whole: the first rows of the answer's order,
    exactly that many, cut as they are read (the statement's own DataFrame, its kept plan:
    no LIMIT added in Spark), and the query COMPLETED."""
    sql = (
        "SELECT l_orderkey, l_linenumber FROM dfs.data.`breadth/tpch/lineitem.parquet` "
        "ORDER BY l_orderkey, l_linenumber"
    )
    got = http.query(sql, autoLimit=20_000)
    assert got["queryState"] == "COMPLETED" and got["attemptedAutoLimit"] == 20_000
    assert len(got["rows"]) == 20_000
    everything = http.query(sql)["rows"]
    assert len(everything) == 60_175
    assert got["rows"] == everything[:20_000]


@pytest.fixture
def four_sorted_partitions(spark):
    keys = {"spark.sql.adaptive.enabled": "false", "spark.sql.shuffle.partitions": "4"}
    for k, v in keys.items():
        spark.conf.set(k, v)
    yield
    for k in keys:
        spark.conf.unset(k)


def test_a_large_answer_goes_on_in_the_python_workers(spark, shared, four_sorted_partitions):
    """Lineitem's 60,175 rows sorted into four partitions of about 15,000: the first two (both
    started before ARROW_ROWS rows were made) come as Arrow, the last two from Python workers;
    every row in the sort's order, each as the workers alone write it (with a map and a struct
    of a timestamp, a date and a decimal made from each row)."""
    df = (
        spark.read.parquet(str(shared / LINEITEM))
        .withColumn("mp", F.create_map(F.col("l_returnflag"), F.col("l_quantity")))
        .withColumn(
            "st",
            F.struct(
                # (the file's dates are Drill's old "corrupt" ones, beyond Python's dates)
                F.timestamp_seconds(F.col("l_orderkey") * 997).alias("at"),
                F.date_add(F.lit("1992-01-01").cast("date"), F.col("l_partkey") % 2000).alias("on"),
                F.col("l_extendedprice").cast("decimal(12,2)").alias("price"),
            ),
        )
        .orderBy("l_shipdate", "l_orderkey", "l_linenumber")
        .drop("l_shipdate", "l_commitdate", "l_receiptdate")
    )
    write = rest_rows(df.columns, df.schema)
    sc = spark.sparkContext

    def in_group(group: str):
        def in_job() -> None:
            sc.setJobGroup(group, group)

        return in_job

    got = list(partition_stream.stream_rows(df, write, in_group("rest-stream-mixed")))
    by_workers = list(
        partition_stream.stream_partitions(spark, df.rdd, write, in_group("rest-stream-workers"))
    )
    assert len(got) == 60_175
    assert got == by_workers
    details = _stages(spark, "rest-stream-mixed")
    assert sum("PartitionStream" in d for d in details) == 2, details
    assert sum("PythonRDD" in d for d in details) == 2, details
