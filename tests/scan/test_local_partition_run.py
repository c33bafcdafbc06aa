"""A small statement's one task run where it is collected, without a Spark job
(compat/LocalPartitionRun, #37): a chart's ORDER BY ... LIMIT or a tool's LIMIT probe over a
small file of this extension's formats (JSON, text, Parquet) runs no Spark job, and answers the
rows, in the order, that the same statement answers in a job
(`spark.drillspark.localCollectBytes` 0) and that the file itself holds; an input over the
limit, or the switch off, runs its job. A run's failure names the file and the row as a job's
does; an answer as Arrow (`to_arrow()`, the native protocol's and Flight SQL's small answers)
and an answer streamed from its task (their answers without a LIMIT) run no job either; a run's
projections and orderings are interpreted (a new shape compiles fewer classes than with
`localCollectInterpreted` off); sixteen runs of one kept statement at once each answer alone
(each run is a copy of the plan). A long run over a small file (nested FLATTENs) holds no job
to cancel: the server's time limit and a cancel of its job tag stop it all the same. Real data:
Drill's `cp` sample, TPC-H tables (../shared)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.scan.test_scan_job_counts import jobs_of

import drillspark
from drillspark.result import DrillRuntimeError
from drillspark.server.flight import batches
from drillspark.sql.session import default_cp_root

KEY = "spark.drillspark.localCollectBytes"
CUSTOMER = "data/breadth/tpch/customer.parquet"  # 130 kB
SUPPLIER = "data/breadth/tpch_text/supplier.tbl"  # 14 kB, `|`-separated


def _jobs(spark, group: str, fetch, limit: str | None = None) -> tuple[int, object]:
    """(the Spark jobs `fetch()` ran, its answer), with the limit `limit` (None: the default)."""
    if limit is not None:
        spark.conf.set(KEY, limit)
    try:
        return jobs_of(spark, group, fetch)
    finally:
        spark.conf.unset(KEY)


def _answer(spark, group: str, sql: str, limit: str | None = None) -> tuple[int, list[tuple]]:
    """(the Spark jobs the statement ran, its rows in their order), with the limit `limit`."""
    return _jobs(spark, group, lambda: [tuple(r) for r in drillspark.sql(sql).collect()], limit)


def _employees() -> list[dict]:
    with open(default_cp_root() / "employee.json", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _top_titles(n: int) -> list[tuple]:
    counts = Counter(e["position_title"] for e in _employees())
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


TITLES = (
    "SELECT position_title, COUNT(*) AS n FROM cp.`employee.json` "
    "GROUP BY position_title ORDER BY n DESC, position_title LIMIT 5"
)


def test_a_chart_over_a_small_json_file_runs_no_job(spark):
    jobs, rows = _answer(spark, "local-run-json", TITLES)
    assert jobs == 0
    assert rows == _top_titles(5)
    # the same statement in its job (the switch off): one job, the same rows in the same order
    jobs_off, rows_off = _answer(spark, "local-run-json-off", TITLES, "0")
    assert jobs_off == 1 and rows_off == rows


def test_a_chart_over_a_small_parquet_file_runs_no_job(spark, shared):
    path = shared / CUSTOMER
    sql = (
        f"SELECT c_mktsegment, COUNT(*) AS n, SUM(c_acctbal) AS bal FROM dfs.`{path}` "
        "GROUP BY c_mktsegment ORDER BY bal DESC LIMIT 3"
    )
    jobs, rows = _answer(spark, "local-run-parquet", sql)
    sums: Counter = Counter()
    counts: Counter = Counter()
    for r in pq.read_table(path, columns=["c_mktsegment", "c_acctbal"]).to_pylist():
        sums[r["c_mktsegment"]] += r["c_acctbal"]
        counts[r["c_mktsegment"]] += 1
    expected = sorted(sums, key=lambda k: -sums[k])[:3]
    assert jobs == 0
    assert [(s, n) for s, n, _ in rows] == [(k, counts[k]) for k in expected]
    assert [b for _, _, b in rows] == pytest.approx([sums[k] for k in expected])
    assert _answer(spark, "local-run-parquet-off", sql, "0") == (1, rows)


def test_a_probe_over_a_small_text_file_runs_no_job(spark, shared):
    path = shared / SUPPLIER
    sql = f"SELECT columns[0] AS k, columns[1] AS name FROM dfs.`{path}` LIMIT 4"
    jobs, rows = _answer(spark, "local-run-text", sql)
    lines = path.read_text(encoding="utf-8").splitlines()[:4]
    assert jobs == 0
    assert rows == [tuple(line.split("|")[:2]) for line in lines]
    assert _answer(spark, "local-run-text-off", sql, "0") == (1, rows)


def test_an_answer_as_arrow_runs_no_job(spark):
    # to_arrow() (and the native protocol's and Flight SQL's small answers) collect through
    # compat/ArrowCollect: the one partition's batches made here, the same table as in a job
    def table(limit: str | None) -> tuple[int, object]:
        def fetch() -> object:
            return drillspark.sql(TITLES).to_arrow()

        return _jobs(spark, f"local-run-arrow-{limit}", fetch, limit)

    jobs, here = table(None)
    jobs_off, in_job = table("0")
    assert (jobs, jobs_off) == (0, 1)
    assert here.equals(in_job)
    titles, counts = here.column("position_title").to_pylist(), here.column("n").to_pylist()
    assert list(zip(titles, counts, strict=True)) == _top_titles(5)


def test_a_streamed_answer_runs_no_job(spark):
    # a BI tool's GROUP BY without a LIMIT through the native protocol or Flight SQL is
    # streamed from its tasks (the jar's PartitionStream): a small input's one task sends its
    # batches from the thread that runs its job, without one
    sql = "SELECT position_title, COUNT(*) AS n FROM cp.`employee.json` GROUP BY position_title"

    def streamed(limit: str | None) -> tuple[int, pa.Table]:
        def fetch() -> list:
            df = drillspark.sql(sql).df
            return list(batches.write(df, df.columns, None, whole=False))

        jobs, out = _jobs(spark, f"local-run-stream-{limit}", fetch, limit)
        return jobs, pa.Table.from_batches(out[1:], schema=out[0])

    jobs, here = streamed(None)
    jobs_off, in_job = streamed("0")
    assert (jobs, jobs_off) == (0, 1)
    assert here.equals(in_job)
    counts = Counter(e["position_title"] for e in _employees())
    titles, n = here.column("position_title").to_pylist(), here.column("n").to_pylist()
    assert dict(zip(titles, n, strict=True)) == counts


def _compiled(spark) -> int:
    """The classes Spark's code generator has compiled in this JVM (a source it compiled before
    is taken from its cache and not counted)."""
    return spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME().getCount()


def test_a_run_here_builds_its_tasks_objects_interpreted(spark):
    # a chart's hash aggregate builds its key and buffer projections in every task, the top
    # rows' ordering is built where they are ordered: generated code for each new shape, which
    # takes longer to build than a small input's rows take through it. Run here, they are
    # interpreted (spark.drillspark.localCollectInterpreted): a chart of a shape this JVM never
    # ran compiles fewer classes than one with the switch off, with the same answer
    def chart(scale: int, interpreted: str) -> tuple[int, list[tuple]]:
        # DECIMAL(22 + scale, scale): a shape no other statement of this session has
        g = f"CAST(store_id AS DECIMAL({22 + scale}, {scale}))"
        sql = (
            f"SELECT {g} AS g, SUM(CAST(salary AS DECIMAL({26 + scale}, {scale + 1}))) AS t "
            f"FROM cp.`employee.json` GROUP BY {g} ORDER BY g DESC LIMIT 3"
        )
        spark.conf.set("spark.drillspark.localCollectInterpreted", interpreted)
        try:
            before = _compiled(spark)
            jobs, rows = _jobs(
                spark,
                f"local-run-objects-{interpreted}",
                lambda: [(int(r.g), r.t) for r in drillspark.sql(sql).collect()],
            )
            assert jobs == 0
            return _compiled(spark) - before, rows
        finally:
            spark.conf.unset("spark.drillspark.localCollectInterpreted")

    totals: Counter = Counter()
    for e in _employees():
        totals[e["store_id"]] += Decimal(str(e["salary"]))
    expected = [(k, totals[k]) for k in sorted(totals, reverse=True)[:3]]
    interpreted = [chart(scale, "true") for scale in (7, 9)]
    generated = [chart(scale, "false") for scale in (8, 10)]
    for _, rows in interpreted + generated:
        assert rows == expected
    assert max(n for n, _ in interpreted) < min(n for n, _ in generated)


def test_an_input_over_the_limit_runs_its_job(spark):
    # employee.json is 463 kB: over a limit of 100 kB it runs in a job, as before
    jobs, rows = _answer(spark, "local-run-over", TITLES, str(100 * 1024))
    assert jobs == 1 and rows == _top_titles(5)


def test_a_bad_value_fails_with_its_file_and_row_named(spark):
    sql = (
        "SELECT CAST(full_name AS INT) AS n, COUNT(*) AS c FROM cp.`employee.json` "
        "GROUP BY CAST(full_name AS INT) ORDER BY c DESC LIMIT 3"
    )
    messages = []
    for limit in (None, "0"):  # run here, then in a job: the same error
        with pytest.raises(DrillRuntimeError) as caught:
            _answer(spark, f"local-run-bad-{limit}", sql, limit)
        messages.append(str(caught.value))
    for message in messages:
        assert "Sheri Nowmer" in message, message  # the first row's value
    # the session still answers after the failure, here and in jobs
    assert _answer(spark, "local-run-after", TITLES)[1] == _top_titles(5)


def test_sixteen_runs_of_one_statement_at_once_each_answer_alone(spark):
    expected = _top_titles(5)
    drillspark.sql(TITLES).collect()  # kept: every run below shares one translation and plan
    answers: list[list[tuple]] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(5):
                answers.append([tuple(r) for r in drillspark.sql(TITLES).collect()])
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=run) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert len(answers) == 80 and all(a == expected for a in answers)


def _exploding_file(folder) -> str:
    """A JSON file of 500 kB whose three nested FLATTENs make 432 million rows: a small input
    and a long run (each record's 216,000 rows take milliseconds, so a cancel is seen soon)."""
    path = folder / "explode.json"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(2000):
            f.write(json.dumps({"id": i, "a": list(range(i % 7, i % 7 + 60))}) + "\n")
    return str(path)


def _exploding(table: str) -> str:
    return (
        "SELECT x, y, z FROM (SELECT s2.x AS x, s2.y AS y, FLATTEN(s2.a) AS z FROM "
        "(SELECT s1.x AS x, FLATTEN(s1.a) AS y, s1.a AS a FROM "
        f"(SELECT FLATTEN(t.a) AS x, t.a AS a FROM {table} t) s1) s2) s3 "
        "ORDER BY x + y + z DESC LIMIT 3"
    )


def test_a_long_run_here_stops_at_the_servers_time_limit(spark, tmp_path):
    """A run where it is collected holds no Spark job for the server's cancel to cancel: the
    time limit reaches it all the same (LocalPartitionRun.cancel), and the server answers the
    next statement."""
    from tests.server.helpers import Http

    from drillspark.server import DrillServer, Limits

    _exploding_file(tmp_path)
    srv = DrillServer(spark, port=0, workspaces={"w": str(tmp_path)}, limits=Limits(max_seconds=3))
    with srv:
        http = Http(srv.url)
        answer = http.query(_exploding("dfs.w.`explode.json`"))
        assert answer["queryState"] == "CANCELED", answer
        assert answer["errorMessage"] == (
            "query exceeded the server's time limit of 3 s and was cancelled"
        )
        # it ran where it was collected: no job of its group
        query_id = answer["queryId"]
        assert spark.sparkContext.statusTracker().getJobIdsForGroup(query_id) == []
        probe = http.query("SELECT id FROM dfs.w.`explode.json` ORDER BY id LIMIT 2")
        assert probe["rows"] == [{"id": 0}, {"id": 1}]


def test_a_long_run_here_stops_when_its_job_tag_is_cancelled(spark, tmp_path):
    """The Python API's Ctrl-C cancels its statement's job tag: a run here under that tag stops
    at its next input row and fails as a cancelled job, naming why."""
    from drillspark.spark import cancel_jobs

    sql = _exploding(f"dfs.`{_exploding_file(tmp_path)}`")
    sc = spark.sparkContext
    box: dict = {}

    def work() -> None:
        sc.setJobGroup("local-run-tag-group", "a run here under a tag")
        sc.addJobTag("local-run-tag")
        try:
            box["rows"] = drillspark.sql(sql).df.collect()
        except Exception as e:  # noqa: BLE001 - handed to the test
            box["error"] = e
        finally:
            sc.removeJobTag("local-run-tag")

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(3)
    assert worker.is_alive(), box  # still running: 432 million rows
    cancel_jobs.tag(spark, "other-tag", "not this one")
    worker.join(2)
    assert worker.is_alive(), box
    cancel_jobs.tag(spark, "local-run-tag", "cancelled by the test")
    worker.join(60)
    assert not worker.is_alive()
    assert "rows" not in box
    assert "Job cancelled (run where it is collected): cancelled by the test" in str(box["error"])
    assert sc.statusTracker().getJobIdsForGroup("local-run-tag-group") == []  # ran here
