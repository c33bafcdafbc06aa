"""drillspark: Apache Drill's schema-free query model (logical plans and Drill SQL over nested
JSON) on Apache Spark.

    import drillspark
    spark = drillspark.session()                 # local Spark with the extension
    spark.sql("SELECT drill_version()").show()
"""

from drillspark._version import __version__
from drillspark.api import run
from drillspark.errors import Error
from drillspark.plugins import function, operator
from drillspark.session import configure, jar_path, session, set_log_level

__all__ = ["Error", "__version__", "configure", "function", "jar_path", "operator", "run", "session",
           "set_log_level", "sql"]


def __getattr__(name: str):
    # `drillspark.sql(query)` loads the SQL front end (sqlglot) only when first used; the
    # drillspark.sql module is callable.
    if name == "sql":
        import importlib

        return importlib.import_module("drillspark.sql")
    raise AttributeError(f"module 'drillspark' has no attribute {name!r}")
