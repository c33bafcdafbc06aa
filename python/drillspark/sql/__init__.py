"""Drill SQL on drillspark: queries are parsed with sqlglot's `drill` dialect, lowered to the
Drill logical plan and run by the same translator as JSON plans.

    import drillspark
    result = drillspark.sql("SELECT t.a.b FROM dfs.`data.json` t")

`drillspark.sql` (the function) calls `run_sql` here; `import drillspark.sql.engine` and
`from drillspark.sql import SqlEngine` reach this package.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from drillspark.progress import ProgressCallback, ProgressWatch, resolve
from drillspark.result import DrillResult, StatementResult
from drillspark.sql.errors import (
    QueryPlanError,
    SqlError,
    SqlSyntaxError,
    TableNotFoundError,
    UnsupportedSqlError,
    ValidationError,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pyspark.sql import SparkSession

    from drillspark.sql.engine import RowsResult, SqlEngine
    from drillspark.sql.session import SqlSession

# The engine and the session load on first use, so that `drillspark.sql.statements` (the
# statement splitter `drillspark sql` needs to send statements to a server) costs no Spark.
_LAZY = {
    "RowsResult": "drillspark.sql.engine",
    "SqlEngine": "drillspark.sql.engine",
    "SqlSession": "drillspark.sql.session",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'drillspark.sql' has no attribute {name!r}")


__all__ = [
    "QueryPlanError",
    "RowsResult",
    "SqlEngine",
    "SqlError",
    "SqlSession",
    "SqlSyntaxError",
    "TableNotFoundError",
    "UnsupportedSqlError",
    "ValidationError",
    "default_engine",
    "run_sql",
    "sql",
]


class _ThreadEngines(threading.local):
    """Each thread's engines: USE / ALTER SESSION through `drillspark.sql` change only the
    calling thread's state (a notebook runs in one thread, so its USE still holds for the
    next cell), as separate Drill connections do."""

    def __init__(self) -> None:
        # per SparkSession, weakly held: an id() key could be reused by a later session
        self.by_session: weakref.WeakKeyDictionary[Any, SqlEngine] = weakref.WeakKeyDictionary()
        self.default: SqlEngine | None = None


_engines = _ThreadEngines()


def default_engine(spark: SparkSession | None = None) -> SqlEngine:
    """The engine (and so the USE / ALTER SESSION state) shared by the calling thread's
    `sql()` calls for one SparkSession (`None`: drillspark's default session)."""
    from drillspark.sql.engine import SqlEngine

    if spark is None:
        if _engines.default is None:
            _engines.default = SqlEngine(None)
        return _engines.default
    engine = _engines.by_session.get(spark)
    if engine is None:
        engine = _engines.by_session[spark] = SqlEngine(spark)
    return engine


def run_sql(
    query: str,
    spark: SparkSession | None = None,
    progress: ProgressCallback | bool | None = None,
    storage: Mapping[str, Any] | None = None,
) -> DrillResult | StatementResult:
    """Run Drill SQL (one or more ';'-separated statements); the last statement's result: a
    DrillResult for queries, a StatementResult for USE / SHOW / DESCRIBE / EXPLAIN / ALTER
    SESSION / CREATE / DROP. `progress` (drillspark.progress.resolve) is reported while Spark
    starts and plans, and stays with a DrillResult for the jobs that fetch its rows."""
    callback = resolve(progress)
    engine = default_engine(spark)
    _take_storage(engine)
    if storage:  # drillspark.sql(..., storage={...}): this session's plugins from now on
        from drillspark.session import storage_configs

        checked = storage_configs(storage)
        engine.session.take_storage(checked)
        if engine.has_spark:  # and as Spark catalogs, for spark.sql
            from drillspark.spark.storage import plugin_catalogs

            plugin_catalogs.register_all(engine.spark, checked)
    if callback is None:
        results = engine.execute(query)
    else:
        with ProgressWatch(callback, lambda: engine.spark if engine.has_spark else None):
            results = engine.execute(query)
    if not results:
        raise SqlError("no statement to run")
    result = results[-1]
    if isinstance(result, DrillResult):  # its rows are fetched later, by show() and the like
        result.progress = callback
    return result


sql = run_sql  # `from drillspark.sql import sql`, as before


def _take_storage(engine: SqlEngine) -> None:
    """The storage plugins the engine's Spark session was given (drillspark.session(storage=
    ...)), once per engine."""
    from pyspark.sql import SparkSession

    from drillspark.plugin_configs import bootstrap
    from drillspark.session import storage_of

    spark = engine.spark if engine.has_spark else SparkSession.getActiveSession()
    from drillspark.sql.temporary import workspace_setting

    # Drill's drill.exec.default_temporary_workspace, as the Spark session sets it now
    engine.session.temporary_workspace = (
        workspace_setting(spark) or bootstrap.DEFAULT_TEMPORARY_WORKSPACE
    )
    storage = storage_of(spark)
    taken = _storage_taken.get(engine)
    # again when the session was given other plugins since (a later session(storage=...))
    if storage and (taken is None or taken[0] is not spark or taken[1] != storage):
        engine.session.take_storage(storage)
        _storage_taken[engine] = (spark, storage)


# engine -> the Spark session whose storage plugins it took, and those plugins
_storage_taken: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
