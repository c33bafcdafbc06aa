"""A failing query through the command line is one paragraph: no Spark log lines, no Java
stack trace (issue: runtime errors printed hundreds of lines); `--verbose` adds the trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import drillspark

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

DRILLSPARK = str(Path(sys.executable).parent / "drillspark")
BAD_CAST = "select cast(t.a as int) as n from (values('kevin')) t(a)"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    return subprocess.run(
        [DRILLSPARK, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


def drillspark_lines(stderr: str) -> list[str]:
    # Every line: the JVM's "Using incubator modules" notice is filtered (drillspark/jvm_stderr.py)
    return stderr.splitlines()


def test_runtime_error_is_one_paragraph(tmp_path):
    proc = cli("sql", "--master", "local[1]", BAD_CAST, cwd=tmp_path)
    assert proc.returncode == 1
    lines = drillspark_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("drillspark: operator @")
    assert "NumberFormatException: kevin" in lines[0]  # Drill 1.22's refusal of the text
    assert "\tat " not in proc.stderr and " ERROR " not in proc.stderr


def test_verbose_adds_the_trace_and_log_level_brings_back_spark_logging(tmp_path):
    proc = cli(
        "sql", "--master", "local[1]", "--verbose", "--log-level", "error", BAD_CAST, cwd=tmp_path
    )
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in proc.stderr
    assert " ERROR " in proc.stderr  # the executor's own log line, at the level asked for
    assert proc.stderr.rstrip().splitlines()[-1].startswith("drillspark: operator @")


def test_bad_conf_and_log_level_are_usage_errors(tmp_path):
    proc = cli("sql", "--conf", "novalue", "select 1", cwd=tmp_path)
    assert proc.returncode == 2 and "--conf takes KEY=VALUE" in proc.stderr
    proc = cli("sql", "--log-level", "loud", "select 1", cwd=tmp_path)
    assert proc.returncode == 2 and "--log-level" in proc.stderr


def test_session_log_level_is_checked_before_spark_starts():
    with pytest.raises(ValueError, match="log level 'loud'"):
        drillspark.session(log_level="loud")


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`drillspark sql ... | head -1`: the reader leaves early; no '[Errno 32] Broken pipe'."""
    with open(tmp_path / "n.json", "w") as f:
        for i in range(20000):
            f.write(json.dumps({"i": i, "s": "x" * 50}) + "\n")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    proc = subprocess.run(
        f"{DRILLSPARK} sql --master 'local[1]' --format json "
        f"'select * from dfs.`n.json`' | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
        executable="/bin/bash",
    )
    assert proc.stdout.count("\n") == 1 and '"i": 0' in proc.stdout
    assert drillspark_lines(proc.stderr) == [], proc.stderr
