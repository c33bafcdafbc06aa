"""Spark's Parquet scan makes its reader factory once per set of inputs (#37): the catalog's
Parquet tables build `compat.ReusingParquetScan`, whose factory (and the broadcast of the
Hadoop configuration it carries, ~20 ms per scan per query) is kept while the scan's schemas,
pushed filters, options, the session and its confs are the same. Each statement below is
planned afresh (a new DataFrame); the factory is told by its broadcast's id."""

from __future__ import annotations

import pyarrow.parquet as pq

NATION = "data/breadth/tpch/nation.parquet"


def _run(spark, query: str) -> tuple[list[tuple], int, str]:
    """(the rows, the id of the scan's broadcast Hadoop conf, the scan's description)."""
    df = spark.sql(query)
    rows = sorted(tuple(r) for r in df.collect())
    plan = df._jdf.queryExecution().executedPlan()
    if plan.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
        plan = plan.executedPlan()
    leaves = plan.collectLeaves().iterator()
    while leaves.hasNext():
        leaf = leaves.next()
        if leaf.getClass().getSimpleName() == "BatchScanExec":
            factory = leaf.readerFactory()
            return rows, factory.broadcastedConf().id(), leaf.scan().description()
    raise AssertionError(f"no BatchScanExec in {plan.toString()}")


def test_a_statement_run_again_reuses_its_scans_reader_factory(spark, shared):
    path = shared / NATION
    query = f"SELECT n_nationkey, n_name FROM dfs.`{path}` WHERE n_nationkey < 4"
    rows, first, description = _run(spark, query)
    expected = sorted(
        (r["n_nationkey"], r["n_name"])
        for r in pq.read_table(path).to_pylist()
        if r["n_nationkey"] < 4
    )
    assert rows == expected and len(rows) == 4
    # EXPLAIN still names Spark's scan and format
    assert description.startswith("ParquetScan ") and "Format: parquet" in description
    assert _run(spark, query)[:2] == (expected, first)
    assert _run(spark, query)[:2] == (expected, first)


def test_other_filters_columns_confs_or_sessions_get_their_own(spark, shared):
    path = shared / NATION
    query = f"SELECT n_nationkey, n_name FROM dfs.`{path}` WHERE n_nationkey < 4"
    _, first, _ = _run(spark, query)
    other_filter = _run(spark, query.replace("< 4", "< 5"))
    assert len(other_filter[0]) == 5 and other_filter[1] != first
    other_columns = _run(spark, query.replace("n_name", "n_comment"))
    assert other_columns[1] not in (first, other_filter[1])
    key = "spark.sql.parquet.int96AsTimestamp"
    assert key not in spark.conf.getAll  # the default: unset again below
    spark.conf.set(key, "false")
    try:
        changed = _run(spark, query)
    finally:
        spark.conf.unset(key)
    assert changed[1] != first
    assert _run(spark, query)[1] == first  # the confs as they were: the first one again
    # another session holds its own confs (the factory keeps its session's SQLConf)
    assert _run(spark.newSession(), query)[1] != first
