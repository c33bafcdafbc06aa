"""Shared fixtures of the SQL tests: engines whose `dfs` root is shared data, read in place."""

from __future__ import annotations

import pytest

from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.output import columns_and_rows


def rows_and_plan(engine, sql: str) -> tuple[list[list], str]:
    """A query's rows, and the physical plan that ran them (AQE's final plan once it has run)."""
    result = engine.execute(sql)[-1]
    _, rows = columns_and_rows(result)
    plan = result.df._jdf.queryExecution().executedPlan().toString()
    return [list(r) for r in rows], plan


@pytest.fixture
def engine(spark, shared, tmp_path):
    """`root` is ../shared/data/drill-conformance (read in place), `tmp` a fresh folder."""
    return SqlEngine(
        spark,
        SqlSession(
            workspaces={"root": str(shared / "data" / "drill-conformance"), "tmp": str(tmp_path)}
        ),
    )


@pytest.fixture
def data_engine(spark, shared, tmp_path):
    """`root` is ../shared/data (the breadth corpus' root), `tmp` a fresh folder."""
    return SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path)})
    )
