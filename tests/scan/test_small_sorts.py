"""An ORDER BY over an input AQE has seen is small sorts it in one partition (compat/SmallSorts,
#37): no range exchange, so no sampling job computing the input a second time. On by default
(spark.drillspark.smallSorts); the same rows, in the same order, with it off, and Spark's range
exchange where the input is not known small. Real TPC-H rows (../shared), spread over four
partitions so the GROUP BY shuffles and the sort runs after AQE's stages."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from tests.scan.test_scan_job_counts import shape_of

LINEITEM = "data/breadth/tpch/lineitem.parquet"
KEY = "spark.drillspark.smallSorts"


@pytest.fixture
def lineitem(spark, shared):
    path = shared / LINEITEM
    spark.read.parquet(str(path)).repartition(4).createOrReplaceTempView("small_sorts_lineitem")
    yield pq.read_table(path, columns=["l_returnflag", "l_linestatus", "l_quantity"]).to_pylist()
    spark.catalog.dropTempView("small_sorts_lineitem")


QUERY = (
    "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS q, count(*) AS n "
    "FROM small_sorts_lineitem GROUP BY l_returnflag, l_linestatus "
    "ORDER BY n DESC, l_returnflag, l_linestatus"
)


def _expected(rows: list[dict]) -> list[tuple]:
    groups: dict[tuple, list] = {}
    for r in rows:
        g = groups.setdefault((r["l_returnflag"], r["l_linestatus"]), [0, 0])
        g[0] += r["l_quantity"]
        g[1] += 1
    return sorted(
        ((f, s, q, n) for (f, s), (q, n) in groups.items()), key=lambda t: (-t[3], t[0], t[1])
    )


def _run(spark, group: str, query: str = QUERY) -> tuple[list[tuple], str, int]:
    """(the rows in their order, the final plan, the jobs and stages run)."""
    holder: dict = {}

    def go():
        df = spark.sql(query)
        holder["rows"] = [tuple(r) for r in df.collect()]
        holder["plan"] = df._jdf.queryExecution().executedPlan().toString()

    jobs, stages, _ = shape_of(spark, group, go)
    return holder["rows"], holder["plan"], jobs + stages


def test_an_order_by_over_a_small_aggregate_sorts_in_one_partition(spark, lineitem):
    expected = _expected(lineitem)
    assert len(expected) == 4 and sum(t[3] for t in expected) == len(lineitem)
    assert spark.conf.get(KEY, None) is None  # the default: on
    rows, plan, work = _run(spark, "small-sort-on")
    assert [(f, s, float(q), n) for f, s, q, n in rows] == [
        (f, s, float(q), n) for f, s, q, n in expected
    ]
    final = plan.split("== Initial Plan ==")[0]
    assert "Coalesce 1" in final and "rangepartitioning" not in final, plan
    spark.conf.set(KEY, "false")
    try:
        off_rows, off_plan, off_work = _run(spark, "small-sort-off")
    finally:
        spark.conf.unset(KEY)
    assert off_rows == rows
    assert "rangepartitioning" in off_plan.split("== Initial Plan ==")[0], off_plan
    assert work < off_work  # the range exchange's sampling job and its stage


def test_an_input_not_known_small_keeps_the_range_exchange(spark, shared, lineitem):
    expected = _expected(lineitem)
    # stages' output above what Spark's planner takes as small (what it would broadcast)
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "64")
    try:
        rows, plan, _ = _run(spark, "small-sort-big")
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    assert [(f, s, n) for f, s, _, n in rows] == [(f, s, n) for f, s, _, n in expected]
    assert "rangepartitioning" in plan.split("== Initial Plan ==")[0], plan
    # a sort of rows straight from a scan: no stage has run below it, so nothing is known
    spark.read.parquet(str(shared / LINEITEM)).createOrReplaceTempView("small_sorts_scan")
    try:
        rows, plan, _ = _run(
            spark,
            "small-sort-scan",
            "SELECT l_orderkey, l_linenumber FROM small_sorts_scan "
            "ORDER BY l_orderkey DESC, l_linenumber",
        )
    finally:
        spark.catalog.dropTempView("small_sorts_scan")
    assert len(rows) == len(lineitem) and rows == sorted(rows, key=lambda t: (-t[0], t[1]))
    final = plan.split("== Initial Plan ==")[0]
    assert "rangepartitioning" in final and "Coalesce 1" not in final, plan
