"""drillspark: Apache Drill's schema-free query model (logical plans and Drill SQL over nested
JSON) on Apache Spark.

    import drillspark
    drillspark.sql("SELECT t.a.b FROM dfs.`data.json` t").show()   # Drill SQL
    drillspark.run("plan.json").to_pandas()                        # a Drill logical plan
    spark = drillspark.session()                 # local Spark with the extension
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from drillspark import plugins as _plugins
from drillspark._version import __version__
from drillspark.errors import Error
from drillspark.plugins import function, operator

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pyspark.sql import SparkSession

    from drillspark.api import run
    from drillspark.progress import ProgressCallback, ProgressInfo
    from drillspark.result import DrillResult, QueryInterrupted, Result, StatementResult
    from drillspark.session import configure, jar_path, session, set_log_level

__all__ = [
    "DrillResult",
    "Error",
    "ProgressInfo",
    "QueryInterrupted",
    "Result",
    "StatementResult",
    "__version__",
    "configure",
    "function",
    "jar_path",
    "operator",
    "run",
    "session",
    "set_log_level",
    "sql",
]

# The rest of the API loads on first use (PEP 562), so that `import drillspark` costs no
# pyarrow, pyspark or sqlglot: `drillspark sql` answered by a running server needs none of them.
_LAZY = {
    "run": "drillspark.api",
    "ProgressInfo": "drillspark.progress",
    "DrillResult": "drillspark.result",
    "QueryInterrupted": "drillspark.result",
    "Result": "drillspark.result",
    "StatementResult": "drillspark.result",
    "configure": "drillspark.session",
    "jar_path": "drillspark.session",
    "session": "drillspark.session",
    "set_log_level": "drillspark.session",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later lookups are plain attribute reads
        return value
    raise AttributeError(f"module 'drillspark' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _builtin_operators() -> None:
    # the built-in Arrow operators (pyarrow) register on the registry's first use
    from drillspark.operators import builtin  # noqa: F401


_plugins.defer(_builtin_operators)


def sql(
    query: str,
    spark: SparkSession | None = None,
    *,
    progress: ProgressCallback | bool | None = None,
    storage: Mapping[str, Any] | None = None,
) -> DrillResult | StatementResult:
    """Run Drill SQL: one or more ';'-separated statements; returns the last one's result.

    A query gives a DrillResult (its rows are computed when fetched); USE, SHOW, DESCRIBE,
    EXPLAIN, ALTER SESSION, CREATE and DROP give a StatementResult. Both have show(n, truncate),
    collect(), rows(), to_pandas(), to_arrow(), columns and a notebook table.

    spark:    the SparkSession (default: drillspark.session(), started on first use); USE and
              ALTER SESSION last for later calls on the same session
    progress: a callable taking a drillspark.ProgressInfo (phase, elapsed, stages and tasks
              done/total), called about twice a second while Spark starts, plans and later
              computes the rows; True prints a progress line on stderr; False nothing;
              None (default): the line inside IPython / Jupyter, nothing elsewhere
    storage:  Drill's storage plugin configs {NAME: CONFIG} (file plugins on s3a:// or other
              folders, jdbc, ...; a config without `type` merges into dfs): schemas of this
              session from now on, as drillspark.session(storage=...) makes them

        drillspark.sql("SELECT t.name FROM dfs.`data/people.json` t").show()
    """
    # the SQL front end (sqlglot) loads on first use
    from drillspark.sql import run_sql

    return run_sql(query, spark, progress, storage)


# Functions named like the module that holds them (or a package): importing that module
# (e.g. `import drillspark.sql.engine`, `from drillspark.session import jar_path`) would
# otherwise bind the module to the name.
_SHADOWED = ("sql", "session")


class _Package(types.ModuleType):
    """Keeps `drillspark.sql` the function above and `drillspark.session` the function of
    drillspark.session (loaded on first use)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
