"""Ctrl-C cancels the running query: in `drillspark shell` (through a real pseudo-terminal)
the statement's Spark jobs are cancelled (Spark's own status, read through its web UI's REST
API, shows no running job and no active task), one line says so, and the next statement runs;
`drillspark sql` exits with 130 and one line. No Python or Py4J traceback either way.

Before the fix the shell printed "Query cancelled." while the job stayed RUNNING with its
tasks busy for hours: the tag was a classic SparkSession tag, which `interruptTag` finds only
on the thread that added it, and the cancelling thread is another one."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from pty_terminal import Terminal

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

DRILLSPARK = str(Path(sys.executable).parent / "drillspark")
# A cross join of 20,000 rows with itself through a regex: hours of work, so it is surely
# still running when Ctrl-C comes.
SLOW = (
    "select count(*) as c from dfs.`n.json` a, dfs.`n.json` b "
    "where regexp_replace(a.s, 'x+', 'y') < regexp_replace(b.s, 'x+', 'z')"
)


def write_rows(folder: Path) -> None:
    with open(folder / "n.json", "w") as f:
        for i in range(20000):
            f.write(json.dumps({"i": i, "s": "x" * 40 + str(i)}) + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SparkStatus:
    """The running jobs and active tasks of the one application behind Spark's web UI."""

    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}/api/v1/applications"

    def _get(self, path: str):
        with urllib.request.urlopen(self.base + path, timeout=120) as r:
            return json.load(r)

    def busy(self) -> tuple[list[int], int]:
        (app,) = self._get("")
        jobs = [j["jobId"] for j in self._get(f"/{app['id']}/jobs?status=running")]
        tasks = sum(e["activeTasks"] for e in self._get(f"/{app['id']}/executors"))
        return jobs, tasks

    def settled(self, timeout: float) -> tuple[list[int], int]:
        """Spark's status once nothing runs, or as it is after `timeout` seconds (the
        listener reports a cancelled job's end a moment after the cancel)."""
        end = time.monotonic() + timeout
        state = self.busy()
        while (state[0] or state[1]) and time.monotonic() < end:
            time.sleep(0.5)
            state = self.busy()
        return state


def test_ctrl_c_in_the_shell_cancels_the_job_and_the_next_query_runs(tmp_path):
    write_rows(tmp_path)
    port = free_port()
    term = Terminal(
        [
            DRILLSPARK,
            "shell",
            "--master",
            "local[2]",
            "--history",
            str(tmp_path / "history"),
            # the web UI (off for CLI sessions) is how this test reads Spark's job status
            "--conf",
            "spark.ui.enabled=true",
            "--conf",
            f"spark.ui.port={port}",
            "--conf",
            "spark.port.maxRetries=0",
        ],
        tmp_path,
    )
    try:
        assert term.read_until(b"drillspark>", 120), term.out[-2000:]
        mark = term.send(SLOW.encode() + b";\r")
        # the progress line counts the scan's tasks once the query's jobs run
        assert term.read_until(b"tasks", 300, mark), term.out[-2000:]
        status = SparkStatus(port)
        # the job is running before Ctrl-C; its tasks show in the executors' status a moment
        # after the job starts (the listener's lag, longer on a loaded machine)
        jobs, tasks = status.busy()
        end = time.monotonic() + 60
        while not (jobs and tasks) and time.monotonic() < end:
            time.sleep(0.5)
            jobs, tasks = status.busy()
        assert jobs and tasks, (jobs, tasks)
        mark = term.send(b"\x03")
        assert term.read_until(b"Query cancelled.", 60, mark), term.out[-2000:]
        # the query's hours of work were cancelled: no job left running, no task busy
        assert status.settled(60) == ([], 0)
        mark = term.send(b"select 1+1 as two from (values(1));\r")
        assert term.read_until(b"1 row selected", 300, mark), term.out[-2000:]
        assert b"Traceback" not in term.out and b"Py4J" not in term.out
        term.send(b"!quit\r")
    finally:
        term.close()


@pytest.mark.deploy  # the long tier: 40-90 s of `make test`'s 20 minutes
def test_sigint_ends_drillspark_sql_with_one_line(tmp_path):
    write_rows(tmp_path)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    proc = subprocess.Popen(
        [DRILLSPARK, "sql", "--master", "local[2]", SLOW],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(30)  # Spark started and the join running (it needs hours)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "drillspark: Query cancelled." in err
    assert "Traceback" not in err and out == ""
