"""Fixtures for the logical plan tests (pure Python, no Spark)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def logical_dir(shared: Path) -> Path:
    """Drill's real logical plan files (read in place)."""
    return shared / "data" / "drill-conformance" / "logical"
