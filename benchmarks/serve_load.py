"""A short load figure for `drillspark serve`: N clients (default 16), each with its own
connection, send the same small query for a while; prints queries/s and latency
percentiles. Usage: python benchmarks/serve_load.py --data ../shared/data [--clients 16]
[--seconds 30]"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
import urllib.request

QUERY = (
    "SELECT N_REGIONKEY, count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json` "
    "GROUP BY N_REGIONKEY"
)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--master", default="local[2]")
    args = p.parse_args()
    import drillspark
    from drillspark.server import DrillServer, Limits

    spark = drillspark.session(
        master=args.master,
        **{
            "spark.ui.enabled": "false",
            "spark.scheduler.mode": "FAIR",
            "spark.sql.shuffle.partitions": "2",
        },
    )
    server = DrillServer(
        spark, port=0, workspaces={"data": args.data}, limits=Limits(max_running=args.clients)
    ).start()
    body = json.dumps({"queryType": "SQL", "query": QUERY}).encode()

    def ask() -> float:
        t0 = time.perf_counter()
        req = urllib.request.Request(
            server.url + "/query.json", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=300) as r:
            answer = json.loads(r.read())
        assert answer["queryState"] == "COMPLETED", answer
        return time.perf_counter() - t0

    for _ in range(3):  # warm up: JIT, file listing caches
        ask()
    latencies: list[float] = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + args.seconds

    def client() -> None:
        while time.perf_counter() < stop_at:
            took = ask()
            with lock:
                latencies.append(took)

    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    server.stop()
    spark.stop()
    q = statistics.quantiles(latencies, n=100)
    print(
        f"{args.clients} clients, {len(latencies)} queries in {elapsed:.1f} s: "
        f"{len(latencies) / elapsed:.1f} queries/s, p50 {q[49] * 1000:.0f} ms, "
        f"p95 {q[94] * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
