"""`drillspark serve`: Apache Drill 1.22's REST API and web console over one long-lived
SparkSession, so Drill's clients (sqlalchemy-drill, pydrill, plain HTTP) and people with a
browser use drillspark as they use Drill. See docs/server.md."""

from drillspark.server.app import DRILL_VERSION, BindError, DrillServer, Limits

__all__ = ["DRILL_VERSION", "BindError", "DrillServer", "Limits"]
