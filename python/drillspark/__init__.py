"""drillspark: Apache Drill's schema-free query model (logical plans and Drill SQL over nested
JSON) on Apache Spark.

    import drillspark
    drillspark.sql("SELECT t.a.b FROM dfs.`data.json` t").show()   # Drill SQL
    drillspark.run("plan.json").to_pandas()                        # a Drill logical plan
    spark = drillspark.session()                 # local Spark with the extension
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from drillspark._version import __version__
from drillspark.api import run
from drillspark.errors import Error

# the built-in Arrow operators register themselves in drillspark.plugins on import; any import
# of a drillspark module runs this file first, so they are always known by name
from drillspark.operators import builtin as _builtin_operators  # noqa: F401
from drillspark.plugins import function, operator
from drillspark.progress import ProgressInfo
from drillspark.result import DrillResult, Result, StatementResult
from drillspark.session import configure, jar_path, session, set_log_level

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from drillspark.progress import ProgressCallback

__all__ = ["DrillResult", "Error", "ProgressInfo", "Result", "StatementResult", "__version__",
           "configure", "function", "jar_path", "operator", "run", "session", "set_log_level",
           "sql"]


def sql(query: str, spark: SparkSession | None = None, *,
        progress: ProgressCallback | bool | None = None) -> DrillResult | StatementResult:
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

        drillspark.sql("SELECT t.name FROM dfs.`data/people.json` t").show()
    """
    # the SQL front end (sqlglot) loads on first use
    from drillspark.sql import run_sql

    return run_sql(query, spark, progress)


class _Package(types.ModuleType):
    """Keeps `drillspark.sql` the function above: importing the drillspark.sql package (e.g.
    `import drillspark.sql.engine`) would otherwise bind the package to this name."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "sql" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
