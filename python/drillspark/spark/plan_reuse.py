"""A plan's translation kept while nothing it read changed (#37): a BI tool sends the same
small statements again and again, and building their DataFrame (the translator's operators,
each a py4j round trip and a Spark analysis) was a third of a chart's time through the server.

Every SQL door keeps them (the Python API, the CLI, REST, the native protocol, Flight SQL: one
query service); `spark.drillspark.keepTranslations=false` translates every time. The key is
everything the translation depends on: the plan's JSON (SQL lowering runs each time,
so a view, a session option or USE that changes the plan changes the key), the storage configs,
the Spark confs the translation and Spark's analysis read (`CONFS`), and the caller's own part
(the server's user). A translation is kept only when every scan it made read local files whose
stamps it recorded (stamps.recording): a scan of any other source (JDBC, Kafka, Mongo, HTTP,
system tables), a tree stamps refuse (a shared mount, a file changed within the racy window,
...), a plan that writes files or calls RANDOM is translated every time. A translation that
read JSON from samples (spark/single_pass.py) is kept once a whole fetch confirmed them, under
a key of its own (`sampled`). A kept one is used while the stamps of what it read are
unchanged. Where its analyzed plan holds nothing Spark fixes per query (the clock, the
session's user or schema, a nondeterministic expression: the jar's `compat.ReusablePlans`,
asked once when kept) it is the same DataFrame, whose physical plan Spark made once (AQE's final
plan out of AQE's wrapper, whose lock would queue concurrent runs): each action is still its own
SQL execution (its own metrics, job group, cancel). Otherwise, and on Spark Connect, it is a new
DataFrame over the kept analyzed plan (`select("*")`), which Spark optimizes and plans afresh,
so NOW() is each run's.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from drillspark.spark import jvm_methods
from drillspark.spark.storage import stamps

KEPT = 64
# the session's confs a translation depends on (our own translator's, Spark's analysis's) and
# those of Spark's planning this project's code or users turn (a whole plan is planned once:
# ReusablePlans). Read one by one: the whole conf costs a py4j round trip per entry.
CONFS = (
    "spark.drillspark.keepTranslations",  # first: "false" keeps nothing (key)
    "spark.sql.session.timeZone",
    "spark.sql.ansi.enabled",
    "spark.sql.caseSensitive",
    "spark.sql.timeType.enabled",
    "spark.drillspark.singlePassSample",
    "spark.drillspark.singlePassMinBytes",
    "spark.drillspark.singlePartitionScans",
    "spark.drillspark.smallSorts",
    "spark.drillspark.streamingGenerates",
    "spark.drillspark.buildSideFirst",
    "spark.drillspark.scanStatistics",
    "spark.drillspark.flatten.strict",
    "spark.drillspark.missingColumns.enabled",
    "spark.drillspark.missingColumns.type",
    "spark.drillspark.readScanner",
    "spark.drillspark.discoveryScanner",
    "spark.sql.adaptive.enabled",
    "spark.sql.autoBroadcastJoinThreshold",
    "spark.sql.adaptive.autoBroadcastJoinThreshold",
    "spark.sql.shuffle.partitions",
    "spark.sql.join.preferSortMergeJoin",
    "spark.sql.maxSinglePartitionBytes",
    "spark.sql.optimizer.runtime.bloomFilter.enabled",
    "spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold",
    "spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold",
)
# a call seeded when the DataFrame is built: kept, it would repeat its numbers
_SEEDED = re.compile(r"\b(random|rand)\s*\(", re.IGNORECASE)
_LOCK = threading.Lock()
_KEPT: weakref.WeakKeyDictionary[Any, OrderedDict[Hashable, Any]] = weakref.WeakKeyDictionary()
# the kept DataFrames run again as they are (`whole`), and their row-limited forms by row count
# (`limited`): each gone with its DataFrame
_AS_IS: weakref.WeakSet[Any] = weakref.WeakSet()
_LIMITED: weakref.WeakKeyDictionary[Any, dict[int, Any]] = weakref.WeakKeyDictionary()


def key(spark: Any, plan_json: str, setup: Any, own: Hashable) -> Hashable | None:
    """The translation's key; None for a plan that must be translated each time, or when the
    session's `spark.drillspark.keepTranslations` is false."""
    if "rand" in plan_json.lower() and _SEEDED.search(plan_json):  # the regex only if it may
        return None
    confs = _confs(spark)
    if (confs[0] or "true").strip().lower() == "false":
        return None
    return (plan_json, json.dumps(setup, sort_keys=True, default=str), confs, own)


def _confs(spark: Any) -> tuple[str | None, ...]:
    """The values of `CONFS` in one py4j round trip (ReusablePlans.confs); one call each on
    Spark Connect or with a jar that cannot say."""
    jss = getattr(spark, "_jsparkSession", None)
    read = _read_confs(spark) if jss is not None else None
    if read is not None:
        try:
            text = read(jss, "\n".join(CONFS))
            return tuple(None if v == "\0" else v for v in text.split("\1"))
        except Exception:  # noqa: BLE001 - an older jar: read them one by one
            pass
    return tuple(spark.conf.get(c, None) for c in CONFS)


def _read_confs(spark: Any) -> Any | None:
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return None
    try:
        return jvm_methods.static(jvm, "org.apache.spark.sql.drillspark.compat.ReusablePlans.confs")
    except Exception:  # noqa: BLE001 - an older jar
        return None


def sampled(k: Hashable) -> Hashable:
    """The key of `k`'s translation built from samples (spark/single_pass.py), kept apart: it is
    kept only once a whole fetch confirmed its samples, and only a build that may sample uses it
    (the server's and `drillspark run`'s rows are read from a full discovery's)."""
    return ("sampled", k)


def keeper(
    spark: Any, k: Hashable, rec: stamps.Recording, translator: Any, df: Any, reads: Any
) -> Callable[[], None]:
    """What keeps a translation from samples under `sampled(k)`, with its `reads`, to be called
    once a whole fetch confirmed the samples; a failure to keep is no failure of the fetch (the
    next statement translates again)."""

    def keep_now() -> None:
        with contextlib.suppress(Exception):
            keep(spark, sampled(k), rec, translator, df, extra=reads)

    return keep_now


def find(spark: Any, k: Hashable) -> tuple[Any, Any, Any] | None:
    """The kept translation of key `k` (its translator, the DataFrame to run, what `keep` was
    given as `extra`), if what it read is unchanged; else None."""
    with _LOCK:
        kept = _KEPT.get(spark)
        held = kept.get(k) if kept is not None else None
    if kept is None or held is None:
        return None
    reads, value = held
    fresh = all(read.fresh() for read in reads)
    with _LOCK:
        if not fresh:
            kept.pop(k, None)
            return None
        if k in kept:
            kept.move_to_end(k)
    translator, df, whole, extra = value
    return translator, (df if whole else df.select("*")), extra


def limited(spark: Any, df: Any, rows: int) -> Any:
    """`df.limit(rows)`, planned once per (DataFrame, rows) where `df` is a kept one run as it
    is (a client's row limit on a kept chart: the Drill console's autoLimit, JDBC's setMaxRows,
    DBeaver's 200, #37): `limit()` alone is a new DataFrame each run, analyzed and planned
    afresh (30-40 ms of a small GROUP BY). Any other `df` (a new one each run) is only cut."""
    with _LOCK:
        hit = _LIMITED.get(df, {}).get(rows)
        as_is = df in _AS_IS
    if hit is not None:
        return hit
    cut = df.limit(rows)
    planned = _planned(spark, cut) if as_is else None
    if planned is None:
        return cut
    with _LOCK:
        _LIMITED.setdefault(df, {})[rows] = planned
    return planned


def _plans(spark: Any, df: Any) -> tuple[Any, Any] | None:
    """The jar's `compat.ReusablePlans` and `df`'s JVM Dataset; None on Spark Connect (no JVM
    here: a new DataFrame each time)."""
    jdf = getattr(df, "_jdf", None)
    jvm = getattr(spark, "_jvm", None)
    if jdf is None or jvm is None:
        return None
    return jvm.org.apache.spark.sql.drillspark.compat.ReusablePlans, jdf


def _planned(spark: Any, df: Any) -> Any | None:
    """`df` to run again as it is (ReusablePlans.planned: a one-stage plan's final plan taken out
    of AQE's wrapper, whose lock each run would hold from start to end, so concurrent runs of
    one kept chart would queue), or None: on Spark Connect, when it is not whole, when the jar
    cannot say."""
    from pyspark.sql import DataFrame

    found = _plans(spark, df)
    if found is None:
        return None
    plans, jdf = found
    try:
        planned = plans.planned(jdf)
    except Exception:  # noqa: BLE001 - an older jar, a plan it cannot walk: plan afresh
        return None
    return DataFrame(planned, spark) if planned is not None else None


def _answered(spark: Any, df: Any) -> Any | None:
    """`df`'s answer computed now, as a DataFrame of its rows (ReusablePlans.answered: a local
    relation, collected again with no Spark job), or None: on Spark Connect, when the plan holds
    something fixed per query (NOW(), the user, RANDOM), or when it fails (the run that follows
    reports the failure where it belongs)."""
    from pyspark.sql import DataFrame

    found = _plans(spark, df)
    if found is None:
        return None
    plans, jdf = found
    try:
        if plans.perQuery(jdf):
            return None
        return DataFrame(plans.answered(jdf), spark)
    except Exception:  # noqa: BLE001 - an older jar, a failing plan: kept as any other
        return None


def keep(
    spark: Any,
    k: Hashable,
    rec: stamps.Recording,
    translator: Any,
    df: Any,
    small: bool = False,
    extra: Any = None,
) -> Any:
    """Keep the translation (`translator`, its DataFrame `df`, and `extra` for its user) under
    `k` while `rec`'s reads are unchanged; the DataFrame to run now. A `small` plan (every
    source a catalog table, read by its content) keeps its answer itself: the same rows in
    give the same rows out, and a BI tool's catalog aggregate (`min(version)` of sys.drillbits
    at every connect) runs no Spark job again."""
    if not rec.reusable or not rec.reads:
        return df
    answer = _answered(spark, df) if small else None
    if answer is not None:
        df, whole = answer, True
    else:
        planned = _planned(spark, df)
        df, whole = (planned, True) if planned is not None else (df, False)
    value = (translator, df, whole, extra)
    with _LOCK:
        if whole:
            _AS_IS.add(df)
        kept = _KEPT.setdefault(spark, OrderedDict())
        kept[k] = (list(rec.reads), value)
        kept.move_to_end(k)
        while len(kept) > KEPT:
            kept.popitem(last=False)
    return df
