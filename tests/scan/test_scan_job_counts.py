"""What a scan costs in Spark jobs: the SQL layer runs no job of its own beside the query's
(the workspace check folds on the driver; tests/security/test_workspace_attacks.py checks its
refusals)."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlSession


def group_jobs(spark, group: str) -> list[int]:
    """The ids of the jobs run in job group `group` so far."""
    sc = spark.sparkContext
    # the status tracker learns of a job from the listener bus, after the job's caller may
    # have its answer: a count read at once could miss the last job under load
    sc._jsc.sc().listenerBus().waitUntilEmpty()
    return list(sc.statusTracker().getJobIdsForGroup(group))


def jobs_of(spark, group: str, fn) -> tuple[int, object]:
    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        out = fn()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    return len(group_jobs(spark, group)), out


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = tmp_path_factory.mktemp("jobs")
    d = root / "events"
    d.mkdir()
    for i in range(3):
        (d / f"e{i}.json").write_text(
            "".join(
                json.dumps({"id": i * 100 + k, "a": {"b": "x" if k % 2 else "y"}}) + "\n"
                for k in range(100)
            )
        )
    return root


def test_sql_query_runs_no_job_beyond_the_sources(spark, table):
    # a confined workspace: the table name goes through the workspace check (drill_workspace_path)
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(table)}))
    path = str(table / "events")
    df = spark.read.format("drill").load(path)
    df.count()  # discovery done, schema cached: both sides warm
    sql = "SELECT t.id FROM dfs.data.`events` t WHERE t.a.b = 'x'"
    engine.execute(sql)
    src_jobs, src_rows = jobs_of(
        spark, "src", lambda: df.filter("a.b = 'x'").select("id").toArrow()
    )
    plan_jobs, results = jobs_of(spark, "sql-plan", lambda: engine.execute(sql))
    run_jobs, table_out = jobs_of(spark, "sql-run", lambda: results[-1].to_arrow())
    assert plan_jobs == 0  # parsing, lowering, the workspace check, translating: no Spark job
    assert run_jobs == src_jobs >= 1
    assert sorted(table_out.column(0).to_pylist()) == sorted(src_rows.column(0).to_pylist())
    assert table_out.num_rows == 150


def shape_of(spark, group: str, fn) -> tuple[int, int, object]:
    """(jobs, stages) that `fn()` ran, and its answer."""
    jobs, out = jobs_of(spark, group, fn)
    st = spark.sparkContext.statusTracker()
    stages = sum(len(st.getJobInfo(j).stageIds) for j in group_jobs(spark, group))
    return jobs, stages, out


def test_an_aggregate_over_one_partition_runs_one_stage(spark, table, tmp_path):
    """A scan that reads its input in one partition plans no shuffle above it
    (compat/SinglePartitionScans): a GROUP BY over a small file is one job of one stage, not
    two jobs and three stages (issue 37, the BI charts); through Spark's door and Drill SQL,
    for the json, text and Parquet readers. A scan of several partitions keeps its shuffle.
    On by default (spark.drillspark.singlePartitionScans, docs/scan.md)."""
    spark.conf.set("spark.drillspark.singlePartitionScans", "true")
    try:
        _one_stage(spark, table, tmp_path)
    finally:
        spark.conf.unset("spark.drillspark.singlePartitionScans")


def test_single_partition_scans_and_scan_statistics_are_on_by_default(spark, table):
    """With neither conf set (the other tests set them), a GROUP BY over one small file is one
    job of one stage, and a scan reports its file's length to the planner."""
    keys = ("spark.drillspark.singlePartitionScans", "spark.drillspark.scanStatistics")
    for key in keys:
        spark.conf.unset(key)
    assert [spark.conf.get(k, None) for k in keys] == [None, None]  # no value: the default
    one = table / "events" / "e0.json"

    def grouped():
        return sorted(
            map(tuple, spark.read.format("drill").load(str(one)).groupBy("a.b").count().collect())
        )

    jobs, stages, rows = shape_of(spark, "one-default", grouped)
    assert rows == [("x", 50), ("y", 50)]
    assert (jobs, stages) == (1, 1)
    df = spark.read.format("drill").load(str(one))
    size = int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
    assert size == one.stat().st_size


def _one_stage(spark, table, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    one = str(table / "events" / "e0.json")

    def grouped():  # a new DataFrame each time: a Dataset keeps the physical plan it made
        return sorted(
            map(tuple, spark.read.format("drill").load(one).groupBy("a.b").count().collect())
        )

    jobs, stages, rows = shape_of(spark, "one-json", grouped)
    assert rows == [("x", 50), ("y", 50)]  # e0.json: k odd is x, even y
    assert (jobs, stages) == (1, 1)
    spark.conf.set("spark.drillspark.singlePartitionScans", "false")  # Spark's own plan
    try:
        jobs, stages, off = shape_of(spark, "one-off", grouped)
    finally:
        spark.conf.set("spark.drillspark.singlePartitionScans", "true")
    assert off == rows and stages > 1

    (tmp_path / "c.csvh").write_text("k,v\n" + "".join(f"{i % 3},{i}\n" for i in range(30)))
    pq.write_table(
        pa.table({"k": [i % 3 for i in range(30)], "v": list(range(30))}), tmp_path / "p.parquet"
    )
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
    expected = [(k, sum(v for v in range(30) if v % 3 == k)) for k in range(3)]
    for name, key in (("c.csvh", "CAST(k AS INT)"), ("p.parquet", "k")):
        sql = f"SELECT {key} AS k, sum(CAST(v AS INT)) AS s FROM dfs.data.`{name}` GROUP BY k"
        engine.execute(sql)[-1].rows()  # warm: the file's schema known
        jobs, stages, out = shape_of(
            spark, f"one-{name}", lambda sql=sql: engine.execute(sql)[-1].rows()
        )
        assert sorted((r["k"], r["s"]) for r in out) == expected, name
        assert (jobs, stages) == (1, 1), name

    # three files, one partition each: the shuffle stays (no parallelism lost). Splits of
    # 4 KB hold one 2.8 KB file each; 1-byte splits made 8,590 tasks of nothing (80 s)
    several = spark.read.format("drill").option("splitBytes", "4k").load(str(table / "events"))
    assert several.rdd.getNumPartitions() == 3
    spread = several.groupBy("a.b").count()
    assert "Exchange" in spread._jdf.queryExecution().executedPlan().toString()
    assert sorted(map(tuple, spread.collect())) == [("x", 150), ("y", 150)]
