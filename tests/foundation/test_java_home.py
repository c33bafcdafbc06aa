"""DRILLSPARK_JAVA_HOME (drillspark/session.py): the driver JVM drillspark launches runs on
the JDK it names, whatever JAVA_HOME says, on every JDK installed here that Spark 4.3 runs on
(17, 21, 25); the caller's JAVA_HOME is left as it was; the answer is the same on each; a
JDK-less folder is a one-line error before Spark starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from tests.jdks import installed
from tests.shared_data import SHARED

EVENTS = SHARED / "data" / "github" / "github_api_events.ndjson"

SCRIPT = """
import json, os, sys, drillspark
before = os.environ.get("JAVA_HOME")
spark = drillspark.session(master="local[1]")
jvm = spark.sparkContext._jvm
sql = f"SELECT type, COUNT(*) AS n FROM dfs.`{sys.argv[1]}` GROUP BY type"
rows = drillspark.sql(sql, spark).to_arrow().to_pylist()
print(json.dumps({"home": jvm.System.getProperty("java.home"), "rows": rows,
                  "before": before, "after": os.environ.get("JAVA_HOME")}))
"""

JDKS = installed()


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    env.pop("PYSPARK_GATEWAY_PORT", None)
    env.update(extra)
    return env


@pytest.mark.spark_process
@pytest.mark.parametrize("version", sorted(JDKS), ids=lambda v: f"java{v}")
def test_the_driver_runs_on_the_jdk_named_and_answers_the_same(version, tmp_path):
    home = JDKS[version]
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(EVENTS)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env=child_env(DRILLSPARK_JAVA_HOME=str(home), JAVA_HOME="/the/callers/own"),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # no notice of Spark's fixed launch flags (Java 25 warns of a package it no longer has)
    assert proc.stderr == "", proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(out["home"]).resolve() == home
    assert out["before"] == out["after"] == "/the/callers/own"
    with EVENTS.open() as f:
        expected = Counter(json.loads(line)["type"] for line in f if line.strip())
    assert {r["type"]: r["n"] for r in out["rows"]} == dict(expected)


def test_a_folder_without_java_is_a_one_line_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "drillspark", "sql", "--local", "SELECT 1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=child_env(DRILLSPARK_JAVA_HOME=str(tmp_path)),
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    java = tmp_path / "bin" / "java"
    assert proc.stderr == (
        f"drillspark: DRILLSPARK_JAVA_HOME={tmp_path}: no Java there ({java} is not a program)\n"
    )
