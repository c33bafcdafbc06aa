"""The three ways people use drillspark (docs/usage.md), each run for real in a subprocess:
spark-submit --jars, SparkSession.builder with drillspark.configure, the pyspark shell."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.local_connect import one_local_connect_server

import drillspark

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

APPS = Path(__file__).parent / "apps"
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def run(cmd: list[str], tmp_path: Path, stdin: str | None = None, timeout: int = 240, **extra_env):
    env = dict(os.environ)
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["SPARK_WORKER_DIR"] = str(
        tmp_path / "work"
    )  # local-cluster writes here, not into site-packages
    env.pop("PYSPARK_DRIVER_PYTHON_OPTS", None)
    env.update(extra_env)
    proc = subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=tmp_path, env=env
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def result_lines(stdout: str, tag: str) -> list[str]:
    return [line.split(" ", 1)[1] for line in stdout.splitlines() if line.startswith(tag + " ")]


def test_cli_jar_path_and_version(tmp_path):
    proc = run([str(BIN / "drillspark"), "jar-path"], tmp_path)
    assert proc.stdout.strip() == drillspark.jar_path()
    assert (
        Path(proc.stdout.strip()).name == f"drillspark-extension_2.13-{drillspark.__version__}.jar"
    )
    proc = run([str(BIN / "drillspark"), "version"], tmp_path)
    assert proc.stdout.strip() == drillspark.__version__


@pytest.mark.deploy
def test_spark_submit_with_jars_and_explicit_extension(tmp_path):
    # The service file loads the extension; naming it in spark.sql.extensions too must be harmless.
    proc = run(
        [
            str(BIN / "spark-submit"),
            "--master",
            "local[1]",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.sql.extensions=drillspark.DrillSparkExtensions",
            "--jars",
            drillspark.jar_path(),
            str(APPS / "submit_app.py"),
        ],
        tmp_path,
    )
    v = drillspark.__version__
    assert result_lines(proc.stdout, "RESULT") == [f"sql={v} api={v}"]
    assert "replaced a previously registered function" not in proc.stderr


def test_drillspark_session_keeps_spark_submits_master(tmp_path):
    # `drillspark serve` / `run` / `sql` build their session with drillspark.session(): under
    # spark-submit it must not replace the submitted master with the embedded local[*]
    proc = run(
        [
            str(BIN / "spark-submit"),
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.default.parallelism=3",
            "--jars",
            drillspark.jar_path(),
            str(APPS / "submit_session_app.py"),
        ],
        tmp_path,
    )
    assert result_lines(proc.stdout, "RESULT") == [
        f"master=local[2] cores=3 version={drillspark.__version__} two=2"
    ]


@pytest.mark.deploy
def test_builder_configure(tmp_path):
    proc = run([sys.executable, str(APPS / "builder_app.py")], tmp_path)
    assert result_lines(proc.stdout, "RESULT") == [drillspark.__version__]
    assert drillspark.jar_path() in result_lines(proc.stdout, "JARS")[0].split(",")


def test_configure_keeps_existing_settings():
    from pyspark.sql import SparkSession

    builder = SparkSession.Builder()
    builder.config("spark.jars", "/opt/other.jar").config("spark.sql.extensions", "x.Ext")
    drillspark.configure(builder)
    # the extension jar, then the JDBC drivers the wheel carries (drillspark/jars/drivers)
    from drillspark.session import spark_jars

    assert builder._options["spark.jars"] == ",".join(["/opt/other.jar", *spark_jars()])
    assert builder._options["spark.sql.extensions"] == "x.Ext,drillspark.DrillSparkExtensions"
    drillspark.configure(builder)  # twice: nothing added twice
    assert builder._options["spark.jars"].count("drillspark-extension") == 1


@pytest.mark.deploy
def test_pyspark_shell_with_jars(tmp_path):
    script = "print('RESULT', spark.sql('SELECT drill_version()').first()[0])\n"
    proc = run(
        [
            str(BIN / "pyspark"),
            "--master",
            "local[1]",
            "--conf",
            "spark.ui.enabled=false",
            "--jars",
            drillspark.jar_path(),
        ],
        tmp_path,
        stdin=script,
        # stdin is a pipe here, not a terminal: -i keeps the shell interactive, as for a person
        PYSPARK_DRIVER_PYTHON_OPTS="-i",
    )
    assert drillspark.__version__ in result_lines(proc.stdout, ">>> RESULT") + result_lines(
        proc.stdout, "RESULT"
    )


@pytest.mark.deploy
def test_pyspark_shell_with_the_printed_spark_conf_reads_dfs_tables(tmp_path):
    """The documented route: `pyspark $(drillspark spark-conf)` has the extension and the dfs
    catalog (the jar alone gives the functions only)."""
    (tmp_path / "t.json").write_text('{"a": {"b": 1}}\n{"a": {"b": 2}}\n')
    flags = run([str(BIN / "drillspark"), "spark-conf"], tmp_path).stdout.split()
    assert flags[0] == "--jars" and "spark.sql.catalog.dfs=drillspark.catalog.DfsCatalog" in flags
    script = (
        "r = spark.sql('SELECT sum(t.a.b) AS s FROM dfs.`t.json` t').first()\n"
        "print('RESULT', r.s)\n"
    )
    proc = run(
        [str(BIN / "pyspark"), "--master", "local[1]", "--conf", "spark.ui.enabled=false", *flags],
        tmp_path,
        stdin=script,
        PYSPARK_DRIVER_PYTHON_OPTS="-i",
    )
    assert "3" in result_lines(proc.stdout, ">>> RESULT") + result_lines(proc.stdout, "RESULT")


@pytest.mark.deploy
@pytest.mark.cluster
def test_local_cluster_reaches_executors(tmp_path):
    proc = run([sys.executable, str(APPS / "cluster_app.py")], tmp_path, timeout=400)
    assert result_lines(proc.stdout, "PY_VERSIONS") == [str([drillspark.__version__])]
    assert int(result_lines(proc.stdout, "PY_PIDS")[0]) >= 2  # more than one Python worker process
    assert result_lines(proc.stdout, "PYTHONS") == [str([sys.executable])]
    assert result_lines(proc.stdout, "JVM_VERSION") == [drillspark.__version__]
    # examples/data/shop's tags arrays, counted by hand (null and [] count 0, as in Drill)
    assert result_lines(proc.stdout, "TAG_COUNTS") == [
        str(
            [(1001, 1), (1002, 0), (1003, 2), (1004, 0), (1005, 1), (1006, 2), (1007, 1), (1008, 1)]
        )
    ]
    # revenue plan: glazed 2+6, coffee 1+2+1, bagel 3+1, choc 1 (ordered by revenue desc)
    assert result_lines(proc.stdout, "PLAN_ROWS") == [
        str([("donut-glazed", 8), ("coffee", 4), ("bagel", 4), ("donut-choc", 1)])
    ]
    assert result_lines(proc.stdout, "OPERATOR_PROBLEM") == []


@pytest.mark.deploy
def test_spark_connect_reaches_the_extension(tmp_path):
    with one_local_connect_server():
        proc = run([sys.executable, str(APPS / "connect_app.py")], tmp_path, timeout=400)
    v = drillspark.__version__
    assert result_lines(proc.stdout, "RESULT") == [f"{v} {v}"]
    assert result_lines(proc.stdout, "PLAN_ROWS") == [
        str([("donut-glazed", 8), ("coffee", 4), ("bagel", 4), ("donut-choc", 1)])
    ]
    assert result_lines(proc.stdout, "SQL_ROWS") == [str([(1006, "bulk"), (1006, "web")])]
    names = [
        json.loads(line)["customer"]["name"]
        for f in sorted((ROOT / "examples" / "data" / "shop").rglob("*.json"))
        for line in f.read_text().splitlines()
        if line.strip()
    ]
    assert result_lines(proc.stdout, "NAME_ROWS") == [
        str([(max(names, key=str.encode), min(names, key=str.encode), True, len(names))])
    ]
    assert result_lines(proc.stdout, "OPERATOR_PROBLEM") == []
