"""Drill SQL on drillspark: queries are parsed with sqlglot's `drill` dialect, lowered to the
Drill logical plan and run by the same translator as JSON plans.

    import drillspark
    result = drillspark.sql("SELECT t.a.b FROM dfs.`data.json` t")

`drillspark.sql` is both this package and that function (the module is callable).
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from drillspark.sql.engine import RowsResult, SqlEngine
from drillspark.sql.errors import (
    SqlError,
    SqlSyntaxError,
    TableNotFoundError,
    UnsupportedSqlError,
    ValidationError,
)
from drillspark.sql.session import SqlSession

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["RowsResult", "SqlEngine", "SqlError", "SqlSession", "SqlSyntaxError",
           "TableNotFoundError", "UnsupportedSqlError", "ValidationError", "default_engine",
           "sql"]

_engines: dict[int, SqlEngine] = {}


def default_engine(spark: SparkSession | None = None) -> SqlEngine:
    """The engine (and so the USE / ALTER SESSION state) shared by `sql()` calls for one
    SparkSession."""
    key = id(spark) if spark is not None else 0
    engine = _engines.get(key)
    if engine is None:
        engine = _engines[key] = SqlEngine(spark)
    return engine


def sql(query: str, spark: SparkSession | None = None) -> Any:
    """Run Drill SQL (one or more ';'-separated statements); the last statement's result: a
    DrillResult for queries, a RowsResult for USE / SHOW / EXPLAIN / ALTER SESSION."""
    results = default_engine(spark).execute(query)
    if not results:
        raise SqlError("no statement to run")
    return results[-1]


class _CallableModule(types.ModuleType):
    def __call__(self, query: str, spark: SparkSession | None = None) -> Any:
        return sql(query, spark)


sys.modules[__name__].__class__ = _CallableModule
