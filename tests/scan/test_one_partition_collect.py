"""A statement whose plan ends in an ORDER BY ... LIMIT or a LIMIT over one partition is collected
in one job whose function Spark's closure cleaner skips (compat/OnePartitionCollect, #37): the
plan's root is `OnePartitionTopK` / `OnePartitionLimit`, one job, and the same rows in the same
order as Spark's own TakeOrderedAndProject / CollectLimit (the switch off) and as the rows taken
here from the file itself. Real TPC-H lineitem rows (../shared) and Drill's `cp` sample data.
Several partitions keep Spark's collect."""

from __future__ import annotations

import json
from decimal import Decimal

import pyarrow.parquet as pq
import pytest
from tests.scan.test_scan_job_counts import shape_of

import drillspark
from drillspark.sql.session import default_cp_root

LINEITEM = "data/breadth/tpch/lineitem.parquet"
KEY = "spark.drillspark.onePartitionCollect"
VIEW = "topk_lineitem"


@pytest.fixture
def lineitem(spark, shared):
    path = shared / LINEITEM
    spark.read.parquet(str(path)).coalesce(1).createOrReplaceTempView(VIEW)
    spark.read.parquet(str(path)).repartition(3).createOrReplaceTempView(VIEW + "_3")
    yield pq.read_table(
        path, columns=["l_orderkey", "l_linenumber", "l_quantity", "l_returnflag"]
    ).to_pylist()
    spark.catalog.dropTempView(VIEW)
    spark.catalog.dropTempView(VIEW + "_3")


def _run(spark, group: str, query: str) -> tuple[list[tuple], str, int]:
    """(the rows in their order, the executed plan, the jobs run)."""
    holder: dict = {}

    def go():
        df = spark.sql(query)
        holder["rows"] = [tuple(r) for r in df.collect()]
        holder["plan"] = df._jdf.queryExecution().executedPlan().toString()

    jobs, _, _ = shape_of(spark, group, go)
    return holder["rows"], holder["plan"], jobs


def _final(plan: str) -> str:
    """The plan that ran (under AQE, its final plan)."""
    return plan.split("== Initial Plan ==")[0]


def _off(spark, group: str, query: str) -> tuple[list[tuple], str, int]:
    spark.conf.set(KEY, "false")
    try:
        return _run(spark, group, query)
    finally:
        spark.conf.unset(KEY)


def _quantity(v) -> Decimal:
    return Decimal(str(v))


def test_an_order_by_limit_over_one_partition_is_collected_by_the_node(spark, lineitem):
    # a projection (the sort key not selected) and an offset, the two things the node applies
    # itself on the driver
    query = (
        f"SELECT l_orderkey, l_linenumber FROM {VIEW} "
        "ORDER BY l_quantity DESC, l_orderkey, l_linenumber LIMIT 7 OFFSET 3"
    )
    ordered = sorted(
        lineitem, key=lambda r: (-_quantity(r["l_quantity"]), r["l_orderkey"], r["l_linenumber"])
    )
    expected = [(r["l_orderkey"], r["l_linenumber"]) for r in ordered[3:10]]
    assert spark.conf.get(KEY, None) is None  # the default: on
    rows, plan, jobs = _run(spark, "topk-on", query)
    assert rows == expected
    assert "OnePartitionTopK TakeOrderedAndProject(limit=10, offset=3" in _final(plan), plan
    assert jobs == 1
    off_rows, off_plan, off_jobs = _off(spark, "topk-off", query)
    assert off_rows == rows
    assert "OnePartitionTopK" not in off_plan and "TakeOrderedAndProject" in off_plan
    assert off_jobs == 1


def test_a_grouped_chart_and_its_arrow_answer(spark, lineitem):
    query = (
        f"SELECT l_returnflag, count(*) AS n FROM {VIEW} "
        "GROUP BY l_returnflag ORDER BY n DESC, l_returnflag LIMIT 2"
    )
    counts: dict[str, int] = {}
    for r in lineitem:
        counts[r["l_returnflag"]] = counts.get(r["l_returnflag"], 0) + 1
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
    rows, plan, jobs = _run(spark, "topk-group", query)
    assert rows == expected and "OnePartitionTopK" in _final(plan), plan
    assert jobs == 1
    # the Arrow door runs the node's plan (Spark's one-partition top rows), not its collect
    table = spark.sql(query).toArrow()
    assert list(zip(*table.to_pydict().values(), strict=True)) == expected


def test_several_partitions_keep_sparks_collect(spark, lineitem):
    query = (
        f"SELECT l_orderkey, l_linenumber, l_quantity FROM {VIEW}_3 "
        "ORDER BY l_quantity, l_orderkey DESC, l_linenumber LIMIT 5"
    )
    ordered = sorted(
        lineitem, key=lambda r: (_quantity(r["l_quantity"]), -r["l_orderkey"], r["l_linenumber"])
    )
    expected = [
        (r["l_orderkey"], r["l_linenumber"], _quantity(r["l_quantity"])) for r in ordered[:5]
    ]
    rows, plan, _ = _run(spark, "topk-three", query)
    assert [(a, b, _quantity(q)) for a, b, q in rows] == expected
    off_rows, _, _ = _off(spark, "topk-three-off", query)
    assert off_rows == rows


def test_a_scalar_subquery_under_the_node(spark, lineitem):
    """The subquery's plan runs before the node's one job reads the projection that uses it."""
    query = (
        f"SELECT l_orderkey, l_linenumber, l_quantity - (SELECT min(l_quantity) FROM {VIEW}) AS above "
        f"FROM {VIEW} ORDER BY above DESC, l_orderkey, l_linenumber LIMIT 3"
    )
    least = min(_quantity(r["l_quantity"]) for r in lineitem)
    ordered = sorted(
        lineitem, key=lambda r: (-_quantity(r["l_quantity"]), r["l_orderkey"], r["l_linenumber"])
    )
    expected = [
        (r["l_orderkey"], r["l_linenumber"], _quantity(r["l_quantity"]) - least)
        for r in ordered[:3]
    ]
    rows, plan, _ = _run(spark, "topk-subquery", query)
    assert "OnePartitionTopK" in _final(plan), plan
    assert [(a, b, _quantity(d)) for a, b, d in rows] == expected
    off_rows, _, _ = _off(spark, "topk-subquery-off", query)
    assert rows == off_rows


def test_a_limit_over_one_partition_is_collected_by_the_node(spark, lineitem):
    query = f"SELECT l_orderkey, l_linenumber FROM {VIEW} LIMIT 4 OFFSET 2"
    expected = [(r["l_orderkey"], r["l_linenumber"]) for r in lineitem[2:6]]  # the file's order
    rows, plan, jobs = _run(spark, "limit-on", query)
    assert rows == expected
    assert "OnePartitionLimit CollectLimit 6, 2" in _final(plan), plan
    assert jobs == 1
    off_rows, off_plan, off_jobs = _off(spark, "limit-off", query)
    assert off_rows == rows and "OnePartitionLimit" not in off_plan and off_jobs == 1


def test_a_limit_over_several_partitions_keeps_sparks_collect(spark, lineitem):
    rows, plan, _ = _run(spark, "limit-three", f"SELECT l_orderkey FROM {VIEW}_3 LIMIT 5")
    keys = {r["l_orderkey"] for r in lineitem}
    assert len(rows) == 5 and all(k in keys for (k,) in rows)  # any five: no order asked
    assert "OnePartitionLimit CollectLimit 5" in _final(plan), plan  # Spark's collect inside


def test_drill_sql_over_cp_sample_data(spark):
    """Through drillspark.sql (Drill's SQL over the bundled `cp` files): the top salaries, and
    the first records as a tool's probe reads them."""
    records = [json.loads(line) for line in (default_cp_root() / "employee.json").open()]
    top = sorted(records, key=lambda r: (-r["salary"], r["full_name"]))[:4]
    text = (
        "SELECT full_name, salary FROM cp.`employee.json` ORDER BY salary DESC, full_name LIMIT 4"
    )
    df = drillspark.sql(text)
    assert [(r["full_name"], r["salary"]) for r in top] == [tuple(r) for r in df.collect()]
    assert "OnePartitionTopK" in df.df._jdf.queryExecution().executedPlan().toString()
    probe = drillspark.sql("SELECT employee_id, full_name FROM cp.`employee.json` LIMIT 3")
    assert [tuple(r) for r in probe.collect()] == [
        (r["employee_id"], r["full_name"]) for r in records[:3]
    ]
    assert "OnePartitionLimit" in probe.df._jdf.queryExecution().executedPlan().toString()
