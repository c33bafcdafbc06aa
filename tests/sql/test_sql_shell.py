"""The interactive shell driven through a pseudo-terminal (statements that need no Spark
job: SHOW, USE, EXPLAIN, errors), and `drillspark sql` for the same statements."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


class Terminal:
    def __init__(self, args: list[str], env: dict[str, str]):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True
        )
        os.close(slave)
        self.seen = ""

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def expect(self, pattern: str, timeout: float = 30) -> str:
        """Read until the cleaned output (escape codes removed) matches `pattern`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            clean = ANSI.sub("", self.seen)
            if re.search(pattern, clean, re.S):
                return clean
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        raise AssertionError(f"{pattern!r} not seen; output was:\n{ANSI.sub('', self.seen)}")

    def mark(self) -> None:
        self.seen = ""

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=20)
        finally:
            os.close(self.master)


@pytest.fixture
def shell(shared, tmp_path, python_exe):
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT / "python"),
        TERM="xterm",
        PROMPT_TOOLKIT_NO_CPR="1",
        COLUMNS="120",
        LINES="40",
    )
    term = Terminal(
        [
            python_exe,
            "-m",
            "drillspark",
            "shell",
            "--history",
            str(tmp_path / "history"),
            "--workspace",
            f"root={shared / 'data' / 'drill-conformance'}",
        ],
        env,
    )
    term.expect("drillspark>")
    yield term
    if term.proc.poll() is None:
        term.proc.kill()
        term.close()


def test_multiline_statement_runs_on_semicolon(shell):
    shell.mark()
    shell.send("show\r")
    shell.expect(r"show\s*\n\s+\.")  # continuation prompt: the statement is not complete yet
    shell.send("schemas;\r")
    out = shell.expect(r"rows selected")
    assert "dfs.tmp" in out and "SCHEMA_NAME" in out
    shell.send("!quit\r")
    assert shell.close() == 0


def test_tables_use_and_error_with_caret(shell):
    shell.send("!tables\r")
    out = shell.expect(r"rows selected")
    assert "PROVENANCE.json" in out and "logical" in out
    shell.mark()
    shell.send("select a\rfrom t where a = = 3;\r")
    out = shell.expect(r"\^")
    assert "Syntax error" in out and "(line 2, column 18)" in out
    lines = out.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    assert lines[caret - 1].endswith("from t where a = = 3")
    assert lines[caret].index("^") == len("from t where a = ")
    shell.mark()
    shell.send("use dfs.tmp;\r")
    assert "Default schema changed to [dfs.tmp]" in shell.expect("rows? selected")
    shell.send("!quit\r")
    assert shell.close() == 0


def test_tab_completes_paths_and_keywords(shell):
    shell.mark()
    # completion runs in the background: give it a moment before typing on
    for chunk in [
        "explain plan for sel",
        "\t",
        " * from dfs.`data/drill/jsoninput/input2.js",
        "\t",
        ";\r",
    ]:
        shell.send(chunk)
        time.sleep(0.5)
    # EXPLAIN resolves the table through the extension's workspace rule: Spark starts here
    out = shell.expect(r'"query".*drillspark>', timeout=180)
    assert "dfs.`data/drill/jsoninput/input2.json`" in out  # completed, backtick closed
    assert "explain plan for select *" in out
    assert '"op": "scan"' in out and "jsoninput/input2.json" in out
    shell.send("\x04")  # Ctrl-D leaves like !quit
    assert shell.close() == 0


def test_history_is_kept(shell, tmp_path):
    shell.send("show schemas;\r")
    shell.expect("rows selected")
    shell.send("!quit\r")
    shell.close()
    assert "show schemas;" in (tmp_path / "history").read_text()


def test_cli_sql_formats(shared, python_exe, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    root = f"root={shared / 'data' / 'drill-conformance'}"
    out = subprocess.run(
        [
            python_exe,
            "-m",
            "drillspark",
            "sql",
            "show schemas",
            "--format",
            "json",
            "--workspace",
            root,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert {"SCHEMA_NAME": "dfs.root"} in rows
    script = tmp_path / "q.sql"
    script.write_text("use dfs.tmp;\nshow files in dfs.root;\n")
    out = subprocess.run(
        [
            python_exe,
            "-m",
            "drillspark",
            "sql",
            "-f",
            str(script),
            "--format",
            "csv",
            "--workspace",
            root,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "ok,summary" in out and "PROVENANCE.json,false,true" in out
    out = subprocess.run(
        [
            python_exe,
            "-m",
            "drillspark",
            "sql",
            "--set",
            "store.json.all_text_mode=true",
            "--set",
            "store.format=json",
            "--workspace",
            root,
            "--format",
            "json",
            "explain plan for select * from dfs.`data/drill/jsoninput/input2.json`",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    plan = json.loads(json.loads(out.splitlines()[0])["json"])
    assert plan["head"]["options"]["store.format"] == "json"
    assert plan["query"][0]["selection"]["format"]["allTextMode"] is True
    bad = subprocess.run(
        [python_exe, "-m", "drillspark", "sql", "select * from dfs.`nope`", "--workspace", root],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 1
    assert "nope" in bad.stderr and "Traceback" not in bad.stderr


class _Tty(__import__("io").StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_appears_for_slow_statements_and_is_erased():
    from drillspark.sql import SqlEngine
    from drillspark.sql.shell import Progress

    out = _Tty()
    with Progress(SqlEngine(), out):  # an engine whose Spark has not started yet
        time.sleep(1.6)
    text = out.getvalue()
    assert "Starting Spark..." in text and re.search(r"\d+\.\ds", text)
    assert text.endswith("\r") and not text.split("\r")[-2].strip()  # blanked before results
    quick = _Tty()
    with Progress(SqlEngine(), quick):
        pass
    assert quick.getvalue() == ""
