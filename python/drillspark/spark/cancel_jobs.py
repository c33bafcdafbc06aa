"""Cancelling a statement's Spark work by its job group or job tag: its Spark jobs, and its
task run where it is collected, without a job (the jar's `compat.LocalPartitionRun`, #37),
which `cancelJobGroup` and `cancelJobsWithTag` do not reach. Such a statement then fails at
once, as a cancelled job does, and its task stops at its next check, as a cancelled task does.
Every cancel of a statement goes through here."""

from __future__ import annotations

import contextlib
from typing import Any


def group(spark: Any, group_id: str, reason: str) -> None:
    """Cancel the work of job group `group_id` (Spark's error if its context stopped)."""
    spark.sparkContext.cancelJobGroup(group_id)
    _runs_here(spark, group_id, reason)


def tag(spark: Any, tag_name: str, reason: str) -> None:
    """Cancel the work of job tag `tag_name`; on Spark Connect the server interrupts the
    session's tag (Spark's error if its context stopped)."""
    try:
        context = spark.sparkContext
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext
        spark.interruptTag(tag_name)
        return
    context.cancelJobsWithTag(tag_name)
    _runs_here(spark, tag_name, reason)


def _runs_here(spark: Any, key: str, reason: str) -> None:
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return
    with contextlib.suppress(Exception):  # a stopped session, or a jar without it: no such runs
        jvm.org.apache.spark.sql.drillspark.compat.LocalPartitionRun.cancel(key, reason)
