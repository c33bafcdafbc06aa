"""`drillspark serve` as a real process: it answers, logs one line per query, and a SIGTERM
cancels the running query and stops it cleanly (exit status 0)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest
from tests.server.helpers import Http

from drillspark.server.app import free_port

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

SUPPLIER = "dfs.data.`breadth/tpch_json/supplier.json`"


@pytest.mark.slow
def test_serve_answers_and_stops_on_sigterm(shared, tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen(
        [sys.executable, "-m", "drillspark", "serve", "--port", str(port), "--master",
         "local[2]", "--workspace", f"data={shared / 'data'}", "--conf",
         "spark.driver.memory=1g"],
        cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
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
        http = Http(f"http://127.0.0.1:{port}")
        answer = http.query("SELECT count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json`")
        assert answer["rows"] == [{"n": 25}]
        slow = (f"SELECT count(*) AS n FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, "
                f"{SUPPLIER} d WHERE concat(a.S_COMMENT, d.S_COMMENT) LIKE '%sigterm%'")
        result: dict = {}
        worker = threading.Thread(target=lambda: result.update(http.query(slow)))
        worker.start()
        while not http.get_json("/profiles.json")["runningQueries"]:
            assert worker.is_alive(), result
        proc.send_signal(signal.SIGTERM)
        worker.join(timeout=120)
        assert result["queryState"] == "CANCELED", result
        assert "shutting down" in result["errorMessage"]
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    log = "".join(lines)
    assert "drillspark serve: stopped" in log
    # one line per query, with its id, state, user, rows and text
    assert any(" COMPLETED user=anonymous rows=1 " in line and "nation.json" in line
               for line in lines), log
    assert "Traceback" not in log
