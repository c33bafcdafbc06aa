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

from drillspark.spark import jvm_methods

KEYS = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
POOL = "spark.scheduler.pool"

ENTER = "drillspark.server.JobProperties.enter"
LEAVE = "drillspark.server.JobProperties.leave"


def enter(spark: Any, group: str, description: str, pool: str | None) -> None:
    """The calling thread's Spark jobs belong to `group` (interrupted on cancel) and run in
    `pool` (None: the default pool)."""
    jvm, jss = _jvm(spark)
    if jvm is not None:
        try:
            jvm_methods.static(jvm, ENTER)(jss, group, description, pool)
            return
        except TypeError:  # an older jar: py4j's stand-in for a missing class is no method
            jvm_methods.forget(jvm, ENTER)
    sc = spark.sparkContext
    sc.setJobGroup(group, description, interruptOnCancel=True)
    sc.setLocalProperty(POOL, pool)


def leave(spark: Any) -> None:
    """The calling thread's jobs belong to no query again; quiet when the JVM is gone (the
    query's slot is given back all the same)."""
    jvm, jss = _jvm(spark)
    if jvm is not None:
        try:
            jvm_methods.static(jvm, LEAVE)(jss)
            return
        except TypeError:  # an older jar
            jvm_methods.forget(jvm, LEAVE)
        except Exception:  # noqa: BLE001 - a dead JVM: nothing to undo
            return
    for key in (*KEYS, POOL):
        with contextlib.suppress(Exception):
            spark.sparkContext.setLocalProperty(key, None)


def _jvm(spark: Any) -> tuple[Any, Any]:
    """The driver's JVM view and the session's JVM object; (None, None) on Spark Connect."""
    jvm = getattr(spark, "_jvm", None)
    jss = getattr(spark, "_jsparkSession", None)
    return (jvm, jss) if jvm is not None and jss is not None else (None, None)
