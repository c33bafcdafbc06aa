"""Warming a fresh driver JVM up while nobody waits for it.

A new driver JVM's first statements pay for everything nothing has run yet: loading and
initializing Spark's analyzer, optimizer and code generator, Janino, the file readers, and the
JIT's first compiles. A dashboard of ten small charts took 7.7 s as a fresh session's first
statements and 2.6 s after the statements below (docs/performance.md, "A server warmed up").
Where there is idle time before the first statement -- `drillspark serve` before its first
client, the shell while its first statement is typed -- these few statements over tiny files
of each common format run first, in a background thread, and stop as soon as a real statement
comes: a caller that asks at once waits for at most the one statement in flight.

One round of the statements pays the first-use costs; the JIT's compiles go on for hundreds of
statements after (a kept chart's JVM CPU was still nearly half the compiler's after 150 runs),
so the server, whose idle time before its first client is its own, repeats them for up to
SERVER_ROUNDS rounds (about 25 s): the BI replay's first replay after its start then ran a
quarter faster, its warm replays a fifth (docs/performance.md, "The warm-up repeated while
idle"). The shell stays at one round: its idle time is its user's typing, on their machine.

Only a local master's driver JVM in this process is warmed: a cluster's executors could not
read the driver's temporary files, and a Spark Connect server is another process's JVM. The
files live in a private temporary folder, removed after; the statements run in their own Spark
job group (`drillspark-warm-up`), outside any server's profiles.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

JOB_GROUP = "drillspark-warm-up"

# What a first session's statements meet: JSON (a filter, a nested member, FLATTEN), a CSV with
# a header (a cast), Parquet joined to CSV, GROUP BY, ORDER BY, LIMIT, a BI tool's LIMIT probe;
# fetched as rows (the server's small answers) and as Arrow (the Python API, Flight SQL)
STATEMENTS = (
    "SELECT k, count(*) AS c, sum(v) AS s FROM dfs.w.`a.json` t WHERE t.n > 2 AND t.m.x < 2 "
    "GROUP BY k ORDER BY k",
    "SELECT f.e.b AS b, sum(f.e.a) AS a FROM (SELECT FLATTEN(t.l) AS e FROM dfs.w.`a.json` t) f "
    "GROUP BY f.e.b ORDER BY a DESC LIMIT 10",
    "SELECT k, sum(CAST(v AS DOUBLE)) AS s FROM dfs.w.`b.csvh` GROUP BY k ORDER BY k",
    "SELECT p.k, count(*) AS c, sum(p.v) AS s FROM dfs.w.`c.parquet` p JOIN dfs.w.`b.csvh` b "
    "ON p.k = b.k WHERE p.n < 40 GROUP BY p.k ORDER BY p.k",
    "SELECT * FROM dfs.w.`c.parquet` LIMIT 1",
)
ROWS = 50
# `drillspark serve`'s rounds of STATEMENTS while no client came (`--warm-up-rounds`)
SERVER_ROUNDS = 40


def applies(spark: Any) -> bool:
    """Whether `spark` is a classic session on a local master (see the module's note)."""
    try:
        master = str(spark.sparkContext.master)
    except Exception:  # Spark Connect has no SparkContext here
        return False
    return local_master(master)


def local_master(master: str) -> bool:
    """`local` or `local[...]`: one JVM runs the tasks (not `local-cluster[...]`)."""
    return re.fullmatch(r"local(\[[^\]]*\])?", master) is not None


def join_group(spark: Any) -> None:
    """This thread's Spark jobs from now on are the warm-up's (JOB_GROUP; `stop` cancels it)."""
    spark.sparkContext.setJobGroup(JOB_GROUP, "drillspark warm-up", interruptOnCancel=True)


def write_files(folder: Path) -> None:
    """The statements' tables: ROWS records each of JSON, CSV with a header and Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    keys = [f"k{i % 5}" for i in range(ROWS)]
    with open(folder / "a.json", "w", encoding="utf-8") as f:
        for i, k in enumerate(keys):
            record = {"k": k, "v": i * 1.5, "n": i, "m": {"x": i % 3, "y": "a"}}
            record["l"] = [{"a": i, "b": "x"}, {"a": i + 1, "b": "y"}]
            f.write(json.dumps(record) + "\n")
    with open(folder / "b.csvh", "w", encoding="utf-8") as f:
        f.write("k,v\n" + "".join(f"{k},{i}\n" for i, k in enumerate(keys)))
    table = {"k": keys, "v": [float(i) for i in range(ROWS)], "n": list(range(ROWS))}
    pq.write_table(pa.table(table), folder / "c.parquet")


def run(
    spark: Any,
    busy: Callable[[], bool],
    stopped: threading.Event,
    one_pass: bool,
    rounds: int = 1,
    between: Callable[[], None] | None = None,
) -> int:
    """Runs STATEMENTS `rounds` times on `spark` until all ran, one fails, `busy()` or
    `stopped`; how many ran. `between` runs once after the first round (if it ran whole).
    `one_pass`: read as the shell and the Python API read (from samples where they can), else as
    the server does (full discovery, then its DataFrame's rows). Never raises: a warm-up that
    cannot run is only a slower first statement."""
    from drillspark.spark import single_pass
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    done = 0
    folder: Path | None = None

    def quiet() -> bool:  # no statement came
        return not (busy() or stopped.is_set())

    try:
        folder = Path(tempfile.mkdtemp(prefix="drillspark-warm-up-"))  # mode 0700
        write_files(folder)
        join_group(spark)
        engine = SqlEngine(spark, SqlSession(workspaces={"w": str(folder)}), reuse_plans=False)
        with contextlib.nullcontext() if one_pass else single_pass.disabled():
            for round_ in range(rounds):
                for i, text in enumerate(STATEMENTS):
                    if not quiet():
                        return done
                    result = engine.execute_statement(text)
                    if i == len(STATEMENTS) - 1:
                        result.to_arrow()
                    elif one_pass:
                        result.collect()
                    else:
                        result.df.collect()  # the server's small answers
                    done += 1
                if round_ == 0 and between is not None and quiet():
                    between()
    except Exception as e:  # noqa: BLE001 - no temporary folder, a stopped session: only slower
        if not stopped.is_set():
            log.debug("warm-up stopped after %d statements: %s", done, e)
    finally:
        for key in ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"):
            with contextlib.suppress(Exception):  # a stopped JVM: nothing to undo
                spark.sparkContext.setLocalProperty(key, None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return done


class WarmUp:
    """STATEMENTS in a daemon thread (`start`); `stop` ends it before its session stops."""

    def __init__(
        self,
        spark: Callable[[], Any],
        busy: Callable[[], bool],
        one_pass: bool = True,
        then: Callable[[Any], None] | None = None,
        rounds: int = 1,
    ):
        self._spark = spark  # called in the thread: the shell starts Spark there
        self._busy = busy
        self._one_pass = one_pass
        # the caller's own first-use costs, after the first round, in its job group (the
        # server: its stream of rows, whose Python workers start on first use)
        self._then = then
        self._rounds = rounds
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.ran: int | None = None  # statements run, once the thread ended

    def start(self) -> WarmUp:
        self._thread = threading.Thread(target=self._run, name=JOB_GROUP, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            spark = self._spark()
        except Exception:  # noqa: BLE001 - the statement that needs Spark says why
            self.ran = 0
            return
        if not applies(spark):
            self.ran = 0
            return
        start = time.monotonic()
        then = self._then
        # a failure of `then` ends the warm-up, as a statement's does: only slower
        between = None if then is None else lambda: then(spark)
        ran = run(spark, self._busy, self._stopped, self._one_pass, self._rounds, between)
        log.debug("warm-up: %d statements in %.1f s", ran, time.monotonic() - start)
        self.ran = ran

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self, spark: Any | None, timeout: float = 10.0) -> None:
        """No more statements; the one running on `spark` is cancelled and waited for (None:
        Spark has not started, so no statement runs)."""
        self._stopped.set()
        if spark is None or self._thread is None or not self._thread.is_alive():
            return
        from drillspark.spark import cancel_jobs

        with contextlib.suppress(Exception):
            cancel_jobs.group(spark, JOB_GROUP, "a statement came")
        self._thread.join(timeout)
