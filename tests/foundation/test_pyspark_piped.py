"""A script piped into the pyspark shell (issue #36): `pyspark $(drillspark spark-conf) <
script.py` stopped with `NameError: name 'spark' is not defined`, because the shell makes `spark`
in its PYTHONSTARTUP file, which Python runs only when interactive. docs/usage.md says how to
run one (`PYSPARK_DRIVER_PYTHON_OPTS=-i`, or spark-submit for an application); this runs the
commands exactly as the page writes them, from an activated venv, with a one-core master and no
web UI added."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark_process, pytest.mark.deploy, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
USAGE = ROOT / "docs" / "usage.md"
BIN = Path(sys.executable).parent
FLAGS = "$(drillspark spark-conf)"

# lines as typed at the shell's prompt: a blank line ends the indented block
SHELL_SCRIPT = """r = spark.sql("SELECT sum(t.a.b) AS s FROM dfs.`t.json` t").first()
for i in range(2):
    print("LOOP", i)

print("RESULT", r.s)
"""
APP_SCRIPT = """from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
r = spark.sql("SELECT sum(t.a.b) AS s FROM dfs.`t.json` t").first()
print("RESULT", r.s)
"""


def documented(pattern: str) -> str:
    """The one command of docs/usage.md's bash blocks that matches `pattern`."""
    blocks = re.findall(r"```bash\n(.*?)```", USAGE.read_text(), re.S)
    lines = [line for b in blocks for line in b.splitlines() if re.search(pattern, line)]
    assert len(lines) == 1, f"docs/usage.md: {pattern!r} matches {lines}"
    return lines[0]


def run_documented(command: str, folder: Path, script: str) -> subprocess.CompletedProcess:
    (folder / "t.json").write_text('{"a": {"b": 1}}\n{"a": {"b": 2}}\n')
    (folder / "script.py").write_text(script)
    assert FLAGS in command
    command = command.replace(FLAGS, f"--master 'local[1]' --conf spark.ui.enabled=false {FLAGS}")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYSPARK_DRIVER_PYTHON_OPTS")
    }
    # an activated venv: its bin first on PATH
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(BIN.parent),
        SPARK_LOCAL_IP="127.0.0.1",
    )
    return subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
        env=env,
    )


def results(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith(("RESULT", "LOOP"))]


def test_without_i_the_piped_shell_has_no_spark(tmp_path):
    # why the page says more: the plain command fails before any JVM starts
    proc = run_documented(f"pyspark {FLAGS} < script.py", tmp_path, SHELL_SCRIPT)
    assert proc.returncode != 0
    assert "NameError: name 'spark' is not defined" in proc.stderr


def test_the_documented_piped_shell(tmp_path):
    command = documented(r"pyspark .*< script\.py")
    assert command.startswith("PYSPARK_DRIVER_PYTHON_OPTS=-i ")
    proc = run_documented(command, tmp_path, SHELL_SCRIPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert results(proc) == ["LOOP 0", "LOOP 1", "RESULT 3"], proc.stdout[-2000:]


def test_the_documented_application(tmp_path):
    proc = run_documented(documented(r"spark-submit .* script\.py"), tmp_path, APP_SCRIPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert results(proc) == ["RESULT 3"], proc.stdout[-2000:]
