"""The JVM unit tests (jvm/src/test): the extension's pieces that need no Spark session, run
in a plain JVM against the real jar — the byte scanner's UTF-8 and SWAR checks, the key index,
name folding, option parsing, byte-path vs Jackson-path schema discovery on random JSON,
hostile JSON (deep, wide, invalid UTF-8), the column writers' conversions through both input
paths, the workspace rule on a real folder tree, the text reader's field split and the
texts CAST reads as numbers and dates. Each suite is a pytest case so a failure names it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from drillspark.session import jar_path

ROOT = Path(__file__).resolve().parents[2]
SUITES = [
    "utf8",
    "swar",
    "key-index",
    "names",
    "options",
    "discovery",
    "hostile-json",
    "conversions",
    "workspace-paths",
    "plugin-secrets",
    "http-urls",
    "text-split",
    "cast-text",
]


@pytest.fixture(scope="module")
def classpath() -> str:
    # builds build/drillspark-tests.jar when jvm/src/test or the extension changed
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_jar.py"), "--tests"],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    import pyspark

    spark_jars = Path(pyspark.__file__).parent / "jars"
    return os.pathsep.join(
        [str(spark_jars / "*"), jar_path(), str(ROOT / "build" / "drillspark-tests.jar")]
    )


def test_every_suite_is_listed(classpath):
    runner = (ROOT / "jvm/src/test/scala/drillspark/UnitTests.scala").read_text()
    names = {
        re.search(r'val name = "([^"]+)"', p.read_text()).group(1)  # type: ignore[union-attr]
        for p in (ROOT / "jvm/src/test/scala").rglob("*Suite.scala")
    }
    assert names == set(SUITES), names
    assert runner.count("Suite") >= len(SUITES)


@pytest.fixture(scope="module")
def report(classpath) -> subprocess.CompletedProcess:
    # one JVM for every suite (a JVM start per suite cost more than most suites)
    java = Path(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    return subprocess.run(
        [str(java), "-cp", classpath, "drillspark.UnitTests", *SUITES],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("suite", SUITES)
def test_jvm_suite(report, suite):
    # a suite's line, then its FAIL lines, up to the next suite's line
    block = re.search(
        rf"^{re.escape(suite)}: (\d+) passed, (\d+) failed$(.*?)(?=^\S|\Z)",
        report.stdout,
        re.M | re.S,
    )
    assert block, f"no result line for {suite}\n{report.stdout[-2000:]}\n{report.stderr[-2000:]}"
    assert int(block.group(2)) == 0, block.group(0)
    assert int(block.group(1)) > 0, block.group(0)


def test_the_runner_reports_no_failure(report):
    assert report.returncode == 0, report.stdout[-2000:] + report.stderr[-2000:]
    assert re.search(r"^jvm unit tests: \d+ passed, 0 failed$", report.stdout, re.M)
