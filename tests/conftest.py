"""One SparkSession for the whole test run: local[2], UI off, few shuffle partitions; and the
unit tier (`pytest --unit`): the tests that start no Spark, with a guard that keeps it so."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from tests.shared_data import SHARED

# `drillspark sql` in a test never reaches a developer's running `drillspark serve` (its
# discovery file, docs/server.md): the test run has a runtime folder of its own.
os.environ["DRILLSPARK_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="drillspark-runtime-")
# ... and a state folder of its own: a `drillspark serve` of a test keeps its storage plugins
# there, never in the developer's ~/.local/state/drillspark
os.environ["DRILLSPARK_STATE_DIR"] = tempfile.mkdtemp(prefix="drillspark-state-")
_STUB_HOME = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def spark():
    import drillspark

    session = drillspark.session(
        master="local[2]",
        app_name="drillspark-tests",
        **{
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.driver.memory": "2g",
            "spark.sql.session.timeZone": "UTC",
        },
    )
    yield session
    session.stop()


@pytest.fixture
def spark_confs(spark):
    """`spark_confs({key: value, ...})` sets Spark confs of the test session for one test;
    each is given back its value (or unset) when the test ends."""
    before: dict[str, str | None] = {}

    def set_confs(confs: dict[str, str]) -> None:
        for key, value in confs.items():
            before.setdefault(key, spark.conf.get(key, None))
            spark.conf.set(key, value)

    yield set_confs
    for key, value in before.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder (../shared); tests read it in place."""
    if not SHARED.exists():
        pytest.fail(f"shared data folder not found at {SHARED}; set DRILLSPARK_SHARED")
    return SHARED


@pytest.fixture(scope="session")
def python_exe() -> str:
    return sys.executable


# --- the unit tier (`make unit` = `pytest --unit`) -----------------------------------------
# A test is a unit test unless it uses the `spark` fixture (directly or through another
# fixture) or is marked `spark_process` (it starts Spark in a subprocess: the CLI, spark-submit,
# a server) or `cluster`. Every unit test, in `make unit` and in `make test` alike, runs with
# SPARK_HOME pointing at a stub whose spark-submit / spark-class only record that they were
# called, and with SparkSession.builder.getOrCreate refused, so a unit test that starts Spark
# fails with a message saying so instead of slowly turning the tier into a Spark run.

NOT_UNIT_MARKERS = ("spark_process", "cluster")
_SPARK_STUB = """#!/bin/sh
echo "$0 $*" >> "$(dirname "$0")/../started"
echo "drillspark unit tier: this test started Spark ($(basename "$0")); give it the spark fixture or mark it spark_process" >&2
exit 97
"""


class SparkStartedInUnitTest(AssertionError):
    pass


def pytest_addoption(parser):
    parser.addoption(
        "--unit",
        action="store_true",
        help="run only the unit tier: tests that start no Spark, in process or not",
    )
    parser.addoption(
        "--no-unit",
        action="store_true",
        help="leave the unit tier out (`make test` runs it first, with --unit, then this)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "unit: needs no Spark (set by tests/conftest.py, not by hand)"
    )
    home = Path(tempfile.mkdtemp(prefix="drillspark-no-spark-"))
    (home / "bin").mkdir()
    for name in ("spark-submit", "spark-class", "pyspark", "spark-shell", "spark-sql"):
        script = home / "bin" / name
        script.write_text(_SPARK_STUB)
        script.chmod(0o755)
    config.stash[_STUB_HOME] = home


def pytest_unconfigure(config):
    home = config.stash.get(_STUB_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)
    for folder in ("DRILLSPARK_RUNTIME_DIR", "DRILLSPARK_STATE_DIR"):  # the run's own (above)
        shutil.rmtree(os.environ[folder], ignore_errors=True)


def is_unit(item: pytest.Item) -> bool:
    return "spark" not in getattr(item, "fixturenames", ()) and not any(
        item.get_closest_marker(m) for m in NOT_UNIT_MARKERS
    )


# The long tier: the long fuzzing pass, the separate deployments (local-cluster, Spark
# Connect, pyspark shells, spark-submit, a wheel installed elsewhere) and the load tests
# (millions of rows through a server), and single tests slow by nature (20 s or more; `make test`
# prints its 40 slowest) whose behaviour a test of `make test` also covers (the mark's comment
# names it). `make test` leaves them out to stay near 20 minutes on 2 cores; `make test-long`
# and CI (.ci/run) run them (docs/architecture.md, Tests). A test of the tier runs only when the
# marker expression names its marker (`pytest -m deploy`).
LONG_MARKERS = ("fuzz", "deploy", "load")


def _deselect(config, items, drop) -> None:
    dropped = [i for i in items if drop(i)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if not drop(i)]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if is_unit(item):
            item.add_marker(pytest.mark.unit)
    named = config.getoption("markexpr") or ""
    left_out = [m for m in LONG_MARKERS if m not in named]
    _deselect(config, items, lambda i: any(i.get_closest_marker(m) for m in left_out))
    if config.getoption("--unit"):
        _deselect(config, items, lambda i: not i.get_closest_marker("unit"))
    if config.getoption("--no-unit"):
        _deselect(config, items, lambda i: i.get_closest_marker("unit") is not None)


@contextlib.contextmanager
def _no_spark(item: pytest.Item):
    if not item.get_closest_marker("unit"):
        yield
        return
    home: Path = item.config.stash[_STUB_HOME]
    mp = pytest.MonkeyPatch()
    mp.setenv("SPARK_HOME", str(home))
    if (
        "pyspark.sql" in sys.modules
    ):  # a session may exist already (make test): refuse to hand it out
        from pyspark.sql import SparkSession

        def refused(self, *args, **kwargs):
            (home / "started").open("a").write("SparkSession.builder.getOrCreate() in process\n")
            raise SparkStartedInUnitTest("unit test asked for a SparkSession")

        mp.setattr(SparkSession.Builder, "getOrCreate", refused)
    try:
        yield
    finally:
        mp.undo()
        started = home / "started"
        if started.exists():
            what = started.read_text().strip()
            started.unlink()
            raise SparkStartedInUnitTest(
                f"{item.nodeid} is in the unit tier (no spark fixture, no spark_process mark) but "
                f"started Spark: {what}. Give it the spark fixture or mark it "
                "@pytest.mark.spark_process."
            )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    with _no_spark(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    with _no_spark(item):
        return (yield)
