"""Load (`make test-long`): a 10-million-row answer from one Spark partition through
`drillspark serve` with a 1 GiB driver heap and no row limit. Before, the driver collected the
partition whole: nothing for 600 s, then a dead driver JVM while /status.json said `Running!`.
Now the answer is streamed from its task in bounded pieces (server/partition_stream.py; the
collect cap, spark.driver.maxResultSize, is 64 MiB here, so a partition collected whole would be
refused):
every row arrives, the driver's heap stays bounded, and the server answers the next query."""

from __future__ import annotations

import gzip
import http.client
import json
import threading
import time

import pytest
from tests.reliability.test_server_resources import Serve
from tests.server.helpers import Http

pytestmark = [pytest.mark.load, pytest.mark.spark_process, pytest.mark.slow]

ROWS = 10_000_000


def test_ten_million_rows_from_one_partition_with_bounded_driver_memory(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    # gzip: one file Spark cannot split, so the answer is one partition
    with gzip.open(data / "rows.json.gz", "wt", compresslevel=1) as f:
        for start in range(0, ROWS, 100_000):
            f.write("".join(f'{{"a":{i}}}\n' for i in range(start, start + 100_000)))
    srv = Serve(
        tmp_path,
        {"w": data},
        "--max-rows",
        "0",
        "--max-seconds",
        "0",
        "--conf",
        "spark.driver.memory=1g",
        "--conf",
        "spark.driver.maxResultSize=64m",
    )
    heap: list[int] = []  # the driver JVM's heap in use (garbage included)
    live: list[int] = []  # what its last collections left: the live data
    streaming = threading.Event()

    def sample() -> None:  # once a second while rows flow
        client = Http(srv.url)
        while not streaming.wait(1.0):
            gauges = client.get_json("/status/metrics")["gauges"]
            heap.append(int(gauges["memory.heap.used"]["value"]))
            live.append(int(gauges["drillspark.memory.heap.live"]["value"]))

    try:
        host, port = srv.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=1800)
        body = json.dumps({"queryType": "SQL", "query": "SELECT a FROM dfs.w.`rows.json.gz`"})
        conn.request("POST", "/query.json", body, {"Content-Type": "application/json"})
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.monotonic()
        response = conn.getresponse()
        rows, total, last, tail = 0, 0, -1, ""
        for raw in response:  # one row a line; read as it comes, never held whole
            line = raw.decode().strip().lstrip(",")
            if line.startswith('{"a":'):
                value = json.loads(line)["a"]
                assert value == last + 1, f"row {rows}: {value} after {last}"
                last, rows, total = value, rows + 1, total + value
            elif line.startswith('"queryState"') or line.startswith('"errorMessage"'):
                tail += line
        streaming.set()
        sampler.join(timeout=30)
        elapsed = time.monotonic() - started
        assert '"COMPLETED"' in tail, tail
        assert rows == ROWS and total == ROWS * (ROWS - 1) // 2
        client = Http(srv.url)
        gauges = client.get_json("/status/metrics")["gauges"]
        heap_max = int(gauges["memory.heap.max"]["value"])
        print(
            f"{rows} rows in {elapsed:.0f} s; driver heap of {heap_max >> 20} MiB: in use at "
            f"most {max(heap) >> 20} MiB, live after collections at most {max(live) >> 20} MiB "
            f"(median {sorted(live)[len(live) // 2] >> 20} MiB; {len(live)} samples)"
        )
        assert live and max(live) < 0.6 * heap_max
        assert client.query("SELECT 1 AS one")["rows"] == [{"one": 1}]
        assert client.get_json("/status.json") == {"status": "Running!"}
    finally:
        streaming.set()
        srv.stop()
