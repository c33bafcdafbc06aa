"""Shared fixture of the SQL tests: an engine whose `dfs` root is the shared conformance data."""

from __future__ import annotations

import pytest

from drillspark.sql import SqlEngine, SqlSession


@pytest.fixture
def engine(spark, shared, tmp_path):
    """`root` is ../shared/data/drill-conformance (read in place), `tmp` a fresh folder."""
    return SqlEngine(spark, SqlSession(workspaces={
        "root": str(shared / "data" / "drill-conformance"), "tmp": str(tmp_path)}))
