"""Drill SQL on drillspark: queries are parsed with sqlglot's `drill` dialect, lowered to the
Drill logical plan and run by the same translator as JSON plans.

    import drillspark
    result = drillspark.sql("SELECT t.a.b FROM dfs.`data.json` t")

`drillspark.sql` is both this package and that function (the module is callable).
"""

from __future__ import annotations

import sys
import types
import weakref
from typing import TYPE_CHECKING, Any

from drillspark.sql.engine import RowsResult, SqlEngine
from drillspark.sql.errors import (
    QueryPlanError,
    SqlError,
    SqlSyntaxError,
    TableNotFoundError,
    UnsupportedSqlError,
    ValidationError,
)
from drillspark.sql.session import SqlSession

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["QueryPlanError", "RowsResult", "SqlEngine", "SqlError", "SqlSession", "SqlSyntaxError",
           "TableNotFoundError", "UnsupportedSqlError", "ValidationError", "default_engine",
           "sql"]

# Per session, weakly held: an id() key could be reused by a later session.
_engines: weakref.WeakKeyDictionary[Any, SqlEngine] = weakref.WeakKeyDictionary()
_default_engine: SqlEngine | None = None


def default_engine(spark: SparkSession | None = None) -> SqlEngine:
    """The engine (and so the USE / ALTER SESSION state) shared by `sql()` calls for one
    SparkSession (`None`: the engine of drillspark's default session)."""
    global _default_engine
    if spark is None:
        if _default_engine is None:
            _default_engine = SqlEngine(None)
        return _default_engine
    engine = _engines.get(spark)
    if engine is None:
        engine = _engines[spark] = SqlEngine(spark)
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
