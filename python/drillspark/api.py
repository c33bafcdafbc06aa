"""`drillspark.run(plan)`: run a Drill logical plan on Spark."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from drillspark.result import DrillResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _load_plan(plan: Any) -> Any:
    """A parsed LogicalPlan from a path, JSON text, a dict, or a LogicalPlan."""
    from drillspark import plan as plan_pkg

    if isinstance(plan, os.PathLike) or (isinstance(plan, str) and not plan.lstrip().startswith(
            ("{", "/*", "//")) and os.path.exists(plan)):
        return plan_pkg.parse_file(os.fspath(plan))  # type: ignore[attr-defined]
    if isinstance(plan, str | bytes | Mapping):
        if isinstance(plan, Mapping):
            plan = json.dumps(plan)
        return plan_pkg.parse(plan)  # type: ignore[attr-defined]
    return plan  # already parsed


def run(plan: Any, spark: SparkSession | None = None,
        storage: Mapping[str, Mapping[str, Any]] | None = None,
        classpath: Sequence[str] | None = None) -> DrillResult:
    """Run a Drill logical plan and return its result.

    plan:      a path to a plan file, JSON text, a dict, or a parsed LogicalPlan
    spark:     the session to use (default: `drillspark.session()`)
    storage:   storage engine configs by name, adding to or overriding the plan's own, e.g.
               `{"cp": {"type": "classpath", "root": "/data"}}`
    classpath: directories a `classpath` engine without a root searches (default: the
               current directory)
    """
    from drillspark.spark.storage import StorageRegistry
    from drillspark.spark.translator import Translator

    parsed = _load_plan(plan)
    if spark is None:
        from drillspark.session import session

        spark = session()
    registry = StorageRegistry(getattr(parsed, "storage", None), storage,
                               list(classpath) if classpath else [os.getcwd()])
    translator = Translator(spark, list(parsed.operators), registry,
                            dialect_2013=_is_2013(parsed))
    df, written = translator.run()
    return DrillResult(df, parsed, written, plan_text=_plan_text(parsed))


def _is_2013(parsed: Any) -> bool:
    dialect = getattr(parsed, "dialect", None)
    return str(dialect) in ("2013", "Dialect.V2013", "v2013") or dialect == 2013


def _plan_text(parsed: Any) -> str | None:
    for name in ("explain", "to_text", "to_json"):
        fn = getattr(parsed, name, None)
        if callable(fn):
            try:
                return str(fn())
            except Exception:
                return None
    return None
