"""The JSON race on shapes it was not tuned on (issue 37): every door's first query of a new
process, and the warm query, against Apache Drill 1.22's, per data shape.

For each shape of benchmarks/gen_events.py (`deep`, `long-arrays`, `wide`, `many-files`; the
race's own `github` on request) and each race query (count; filter on two nested fields and
project three; flatten an array + GROUP BY):

* Drill: one Drillbit per query (`../shared/tools/drill/query.sh`): its first answer counted
  from the process launch (JVM and Drill's start included), then the median of its warm
  repeats in the same session;
* drillspark, the first query of a fresh process through each door, counted from the process
  launch to the answer in hand: `drillspark sql` (the CLI), `drillspark.sql(...)` fetched with
  `collect()`, `to_arrow()` and `to_pandas()`, `drillspark.run(plan)` (the query's logical
  plan, as EXPLAIN gives it) and the DataFrame API (`spark.read.format("drill")`);
* drillspark warm: the median of `--warm-repeats` runs of the SQL in one running session.

Targets (docs/performance.md): warm at least 3x Drill's; every door's first answer no later
than Drill's. Every answer is checked against Drill's (its understood differences named).

    python benchmarks/shapes_race.py --size 300MB
    python benchmarks/shapes_race.py --size 50MB --shapes deep --doors cli,to_arrow --no-drill
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from drill_race import (  # noqa: E402
    drill_missing,
    mismatches,
    normalize,
    run_drill,
    run_fresh,
    scan_sql,
)
from gen_events import SHAPES, generate, parse_size  # noqa: E402
from scan_bench import normalize_spark, spark_queries  # noqa: E402

QUERIES = ["count", "filter+project", "flatten+group"]
DOORS = ["cli", "collect", "to_arrow", "to_pandas", "plan", "dataframe"]
NEW_SHAPES = [s for s in SHAPES if s != "github"]


def data_dir(base: Path, shape: str, size: int) -> Path:
    d = base / f"shape-{shape}-{size >> 20}MB"
    if not (d / "events-00.json").exists():
        print(f"generating {size >> 20} MiB of {shape} JSON lines in {d} ...", flush=True)
        generate(d, size, shape=shape)
    return d


# ---- one door's first query, in the fresh process this script starts ----


def door_answer(door: str, query: str, sql: str, path: str, plan: str) -> object:
    """Runs the query as a user of `door` would in a new process; the normalized answer."""
    import drillspark

    if door == "dataframe":  # the scan race's DataFrame queries
        df = drillspark.session().read.format("drill").load(path)
        return normalize_spark(query, spark_queries(df)[query]())
    result = drillspark.run(plan) if door == "plan" else drillspark.sql(sql)
    if door == "collect":
        rows = [tuple(r) for r in result.collect()]
    elif door == "to_pandas":
        rows = list(result.to_pandas().itertuples(index=False, name=None))
    else:  # to_arrow, plan
        rows = [tuple(r.values()) for r in result.to_arrow().to_pylist()]
    return normalize(query, rows)


def run_door(door: str, query: str, sql: str, path: str, plan: str, timeout: float = 1800):
    """(seconds from launch to the answer, seconds to exit, answer, error) of one fresh run."""
    if door == "cli":
        fr = run_fresh(sys.executable, sql, query, "local[2]", timeout)
        return fr.first_result_s, fr.exit_s, fr.answer, fr.error
    cmd = [sys.executable, __file__, "--door", door, "--query", query, "--sql", sql]
    cmd += ["--path", path, "--plan", plan]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
    reader.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    first, answer = None, None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("ANSWER ") and first is None:
                first = time.perf_counter() - t0
                answer = json.loads(line[7:])
        proc.wait()
        end = time.perf_counter() - t0
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    if proc.returncode != 0 or first is None:
        tail = " | ".join("".join(err).strip().splitlines()[-2:])
        return None, None, None, tail or f"exit status {proc.returncode}"
    if query == "flatten+group":
        answer = [tuple(p) for p in answer]
    return first, end, answer, None


def door_main(a) -> None:
    answer = door_answer(a.door, a.query, a.sql, a.path, a.plan)
    print("ANSWER " + json.dumps(answer), flush=True)


# ---- the race ----


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def plans_of(engine, sql: dict[str, str], folder: Path) -> dict[str, str]:
    """Each query's logical plan as EXPLAIN PLAN FOR gives it, written to a file."""
    out = {}
    for q, text in sql.items():
        table = engine.execute(f"EXPLAIN PLAN FOR {text}")[-1].to_arrow()
        path = folder / f"{q.replace('+', '_')}.json"
        path.write_text(table.column("json")[0].as_py())
        out[q] = str(path)
    return out


def race_shape(shape: str, args, engine, plan_dir: Path) -> tuple[dict, dict, list[str]]:
    d = data_dir(Path(args.data), shape, parse_size(args.size))
    sql = scan_sql(d)
    plans = plans_of(engine, sql, plan_dir / shape)
    times: dict[tuple[str, str], float] = {}
    answers: dict[tuple[str, str], object] = {}
    failures: list[str] = []
    drill_off = "switched off (--no-drill)" if args.no_drill else drill_missing()
    for q in QUERIES:
        if not drill_off:
            print(f"{shape}: Apache Drill, {q} (load {load()}) ...", flush=True)
            dr = run_drill(
                sql[q], 1 + args.drill_warm, heap=args.drill_heap, direct=args.drill_heap
            )
            if dr.error:
                failures.append(f"{shape}: Apache Drill failed on {q}: {dr.error}")
            if dr.ms:
                times[("Drill first", q)] = dr.first_result_s
                times[("Drill warm", q)] = dr.warm
                answers[("Drill", q)] = normalize(q, dr.rows)
        for door in args.doors:
            print(f"{shape}: {door}, first query of a fresh process, {q} (load {load()}) ...")
            first, end, answer, error = run_door(door, q, sql[q], str(d), plans[q])
            if error:
                failures.append(f"{shape}: door {door} failed on {q}: {error}")
                continue
            times[(door, q)] = first
            answers[(door, q)] = answer
        secs = []
        engine.execute(sql[q])[-1].to_arrow()  # the session's first sight of this query
        for _ in range(args.warm_repeats):
            t0 = time.perf_counter()
            table = engine.execute(sql[q])[-1].to_arrow()
            secs.append(time.perf_counter() - t0)
        times[("drillspark warm", q)] = statistics.median(secs)
        answers[("drillspark warm", q)] = normalize(
            q, [tuple(r.values()) for r in table.to_pylist()]
        )
    return times, answers, failures


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def print_shape(shape: str, d: Path, times: dict, doors: list[str]) -> None:
    mib = sum(p.stat().st_size for p in d.glob("*.json")) / 2**20
    files = len(list(d.glob("*.json")))
    print(f"\n{shape}: {mib:.0f} MiB in {files} files (seconds; ratio = Drill / drillspark)")
    print(f"{'query':16}{'Drill warm':>11}{'ds warm':>9}{'ratio':>7}{'Drill first':>13}", end="")
    print("".join(f"{d:>11}" for d in doors))
    for q in QUERIES:
        dw, ww = times.get(("Drill warm", q)), times.get(("drillspark warm", q))
        df = times.get(("Drill first", q))
        cells = [f"{q:16}", f"{dw or float('nan'):>11.2f}", f"{ww or float('nan'):>9.2f}"]
        cells += [f"{ratio(dw, ww):>7}", f"{df or float('nan'):>13.1f}"]
        for door in doors:
            t = times.get((door, q))
            cells.append(f"{(f'{t:.1f} ({ratio(df, t)})' if t else '-'):>11}")
        print("".join(cells))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="300MB", help="data per shape (default 300MB)")
    ap.add_argument("--shapes", default=",".join(NEW_SHAPES), help="comma-separated shapes")
    ap.add_argument("--doors", default=",".join(DOORS), help="comma-separated doors")
    ap.add_argument("--data", default=str(HERE.parent / ".bench-data"))
    ap.add_argument("--no-drill", action="store_true", help="leave Apache Drill out")
    ap.add_argument("--drill-warm", type=int, default=3, help="Drill's warm repeats (default 3)")
    ap.add_argument("--warm-repeats", type=int, default=3, help="drillspark's (default 3)")
    ap.add_argument("--drill-heap", default=os.environ.get("DRILL_HEAP", "3g"))
    for name in ("door", "query", "sql", "path", "plan"):  # one fresh door run (internal)
        ap.add_argument(f"--{name}", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.door:
        door_main(a)
        return
    a.shapes = [s for s in a.shapes.split(",") if s]
    a.doors = [s for s in a.doors.split(",") if s]
    for s in a.shapes:
        if s not in SHAPES:
            ap.error(f"unknown shape {s!r}: one of {', '.join(SHAPES)}")
    for door in a.doors:
        if door not in DOORS:
            ap.error(f"unknown door {door!r}: one of {', '.join(DOORS)}")

    import drillspark
    from drillspark.sql import default_engine

    spark = drillspark.session(app_name="shapes-race", **{"spark.ui.enabled": "false"})
    engine = default_engine(spark)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in a.shapes:
            (Path(tmp) / shape).mkdir()
            results[shape] = race_shape(shape, a, engine, Path(tmp))
    spark.stop()
    for shape, (times, answers, failures) in results.items():
        print_shape(shape, data_dir(Path(a.data), shape, parse_size(a.size)), times, a.doors)
        for line in failures:
            print(line)
        found = mismatches(answers, "drillspark warm")
        print("\n".join(found) if found else "every door and Drill gave the same answers")


if __name__ == "__main__":
    main()
