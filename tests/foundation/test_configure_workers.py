"""`drillspark.configure(builder)` from any interpreter (issue #36): run with the venv's python by
its path, the venv not activated, a CSV query (whose reader runs drillspark's code in Spark's
Python workers) failed with `ModuleNotFoundError: drillspark` in the workers, which ran the
`python3` on PATH; configure() now gives a session that runs here the workers session() gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import drillspark

APP = """
import sys
from pyspark.sql import SparkSession
import drillspark

builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
spark = drillspark.configure(builder).getOrCreate()
r = drillspark.sql(
    "SELECT columns[1] AS name, columns[3] AS dept FROM dfs.`%s` ORDER BY columns[0] LIMIT 2"
    % sys.argv[1],
    spark,
)
print("ROWS", r.rows())
spark.stop()
"""


def clean_env() -> dict[str, str]:
    """A login shell's environment: no VIRTUAL_ENV, no venv on PATH, no Spark or Python
    settings of this test run."""
    venv_bin = str(Path(sys.executable).parent)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    env = {"PATH": os.pathsep.join(path), "HOME": os.environ.get("HOME", "/tmp")}
    for key in ("LANG", "JAVA_HOME", "TMPDIR", "DRILLSPARK_RUNTIME_DIR", "DRILLSPARK_CACHE_DIR"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


@pytest.mark.spark_process
@pytest.mark.slow
def test_configure_from_the_venvs_python_not_activated_reads_csv(tmp_path, shared):
    csv = shared / "data" / "breadth" / "own" / "text" / "people.csv"
    app = tmp_path / "app.py"
    app.write_text(APP)
    proc = subprocess.run(
        [sys.executable, str(app), str(csv)],  # the venv's python, by its absolute path
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ROWS [{'name': 'Alice', 'dept': 'Sales'}, {'name': 'Bob', 'dept': 'Sales'}]" in (
        proc.stdout
    ), proc.stdout[-2000:]


# --- what configure() sets (no Spark started) ----------------------------------------------


@pytest.fixture
def no_python_settings(monkeypatch):
    for key in ("PYSPARK_PYTHON", "PYSPARK_GATEWAY_PORT", "PYSPARK_SUBMIT_ARGS", "SPARK_REMOTE"):
        monkeypatch.delenv(key, raising=False)


def test_a_local_session_gets_this_interpreter(no_python_settings):
    for builder in (SparkSession.Builder(), SparkSession.Builder().master("local[2]")):
        drillspark.configure(builder)
        assert builder._options["spark.pyspark.python"] == sys.executable
        assert os.environ["PYSPARK_PYTHON"] == sys.executable
        del os.environ["PYSPARK_PYTHON"]


def test_the_users_choice_and_other_machines_are_left_alone(no_python_settings, monkeypatch):
    cluster = SparkSession.Builder().master("spark://head:7077")
    drillspark.configure(cluster)
    assert "spark.pyspark.python" not in cluster._options
    assert "PYSPARK_PYTHON" not in os.environ
    chosen = SparkSession.Builder().master("local[1]").config("spark.pyspark.python", "/opt/py")
    drillspark.configure(chosen)
    assert chosen._options["spark.pyspark.python"] == "/opt/py"
    assert "PYSPARK_PYTHON" not in os.environ
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3.99")
    env_chosen = SparkSession.Builder().master("local[1]")
    drillspark.configure(env_chosen)
    assert env_chosen._options["spark.pyspark.python"] == "/usr/bin/python3.99"
    monkeypatch.delenv("PYSPARK_PYTHON")
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--master yarn pyspark-shell")
    drillspark.configure(SparkSession.Builder())
    assert "PYSPARK_PYTHON" not in os.environ
