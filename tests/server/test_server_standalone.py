"""`drillspark serve` on a real Spark standalone cluster: a master and a worker started here
from pyspark's own launch classes (`spark-class ...deploy.master.Master` / `...worker.Worker`)
on loopback and free ports, the worker's work folder in tmp. The server runs the `drill`
source, FLATTEN, KVGEN and a CTAS into a workspace on the worker's executor (a child JVM of
the worker, listed by the worker's and the master's status API, its log showing the tasks),
and the answers are checked against the JSON files themselves. Started with `--master
spark://...`, and as a spark-submit application (docs/server.md, "On a cluster")."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.server.helpers import Http

from drillspark.server.app import free_port

pytestmark = [pytest.mark.deploy, pytest.mark.spark_process, pytest.mark.slow]

ORDERS = "dfs.data.`breadth/own/json/orders_nested.json`"
NATION = "dfs.data.`breadth/tpch_json/nation.json`"


def _spark_home() -> str:
    import pyspark

    return os.path.dirname(os.path.abspath(pyspark.__file__))


def _package_root() -> str:
    """The folder holding the `drillspark` package, for the executors' Python workers."""
    import drillspark

    return os.path.dirname(os.path.dirname(os.path.abspath(drillspark.__file__ or "")))


class Proc:
    """A process whose output (stdout and stderr together: spark-submit copies its Python
    application's output to its stdout) is read into `lines` by a thread."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, ready: str = ""):
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.popen = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, args=(ready,), daemon=True)
        self._reader.start()

    def _read(self, ready: str) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line)
            if ready and ready in line:
                self.ready.set()

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 120) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._reader.join(timeout=10)
        return self.popen.returncode


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def _wait(what: str, check, timeout: float = 400) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
        except OSError:
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(1)


class Cluster:
    def __init__(self, master: Proc, worker: Proc, url: str, master_ui: str, worker_ui: str):
        self.master, self.worker = master, worker
        self.url, self.master_ui, self.worker_ui = url, master_ui, worker_ui

    def master_state(self) -> Any:
        return _get_json(self.master_ui + "/json/")

    def worker_state(self) -> Any:
        return _get_json(self.worker_ui + "/json/")


@pytest.fixture(scope="module")
def standalone(tmp_path_factory) -> Iterator[Cluster]:
    """A Spark standalone master and one worker (2 cores, 1 GiB) on 127.0.0.1."""
    home = _spark_home()
    base = tmp_path_factory.mktemp("standalone")
    env = dict(
        os.environ,
        SPARK_HOME=home,
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_DAEMON_MEMORY="256m",
        # no REST submission server: it would take the fixed port 6066
        SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
        SPARK_LOG_DIR=str(base / "logs"),
    )
    port, ui, worker_port, worker_ui = free_port(), free_port(), free_port(), free_port()
    spark_class = os.path.join(home, "bin", "spark-class")
    master = Proc(
        [
            spark_class,
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(ui),
        ],
        env,
        base,
    )
    worker = None
    try:
        url = f"spark://127.0.0.1:{port}"
        master_ui = f"http://127.0.0.1:{ui}"
        _wait("the master", lambda: _get_json(master_ui + "/json/")["status"] == "ALIVE")
        worker = Proc(
            [
                spark_class,
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                "127.0.0.1",
                "--port",
                str(worker_port),
                "--webui-port",
                str(worker_ui),
                "--cores",
                "2",
                "--memory",
                "1g",
                "--work-dir",
                str(base / "work"),
                url,
            ],
            env,
            base,
        )
        cluster = Cluster(master, worker, url, master_ui, f"http://127.0.0.1:{worker_ui}")
        _wait("the worker", lambda: cluster.master_state()["aliveworkers"] == 1)
        cluster.work_dir = base / "work"  # type: ignore[attr-defined]
        yield cluster
    finally:
        if worker is not None:
            worker.stop()
        master.stop()


def _server_conf() -> list[str]:
    """Settings of the server's application: small executors, the driver on loopback, and
    drillspark importable by the executors' Python workers."""
    conf = {
        "spark.executor.memory": "512m",
        "spark.driver.host": "127.0.0.1",
        "spark.executorEnv.PYTHONPATH": _package_root(),
        "spark.executorEnv.PYSPARK_PYTHON": sys.executable,
    }
    return [f"{k}={v}" for k, v in conf.items()]


def _env(tmp: Path) -> dict[str, str]:
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
        SPARK_HOME=_spark_home(),
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        DRILLSPARK_RUNTIME_DIR=str(tmp / "runtime"),
    )


def _descendants(pid: int) -> dict[int, str]:
    """pid -> command line of every process below `pid` (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:  # gone meanwhile
                pass
    found = {}
    for p in parent:
        q = p
        while q in parent and q != pid:
            q = parent[q]
        if q == pid and p != pid:
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    found[p] = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                pass
    return found


def _json_objects(text: str) -> list[Any]:
    decoder, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        value, i = decoder.raw_decode(text, i)
        out.append(value)


def _check_answers(http: Http, shared: Path, tmp_ws: Path) -> None:
    """FLATTEN, KVGEN and a CTAS into dfs.tmp, against the JSON lines themselves."""
    source = shared / "data" / "breadth" / "own" / "json" / "orders_nested.json"
    records = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    orders = http.query(
        "SELECT f.o.oid AS oid, f.o.amount AS amount, f.cust AS cust FROM (SELECT t.cust "
        f"AS cust, FLATTEN(t.orders) AS o FROM {ORDERS} t) f ORDER BY oid"
    )
    assert orders["queryState"] == "COMPLETED", orders
    expected = sorted(
        ((o["oid"], float(o["amount"]), r["cust"]) for r in records for o in r.get("orders") or []),
        key=lambda t: t[0],
    )
    assert [(r["oid"], float(r["amount"]), r["cust"]) for r in orders["rows"]] == expected
    scores = http.query(
        "SELECT k.kv.key AS k, count(*) AS n FROM (SELECT FLATTEN(KVGEN(t.scores)) AS kv "
        f"FROM {ORDERS} t) k GROUP BY k.kv.key ORDER BY k"
    )
    want: dict[str, int] = {}
    for r in records:
        for key in r.get("scores") or {}:
            want[key] = want.get(key, 0) + 1
    assert [(r["k"], r["n"]) for r in scores["rows"]] == sorted(want.items()), scores

    nation = shared / "data" / "breadth" / "tpch_json" / "nation.json"
    nations = _json_objects(nation.read_text())  # pretty-printed objects, one after another
    america = sorted((n["N_NATIONKEY"], n["N_NAME"]) for n in nations if n["N_REGIONKEY"] == 1)
    ctas = http.query(
        "CREATE TABLE dfs.tmp.america AS SELECT N_NATIONKEY, N_NAME FROM "
        f"{NATION} WHERE N_REGIONKEY = 1"
    )
    assert ctas["queryState"] == "COMPLETED", ctas
    assert sum(r["Number of records written"] for r in ctas["rows"]) == len(america)
    assert list((tmp_ws / "america").glob("*.parquet")), list(tmp_ws.iterdir())
    back = http.query("SELECT N_NATIONKEY, N_NAME FROM dfs.tmp.america ORDER BY N_NATIONKEY")
    assert [(r["N_NATIONKEY"], r["N_NAME"]) for r in back["rows"]] == america


def _check_on_the_worker(cluster: Cluster, app_name: str) -> str:
    """The application's executor is the worker's: the master lists the application
    running with the worker's cores, the worker lists its executor, the executor JVM is a
    child of the worker's, and its log (in the worker's work folder) shows finished tasks.
    Returns the application id."""
    apps = [a for a in cluster.master_state()["activeapps"] if a["name"] == app_name]
    assert len(apps) == 1 and apps[0]["state"] == "RUNNING", cluster.master_state()
    assert apps[0]["cores"] == 2
    app_id = apps[0]["id"]
    executors = [e for e in cluster.worker_state()["executors"] if e["appid"] == app_id]
    assert len(executors) == 1, cluster.worker_state()
    children = [
        c
        for c in _descendants(cluster.worker.popen.pid).values()
        if "CoarseGrainedExecutorBackend" in c and f"--app-id {app_id}" in c
    ]
    assert len(children) == 1, children
    log = cluster.work_dir / app_id / str(executors[0]["id"]) / "stderr"  # type: ignore[attr-defined]
    assert "Finished task" in log.read_text(errors="replace")
    return app_id


def _completed(cluster: Cluster, app_id: str) -> bool:
    return any(a["id"] == app_id for a in cluster.master_state()["completedapps"])


def test_serve_with_a_standalone_master(standalone, shared, tmp_path):
    port = free_port()
    tmp_ws = tmp_path / "ws"
    tmp_ws.mkdir()
    args = [
        sys.executable,
        "-m",
        "drillspark",
        "serve",
        "--port",
        str(port),
        "--master",
        standalone.url,
        "--workspace",
        f"data={shared / 'data'}",
        "--workspace",
        f"tmp={tmp_ws}",
        "--conf",
        "spark.driver.memory=1g",
    ]
    for setting in _server_conf():
        args += ["--conf", setting]
    server = Proc(args, _env(tmp_path), tmp_path, ready="REST API and web console on")
    try:
        assert server.ready.wait(400), server.log
        _check_answers(Http(f"http://127.0.0.1:{port}"), shared, tmp_ws)
        app_id = _check_on_the_worker(standalone, "drillspark-serve")
    finally:
        status = server.stop()
    assert status == 0, server.log
    assert "drillspark serve: stopped" in server.log and "Traceback" not in server.log
    _wait("the application to end", lambda: _completed(standalone, app_id), 120)


def test_serve_as_a_spark_submit_application(standalone, shared, tmp_path):
    """docs/server.md's route: spark-submit runs the package's `__main__.py` with `serve`
    (no --master: spark-submit's applies); SIGTERM to the server's Python process stops it
    and then spark-submit, both with status 0."""
    from drillspark.cli.info import spark_conf

    port = free_port()
    tmp_ws = tmp_path / "ws"
    tmp_ws.mkdir()
    conf = spark_conf()
    args = [os.path.join(_spark_home(), "bin", "spark-submit"), "--jars", conf.pop("spark.jars")]
    for key, value in conf.items():
        args += ["--conf", f"{key}={value}"]
    for setting in _server_conf():
        args += ["--conf", setting]
    # `python -m drillspark` as a file: spark-submit runs Python applications by path
    main_py = os.path.join(_package_root(), "drillspark", "__main__.py")
    args += [
        "--master",
        standalone.url,
        "--driver-memory",
        "1g",
        main_py,
        "serve",
        "--port",
        str(port),
        "--workspace",
        f"data={shared / 'data'}",
        "--workspace",
        f"tmp={tmp_ws}",
    ]
    submit = Proc(args, _env(tmp_path), tmp_path, ready="REST API and web console on")

    def application() -> list[int]:  # the Python process spark-submit's JVM started
        found = _descendants(submit.popen.pid).items()
        return [pid for pid, cmd in found if cmd.startswith(sys.executable + " ")]

    try:
        assert submit.ready.wait(400), submit.log
        _check_answers(Http(f"http://127.0.0.1:{port}"), shared, tmp_ws)
        app_id = _check_on_the_worker(standalone, "drillspark-serve")
        python = application()
        assert len(python) == 1, _descendants(submit.popen.pid)
        os.kill(python[0], signal.SIGTERM)
        assert submit.popen.wait(120) == 0, submit.log
    finally:
        for pid in application():  # a JVM stopped first would leave it running
            os.kill(pid, signal.SIGTERM)
        submit.stop()
    assert "drillspark serve: stopped" in submit.log, shlex.join(args) + "\n" + submit.log
    assert "Traceback" not in submit.log
    _wait("the application to end", lambda: _completed(standalone, app_id), 120)
