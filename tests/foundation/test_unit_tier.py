"""The unit tier (`make unit` = `pytest --unit`, tests/conftest.py) keeps out every test that
starts Spark: a test with the `spark` fixture or the `spark_process` mark is deselected, and a
test left in that starts Spark anyway (in process, or in a subprocess through spark-submit)
fails and says so. Checked on probe tests run by a real pytest in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBES = textwrap.dedent("""
    import subprocess
    import sys

    import pytest

    def test_pure():
        assert sum([1, 2]) == 3

    def test_spark_in_a_subprocess():
        code = "import drillspark; drillspark.session(master='local[1]')"
        assert subprocess.run([sys.executable, "-c", code]).returncode == 0

    def test_spark_in_process():
        import drillspark
        drillspark.session(master="local[1]")

    def test_an_existing_session_in_process():
        from pyspark.sql import SparkSession  # imported: the guard refuses getOrCreate itself
        SparkSession.builder.master("local[1]").getOrCreate()

    @pytest.mark.spark_process
    def test_marked():
        raise AssertionError("deselected by --unit, never run")

    def test_with_the_fixture(spark):
        raise AssertionError("deselected by --unit, never run")

    @pytest.fixture
    def needs_spark(spark):
        return spark

    def test_with_the_fixture_through_another(needs_spark):
        raise AssertionError("deselected by --unit, never run")
""")


def _pytest(tmp_path: Path, *args: str) -> str:
    (tmp_path / "test_probes.py").write_text(PROBES)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *args,
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rf",
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_probes.py"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout + done.stderr


def test_the_unit_tier_deselects_spark_tests_and_fails_those_that_start_it(tmp_path):
    out = _pytest(tmp_path, "--unit")
    assert "3 failed, 1 passed, 3 deselected" in out, out
    for probe in (
        "test_spark_in_a_subprocess",
        "test_spark_in_process",
        "test_an_existing_session_in_process",
    ):
        assert (
            f"{probe} is in the unit tier (no spark fixture, no spark_process mark) but started Spark"
            in out
        ), out
    assert "spark-submit" in out  # what the subprocess ran
    assert "SparkSession.builder.getOrCreate() in process" in out


def test_no_unit_keeps_exactly_the_tests_the_unit_tier_leaves_out(tmp_path):
    """`make test` runs `--unit`, then `--no-unit`: together each test once."""
    out = _pytest(tmp_path, "--no-unit", "--collect-only")
    kept = {line.rsplit("::", 1)[1] for line in out.splitlines() if "::" in line}
    assert kept == {
        "test_marked",
        "test_with_the_fixture",
        "test_with_the_fixture_through_another",
    }, out
    assert "4 deselected" in out, out
