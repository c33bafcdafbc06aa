"""What a scan costs in Spark jobs: the SQL layer runs no job of its own beside the query's
(the workspace check folds on the driver; tests/security/test_workspace_attacks.py checks its
refusals)."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlSession


def jobs_of(spark, group: str, fn) -> tuple[int, object]:
    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        out = fn()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    return len(sc.statusTracker().getJobIdsForGroup(group)), out


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
