"""A query's operator metrics for its profile page: Spark's own SQL metrics (rows, time,
memory of each operator of Spark's physical plan) of the SQL executions that ran the
query's Spark jobs, read from Spark's SQL status store on the driver. Values are Spark's
texts (`1.2 s`, `8.1 MiB`, `100,000`), their total over the tasks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Spark's metric names by what the profile page's columns show
ROWS = ("number of output rows", "records read", "shuffle records written")
TIME = ("duration", "scan time", "sort time", "time in aggregation build", "build time")
MEMORY = ("peak memory", "spill size", "data size")


def _total(text: str | None) -> str | None:
    """Spark's `total (min, med, max (stageId: taskId))\\n2.1 s (1.0 s, ...)`: the total."""
    if text is None:
        return None
    last = text.splitlines()[-1]
    return last.split(" (", 1)[0] if "\n" in text else last


def _first(metrics: dict[str, str], names: tuple[str, ...]) -> str | None:
    return next((metrics[n] for n in names if metrics.get(n)), None)


def operator_metrics(
    spark: Any, job_ids: set[int], group: str, shown: Callable[[str], str]
) -> list[dict[str, Any]]:
    """Per SQL execution that ran one of `job_ids`, or ran in job group `group` without a job
    (a small statement's task run where it is collected, the jar's LocalPartitionRun): its
    operators (Spark's plan graph, from the root down) with their metrics; [] where Spark
    gives no driver JVM (Spark Connect).
    An operator's name passes through `shown`: a scan names its files, which a server's users
    see as its workspaces name them (shown_paths.py), never where they lie."""
    try:
        jvm = spark._jvm
        store = spark._jsparkSession.sharedState().statusStore()
    except Exception:  # noqa: BLE001 - Spark Connect: no status store here
        return []
    conv = jvm.scala.jdk.javaapi.CollectionConverters
    # found on the JVM side: walked from here, each execution the store keeps was round trips
    found = jvm.org.apache.spark.sql.drillspark.compat.SqlExecutions.ofJobs(
        store, ",".join(str(j) for j in sorted(job_ids)), group
    )
    out = []
    for eid in (int(x) for x in str(found).split(",") if x):
        values = conv.asJava(store.executionMetrics(eid))
        operators: list[dict[str, Any]] = []
        for node in conv.asJava(store.planGraph(eid).allNodes()):
            metrics: dict[str, str] = {}
            for m in conv.asJava(node.metrics()):
                total = _total(values.get(m.accumulatorId()))
                if total is not None:
                    metrics[str(m.name())] = total
            operators.append(
                {
                    "id": int(node.id()),
                    "name": shown(str(node.name())),
                    "rows": _first(metrics, ROWS),
                    "time": _first(metrics, TIME),
                    "memory": _first(metrics, MEMORY),
                    "metrics": metrics,
                }
            )
        operators.sort(key=lambda o: o["id"])
        out.append({"execution": int(eid), "operators": operators})
    return sorted(out, key=lambda e: e["execution"])
