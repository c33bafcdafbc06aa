"""Records from no file (#32): the same generated records read through the `mongo` plugin (from
FerretDB over SQLite, started from `make setup`'s build on a free loopback port and stopped at
the end), through the `http` plugin (one JSON answer of a local http.server, its records at
`dataPath`), through the `kafka` plugin (JSON messages in a topic of 2 partitions on a single
KRaft broker, Apache Kafka 4.4.0 from `make setup`'s jars, on free loopback ports and stopped by
its process id at the end) and from a local JSON-lines file through `dfs`, each by the same
`drill` reader.

    PYTHONPATH=python:. python benchmarks/records_bench.py             # 20,000 records
    PYTHONPATH=python:. python benchmarks/records_bench.py --records 100000 --runs 5
    PYTHONPATH=python:. python benchmarks/records_bench.py --sources kafka,mongo

Each source answers `SELECT count(*), sum(v), max(t.m.k)`; the best of `--runs` warm runs is
kept and the answers must agree. Prints the times and rows/s, and each source's time over the
file's. A server that cannot start here (FerretDB's build or the broker's jars missing) skips
only its source, with the reason printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SQL = "SELECT count(*) AS n, sum(v) AS s, max(t.m.k) AS k FROM {table} t"
SOURCES = ("file", "http", "mongo", "kafka")  # file: the reference, always read


class Skip(Exception):
    """A source that cannot run here: its reason is printed and the others still run."""


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


# Each source: (plugins to declare, the table to read); what it starts is stopped by `stops`.


def file_source(rows: list[dict], folder: Path, spark: Any, stops: contextlib.ExitStack):
    (folder / "docs.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {}, "dfs.b.`docs.json`"


def http_source(rows: list[dict], folder: Path, spark: Any, stops: contextlib.ExitStack):
    page = serve(json.dumps({"results": rows}).encode())
    stops.callback(page.shutdown)
    url = f"http://127.0.0.1:{page.server_address[1]}/docs.json"
    connection = {"url": url, "requireTail": False, "dataPath": "results"}
    return {"api": {"type": "http", "connections": {"docs": connection}}}, "api.docs"


def mongo_source(rows: list[dict], folder: Path, spark: Any, stops: contextlib.ExitStack):
    from tests.storage import mongo_server

    reason = mongo_server.missing()
    if reason:
        raise Skip(reason)
    ferret = mongo_server.FerretDB(folder / "ferretdb")
    stops.callback(ferret.stop)
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
    plugin = {"type": "mongo", "connection": ferret.uri, "batchSize": 1000}
    return {"mongo": plugin}, "mongo.bench.docs"


def kafka_source(rows: list[dict], folder: Path, spark: Any, stops: contextlib.ExitStack):
    from tests.storage import kafka_server

    reason = kafka_server.missing()
    if reason:
        raise Skip(reason)
    started = time.perf_counter()
    try:  # a broker that exits or never listens is stopped by KafkaBroker itself
        broker = kafka_server.KafkaBroker(folder / "kafka")
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        raise Skip(f"the Kafka broker did not start: {e}") from e
    stops.callback(broker.stop)  # by its process id, also when a later step fails
    print(
        f"started a Kafka broker (pid {broker.proc.pid}, {broker.bootstrap}) in "
        f"{time.perf_counter() - started:.1f} s"
    )
    started = time.perf_counter()
    messages = [{"value": json.dumps(r), "partition": i % 2} for i, r in enumerate(rows)]
    broker.produce({"docs": (2, messages)})
    print(f"produced {len(rows)} messages in {time.perf_counter() - started:.1f} s")
    plugin = {"type": "kafka", "kafkaConsumerProps": {"bootstrap.servers": broker.bootstrap}}
    return {"kafka": plugin}, "kafka.`docs`"


STARTS = {"file": file_source, "http": http_source, "mongo": mongo_source, "kafka": kafka_source}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--records", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--sources",
        default=",".join(SOURCES),
        help=f"comma-separated, of {', '.join(SOURCES)} (default: all; file is always read)",
    )
    args = ap.parse_args()
    wanted = [s.strip() for s in args.sources.split(",") if s.strip()]
    unknown = sorted(set(wanted) - set(SOURCES))
    if unknown:
        ap.error(f"unknown sources {unknown}; known: {', '.join(SOURCES)}")
    wanted = [s for s in SOURCES if s == "file" or s in wanted]

    import drillspark
    from drillspark.sql import SqlEngine
    from drillspark.sql.session import SqlSession

    rows = records(args.records)
    with (
        tempfile.TemporaryDirectory(prefix="records-bench-") as tmp,
        contextlib.ExitStack() as stops,
    ):
        folder = Path(tmp)
        spark = drillspark.session()
        plugins: dict[str, dict] = {}
        tables: dict[str, str] = {}
        for source in wanted:
            try:
                declared, tables[source] = STARTS[source](rows, folder, spark, stops)
            except Skip as e:
                print(f"records_bench: skipping {source}: {e}", file=sys.stderr)
                continue
            plugins.update(declared)
        engine = SqlEngine(spark, SqlSession(workspaces={"b": str(folder)}, plugins=plugins))
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
