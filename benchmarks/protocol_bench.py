"""One answer through each of `drillspark serve`'s doors: Arrow Flight SQL (ADBC's driver,
`fetch_arrow_table`), Drill's REST API (`POST /query.json`, the body read and parsed as JSON),
Drill's native protocol (Drill's JDBC driver, every value read with getObject) and the Flight
SQL JDBC driver (the same). Rows per second for the whole answer, and the time to the first
row of a small statement through each.

    PYTHONPATH=python python benchmarks/protocol_bench.py                # 1,000,000 rows
    PYTHONPATH=python python benchmarks/protocol_bench.py --rows 200000 --runs 3
    PYTHONPATH=python python benchmarks/protocol_bench.py --small 50   # + 50 statements, JDBC
    PYTHONPATH=python python benchmarks/protocol_bench.py --drill --door JDBC --door ADBC

The rows (i BIGINT, s VARCHAR, f DOUBLE) are a JSON file generated in a temporary folder, the
server's `data` workspace; the server runs in this process on free loopback ports with no row
limit. The JDBC drivers run in the native tests' probe (tests/native/DrillJdbcProbe.java; its
`count:` step reports the milliseconds to the first row and to the end, so the JVM's start is
not counted); their jars are the tests' (`make setup`). The doors alternate; the best of
`--runs` is kept. `--small N` then runs N small statements (10 rows of the same file, each a
different text) one after another on one connection of Drill's JDBC driver, as they were run
against real Drill's user port for docs/performance.md.

`--drill` (the default where the oracle is; `--no-drill` leaves it out) adds real Drill 1.22's
own user port as a door in the same run, alternating with the
others (equal load): `../shared/tools/drill/server.sh --root FOLDER` (under `flock
/tmp/drill-oracle.lock`, as every use of the oracle), the same file as its `dfs.data`, the same
query text, read by the same probe through Drill's JDBC driver. The JDBC doors also report the
time to the first row of the 10-row statement (the probe's, from `executeQuery`).

`--charts N` then runs N rounds of three BI charts (issue 37) through Drill's JDBC driver, one
after another on one connection, against drillspark's user port and, with `--drill`, real
Drill's, twice each alternately: a GROUP BY of two keys with an ORDER BY and no LIMIT (as a
JDBC/ODBC tool such as Tableau sends a chart), a GROUP BY of one key with no LIMIT, and the
first with `LIMIT 10000` (as Superset sends it). They read `sales.json`, 5,000 generated
records (region, product, amount) in the same folder; the p50 of each chart after the first
three rounds, and Drill's over drillspark's. `--runs 0` leaves the whole answers out:

    PYTHONPATH=python python benchmarks/protocol_bench.py --rows 1000 --runs 0 --charts 15
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "native" / "DrillJdbcProbe.java"
DRILL_JDBC = ROOT / "tests" / "native" / "jars" / "drill-jdbc-all-1.22.0.jar"
FLIGHT_JDBC = ROOT / "tests" / "flight" / "jars" / "flight-sql-jdbc-driver-18.3.0.jar"


def generate(folder: Path, rows: int) -> Path:
    path = folder / "rows.json"
    with open(path, "w") as f:
        for i in range(rows):
            f.write(json.dumps({"i": i, "s": f"row number {i}", "f": i * 0.5}) + "\n")
    return path


def flight_adbc(uri: str, sql: str) -> tuple[int, float]:
    import adbc_driver_flightsql.dbapi as flightsql

    with flightsql.connect(uri, autocommit=True) as conn:
        cur = conn.cursor()
        start = time.perf_counter()
        cur.execute(sql)
        table = cur.fetch_arrow_table()
        return table.num_rows, time.perf_counter() - start


DRILL_SERVER = ROOT.parent / "shared" / "tools" / "drill" / "server.sh"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_drill(folder: Path) -> tuple[subprocess.Popen, int]:
    """Real Drill 1.22 (an embedded Drillbit) with `folder` as dfs.data, under the oracle's
    lock; its user port (it hunts upward from 31010 when that is taken)."""
    http = free_port()
    cmd = ["flock", "/tmp/drill-oracle.lock", str(DRILL_SERVER), "--port", str(http)]
    proc = subprocess.Popen(
        [*cmd, "--root", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: stopped whole at the end
    )
    assert proc.stdout is not None
    for line in proc.stdout:  # waits for the lock, then for the Drillbit
        if "web UI and REST API" in line:
            break
    else:
        raise RuntimeError("real Drill did not start (see its log in ~/.cache/drill-scratch)")
    rows = rest(f"http://127.0.0.1:{http}", "SELECT user_port FROM sys.drillbits", whole=True)
    return proc, int(rows[0]["user_port"])


def stop_drill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)  # server.sh forwards it to Drill's JVM
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def rest(url: str, sql: str, whole: bool = False) -> Any:
    body = json.dumps({"queryType": "SQL", "query": sql}).encode()
    req = urllib.request.Request(
        f"{url}/query.json", data=body, headers={"Content-Type": "application/json"}
    )
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=3600) as r:
        answer = json.loads(r.read())
    if whole:
        return answer["rows"]
    return len(answer["rows"]), time.perf_counter() - start


CHARTS = {
    "GROUP BY 2 keys, ORDER BY, no LIMIT": "SELECT region, product, sum(amount) AS s, "
    "count(*) AS n FROM dfs.data.`sales.json` GROUP BY region, product ORDER BY s DESC",
    "GROUP BY 1 key, no LIMIT": "SELECT region, sum(amount) AS s "
    "FROM dfs.data.`sales.json` GROUP BY region",
    "the first with LIMIT 10000": "SELECT region, product, sum(amount) AS s, count(*) AS n "
    "FROM dfs.data.`sales.json` GROUP BY region, product ORDER BY s DESC LIMIT 10000",
}


def generate_sales(folder: Path, records: int = 5000) -> None:
    import random

    rng = random.Random(1)
    with open(folder / "sales.json", "w") as f:
        for i in range(records):
            region = rng.choice(["north", "south", "east", "west"])
            product, amount = f"p{rng.randint(1, 40)}", round(rng.random() * 100, 2)
            f.write(json.dumps({"id": i, "region": region, "product": product, "amount": amount}))
            f.write("\n")


def charts(urls: dict[str, str], rounds: int, extra: list[str]) -> None:
    """The BI charts' p50 through Drill's JDBC driver at each of `urls` (see the docstring)."""
    names = list(CHARTS)
    times: dict[tuple[str, str], list[int]] = {}
    for _ in range(2):
        for engine, url in urls.items():
            print(f"charts: {engine} (load {os.getloadavg()[0]:.1f}) ...", flush=True)
            answers = jdbc_steps(DRILL_JDBC, url, list(CHARTS.values()) * rounds, extra)
            for i, answer in enumerate(answers[3 * len(names) :]):
                times.setdefault((engine, names[i % len(names)]), []).append(answer["ms"])
    print(f"\nBI charts through Drill's JDBC driver, p50 ms of {rounds - 3} rounds x 2:\n")
    engines = list(urls)
    print(
        "| chart | "
        + " | ".join(engines)
        + (" | Drill / drillspark |" if "Drill" in urls else " |")
    )
    print("|---" * (len(engines) + 1 + ("Drill" in urls)) + "|")
    for name in names:
        p50 = {e: statistics.median(times[(e, name)]) for e in engines}
        ratio = f" {p50['Drill'] / p50['drillspark']:.2f}x |" if "Drill" in p50 else ""
        print(f"| {name} | " + " | ".join(f"{p50[e]:.0f}" for e in engines) + " |" + ratio)


def small_statements(n: int) -> list[str]:
    """`n` small statements, each its own text (no cache answers one for another)."""
    return [
        f"SELECT i, s, f FROM dfs.data.`rows.json` WHERE i < 10 AND s <> 'x{k}'"
        for k in range(1, n + 1)
    ]


def jdbc_steps(jar: Path, url: str, sqls: list[str], extra: list[str]) -> list[dict]:
    """The probe's `count:` answer of each statement, run one after another on one
    connection."""
    steps = [f"count:{sql}" for sql in sqls]
    cmd = ["java", *extra, "-Duser.timezone=UTC", "-cp", str(jar), str(PROBE), url, *steps]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600).stdout
    answers = [json.loads(line) for line in out.splitlines() if line.startswith('{"step":"count:')]
    if len(answers) != len(steps) or any("error" in a for a in answers):
        raise RuntimeError(f"the JDBC probe answered:\n{out}")
    return answers


def jdbc(jar: Path, url: str, sql: str, extra: list[str]) -> tuple[int, float, float]:
    cmd = ["java", *extra, "-Duser.timezone=UTC", "-cp", str(jar), str(PROBE), url, f"count:{sql}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600).stdout
    for line in out.splitlines():
        if line.startswith('{"step":"count:'):
            step = json.loads(line)
            if "error" in step:
                raise RuntimeError(step["error"])
            return step["rows"], step["ms"] / 1000, step["firstMs"] / 1000
    raise RuntimeError(f"the JDBC probe answered nothing:\n{out}")


def rows_s(rows: int, seconds: float) -> str:
    return f"{rows / seconds:,.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--small", type=int, default=0, help="then N small statements over JDBC")
    ap.add_argument("--charts", type=int, default=0, help="then N rounds of BI charts, JDBC")
    ap.add_argument(
        "--drill",
        action=argparse.BooleanOptionalAction,
        default=DRILL_SERVER.is_file(),
        help="real Drill's user port as a door too (default: when ../shared/tools/drill is there)",
    )
    ap.add_argument(
        "--door",
        action="append",
        default=[],
        help="only the doors whose name contains this text (repeatable; e.g. native, JDBC)",
    )
    args = ap.parse_args(argv)
    # a timeout's SIGTERM still runs the `finally` below (real Drill stopped, the lock freed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    import drillspark
    from drillspark.server import DrillServer, Limits

    tmp = Path(tempfile.mkdtemp(prefix="protocol-bench-"))
    generate(tmp, args.rows)
    if args.charts:
        generate_sales(tmp)
    # Spark reads a private copy of the extension jar: a rebuild during the run (`make jar`
    # elsewhere) must not change the classes under it
    sessions = importlib.import_module("drillspark.session")  # the module, not the function

    jar = tmp / Path(sessions.jar_path()).name
    shutil.copyfile(sessions.jar_path(), jar)
    sessions.jar_path = lambda: str(jar)  # type: ignore[assignment]
    spark = drillspark.session(
        master="local[2]", **{"spark.ui.enabled": "false", "spark.sql.session.timeZone": "UTC"}
    )
    srv = DrillServer(
        spark,
        port=0,
        user_port=0,
        flight_port=0,
        workspaces={"data": str(tmp)},
        limits=Limits(max_rows=0, max_seconds=0),
    ).start()
    big = "SELECT i, s, f FROM dfs.data.`rows.json`"
    small = "SELECT i, s, f FROM dfs.data.`rows.json` LIMIT 10"
    native_url = f"jdbc:drill:drillbit=127.0.0.1:{srv.native.port}"
    flight_url = f"jdbc:arrow-flight-sql://127.0.0.1:{srv.flight.port}/?useEncryption=false"
    drill_flags = ["--add-opens", "java.base/java.lang=ALL-UNNAMED"]
    flight_flags = ["--add-opens=java.base/java.nio=ALL-UNNAMED"]
    drill, drill_url = None, ""
    doors: dict[str, Any] = {
        "Flight SQL (ADBC, Arrow table)": lambda q: flight_adbc(srv.flight.uri, q),
        "REST /query.json (JSON parsed)": lambda q: rest(srv.url, q),
        "native (Drill's JDBC driver)": lambda q: jdbc(DRILL_JDBC, native_url, q, drill_flags),
        "Flight SQL (Flight SQL JDBC driver)": lambda q: jdbc(
            FLIGHT_JDBC, flight_url, q, flight_flags
        ),
        "real Drill 1.22's user port (Drill's JDBC driver)": lambda q: jdbc(
            DRILL_JDBC, drill_url, q, drill_flags
        ),
    }
    if not args.drill:
        doors.pop("real Drill 1.22's user port (Drill's JDBC driver)")
    if args.door:
        doors = {
            k: v
            for k, v in doors.items()
            if any(d.lower() in k.lower() for d in args.door) or k.startswith("real Drill")
        }
    best: dict[str, float] = {}
    whole_small: dict[str, float] = {}
    first_row: dict[str, float] = {}
    loads: list[float] = []
    try:
        if args.drill:
            drill, user_port = start_drill(tmp)
            drill_url = f"jdbc:drill:drillbit=127.0.0.1:{user_port}"
        for door in doors.values():  # a warm-up: the reader's first compile, JIT
            door(small)
        for run in range(args.runs):
            for name, door in doors.items():
                loads.append(os.getloadavg()[0])
                rows, seconds, *_ = door(big)
                if rows != args.rows:
                    raise RuntimeError(f"{name}: {rows} rows, not {args.rows}")
                best[name] = min(best.get(name, seconds), seconds)
                rows, seconds, *firsts = door(small)
                whole_small[name] = min(whole_small.get(name, seconds), seconds)
                if firsts:
                    first_row[name] = min(first_row.get(name, firsts[0]), firsts[0])
                first = f", first row {firsts[0] * 1000:.0f} ms" if firsts else ""
                print(
                    f"run {run + 1}: {name}: {rows_s(args.rows, best[name])} rows/s best, "
                    f"10-row statement {seconds:.3f} s{first} (load {loads[-1]:.1f})",
                    flush=True,
                )
        if args.small:
            answers = jdbc_steps(DRILL_JDBC, native_url, small_statements(args.small), drill_flags)
            ms = sorted(a["ms"] for a in answers)
            print(
                f"\n{args.small} small statements through Drill's JDBC driver (native): "
                f"{sum(ms) / 1000:.1f} s, median {ms[len(ms) // 2]} ms"
            )
        if args.charts:
            urls = {"drillspark": native_url, **({"Drill": drill_url} if drill_url else {})}
            charts(urls, args.charts + 3, drill_flags)
    finally:
        if drill is not None:
            stop_drill(drill)
        srv.stop()
        spark.stop()
    if not best:  # --runs 0: no whole answers
        return 0
    load = f"load {min(loads):.1f}-{max(loads):.1f}" if loads else ""
    print(f"\n{args.rows:,} rows (i BIGINT, s VARCHAR, f DOUBLE), best of {args.runs}, {load}:\n")
    print("| door | whole answer | rows/s | 10-row statement | its first row |")
    print("|---|---|---|---|---|")
    for name in doors:
        first = f"{first_row[name] * 1000:.0f} ms" if name in first_row else "-"
        print(
            f"| {name} | {best[name]:.2f} s | {args.rows / best[name]:,.0f} | "
            f"{whole_small[name] * 1000:.0f} ms | {first} |"
        )
    drill_name = "real Drill 1.22's user port (Drill's JDBC driver)"
    if drill_name in best:
        print()
        for name in doors:
            if name != drill_name:
                print(f"{name}: {best[drill_name] / best[name]:.2f}x Drill's rows/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
