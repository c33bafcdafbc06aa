"""Workspace confinement for every Python entry point (drillspark.sql's tables and CTAS targets,
the plan's file engines, the CLI's --workspace): the path a table name resolves to is asked
from the extension's `drill_workspace_path` (jvm/.../catalog/WorkspacePaths.scala), the same
rule the Spark `dfs` catalog applies, never re-implemented here. See docs/security.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyspark.sql import SparkSession

from drillspark.errors import ExecutionError

# Drill's workspace option: names may leave the workspace root (absolute paths, `..`, URIs).
ALLOW_OUTSIDE = "allowAccessOutsideWorkspace"


class WorkspaceError(ExecutionError, ValueError):
    """A table name refused by its workspace (it would leave the workspace root)."""


@dataclass(frozen=True)
class Workspace:
    name: str
    location: str
    allow_outside: bool = False


def workspace_of(name: str, config: Any, default_outside: bool = False) -> Workspace:
    """A workspace from a folder or a Drill workspace config ({location, allowAccessOutside
    Workspace}); `default_outside` when the config does not say."""
    if isinstance(config, dict):
        location = str(config.get("location", "/"))
        outside = config.get(ALLOW_OUTSIDE, default_outside)
        return Workspace(name, location, outside in (True, "true", "True"))
    return Workspace(name, str(config), default_outside)


def resolve(spark: SparkSession, ws: Workspace, table: str) -> str:
    """The local path of `table` in `ws`, or WorkspaceError naming the workspace."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is not None:
        # classic Spark: one py4j call into the rule (a 500-way UNION ALL asks it 1,000 times;
        # each SQL round trip below costs a parse, an analysis and a collect)
        return _resolve_in_jvm(jvm, ws, table)
    try:
        # over a one-row VALUES the constant call folds into a local relation on the driver:
        # no Spark job (over no FROM, `first()` ran one per table reference, twice per query)
        rows = spark.sql(
            "SELECT drill_workspace_path(?, ?, ?, ?) AS p FROM VALUES (1)",
            args=[ws.name, ws.location, ws.allow_outside, table],
        ).collect()
    except Exception as e:  # noqa: BLE001  (the JVM's refusal, as PySpark raises it)
        message = _refusal(e)
        if message is None:
            raise
        raise WorkspaceError(message) from None
    return str(rows[0].p)


# JVM view (by id; kept alive here) -> the rule's method: each step of a py4j lookup
# (`jvm.drillspark`, `.catalog`, ...) is a round trip of its own, for every table of every query
_RULES: dict[int, tuple[Any, Any]] = {}


def _resolve_in_jvm(jvm: Any, ws: Workspace, table: str) -> str:
    try:
        hit = _RULES.get(id(jvm))
        if hit is None or hit[0] is not jvm:
            hit = _RULES[id(jvm)] = (jvm, jvm.drillspark.catalog.WorkspacePaths.resolveLocal)
        return str(hit[1](ws.name, ws.location, bool(ws.allow_outside), table))
    except Exception as e:  # noqa: BLE001  (py4j's error, or PySpark's conversion of it)
        java = getattr(e, "java_exception", None)
        text = str(java.getMessage()) if java is not None else str(e)
        message = _refusal(e) or _refusal(Exception(text))
        if message is not None:
            raise WorkspaceError(message) from None
        raise WorkspaceError(
            f"table `{table}` cannot be resolved in workspace '{ws.name}': {text.splitlines()[0]}"
        ) from None


def _refusal(error: BaseException) -> str | None:
    params = getattr(error, "getMessageParameters", None)
    message = (params() or {}).get("errorMessage") if callable(params) else None
    if message is None:
        text = str(error)
        start = text.find("drill: table `")
        message = text[start:].splitlines()[0] if start >= 0 else None
    return message if message and "is refused in workspace" in message else None
