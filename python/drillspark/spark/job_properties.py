"""A server query's Spark job properties on the calling thread, in one py4j round trip each way
(the jar's `drillspark.server.JobProperties`, #37): its job group (what cancel stops), the
description Spark's UI shows, interrupt on cancel, and its scheduler pool.

Set from Python they were a round trip each, six a query; under sixteen BI clients each round
trip waits for the server's GIL again (docs/performance.md). With a jar without the class, each
is set as pyspark sets it.
"""

from __future__ import annotations

import contextlib
from typing import Any

KEYS = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
POOL = "spark.scheduler.pool"

# JVM view by id -> (the view, kept alive here; enter; leave): each step of a py4j lookup
# (`jvm.drillspark`, `.server`, ... the method) is a round trip of its own
_METHODS: dict[int, tuple[Any, Any, Any]] = {}


def enter(spark: Any, group: str, description: str, pool: str | None) -> None:
    """The calling thread's Spark jobs belong to `group` (interrupted on cancel) and run in
    `pool` (None: the default pool)."""
    jss, methods = _methods(spark)
    if methods is not None:
        try:
            methods[1](jss, group, description, pool)
            return
        except TypeError:  # an older jar: py4j's stand-in for a missing class is no method
            _METHODS.pop(id(methods[0]), None)
    sc = spark.sparkContext
    sc.setJobGroup(group, description, interruptOnCancel=True)
    sc.setLocalProperty(POOL, pool)


def leave(spark: Any) -> None:
    """The calling thread's jobs belong to no query again; quiet when the JVM is gone (the
    query's slot is given back all the same)."""
    jss, methods = _methods(spark)
    if methods is not None:
        try:
            methods[2](jss)
            return
        except TypeError:  # an older jar
            _METHODS.pop(id(methods[0]), None)
        except Exception:  # noqa: BLE001 - a dead JVM: nothing to undo
            return
    for key in (*KEYS, POOL):
        with contextlib.suppress(Exception):
            spark.sparkContext.setLocalProperty(key, None)


def _methods(spark: Any) -> tuple[Any, tuple[Any, Any, Any] | None]:
    """The session's JVM object and (the JVM view, enter, leave); (None, None) on Spark Connect."""
    jvm = getattr(spark, "_jvm", None)
    jss = getattr(spark, "_jsparkSession", None)
    if jvm is None or jss is None:
        return None, None
    hit = _METHODS.get(id(jvm))
    if hit is None or hit[0] is not jvm:
        try:
            cls = jvm.drillspark.server.JobProperties
            hit = _METHODS[id(jvm)] = (jvm, cls.enter, cls.leave)
        except Exception:  # noqa: BLE001 - a dead JVM: pyspark's calls say so
            return None, None
    return jss, hit
