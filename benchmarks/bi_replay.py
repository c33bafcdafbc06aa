"""The BI replay (issue 37): what a Superset user's sqlalchemy-drill sends to add a folder of
files as datasets, then a dashboard of ten small charts, against `drillspark serve` and real
Drill 1.22's REST server on the same files in one run; per-step p50 / p95 and the ratio.

    python benchmarks/bi_replay.py                       # 1 and 16 clients, both servers
    python benchmarks/bi_replay.py --clients 1 --rounds 3 --no-drill --show-statements

Discovery is sqlalchemy-drill's own `inspect()` (the dialect Superset uses), not a copy of its
statements: `get_schema_names`, `get_table_names` of `dfs.data`, and `get_columns` of every file
(which itself asks INFORMATION_SCHEMA for the plugin's type and the views, then sends a
`SELECT * ... LIMIT 1` probe). Each statement is logged through SQLAlchemy's cursor events, so
`--show-statements` prints the real sequence. The charts are GROUP BY, FLATTEN + GROUP BY and
JOIN + GROUP BY statements sent through the same connection, as Superset's chart queries are.

The files (JSON, CSV with a header (`.csvh`), Parquet; `--files` of each, plus one Parquet
table of products for the joins) are generated once into `--data` (default
~/.cache/drillspark/bi-replay, outside the repository). Both servers read them as `dfs.data`.
drillspark runs as `drillspark serve` in its own process; Drill as
`../shared/tools/drill/server.sh` under `flock /tmp/drill-oracle.lock` (one Drill at a time on
the machine). Both stay idle for `--idle` seconds (a server starts before its users come;
drillspark warms its JVM up meanwhile, sql/warm_up.py), then each gets a first replay (printed,
not in the tables: the issue's figures are warm), then `--rounds` replays at 1 client and
`--rounds-many` (one by default) at each larger client count, the servers alternating (with
`--together`, the clients' dashboards start at once after every client connected: a server whose
connect is slow spreads its clients' charts over time, and so runs fewer at once). Every chart's answer and every file's
column names are compared between the two servers; differences are printed as MISMATCH lines.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from drill_race import drill_missing, drill_tool_dir  # noqa: E402

DEFAULT_DATA = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
DEFAULT_DATA = DEFAULT_DATA / "drillspark" / "bi-replay"
STATUSES = ["new", "paid", "shipped", "returned"]
CITIES = ["Lyon", "Porto", "Oslo", "Quito", "Accra", "Perth"]
REGIONS = ["north", "south", "east", "west"]
SEGMENTS = ["retail", "smb", "enterprise"]
CATEGORIES = ["tools", "toys", "books", "garden", "food"]


# ---- the workspace ----


def generate(folder: Path, files: int, rows: int) -> None:
    """`files` JSON orders, CSV customers and Parquet sales files of `rows` records each, and
    products.parquet; written once (a marker names the shape)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    marker = folder / f".complete-{files}x{rows}"
    if marker.exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    rnd = random.Random(37)
    for n in range(files):
        with open(folder / f"orders_{n:02d}.json", "w") as f:
            for i in range(rows):
                items = [
                    {
                        "sku": f"s{rnd.randrange(12):02d}",
                        "qty": rnd.randrange(1, 6),
                        "price": round(rnd.uniform(1, 90), 2) + 0.005,
                    }
                    for _ in range(rnd.randrange(1, 4))
                ]
                record = {
                    "order_id": n * rows + i,
                    "customer": f"c{rnd.randrange(rows):04d}",
                    "status": rnd.choice(STATUSES),
                    "total": round(rnd.uniform(5, 500), 2) + 0.005,
                    "ship": {"city": rnd.choice(CITIES), "zip": f"{rnd.randrange(99999):05d}"},
                    "items": items,
                }
                f.write(json.dumps(record) + "\n")
        with open(folder / f"customers_{n:02d}.csvh", "w") as f:
            f.write("id,name,region,segment,balance\n")
            for i in range(rows):
                f.write(
                    f"c{i:04d},name {i},{rnd.choice(REGIONS)},{rnd.choice(SEGMENTS)},"
                    f"{rnd.uniform(0, 1000):.2f}\n"
                )
        table = pa.table(
            {
                "sale_id": pa.array([n * rows + i for i in range(rows)], pa.int64()),
                "product_id": pa.array([rnd.randrange(40) for _ in range(rows)], pa.int64()),
                "qty": pa.array([rnd.randrange(1, 9) for _ in range(rows)], pa.int64()),
                "amount": pa.array([round(rnd.uniform(1, 300), 2) for _ in range(rows)]),
                "day": pa.array([f"2024-03-{rnd.randrange(1, 29):02d}" for _ in range(rows)]),
            }
        )
        pq.write_table(table, folder / f"sales_{n:02d}.parquet")
    products = pa.table(
        {
            "product_id": pa.array(list(range(40)), pa.int64()),
            "category": pa.array([CATEGORIES[i % len(CATEGORIES)] for i in range(40)]),
            "name": pa.array([f"product {i}" for i in range(40)]),
        }
    )
    pq.write_table(products, folder / "products.parquet")
    marker.touch()


def charts() -> list[tuple[str, str]]:
    """The dashboard: ten small aggregate charts (kind, SQL), as a chart's query reaches the
    server (Superset wraps none of these; its row limit is the LIMIT)."""
    d = "dfs.data"
    return [
        (
            "group csv",
            f"SELECT region, count(*) AS n FROM {d}.`customers_00.csvh` "
            "GROUP BY region ORDER BY region LIMIT 10000",
        ),
        (
            "group csv",
            f"SELECT segment, sum(CAST(balance AS DOUBLE)) AS total "
            f"FROM {d}.`customers_01.csvh` GROUP BY segment ORDER BY segment LIMIT 10000",
        ),
        (
            "group json",
            f"SELECT status, count(*) AS n, sum(total) AS revenue "
            f"FROM {d}.`orders_00.json` GROUP BY status ORDER BY status LIMIT 10000",
        ),
        (
            "group json",
            f"SELECT t.ship.city AS city, count(*) AS n FROM {d}.`orders_01.json` t "
            "GROUP BY t.ship.city ORDER BY city LIMIT 10000",
        ),
        (
            "flatten+group",
            "SELECT f.item.sku AS sku, sum(f.item.qty) AS qty FROM "
            f"(SELECT FLATTEN(t.items) AS item FROM {d}.`orders_02.json` t) f "
            "GROUP BY f.item.sku ORDER BY sku LIMIT 10000",
        ),
        (
            "flatten+group",
            "SELECT f.item.sku AS sku, count(*) AS n FROM "
            f"(SELECT FLATTEN(t.items) AS item FROM {d}.`orders_03.json` t) f "
            "GROUP BY f.item.sku ORDER BY n DESC, sku LIMIT 5",
        ),
        (
            "group parquet",
            f"SELECT `day`, sum(amount) AS amount FROM {d}.`sales_00.parquet` "
            "GROUP BY `day` ORDER BY `day` LIMIT 10000",
        ),
        (
            "join+group",
            "SELECT p.category, sum(s.amount) AS amount "
            f"FROM {d}.`sales_01.parquet` s JOIN {d}.`products.parquet` p "
            "ON s.product_id = p.product_id GROUP BY p.category ORDER BY p.category LIMIT 10000",
        ),
        (
            "join+group",
            "SELECT p.category, count(*) AS n, sum(s.qty) AS qty "
            f"FROM {d}.`sales_02.parquet` s JOIN {d}.`products.parquet` p "
            "ON s.product_id = p.product_id GROUP BY p.category ORDER BY p.category LIMIT 10000",
        ),
        (
            "join+group",
            "SELECT c.region, count(*) AS n "
            f"FROM {d}.`orders_04.json` o JOIN {d}.`customers_02.csvh` c ON o.customer = c.id "
            "GROUP BY c.region ORDER BY c.region LIMIT 10000",
        ),
    ]


# ---- one client's replay ----


@dataclass
class Replay:
    """One replay's timings: step name -> seconds of each call; the statements sent."""

    steps: dict[str, list[float]] = field(default_factory=dict)
    statements: list[tuple[str, float]] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)
    total: float = 0.0

    def add(self, step: str, seconds: float) -> None:
        self.steps.setdefault(step, []).append(seconds)


def _timed(replay: Replay, step: str, call: Any) -> Any:
    t0 = time.perf_counter()
    out = call()
    replay.add(step, time.perf_counter() - t0)
    return out


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, str):
        try:
            return round(float(value), 4) if "." in value else int(value)
        except ValueError:
            return value
    return value


def replay_once(
    port: int, discovery: bool = True, before_charts: Callable[[], Any] | None = None
) -> Replay:
    """sqlalchemy-drill's dataset discovery over dfs.data (unless `discovery` is False), then
    the ten charts, on one new engine (a new Superset database connection); `before_charts()`
    is called between the two (a barrier of --together)."""
    from sqlalchemy import create_engine, event, inspect, text
    from sqlalchemy.exc import SAWarning

    # sqlalchemy-drill sets no statement cache flag: SQLAlchemy warns at every statement
    warnings.filterwarnings("ignore", category=SAWarning)
    replay = Replay()
    engine = create_engine(f"drill+sadrill://127.0.0.1:{port}/dfs/data?use_ssl=False")
    started: dict[int, float] = {}

    @event.listens_for(engine, "before_cursor_execute")
    def _before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        started[id(cursor)] = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _after(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        replay.statements.append((statement, time.perf_counter() - started.pop(id(cursor))))

    t0 = time.perf_counter()
    inspector = _timed(replay, "connect", lambda: inspect(engine))
    _timed(replay, "get_schema_names", inspector.get_schema_names)
    tables = []
    if discovery:
        tables = _timed(replay, "get_table_names", lambda: inspector.get_table_names("dfs.data"))
    for table in sorted(tables):
        kind = {"json": "json", "csvh": "csv", "parquet": "parquet"}.get(table.rsplit(".")[-1])
        if kind is None:
            continue
        columns = _timed(
            replay, f"get_columns {kind}", lambda t=table: inspector.get_columns(t, "dfs.data")
        )
        replay.answers[f"columns {table}"] = [c["name"] for c in columns]
    if before_charts is not None:
        before_charts()
    with engine.connect() as conn:
        for i, (kind, sql) in enumerate(charts()):
            rows = _timed(replay, f"chart {kind}", lambda s=sql: conn.execute(text(s)).fetchall())
            replay.answers[f"chart {i}"] = [tuple(_norm(v) for v in r) for r in rows]
    replay.total = time.perf_counter() - t0
    engine.dispose()
    return replay


def replay_clients(
    port: int, clients: int, discovery: bool, together: bool = False
) -> tuple[list[Replay], float]:
    """`clients` replays at once (one thread and one engine each); their wall time. With
    `together`, every client's dashboard starts once all have connected (and discovered)."""
    out: list[Replay | BaseException] = [RuntimeError("not run")] * clients
    barrier = threading.Barrier(clients, timeout=600) if together else None

    def one(i: int) -> None:
        try:
            out[i] = replay_once(port, discovery, barrier.wait if barrier else None)
        except BaseException as e:  # reported below, with the server's name
            out[i] = e

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for r in out:
        if isinstance(r, BaseException):
            raise RuntimeError(f"a client's replay failed: {r}") from r
    return [r for r in out if isinstance(r, Replay)], wall


# ---- the two servers ----


def _wait_http(port: int, proc: subprocess.Popen, timeout: float, what: str) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} ended before answering (exit {proc.returncode})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"{what} did not answer on port {port} within {timeout:.0f} s")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_drillspark(
    data: Path,
    master: str,
    log: Path,
    max_running: int,
    warm_up: bool = True,
    confs: Sequence[str] = (),
    warm_up_rounds: int | None = None,
) -> tuple[subprocess.Popen, int]:
    port = free_port()
    cmd = [
        str(Path(sys.executable).parent / "drillspark"), "serve", "--port", str(port),
        "--user-port", "-1", "--workspace", f"data={data}", "--state-dir", "",
        "--master", master, "--max-running", str(max_running),
    ]  # fmt: skip
    if not warm_up:
        cmd.append("--no-warm-up")
    elif warm_up_rounds is not None:
        cmd += ["--warm-up-rounds", str(warm_up_rounds)]
    for conf in confs:
        cmd += ["--conf", conf]
    proc = subprocess.Popen(
        cmd, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )
    _wait_http(port, proc, 300, "drillspark serve")
    return proc, port


def start_drill(data: Path, log: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    cmd = [
        "flock", "/tmp/drill-oracle.lock",
        str(drill_tool_dir() / "server.sh"), "--port", str(port), "--root", str(data),
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )
    _wait_http(port, proc, 1800, "Drill's server.sh (waits for /tmp/drill-oracle.lock)")
    return proc, port


def stop(proc: subprocess.Popen) -> None:
    """The server's own process group (started with a new session), by its id."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# ---- figures ----


def pct(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    s = sorted(values)
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def merge(replays: list[Replay]) -> dict[str, list[float]]:
    steps: dict[str, list[float]] = {}
    for r in replays:
        for name, vals in r.steps.items():
            steps.setdefault(name, []).extend(vals)
    steps["whole replay"] = [r.total for r in replays]
    return steps


def _cell(v: list[float] | None, q: float) -> str:
    return f"{pct(v, q):.3f}" if v else "-"


def _ratio(drill: list[float] | None, ours: list[float] | None, q: float) -> str:
    """Drill's seconds / drillspark's: above 1, drillspark is faster."""
    return f"{pct(drill, q) / pct(ours, q):.2f}" if drill and ours else "-"


def table(results: dict[str, dict[str, list[float]]], clients: int, load: str) -> list[str]:
    ds, dr = results.get("drillspark", {}), results.get("drill", {})
    lines = [
        f"\n{clients} client(s); load average during the run: {load}",
        "| step | calls | Drill p50 | drillspark p50 | ratio p50 | Drill p95 | "
        "drillspark p95 | ratio p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for step in ds or dr:
        a, b = dr.get(step), ds.get(step)
        n = len(b or a or [])
        lines.append(
            f"| {step} | {n} | {_cell(a, 0.5)} | {_cell(b, 0.5)} | {_ratio(a, b, 0.5)} | "
            f"{_cell(a, 0.95)} | {_cell(b, 0.95)} | {_ratio(a, b, 0.95)} |"
        )
    return lines


def compare(answers: dict[str, dict[str, Any]]) -> list[str]:
    if len(answers) < 2:
        return []
    a, b = answers["drill"], answers["drillspark"]
    out = []
    for key in a:
        if a[key] != b.get(key):
            out.append(f"MISMATCH {key}: Drill {a[key]!r:.300} / drillspark {b.get(key)!r:.300}")
    return out


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--files", type=int, default=10, help="files of each format (default 10)")
    ap.add_argument("--rows", type=int, default=500, help="records per file (default 500)")
    ap.add_argument("--rounds", type=int, default=5, help="1-client replays per server")
    ap.add_argument("--clients", default="1,16", help="client counts (default 1,16)")
    ap.add_argument(
        "--rounds-many",
        type=int,
        default=1,
        help="replays of several clients at once per server (default 1); the steps' p50 and "
        "p95 are over every call of every round",
    )
    ap.add_argument(
        "--many",
        choices=["charts", "all"],
        default="charts",
        help="what each client replays when there are several: the dashboard (default; a "
        "dashboard is what many users open at once) or discovery too",
    )
    ap.add_argument(
        "--together",
        action="store_true",
        help="the clients' dashboards start together, once every client has connected: each "
        "server's charts under the same concurrency, whatever its connect time",
    )
    ap.add_argument("--master", default="local[2]")
    ap.add_argument(
        "--max-running", type=int, default=16, help="drillspark serve's queries at once"
    )
    ap.add_argument(
        "--idle",
        type=float,
        default=10.0,
        help="seconds both servers stay idle after starting, before the first replay "
        "(default 10: a server is started before its users come)",
    )
    ap.add_argument(
        "--no-warm-up",
        dest="warm_up",
        action="store_false",
        help="drillspark serve without its warm-up while idle (sql/warm_up.py)",
    )
    ap.add_argument(
        "--warm-up-rounds",
        type=int,
        help="drillspark serve's rounds of warm-up statements while idle (its default: 40)",
    )
    ap.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for drillspark serve (repeatable), e.g. to compare a "
        "spark.drillspark.* switch off and on",
    )
    ap.add_argument("--no-drill", action="store_true")
    ap.add_argument("--no-drillspark", action="store_true")
    ap.add_argument("--show-statements", action="store_true")
    ap.add_argument("--json", type=Path, help="write every timing here")
    args = ap.parse_args(argv)

    generate(args.data, args.files, args.rows)
    counts = [int(c) for c in args.clients.split(",")]
    logs = ROOT / "benchmarks" / "out"
    logs.mkdir(exist_ok=True)
    servers: dict[str, tuple[subprocess.Popen, int]] = {}
    try:
        if not args.no_drillspark:
            t0 = time.perf_counter()
            servers["drillspark"] = start_drillspark(
                args.data,
                args.master,
                logs / "bi_replay.drillspark.log",
                args.max_running,
                args.warm_up,
                args.conf,
                args.warm_up_rounds,
            )
            print(f"drillspark serve up in {time.perf_counter() - t0:.1f} s", flush=True)
        if not args.no_drill:
            why = drill_missing()
            if why:
                print(f"Drill left out: {why}")
            else:
                t0 = time.perf_counter()
                servers["drill"] = start_drill(args.data, logs / "bi_replay.drill.log")
                print(f"Drill's server up in {time.perf_counter() - t0:.1f} s", flush=True)
        time.sleep(args.idle)
        answers: dict[str, dict[str, Any]] = {}
        for name, (_, port) in servers.items():
            warm = replay_once(port)  # the first replay after the start: not in the tables
            answers[name] = warm.answers
            print(
                f"{name}: first replay {warm.total:.2f} s, {len(warm.statements)} statements "
                f"(after {args.idle:g} s idle; the slowest statement "
                f"{max(sec for _, sec in warm.statements):.2f} s)"
            )
            if args.show_statements:
                for sql, sec in warm.statements:
                    print(f"  {sec * 1000:8.1f} ms  {' '.join(sql.split())}")
        for line in compare(answers):
            print(line)
        report: dict[str, Any] = {}
        for clients in counts:
            results: dict[str, dict[str, list[float]]] = {n: {} for n in servers}
            walls: dict[str, list[float]] = {n: [] for n in servers}
            loads = [loadavg()]
            for _ in range(args.rounds if clients == 1 else args.rounds_many):
                for name, (_, port) in servers.items():
                    replays, wall = replay_clients(
                        port, clients, clients == 1 or args.many == "all", args.together
                    )
                    walls[name].append(wall)
                    for step, vals in merge(replays).items():
                        results[name].setdefault(step, []).extend(vals)
                    loads.append(loadavg())
            print("\n".join(table(results, clients, " / ".join(loads))))
            for name in servers:
                print(f"{name}: wall time of the {clients}-client replays: "
                      + ", ".join(f"{w:.2f} s" for w in walls[name]))  # fmt: skip
            report[str(clients)] = {"steps": results, "walls": walls, "load": loads}
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
    finally:
        for proc, _ in servers.values():
            stop(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
