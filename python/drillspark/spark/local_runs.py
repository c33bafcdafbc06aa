"""Cancelling a statement whose one task runs where it is collected (the jar's
`compat.LocalPartitionRun`, #37): such a run holds no Spark job, so `cancelJobGroup` and
`cancelJobsWithTag` do not reach it. Whoever cancels a job group or tag calls `cancel` too:
the statement then fails at once, as a cancelled job does, and its task stops at its next
check, as a cancelled task does. On Spark Connect (no JVM here) nothing runs that way."""

from __future__ import annotations

import contextlib
from typing import Any


def cancel(spark: Any, key: str, reason: str) -> None:
    """Cancel the runs of job group or job tag `key` (`reason` in their error)."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return
    with contextlib.suppress(Exception):  # a stopped session, or a jar without it: no such runs
        jvm.org.apache.spark.sql.drillspark.compat.LocalPartitionRun.cancel(key, reason)
