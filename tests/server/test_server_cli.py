"""`drillspark serve` as a real process: it answers, logs one line per query, and a SIGTERM
cancels the running query and stops it cleanly (exit status 0)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from tests.server.helpers import Http

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

SUPPLIER = "dfs.data.`breadth/tpch_json/supplier.json`"


@pytest.mark.load  # the long tier: 20-35 s of `make test`'s time
@pytest.mark.slow
def test_serve_answers_and_stops_on_sigterm(shared, tmp_path):
    runtime = tmp_path / "runtime"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
        DRILLSPARK_RUNTIME_DIR=str(runtime),
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drillspark",
            "serve",
            "--port",
            "0",
            "--master",
            "local[2]",
            "--workspace",
            f"data={shared / 'data'}",
            "--conf",
            "spark.driver.memory=1g",
        ],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "REST API and web console on" in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(300), "".join(lines)
        port = _announced_port(lines)
        http = Http(f"http://127.0.0.1:{port}")
        answer = http.query("SELECT count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json`")
        assert answer["rows"] == [{"n": 25}]
        # its discovery file, and `drillspark sql` with the same workspaces finding it
        (found,) = runtime.glob("serve-*.json")
        assert json.loads(found.read_text())["url"] == f"http://127.0.0.1:{port}"
        assert json.loads(found.read_text())["pid"] == proc.pid
        sql = subprocess.run(
            [
                sys.executable,
                "-m",
                "drillspark",
                "sql",
                "--workspace",
                f"data={shared / 'data'}",
                "SELECT N_NAME FROM dfs.data.`breadth/tpch_json/nation.json` WHERE N_NATIONKEY = 3",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert sql.returncode == 0, sql.stderr
        assert sql.stderr == (
            f"drillspark: answered by drillspark serve at "
            f"http://127.0.0.1:{port} (pid {proc.pid}; --local runs "
            "without it)\n"
        )
        assert "| CANADA |" in sql.stdout
        slow = _slow("sigterm")  # every row of 900^4 tested: it runs for minutes
        worker, result, query_id = http.start(slow)
        assert query_id is not None, result
        proc.send_signal(signal.SIGTERM)
        worker.join(timeout=120)
        assert result["queryState"] == "CANCELED", result
        assert "shutting down" in result["errorMessage"]
        assert proc.wait(timeout=120) == 0
        assert not list(runtime.glob("serve-*")), "the discovery file outlived the server"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    log = "".join(lines)
    assert "drillspark serve: stopped" in log
    # one line per query, with its id, state, user, rows and text
    assert any(
        " COMPLETED user=anonymous rows=1 " in line and "nation.json" in line for line in lines
    ), log
    assert "Traceback" not in log
    assert "clientserver" not in log  # Py4J's connection chatter is not logged


def _slow(tag: str) -> str:
    """A query that runs for minutes on the test machine (its text names the test)."""
    return (
        f"SELECT count(*) AS n FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, {SUPPLIER} d "
        f"WHERE concat(a.S_COMMENT, b.S_COMMENT, c.S_COMMENT, d.S_COMMENT) LIKE '%{tag}%'"
    )


def _interrupt_when_running(proc: subprocess.Popen, http: Http, sql: str) -> str:
    """Wait until the server runs `sql`, then Ctrl-C the CLI; the query's id."""
    query_id = http.running_id(sql, lambda: proc.poll() is None)
    assert query_id is not None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    return query_id


def _cli(*args: str, stdin: str | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen(
        [sys.executable, "-m", "drillspark", *args],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(stdin or "")
    proc.stdin.close()
    proc.stdin = None  # all given: communicate() only reads
    return proc


def _assert_canceled(http: Http, query_id: str) -> None:
    deadline = time.monotonic() + 120
    while (profile := http.get_json(f"/profiles/{query_id}.json"))["state"] != 3:
        assert profile["state"] in (1, 5, 8), profile  # running, cancelling or planning
        assert time.monotonic() < deadline, profile
        time.sleep(0.2)
    entry = next(
        q for q in http.get_json("/profiles.json")["finishedQueries"] if q["queryId"] == query_id
    )
    assert entry["state"] == "Canceled"


def test_ctrl_c_in_shell_connect_cancels_the_query_on_the_server(server):
    """The shell (a real process, statements piped in) sends its query with an id of its
    own; Ctrl-C cancels that query on the server and the shell goes on with the next."""
    http = Http(server.url)
    sql = _slow("shellctrlc")
    proc = _cli(
        "shell", "--connect", server.url, "--history", "/dev/null", stdin=f"{sql};\n!schemas\n"
    )
    query_id = _interrupt_when_running(proc, http, sql)
    out, err = proc.communicate(timeout=120)
    _assert_canceled(http, query_id)
    assert "Query cancelled." in out, (out, err)
    assert "dfs.data" in out  # the next entry ran: the server keeps answering
    assert "Traceback" not in out + err
    assert http.query("SELECT 1 AS one FROM (VALUES(1))")["rows"] == [{"one": 1}]


def test_ctrl_c_in_sql_connect_cancels_the_query_on_the_server(server):
    http = Http(server.url)
    sql = _slow("sqlctrlc")
    proc = _cli("sql", "--connect", server.url, sql)
    query_id = _interrupt_when_running(proc, http, sql)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert err.strip() == "drillspark: Query cancelled.", err
    _assert_canceled(http, query_id)
    assert http.query("SELECT 1 AS one FROM (VALUES(1))")["rows"] == [{"one": 1}]


def _descendants(pid: int) -> list[str]:
    """The command lines of every process below `pid` (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:  # gone meanwhile
                pass
    found = []
    for p in parent:
        q = p
        while q in parent and q != pid:
            q = parent[q]
        if q == pid and p != pid:
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    found.append(f.read().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                pass
    return found


@pytest.mark.deploy
@pytest.mark.cluster
@pytest.mark.slow
def test_serve_on_local_cluster_answers_from_executor_jvms(shared, tmp_path):
    """`drillspark serve --master local-cluster[2,1,1024]`: the drill source, FLATTEN and
    KVGEN run in two separate executor JVMs, and the answers are the file's, computed here
    from the JSON lines themselves."""
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
        DRILLSPARK_RUNTIME_DIR=str(tmp_path / "runtime"),
        SPARK_WORKER_DIR=str(tmp_path / "work"),
    )  # not into pyspark's folder
    package = os.path.dirname(
        os.path.dirname(os.path.abspath(sys.modules["drillspark"].__file__ or ""))
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drillspark",
            "serve",
            "--port",
            "0",
            "--master",
            "local-cluster[2,1,1024]",
            "--workspace",
            f"data={shared / 'data'}",
            "--conf",
            "spark.executor.memory=512m",
            "--conf",
            "spark.driver.memory=1g",
            "--conf",
            f"spark.executorEnv.PYTHONPATH={package}",
            "--conf",
            f"spark.executorEnv.PYSPARK_PYTHON={sys.executable}",
        ],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "REST API and web console on" in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    source = shared / "data" / "breadth" / "own" / "json" / "orders_nested.json"
    records = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    table = "dfs.data.`breadth/own/json/orders_nested.json`"
    try:
        assert ready.wait(400), "".join(lines)
        port = _announced_port(lines)
        http = Http(f"http://127.0.0.1:{port}")
        orders = http.query(
            "SELECT f.o.oid AS oid, f.o.amount AS amount, f.cust AS cust FROM (SELECT t.cust "
            f"AS cust, FLATTEN(t.orders) AS o FROM {table} t) f ORDER BY oid"
        )
        assert orders["queryState"] == "COMPLETED", orders
        expected = sorted(
            ((o["oid"], o["amount"], r["cust"]) for r in records for o in r.get("orders") or []),
            key=lambda t: t[0],
        )
        got = [(int(r["oid"]), float(r["amount"]), r["cust"]) for r in orders["rows"]]
        assert got == [(a, float(b), c) for a, b, c in expected]
        scores = http.query(
            f"SELECT count(*) AS n FROM (SELECT FLATTEN(KVGEN(t.scores)) AS kv FROM {table} t) k"
        )
        assert scores["rows"] == [{"n": sum(len(r.get("scores") or {}) for r in records)}]
        executors = [c for c in _descendants(proc.pid) if "CoarseGrainedExecutorBackend" in c]
        assert len(executors) == 2, executors
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    assert "Traceback" not in "".join(lines)


def test_serve_announces_itself_in_one_line(tmp_path):
    """At the default log level (INFO) the start is one line: before, the server's own INFO
    log line and the command's line said the same thing twice. `--port 0` takes any free port
    (a port picked by the test beforehand can be taken by Spark's own listeners meanwhile) and
    the line names the one it got."""
    env = dict(os.environ, DRILLSPARK_RUNTIME_DIR=str(tmp_path / "runtime"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "drillspark", "serve", "--port", "0", "--master", "local[1]"],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "Ctrl-C or SIGTERM stops it" in line:
                break
        assert proc.poll() is None, "serve ended before it announced itself:\n" + "".join(lines)
        proc.send_signal(signal.SIGTERM)
        lines += proc.stderr.readlines()  # to its end: "stopping", "stopped"
        assert proc.wait(timeout=120) == 0, "".join(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    started = [line for line in lines if "web console" in line]
    assert len(started) == 1, "".join(lines)
    m = re.fullmatch(
        r"drillspark serve: Drill 1\.22\.0 REST API and web console on "
        r"http://127\.0\.0\.1:(\d+)/ \(authentication off; Ctrl-C or SIGTERM stops it\)\n",
        started[0],
    )
    assert m is not None and int(m.group(1)) > 0, started[0]


def _announced_port(lines: list[str]) -> int:
    """The port `serve --port 0` announced: a port picked by the test beforehand can be taken
    by Spark's own listeners before the server binds it."""
    for line in lines:
        m = re.search(r"web console on http://127\.0\.0\.1:(\d+)/", line)
        if m:
            return int(m.group(1))
    raise AssertionError("no announcement:\n" + "".join(lines))


@pytest.mark.parametrize("warm", [True, False], ids=["warm-up", "no-warm-up"])
def test_serve_warms_up_until_its_first_query(shared, tmp_path, warm):
    """`drillspark serve` runs the warm-up's statements (sql/warm_up.py) while no client has
    come, in rounds (`--warm-up-rounds`), over files in a temporary folder it removes, and none
    of them is a query of the server's (its profiles list the client's only); `--no-warm-up`
    runs none."""
    from tests.reliability.test_server_resources import Serve, _wait

    temp = tmp_path / "tmp"
    temp.mkdir()
    extra = ["--user-port", "-1", "--log-level", "DEBUG"]
    extra += ["--warm-up-rounds", "2"] if warm else ["--no-warm-up"]
    srv = Serve(tmp_path, {"data": shared / "data"}, *extra, env={"TMPDIR": str(temp)})
    try:
        http = Http(srv.url)
        if warm:
            assert _wait(lambda: "warm-up:" in srv.log, 300), srv.log
            assert re.search(r"warm-up: 10 statements in [\d.]+ s$", srv.log, re.M), srv.log
            assert not list(temp.glob("drillspark-warm-up-*"))  # its files are gone
        sql = "SELECT count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json`"
        assert http.query(sql)["rows"] == [{"n": 25}]
        profiles = http.get_json("/profiles.json")
        assert [p["query"] for p in profiles["finishedQueries"]] == [sql]
    finally:
        srv.stop()
    assert srv.proc.returncode == 0, srv.log
    assert ("warm-up:" in srv.log) == warm, srv.log
    assert "Traceback" not in srv.log


def test_serve_refuses_negative_warm_up_rounds(capsys):
    from drillspark.cli.main import main

    assert main(["serve", "--port", "0", "--warm-up-rounds", "-1"]) == 2
    assert "--warm-up-rounds -1: give 0 or more" in capsys.readouterr().err
