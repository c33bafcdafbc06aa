"""Helpers for running small plans written inline."""

from __future__ import annotations

from typing import Any

import pytest

HEAD = {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "test", "info": ""}}


@pytest.fixture(scope="session")
def run_plan(spark):
    import drillspark

    def run(query: list[dict[str, Any]], storage: dict[str, Any] | None = None, **kw: Any):
        plan = {"head": HEAD, "storage": storage or {}, "query": query}
        return drillspark.run(plan, spark=spark, **kw)

    return run


def values(op_id: int, rows: list[dict[str, Any]], op: str = "values") -> dict[str, Any]:
    return {"@id": op_id, "op": op, "content": rows}
