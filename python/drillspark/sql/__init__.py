"""Drill SQL on drillspark: queries are parsed with sqlglot's `drill` dialect, lowered to the
Drill logical plan and run by the same translator as JSON plans.

    import drillspark
    result = drillspark.sql("SELECT t.a.b FROM dfs.`data.json` t")

`drillspark.sql` is both this package and that function (the module is callable).
"""

from __future__ import annotations

import sys
import threading
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

class _ThreadEngines(threading.local):
    """Each thread's engines: USE / ALTER SESSION through `drillspark.sql` change only the
    calling thread's state (a notebook runs in one thread, so its USE still holds for the
    next cell), as separate Drill connections do."""

    def __init__(self) -> None:
        # per SparkSession, weakly held: an id() key could be reused by a later session
        self.by_session: weakref.WeakKeyDictionary[Any, SqlEngine] = \
            weakref.WeakKeyDictionary()
        self.default: SqlEngine | None = None


_engines = _ThreadEngines()


def default_engine(spark: SparkSession | None = None) -> SqlEngine:
    """The engine (and so the USE / ALTER SESSION state) shared by the calling thread's
    `sql()` calls for one SparkSession (`None`: drillspark's default session)."""
    if spark is None:
        if _engines.default is None:
            _engines.default = SqlEngine(None)
        return _engines.default
    engine = _engines.by_session.get(spark)
    if engine is None:
        engine = _engines.by_session[spark] = SqlEngine(spark)
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
