"""Records from no file (#32): the same generated records read through the `mongo` plugin (from
FerretDB over SQLite, started from `make setup`'s build on a free loopback port and stopped at
the end), through the `http` plugin (one JSON answer of a local http.server, its records at
`dataPath`) and from a local JSON-lines file through `dfs`, each by the same `drill` reader.

    PYTHONPATH=python:. python benchmarks/records_bench.py             # 20,000 records
    PYTHONPATH=python:. python benchmarks/records_bench.py --records 100000 --runs 5

Each source answers `SELECT count(*), sum(v), max(t.m.k)`; the best of `--runs` warm runs is
kept and the answers must agree. Prints the times and rows/s, and each source's time over the
file's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SQL = "SELECT count(*) AS n, sum(v) AS s, max(t.m.k) AS k FROM {table} t"


def records(n: int) -> list[dict]:
    return [
        {"_id": i, "name": f"n{i}", "v": i * 0.5, "tags": ["a", "b"][: i % 3], "m": {"k": i % 7}}
        for i in range(n)
    ]


def serve(body: bytes) -> ThreadingHTTPServer:
    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--records", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    from tests.storage import mongo_server

    import drillspark
    from drillspark.sql import SqlEngine
    from drillspark.sql.session import SqlSession

    reason = mongo_server.missing()
    if reason:
        print(f"records_bench: {reason}", file=sys.stderr)
        return 1
    rows = records(args.records)
    with tempfile.TemporaryDirectory(prefix="records-bench-") as tmp:
        folder = Path(tmp)
        (folder / "docs.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
        page = serve(json.dumps({"results": rows}).encode())
        ferret = mongo_server.FerretDB(folder / "ferretdb")
        try:
            spark = drillspark.session()
            jvm = spark._jvm
            client = jvm.com.mongodb.client.MongoClients.create(ferret.uri)
            coll = client.getDatabase("bench").getCollection("docs")
            started = time.perf_counter()
            for k in range(0, len(rows), 5000):  # two JVM calls a batch: parse, insert
                docs = jvm.org.bson.BsonArray.parse(json.dumps(rows[k : k + 5000]))
                coll.withDocumentClass(jvm.org.bson.BsonDocument._java_lang_class).insertMany(
                    docs.getValues()
                )
            client.close()
            print(f"loaded {len(rows)} documents in {time.perf_counter() - started:.1f} s")
            port = page.server_address[1]
            plugins = {
                "mongo": {"type": "mongo", "connection": ferret.uri, "batchSize": 1000},
                "api": {
                    "type": "http",
                    "connections": {
                        "docs": {
                            "url": f"http://127.0.0.1:{port}/docs.json",
                            "requireTail": False,
                            "dataPath": "results",
                        }
                    },
                },
            }
            engine = SqlEngine(spark, SqlSession(workspaces={"b": str(folder)}, plugins=plugins))
            tables = {
                "file": "dfs.b.`docs.json`",
                "http": "api.docs",
                "mongo": "mongo.bench.docs",
            }
            best: dict[str, float] = {}
            answers = set()
            for _ in range(args.runs + 1):  # the first round warms each source up
                for source, table in tables.items():
                    t = time.perf_counter()
                    answer = engine.execute(SQL.format(table=table))[-1].rows()
                    elapsed = time.perf_counter() - t
                    answers.add(json.dumps(answer))
                    if _ > 0:
                        best[source] = min(best.get(source, elapsed), elapsed)
            if len(answers) != 1:
                print(f"records_bench: the sources disagree: {answers}", file=sys.stderr)
                return 1
            for source, seconds in best.items():
                rate = len(rows) / seconds
                ratio = seconds / best["file"]
                print(f"{source:6} {seconds:7.2f} s  {rate:10,.0f} rows/s  {ratio:5.1f}x file")
        finally:
            ferret.stop()
            page.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
