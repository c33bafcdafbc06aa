"""`drillspark serve`: Apache Drill 1.22's REST API and web console over one long-lived
SparkSession, so Drill's clients (sqlalchemy-drill, pydrill, plain HTTP) and people with a
browser use drillspark as they use Drill. See docs/server.md.

The server's names are loaded on first use: `drillspark.server.responses` (the wire format,
which the CLI's client shares) must not pull in Spark and the SQL engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drillspark.server.app import DRILL_VERSION, BindError, DrillServer, Limits

__all__ = ["DRILL_VERSION", "BindError", "DrillServer", "Limits"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from drillspark.server import app

        return getattr(app, name)
    raise AttributeError(f"module 'drillspark.server' has no attribute {name!r}")
