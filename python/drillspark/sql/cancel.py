"""Running a statement so that Ctrl-C cancels it: the work runs in a worker thread under a
Spark job tag while the main thread waits, so a KeyboardInterrupt reaches a thread that is not
inside a Py4J call (PySpark's own SIGINT handler would otherwise call into the JVM re-entrantly
and print Py4J's tracebacks) and the tag's jobs are cancelled at once."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from drillspark.errors import ExecutionError

T = TypeVar("T")


class QueryCancelled(ExecutionError):
    """The user interrupted the statement; its Spark jobs were cancelled."""

    def __init__(self) -> None:
        super().__init__("Query cancelled.")


def spark_free(statement: str) -> bool:
    """Statements answered without Spark (EXPLAIN, USE, SET, SHOW): they need not wait for it."""
    from drillspark.sql import statements as st

    try:
        kind = type(st.classify(statement))
    except Exception:  # noqa: BLE001 - the statement's own run reports the error
        return True
    return kind in (st.Explain, st.Use, st.SetOption, st.ShowFiles, st.ShowSchemas, st.ShowTables)


def starter(engine: Any, statements: list[str]) -> Callable[[], Any]:
    """What `run_cancellable` calls first for these statements: None when none needs Spark;
    else a lone query is compiled (syntax and validation errors come before Spark starts,
    in well under a second) and the engine's session started."""

    def start() -> Any:
        from drillspark.sql import statements as st

        if all(spark_free(s) for s in statements):
            return None
        if len(statements) == 1:  # later statements may read what earlier ones create
            kind = st.classify(statements[0])
            if type(kind) is st.Query:
                engine.compile(kind.text)
        return engine.spark

    return start


def run_cancellable(start_spark: Callable[[], Any], work: Callable[[], T]) -> T:
    """`work()` in a worker thread whose Spark jobs carry a fresh tag. `start_spark()` gives
    the session (starting it if needed; None for work that needs no Spark) before `work` runs,
    so every job of the statement is tagged. On Ctrl-C the tag's jobs are cancelled (a
    statement still waiting for Spark to start never runs) and QueryCancelled is raised once
    the worker stopped (at most 30 s)."""
    tag = f"drillspark-{uuid.uuid4().hex[:12]}"
    cancelled = threading.Event()
    # waited on instead of Thread.join: a join interrupted by Ctrl-C leaves is_alive() False
    # (CPython 3.11) while the thread still runs
    done = threading.Event()
    box: dict[str, Any] = {}

    def target() -> None:
        spark = None
        tagged = None
        try:
            spark = start_spark()
            if cancelled.is_set():
                return
            if spark is not None:
                tagged = _tag(spark, tag)
            box["working"] = True
            box["value"] = work()
        except BaseException as e:  # handed to the waiting thread
            box["error"] = e
        finally:
            if tagged is not None:
                with contextlib.suppress(Exception):  # the session may be gone
                    tagged()
            done.set()

    worker = threading.Thread(target=target, name=tag, daemon=True)
    worker.start()
    try:
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        cancelled.set()
        if box.get("working"):  # still starting Spark: the worker returns before any work
            _interrupt(start_spark, tag, done)
            done.wait(30)  # the work fails as soon as its jobs are cancelled
        raise QueryCancelled() from None
    if "error" in box:
        raise box["error"]
    return box["value"]


def _tag(spark: Any, tag: str) -> Callable[[], None]:
    """Tag the calling thread's Spark jobs with `tag`; returns what removes the tag. Classic
    Spark: a SparkContext job tag (`cancelJobsWithTag` finds it from any thread; a
    SparkSession tag of classic Spark is found only by `interruptTag` on the thread that
    added it), and a cancelled task's thread is interrupted rather than left computing.
    Spark Connect has no SparkContext: a session tag, which the server interrupts."""
    try:
        context = spark.sparkContext
    except Exception:  # noqa: BLE001 - Spark Connect
        spark.addTag(tag)
        return lambda: spark.removeTag(tag)
    context.addJobTag(tag)
    context.setLocalProperty("spark.job.interruptOnCancel", "true")
    return lambda: context.removeJobTag(tag)


def _interrupt(start_spark: Callable[[], Any], tag: str, done: threading.Event) -> None:
    """Cancel the tag's jobs from a thread of our own: the main thread may be the one PySpark's
    SIGINT handler just used, and a second Ctrl-C must not land inside this call. Again until
    the work has stopped (`done`): a cancel reaches only the jobs running then, and the work
    may start its next job a moment later."""

    def cancel() -> None:
        with contextlib.suppress(Exception):  # the session is gone
            spark = start_spark()
            from drillspark.spark import cancel_jobs

            while not done.is_set():
                with contextlib.suppress(Exception):  # nothing to cancel
                    cancel_jobs.tag(spark, tag, "interrupted (Ctrl-C)")
                done.wait(0.5)

    t = threading.Thread(target=cancel, daemon=True)
    t.start()
    t.join(5)
