"""Where one BI chart statement's time goes through `drillspark serve`'s REST API (issue 37):
a DrillServer in this process on a SparkSession built as `drillspark serve` builds it, the
BI replay's charts (benchmarks/bi_replay.py) sent over HTTP as sqlalchemy-drill sends them,
and per statement: the wall time, the server's phases (queued, planned, answered: its
profile), the Spark jobs and stages it ran (Spark's status store, by the query's job group),
their time, and the py4j round trips of the Python side.

    python benchmarks/bi_statement_profile.py                 # the three slow chart kinds
    python benchmarks/bi_statement_profile.py --runs 9 --cprofile out.prof --kind "group csv"
    python benchmarks/bi_statement_profile.py --kind none \
        --sql "probe=SELECT * FROM {d}.`orders_00.json` LIMIT 1"

The first `--warm` runs of each statement are not counted; then `--runs` rounds, the
statements alternating; medians. `--conf KEY=VALUE` sets a Spark conf (e.g. to compare a
plan rule off and on).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bi_replay import DEFAULT_DATA, charts, generate  # noqa: E402

KINDS = ("group csv", "flatten+group", "join+group")


class Py4jCounter:
    """Counts the py4j commands the driver's Python side sends (each one a round trip)."""

    def __init__(self) -> None:
        from py4j import clientserver, java_gateway

        self.n = 0
        for cls in (java_gateway.GatewayConnection, clientserver.ClientServerConnection):
            original = cls.send_command

            def counted(conn: Any, command: str, _orig: Any = original, **kw: Any) -> Any:
                self.n += 1
                return _orig(conn, command, **kw)

            cls.send_command = counted  # type: ignore[method-assign]


def spark_jobs(spark: Any, group: str) -> list[dict[str, Any]]:
    """The query's jobs from Spark's status store: stages, tasks, seconds."""
    sc = spark.sparkContext
    store = sc._jsc.sc().statusStore()
    out = []
    for job_id in sorted(sc.statusTracker().getJobIdsForGroup(group)):
        job = store.job(job_id)
        start = job.submissionTime().get().getTime() if job.submissionTime().isDefined() else 0
        end = job.completionTime().get().getTime() if job.completionTime().isDefined() else 0
        out.append(
            {
                "job": job_id,
                "stages": job.stageIds().size(),
                "tasks": job.numTasks(),
                "ms": end - start,
                "start": start,
            }
        )
    return out


def post(url: str, sql: str, query_id: str) -> tuple[float, dict[str, Any]]:
    body = json.dumps({"queryType": "SQL", "query": sql, "userName": None}).encode()
    req = urllib.request.Request(
        f"{url}/query.json",
        data=body,
        headers={"Content-Type": "application/json", "X-Drillspark-Query-Id": query_id},
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as resp:
        answer = json.loads(resp.read())
    return time.perf_counter() - t0, answer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--files", type=int, default=5)
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warm", type=int, default=3)
    ap.add_argument("--kind", action="append", help="chart kinds (default: the slow three)")
    ap.add_argument("--conf", action="append", default=[], help="KEY=VALUE Spark conf")
    ap.add_argument(
        "--sql",
        action="append",
        default=[],
        help="NAME=STATEMENT profiled too ({d} is the replay's workspace, e.g. a discovery query)",
    )
    ap.add_argument("--cprofile", type=Path, help="cProfile the counted runs into this file")
    ap.add_argument("--json", type=Path, help="write every run's figures here")
    args = ap.parse_args(argv)

    generate(args.data, args.files, args.rows)
    import drillspark
    from drillspark.server import DrillServer, Limits

    conf = {
        "spark.scheduler.mode": "FAIR",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.maxResultSize": "256m",
    }
    conf.update(dict(c.split("=", 1) for c in args.conf))
    spark = drillspark.session(master=args.master, app_name="bi-statement-profile", **conf)
    from drillspark.session import jar_path

    print(f"jar: {jar_path()}", flush=True)
    server = DrillServer(
        spark, port=0, workspaces={"data": str(args.data)}, limits=Limits(max_running=16)
    )
    server.start()
    counter = Py4jCounter()
    kinds = args.kind or list(KINDS)
    statements = [(k, sql) for k, sql in charts() if k in kinds]
    # one statement of each kind: the first chart of that kind
    chosen: dict[str, str] = {}
    for k, sql in statements:
        chosen.setdefault(k, sql)
    for named in args.sql:
        name, _, sql = named.partition("=")
        chosen[name] = sql.replace("{d}", "dfs.data")
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in chosen}
    profiler = cProfile.Profile() if args.cprofile else None
    profiling = [False]
    if profiler is not None:
        # the statement runs in the server's handler thread: profile it there
        from drillspark.server.handler import Handler

        plain_query = Handler._query

        def profiled(handler: Any) -> None:
            if not profiling[0]:
                return plain_query(handler)
            profiler.enable()
            try:
                return plain_query(handler)
            finally:
                profiler.disable()

        Handler._query = profiled  # type: ignore[method-assign]
    try:
        for round_ in range(args.warm + args.runs):
            counted = round_ >= args.warm
            for kind, sql in chosen.items():
                qid = str(uuid.uuid4())
                calls = counter.n
                profiling[0] = counted
                seconds, answer = post(server.url, sql, qid)
                assert answer.get("queryState") == "COMPLETED", answer
                q = server.queries.get(qid)
                jobs = spark_jobs(spark, qid)
                figure = {
                    "seconds": seconds,
                    "py4j": counter.n - calls,
                    "queued_ms": (q.queue_wait_end or q.start) - q.start,
                    "plan_ms": (q.plan_end or 0) - (q.queue_wait_end or q.start),
                    "answer_ms": (q.end or 0) - (q.plan_end or 0),
                    "jobs": len(jobs),
                    "stages": sum(j["stages"] for j in jobs),
                    "tasks": sum(j["tasks"] for j in jobs),
                    "job_ms": sum(j["ms"] for j in jobs),
                    "rows": len(answer.get("rows", [])),
                }
                if counted:
                    runs[kind].append(figure)
    finally:
        server.stop()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nmedians of {args.runs} runs after {args.warm} warm-up rounds; load {load}")
    keys = ["seconds", "queued_ms", "plan_ms", "answer_ms", "job_ms", "jobs", "stages", "tasks",
            "py4j", "rows"]  # fmt: skip
    print("| chart | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for kind, figures in runs.items():
        cells = []
        for key in keys:
            m = statistics.median(f[key] for f in figures)
            cells.append(f"{m:.3f}" if key == "seconds" else f"{m:g}")
        print(f"| {kind} | " + " | ".join(cells) + " |")
    if profiler and args.cprofile:
        profiler.dump_stats(str(args.cprofile))
        print(f"cProfile of the server's handler thread written to {args.cprofile}")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
