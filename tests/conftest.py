"""One SparkSession for the whole test run: local[2], UI off, few shuffle partitions."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Real data written by others; read in place, never copied into the repository.
SHARED = Path(os.environ.get("DRILLSPARK_SHARED", ROOT.parent / "shared")).resolve()
# `drillspark sql` in a test never reaches a developer's running `drillspark serve` (its
# discovery file, docs/server.md): the test run has a runtime folder of its own.
os.environ["DRILLSPARK_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="drillspark-runtime-")


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


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder (../shared); tests read it in place."""
    if not SHARED.exists():
        pytest.fail(f"shared data folder not found at {SHARED}; set DRILLSPARK_SHARED")
    return SHARED


@pytest.fixture(scope="session")
def python_exe() -> str:
    return sys.executable
