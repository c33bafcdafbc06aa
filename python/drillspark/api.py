"""`drillspark.run(plan)`: run a Drill logical plan on Spark."""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from drillspark.options import REGISTRY
from drillspark.result import DrillResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from drillspark.progress import ProgressCallback
    from drillspark.spark.failures import Located


def _load_plan(plan: Any) -> Any:
    """A parsed, validated LogicalPlan from a path, JSON text, a dict, or a LogicalPlan."""
    from drillspark import plan as lp

    if isinstance(plan, lp.LogicalPlan):
        return lp.validate(plan)
    if isinstance(plan, os.PathLike):
        plan = os.fspath(plan)
    return lp.parse(plan)


def run(
    plan: Any,
    spark: SparkSession | None = None,
    storage: Mapping[str, Mapping[str, Any]] | None = None,
    classpath: Sequence[str] | None = None,
    workspaces: Mapping[str, Any] | None = None,
    progress: ProgressCallback | bool | None = None,
    reuse: Hashable | None = None,
) -> DrillResult:
    """Run a Drill logical plan and return its result.

    plan:      a path to a plan file, JSON text, a dict, or a parsed LogicalPlan
    spark:     the session to use (default: `drillspark.session()`)
    storage:   storage engine configs by name, adding to or overriding the plan's own, e.g.
               `{"cp": {"type": "classpath", "root": "/data"}}`
    classpath: directories a `classpath` engine without a root searches (default: the
               current directory)
    workspaces: name -> folder (or `{"location", "allowAccessOutsideWorkspace"}`): when
               given, every file the plan's engines read or write must lie inside one of them
               (docs/security.md); when not, a plan reads what its own engines declare
    progress:  reports while the result's rows are computed, as for `drillspark.sql`: a
               callable taking a ProgressInfo, True (a line on stderr), False, or None (the
               line inside IPython, nothing elsewhere)
    reuse:     the caller's part of the key under which the plan's translation is kept while
               the local files it read are unchanged (spark/plan_reuse.py; the server passes
               its user); None translates every time
    """
    from drillspark.progress import resolve

    callback = resolve(progress)  # a wrong argument fails before any work

    from drillspark.spark.storage import StorageRegistry
    from drillspark.spark.translator import Translator

    parsed = _load_plan(plan)
    if spark is None:
        from drillspark.session import session

        spark = session()
    plan_storage = {name: cfg.to_json() for name, cfg in parsed.storage.items()}
    from drillspark.spark.storage.workspaces import workspace_of

    confine = [workspace_of(k, v) for k, v in (workspaces or {}).items()]
    registry = StorageRegistry(
        plan_storage, storage, list(classpath) if classpath else [os.getcwd()], confine
    )
    from drillspark import plan as lp
    from drillspark.spark import single_pass

    def build(one_pass: bool) -> tuple[Translator, Any, Any, single_pass.Reads | None]:
        translator = Translator(
            spark,
            list(parsed.operators),
            registry,
            dialect_2013=parsed.dialect == "2013",
            missing_type=_missing_type(parsed.head),
        )
        # a plan that writes files cannot be taken back half-way
        allowed = one_pass and not translator.writes_files()
        with single_pass.building(spark, allowed) as reads:
            df, written = translator.run()
        return translator, df, written, reads

    # a limit stops the reads early, before what the samples missed
    limited = any(isinstance(op, lp.Limit) for op in parsed.operators)
    from drillspark.plan.row_bounds import catalog_sources_only
    from drillspark.spark import plan_reuse
    from drillspark.spark.storage import stamps

    kept_as = None
    if reuse is not None:
        setup = [plan_storage, storage, classpath, workspaces]
        # compact: only a key (indented, the text took three times as long, #37)
        kept_as = plan_reuse.key(spark, parsed.to_json_text(indent=None), setup, reuse)
    hit = plan_reuse.find(spark, kept_as) if kept_as is not None else None
    if hit is None and kept_as is not None and not limited and single_pass.may_sample():
        # a translation from samples that a whole fetch confirmed, with its reads
        hit = plan_reuse.find(spark, plan_reuse.sampled(kept_as))
    confirmed = None
    if hit is not None:
        translator, df, reads = hit
        written: list[Any] = []
    else:
        with stamps.recording() as recorded:
            translator, df, written, reads = build(not limited)
            if reads is not None and reads.sampled and reads.missed:
                # it names what its samples lack: only a full discovery can tell the read NULL
                translator, df, written, reads = build(False)
        sampled = reads is not None and reads.sampled
        if kept_as is not None and not written and not translator.writes_files():
            if not sampled:
                small = catalog_sources_only(parsed)
                df = plan_reuse.keep(spark, kept_as, recorded, translator, df, small)
            else:  # kept once a whole fetch read every record without a misfit
                confirmed = plan_reuse.keeper(spark, kept_as, recorded, translator, df, reads)
    current = [translator]

    def locate(error: BaseException) -> Located | None:
        from drillspark.spark.failures import locate

        return locate(error, current[0].frames())

    def rebuild() -> Any:
        """The same plan with every JSON table discovered in full (after a misfit)."""
        current[0], again, _, _ = build(False)
        return again

    source = getattr(parsed, "source", None)
    result = DrillResult(
        df,
        parsed,
        written,
        plan_text=_plan_text(parsed),
        locate=locate,
        plan_name=getattr(source, "file", None) if source else None,
        one_pass=(reads, rebuild, confirmed) if reads is not None and reads.sampled else None,
    )
    result.progress = callback
    return result


def _missing_type(head: Mapping[str, Any]) -> str:
    """Drill's type for columns a reader does not find: nullable VARCHAR with the V2 JSON
    reader (the default), nullable INT when `head.options` turns V2 off."""
    options = head.get("options") if isinstance(head, Mapping) else None
    name = "store.json.enable_v2_reader"
    v2 = options.get(name, REGISTRY.default(name)) if isinstance(options, Mapping) else True
    return "VARCHAR" if v2 not in (False, "false") else "INT"


def _plan_text(parsed: Any) -> str | None:
    from drillspark import plan as lp

    try:
        return lp.explain(parsed, "text")
    except Exception:  # explaining is a convenience; never fail a run over it
        return None
