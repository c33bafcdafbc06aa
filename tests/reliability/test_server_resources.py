"""The server's resources on every path (docs/reliability.md, "The server's resources"): a
failing request of any kind gives its running slot back; a client that goes away before the
first row cancels its query; an answer not bounded by a small limit is streamed from its tasks
in bounded pieces, whatever its partitions' size; a dead driver JVM is noticed, said by
/status.json, and ends `drillspark serve` with exit code 3."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.server.helpers import Http

from drillspark.server import DrillServer, Limits
from drillspark.server.responses import QUERY_ID_HEADER

SUPPLIER = "dfs.data.`breadth/tpch_json/supplier.json`"


def _slow(tag: str) -> str:
    """A query that runs for a minute (supplier.json has 100 records: each of 100^4 rows is
    tested; a three-way join, 10^6 rows, ended within a second on a fast machine, before the
    client's leaving was seen; a five-way one is not stopped by a cancel for minutes, as
    Spark's tasks look for it between the rows of the first table only); its text names the
    test."""
    names = "abcd"
    joined = ", ".join(f"{SUPPLIER} {n}" for n in names)
    comments = ", ".join(f"{n}.S_COMMENT" for n in names)
    return f"SELECT count(*) AS n FROM {joined} WHERE concat({comments}) LIKE '%{tag}%'"


def _post_raw(url: str, body: bytes, headers: dict[str, str] | None = None) -> dict[str, Any]:
    req = urllib.request.Request(
        url + "/query.json",
        data=body,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return {"status": e.code, **json.loads(e.read() or b"{}")}


def _wait(condition: Any, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def small_server(spark, shared):
    """Two running slots only: a request that kept its slot would wedge the third."""
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(shared / "data")},
        limits=Limits(max_running=2, max_seconds=120),
    ).start()
    yield srv
    srv.stop()


def _disconnect_before_answer(srv: DrillServer, tag: str) -> str:
    """Send a slow query on a raw socket, wait until it runs, close the socket: its id."""
    query_id = str(uuid.uuid4())
    body = json.dumps({"queryType": "SQL", "query": _slow(tag)}).encode()
    sock = socket.create_connection(("127.0.0.1", srv.port))
    sock.sendall(
        b"POST /query.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"{QUERY_ID_HEADER}: {query_id}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    assert _wait(
        lambda: (q := srv.queries.get(query_id)) is not None and q.state in ("PLANNING", "RUNNING")
    ), srv.queries.get(query_id)
    sock.close()
    return query_id


@pytest.mark.load  # the long tier: 40-90 s of `make test`'s 20 minutes
def test_every_failing_request_gives_its_slot_back(small_server):
    """Eight failing requests of each kind, two slots: before, a lone surrogate failed outside
    the code that frees the slot (py4j cannot send it), and the third such request waited
    ENQUEUED for ever."""
    srv, url = small_server, small_server.url
    kinds: list[tuple[str, bytes]] = [
        ("lone surrogate", b'{"queryType":"SQL","query":"SELECT \'\\ud800\' AS s"}'),
        ("syntax", json.dumps({"queryType": "SQL", "query": "SELEC 1"}).encode()),
        (
            "missing table",
            json.dumps(
                {"queryType": "SQL", "query": "SELECT * FROM dfs.data.`nope.json`"}
            ).encode(),
        ),
        (
            "runtime",
            json.dumps(
                {"queryType": "SQL", "query": "SELECT CAST('abc' AS INT) AS n FROM (VALUES(1))"}
            ).encode(),
        ),
        (
            "two statements",
            json.dumps({"queryType": "SQL", "query": "SELECT 1; SELECT 2"}).encode(),
        ),
        ("bad plan", json.dumps({"queryType": "LOGICAL", "query": "{"}).encode()),
        ("physical", json.dumps({"queryType": "PHYSICAL", "query": "{}"}).encode()),
    ]
    for kind, body in kinds:
        for _ in range(8):
            answer = _post_raw(url, body)
            assert answer.get("queryState") == "FAILED", (kind, answer)
            assert "Traceback" not in answer["errorMessage"]
    surrogate = _post_raw(url, kinds[0][1])
    # the user's SQL position, not a plan's
    assert "surrogate" in surrogate["errorMessage"], surrogate
    assert "line 1, column 9" in surrogate["errorMessage"], surrogate
    for i in range(4):  # and clients that leave before the answer
        gone = _disconnect_before_answer(srv, f"gone-{i}")
        assert _wait(lambda gone=gone: not srv.queries.get(gone).running)
    assert srv.queries.running() == []
    assert srv.queries._slots._value == 2  # every slot back
    answer = Http(url).query("SELECT 1 AS one")
    assert answer["rows"] == [{"one": 1}], json.dumps(answer)


def test_a_client_that_leaves_before_the_first_row_cancels_its_query(small_server):
    srv = small_server
    query_id = _disconnect_before_answer(srv, "client-leaves")
    assert _wait(lambda: not srv.queries.get(query_id).running, 60), "the query ran on"
    q = srv.queries.get(query_id)
    assert q.state == "CANCELED"
    assert "client closed the connection" in q.error


# --------------------------------------------------------------------------- a served process
class Serve:
    """`drillspark serve` as a real process on a free port; its stderr kept in `lines`."""

    def __init__(
        self, tmp: Path, workspaces: dict[str, Path], *extra: str, env: dict[str, str] | None = None
    ):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **(env or {}))
        env["DRILLSPARK_RUNTIME_DIR"] = str(tmp / "runtime")
        args = [sys.executable, "-m", "drillspark", "serve", "--port", "0"]
        # one round of the warm-up: a test's idle moments are not the server's to fill
        args += ["--master", "local[2]", "--log-level", "INFO", "--warm-up-rounds", "1", *extra]
        for name, path in workspaces.items():
            args += ["--workspace", f"{name}={path}"]
        self.proc = subprocess.Popen(args, cwd=tmp, env=env, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append(line)
                if "Ctrl-C or SIGTERM stops it" in line:  # the announcement (DEBUG logs more)
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(300), self.log
        m = re.search(r"web console on (http://127\.0\.0\.1:\d+)/", self.log)
        assert m is not None, self.log
        self.url = m.group(1)

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except OSError:
                pass
    return out


def _rows_file(path: Path, n: int) -> None:
    with open(path, "w") as f:
        for i in range(n):
            f.write(f'{{"a":{i},"b":"r{i}"}}\n')


@pytest.mark.load  # the long tier: 20-35 s of `make test`'s time
@pytest.mark.spark_process
@pytest.mark.slow
def test_a_partition_larger_than_the_driver_may_collect_is_streamed(tmp_path):
    """One file of 300,000 rows (two splits on two cores, the first of about 230,000 rows), the
    driver's collect cap (spark.driver.maxResultSize) at 4 MB, so a partition collected whole
    would be refused: every row arrives, in order, streamed from the task in pieces; before,
    the collect held the partition whole (here: refused it)."""
    data = tmp_path / "data"
    data.mkdir()
    _rows_file(data / "big.json", 300_000)
    srv = Serve(tmp_path, {"w": data}, "--max-rows", "0", "--conf", "spark.driver.maxResultSize=4m")
    try:
        http = Http(srv.url)
        answer = http.query("SELECT a, b FROM dfs.w.`big.json`")
        assert answer["queryState"] == "COMPLETED", answer.get("errorMessage")
        assert [r["a"] for r in answer["rows"]] == list(range(300_000))
        assert answer["rows"][-1] == {"a": 299_999, "b": "r299999"}
        ordered = http.query("SELECT a FROM dfs.w.`big.json` ORDER BY a DESC")
        assert [r["a"] for r in ordered["rows"]] == list(range(299_999, -1, -1))
        # answers bounded by a small limit are collected, as before
        assert http.query("SELECT count(*) AS n FROM dfs.w.`big.json`")["rows"] == [{"n": 300_000}]
        assert http.query("SELECT a FROM dfs.w.`big.json` LIMIT 2")["rows"] == [{"a": 0}, {"a": 1}]
        limited = http.query("SELECT a FROM dfs.w.`big.json`", autoLimit=3)
        assert limited["rows"] == [{"a": 0}, {"a": 1}, {"a": 2}]
        # a value that fails in a streaming task fails the query with Drill's error shape,
        # naming the value: the first of whichever split's task failed first (the 6.9 MB file
        # is two splits on two cores)
        bad = http.query("SELECT CAST(b AS INT) AS n FROM dfs.w.`big.json`")
        assert bad["queryState"] == "FAILED", bad
        assert re.search(r"NumberFormatException: r\d+ ", bad["errorMessage"]), bad
        assert http.get_json("/status.json") == {"status": "Running!"}
    finally:
        srv.stop()
    assert "Traceback" not in srv.log


@pytest.mark.spark_process
@pytest.mark.slow
def test_a_dead_driver_jvm_is_said_and_ends_the_server(tmp_path):
    """SIGKILL the driver JVM under `drillspark serve`: /status.json stops saying `Running!`
    (503, naming the cause) and the server exits with code 3, for a supervisor to restart it;
    before, /status.json kept saying Running! and every query got a 500."""
    srv = Serve(tmp_path, {"w": tmp_path}, "--allowed-host", "drill.example")
    try:
        http = Http(srv.url)
        assert http.query("SELECT 1 AS one")["rows"] == [{"one": 1}]
        # (and, while it runs: --allowed-host adds a name the Host header may give)
        assert http.get("/status.json", headers={"Host": "drill.example"})[0] == 200
        assert http.get("/status.json", headers={"Host": "evil.example"})[0] == 421
        (jvm,) = [
            p for p in _children(srv.proc.pid) if "java" in Path(f"/proc/{p}/exe").resolve().name
        ]
        os.kill(jvm, signal.SIGKILL)
        seen: list[tuple[int, Any]] = []

        def status() -> bool:
            try:
                status, _, body = http.get("/status.json")
            except OSError:  # the server already stopped listening
                return srv.proc.poll() is not None
            seen.append((status, body))
            return status == 503

        assert _wait(status, 60), seen
        if seen and seen[-1][0] == 503:
            assert b"Spark driver JVM" in seen[-1][1]
        assert srv.proc.wait(120) == 3
    finally:
        srv.stop()
    assert "stopping (exit code 3)" in srv.log
