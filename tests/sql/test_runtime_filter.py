"""A local master lets Spark's runtime bloom filter prune a big scan by the keys of a join
side with a selective filter (session.local_conf; docs/performance.md, "A runtime filter for a
semi-join's big side"): TPC-H q04's shape, orders of a price range EXISTS among lineitem's
rows. Real TPC-H rows (../shared); the size thresholds lowered to this data's size, as the
local master's are to SF 1's; the answer as Drill 1.22 gives it, with the filter and without."""

from __future__ import annotations

from drillspark.sql.output import columns_and_rows

Q04 = """
SELECT o.o_orderstatus, count(*) AS n
FROM dfs.root.`breadth/tpch/orders.parquet` o
WHERE o.o_totalprice > 350000
  AND EXISTS (
    SELECT * FROM dfs.root.`breadth/tpch/lineitem.parquet` l
    WHERE l.l_orderkey = o.o_orderkey AND l.l_quantity > 45)
GROUP BY o.o_orderstatus
ORDER BY o.o_orderstatus
"""
ENABLED = "spark.sql.optimizer.runtime.bloomFilter.enabled"
SIZES = {
    # this data's scans are estimated at some hundred KB to a few MB (SF 1's at 20 MB)
    "spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold": "100KB",
    "spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold": "20MB",
    # a side Spark's planner would broadcast before running anything needs no filter
    "spark.sql.autoBroadcastJoinThreshold": "10KB",
}


def _run(data_engine) -> tuple[list[list], str]:
    result = data_engine.execute(Q04)[-1]
    _, rows = columns_and_rows(result)
    return [list(r) for r in rows], result.df._jdf.queryExecution().optimizedPlan().toString()


def test_the_selective_side_filters_the_big_scan_and_the_answer_is_drills(data_engine, spark_confs):
    spark_confs({**SIZES, ENABLED: "true"})
    rows, plan = _run(data_engine)
    # Drill 1.22 over the same file (query.sh): F 50, O 39, P 3
    assert rows == [["F", 50], ["O", 39], ["P", 3]]
    # the orders' keys, as a bloom filter, prune lineitem's rows before its keys are grouped
    assert "might_contain" in plan and "bloom_filter_agg(xxhash64(o_orderkey" in plan, plan
    spark_confs({ENABLED: "false"})
    off_rows, off_plan = _run(data_engine)
    assert off_rows == rows
    assert "might_contain" not in off_plan, off_plan


def test_a_local_session_has_the_runtime_filter_thresholds(spark):
    """Spark's are a cluster's (an application side of 10 GB)."""
    assert spark.conf.get(ENABLED) == "true"
    assert (
        spark.conf.get("spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold")
        == "16MB"
    )
    assert spark.conf.get("spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold") == "20MB"
