"""The commands on a real terminal (a pseudo-terminal), as a newcomer runs them (issue 18):
the shell's first statement, typed while Spark is still starting, runs (it failed with
"cannot join thread before it is started" when the JVM's stderr filter swapped file
descriptor 2 under the shell's progress line); the progress line says "Starting Spark..."
while it does; no JVM notice, no Spark warning (here: the web UI's port taken), no traceback;
`drillspark run` shows the same progress line and Ctrl-C cancels it with one line."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from pty_terminal import Terminal

# starts Spark in subprocesses: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

DRILLSPARK = str(Path(sys.executable).parent / "drillspark")
NOTICE = b"Using incubator modules"


@contextlib.contextmanager
def ui_port_taken():
    """Spark's first web UI port (4040) in use, as when another Spark runs on the machine;
    Spark then warns that it could not bind it (unless it is quiet from its start)."""
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with contextlib.suppress(OSError):  # already taken by someone else: just as good
            sock.bind(("0.0.0.0", 4040))
            sock.listen(1)
        yield
    finally:
        sock.close()


def assert_clean(out: bytes) -> None:
    for noise in (NOTICE, b"Traceback", b"Error:", b" WARN ", b"could not bind", b"Py4J"):
        assert noise not in out, out[-3000:].decode(errors="replace")


def test_shell_first_statement_while_spark_starts(tmp_path):
    (tmp_path / "t.json").write_text('{"a": 1}\n{"a": 2}\n')
    with ui_port_taken():  # the shell keeps Spark's UI on
        term = Terminal(
            [DRILLSPARK, "shell", "--master", "local[1]", "--history", str(tmp_path / "h")],
            tmp_path,
        )
        try:
            assert term.read_until(b"drillspark>", 120), term.out[-2000:]
            # typed at once: Spark is still starting in the background
            mark = term.send(b"select sum(a) as s from dfs.`t.json`;\r")
            assert term.read_until(b"1 row selected", 300, mark), term.out[-3000:]
            shown = term.out[mark:]
            assert b"Starting Spark..." in shown
            assert b"| 3 " in shown
            term.send(b"!quit\r")
            assert term.exit_code(60) == 0
            assert_clean(term.out)
        finally:
            term.close()


# the long tier: two Spark starts, 20-38 s of `make test`. Covered there by
# test_shell_first_statement_while_spark_starts (the same progress line and JVM stderr filter
# on a terminal), tests/foundation/test_jvm_stderr.py (the filter drops the notice) and
# tests/sql/test_sql_shell.py::test_progress_line_appears_for_slow_statements_and_is_erased
@pytest.mark.load
def test_sql_on_a_terminal_says_starting_spark_and_nothing_else(tmp_path):
    (tmp_path / "t.json").write_text('{"a": 1}\n{"a": 2}\n')
    query = "select count(*) as n from dfs.`t.json`"
    term = Terminal([DRILLSPARK, "sql", "--master", "local[1]", query], tmp_path)
    try:
        assert term.exit_code(300) == 0, term.out[-3000:]
        assert b"Starting Spark..." in term.out and b"1 row selected" in term.out
        assert_clean(term.out)
    finally:
        term.close()
    # the filter is what removes the JVM's notice: without it, the notice is there
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, DRILLSPARK_JVM_STDERR="raw")
    raw = subprocess.run(
        [DRILLSPARK, "sql", "--master", "local[1]", query],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert raw.returncode == 0 and NOTICE in raw.stderr, raw.stderr[-2000:]


def slow_plan(folder: Path) -> Path:
    """A plan that needs hours: 20,000 rows joined with themselves through a regex."""
    with open(folder / "n.json", "w") as f:
        for i in range(20000):
            f.write(json.dumps({"i": i, "s": "x" * 40 + str(i)}) + "\n")
    scan = {"op": "scan", "storageengine": "dfs", "selection": {"files": [str(folder / "n.json")]}}
    plan = {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "test"}},
        "storage": {"dfs": {"type": "file", "connection": "file:///"}},
        "query": [
            {**scan, "@id": 1},
            {**scan, "@id": 2},
            {"op": "project", "@id": 3, "input": 1, "projections": [{"ref": "a", "expr": "s"}]},
            {"op": "project", "@id": 4, "input": 2, "projections": [{"ref": "b", "expr": "s"}]},
            {"op": "join", "@id": 5, "left": 3, "right": 4, "type": "INNER", "conditions": []},
            {
                "op": "filter",
                "@id": 6,
                "input": 5,
                "expr": "regexp_replace(a, 'x+', 'y') < regexp_replace(b, 'x+', 'z')",
            },
            {
                "op": "groupingaggregate",
                "@id": 7,
                "input": 6,
                "keys": [],
                "exprs": [{"ref": "c", "expr": "count(1)"}],
            },
        ],
    }
    path = folder / "slow.json"
    path.write_text(json.dumps(plan))
    return path


def test_run_shows_progress_and_ctrl_c_cancels(tmp_path):
    plan = slow_plan(tmp_path)
    term = Terminal([DRILLSPARK, "run", "--master", "local[2]", str(plan)], tmp_path)
    try:
        assert term.read_until(b"Starting Spark...", 120), term.out[-2000:]
        # the progress line counts the plan's tasks once its jobs run
        assert term.read_until(b"tasks", 300), term.out[-2000:]
        mark = term.send(b"\x03")
        assert term.read_until(b"drillspark: Query cancelled.", 60, mark), term.out[-2000:]
        assert term.exit_code(60) == 130
        assert_clean(term.out)
    finally:
        term.close()


def test_shell_on_a_terminal_that_never_answers_cpr_prints_no_warning(tmp_path, monkeypatch):
    """prompt_toolkit asks the terminal for the cursor position (ESC [6n) and, when no answer
    comes within 2 s, printed "WARNING: your terminal doesn't support cursor position requests
    (CPR)." This pseudo-terminal never answers; the shell does not ask. (A terminal that
    is not "dumb": there prompt_toolkit draws its full prompt, and asks.)"""
    monkeypatch.delenv("PROMPT_TOOLKIT_NO_CPR", raising=False)  # the shell's own choice
    term = Terminal(
        [DRILLSPARK, "shell", "--master", "local[1]", "--history", str(tmp_path / "h")],
        tmp_path,
        {"TERM": "xterm-256color"},
    )
    try:
        assert term.read_until(b"drillspark>", 120), term.out[-2000:]
        # well past prompt_toolkit's 2 s wait for the answer
        assert not term.read_until(b"CPR", 10), term.out[-2000:]
        mark = term.send(b"select 1+1 as two from (values(1));\r")
        assert term.read_until(b"1 row selected", 300, mark), term.out[-3000:]
        term.send(b"!quit\r")
        assert term.exit_code(60) == 0
        assert b"\x1b[6n" not in term.out and b"WARNING" not in term.out, term.out[-3000:]
        assert_clean(term.out)
    finally:
        term.close()
