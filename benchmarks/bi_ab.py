"""Two checkouts of drillspark side by side on the BI replay's chart statements (issue 37): a
`drillspark serve` from each (`--tree`, e.g. a worktree of the branch before a change and one
after), the charts sent to both over REST as sqlalchemy-drill sends them, alternating
statement by statement (so load drifts hit both alike), and per chart kind the median seconds
of each and the ratio. Every answer is compared between the two.

    python benchmarks/bi_ab.py --tree before=/work/wt-base --tree after=. --runs 9

Each tree's `python/` goes first on the server's PYTHONPATH, so it runs that tree's Python and
that tree's jar (python/drillspark/jars).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bi_replay import DEFAULT_DATA, _wait_http, charts, free_port, generate, stop  # noqa: E402


def start(tree: Path, data: Path, master: str, log: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(tree / "python"))
    cmd = [
        sys.executable, "-m", "drillspark.cli.main", "serve", "--port", str(port),
        "--user-port", "-1", "--workspace", f"data={data}", "--state-dir", "",
        "--master", master, "--max-running", "16",
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True, env=env
    )
    _wait_http(port, proc, 300, f"drillspark serve of {tree}")
    return proc, port


def post(port: int, sql: str) -> tuple[float, list[Any]]:
    body = json.dumps({"queryType": "SQL", "query": sql, "userName": None}).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/query.json",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as resp:
        answer = json.loads(resp.read())
    seconds = time.perf_counter() - t0
    if answer.get("queryState") != "COMPLETED":
        raise RuntimeError(f"{sql}: {answer}")
    return seconds, answer.get("rows", [])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH, twice")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--files", type=int, default=5)
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--warm", type=int, default=3)
    args = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree)
    generate(args.data, args.files, args.rows)
    logs = HERE / "out"
    logs.mkdir(exist_ok=True)
    servers: dict[str, tuple[subprocess.Popen, int]] = {}
    times: dict[str, dict[str, list[float]]] = {n: {} for n in trees}
    mismatches = []
    loads = [os.getloadavg()[0]]
    try:
        for name, path in trees.items():
            servers[name] = start(Path(path).resolve(), args.data, args.master,
                                  logs / f"bi_ab.{name}.log")  # fmt: skip
        for round_ in range(args.warm + args.runs):
            for kind, sql in charts():
                answers = {}
                # the order of the two alternates between rounds
                order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
                for name in order:
                    seconds, rows = post(servers[name][1], sql)
                    answers[name] = rows
                    if round_ >= args.warm:
                        times[name].setdefault(kind, []).append(seconds)
                first, *rest = answers.values()
                if any(r != first for r in rest):
                    mismatches.append(sql)
            loads.append(os.getloadavg()[0])
    finally:
        for proc, _ in servers.values():
            stop(proc)
    a, b = list(trees)
    print(f"\nmedian seconds per statement, {args.runs} rounds after {args.warm} warm-up rounds; "
          f"load average (1 min) {min(loads):.1f}-{max(loads):.1f}")  # fmt: skip
    print(f"| chart | calls | {a} | {b} | {a} / {b} |")
    print("|---|---|---|---|---|")
    for kind in times[a]:
        x, y = statistics.median(times[a][kind]), statistics.median(times[b][kind])
        print(f"| {kind} | {len(times[a][kind])} | {x:.3f} | {y:.3f} | {x / y:.2f} |")
    allx = [v for vs in times[a].values() for v in vs]
    ally = [v for vs in times[b].values() for v in vs]
    print(f"| all charts | {len(allx)} | {statistics.median(allx):.3f} | "
          f"{statistics.median(ally):.3f} | {statistics.median(allx) / statistics.median(ally):.2f} |")  # fmt: skip
    for sql in mismatches:
        print(f"MISMATCH {sql}")
    print("answers: equal" if not mismatches else f"{len(mismatches)} answers differ")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
