"""The warm-up of a new driver JVM (sql/warm_up.py): its statements all run, in their own job
group, over files it removes after; it runs nothing once a real statement came, and `stop`
ends it."""

from __future__ import annotations

import io
import tempfile
import threading
from pathlib import Path

from tests.scan.test_scan_job_counts import group_jobs

from drillspark.sql import warm_up


def _left_over() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("drillspark-warm-up-*")}


def _jobs(spark) -> set[int]:
    return set(group_jobs(spark, warm_up.JOB_GROUP))


def test_every_statement_runs_in_its_job_group_and_its_files_go(spark):
    sc = spark.sparkContext
    before_jobs = _jobs(spark)
    before_files = _left_over()
    for one_pass in (True, False):  # as the shell reads, as the server reads
        # a statement that failed would end the warm-up early: all of them ran
        assert warm_up.run(spark, lambda: False, threading.Event(), one_pass) == len(
            warm_up.STATEMENTS
        )
    jobs = _jobs(spark) - before_jobs
    assert len(jobs) >= len(warm_up.STATEMENTS)  # Spark jobs, each in the warm-up's group
    assert _left_over() == before_files
    # the calling thread's job group is not left set for its next statements
    assert sc.getLocalProperty("spark.jobGroup.id") is None


def test_rounds_repeat_the_statements_until_a_statement_comes(spark):
    """The server's rounds (SERVER_ROUNDS), `between` once after the first of them; a statement
    that comes ends them before the next round starts."""
    n = len(warm_up.STATEMENTS)
    stopped = threading.Event()
    between: list[int] = []
    assert warm_up.run(spark, lambda: False, stopped, False, 2, lambda: between.append(1)) == 2 * n
    assert between == [1]
    came: list[int] = []  # a statement comes while `between` runs
    assert warm_up.run(spark, lambda: bool(came), stopped, False, 3, lambda: came.append(1)) == n
    assert came == [1]
    assert warm_up.run(spark, lambda: False, stopped, False, 0) == 0


def test_nothing_runs_once_a_statement_came(spark):
    before = _jobs(spark)
    assert warm_up.run(spark, lambda: True, threading.Event(), True) == 0
    assert _jobs(spark) == before


def test_stop_ends_the_thread_before_its_statements_end(spark):
    warm = warm_up.WarmUp(lambda: spark, busy=lambda: False).start()
    warm.stop(spark)
    warm.join(30)
    assert warm.ran is not None and warm.ran < len(warm_up.STATEMENTS)


def test_only_a_local_master_is_warmed(spark):
    assert warm_up.applies(spark)  # the tests' local[2]
    assert warm_up.local_master("local") and warm_up.local_master("local[*]")
    # executors in other JVMs, or another machine's: the driver's files are not theirs
    for master in ("local-cluster[2,1,1024]", "spark://host:7077", "yarn", "k8s://x"):
        assert not warm_up.local_master(master)


def test_the_shell_warms_up_until_its_first_statement(spark):
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.shell import Shell

    idle = Shell(SqlEngine(spark), stdout=io.StringIO())
    idle.warm_up()  # as the prompt shows
    assert idle.warming is not None
    idle.warming.join(300)
    assert idle.warming.ran == len(warm_up.STATEMENTS)

    typed = Shell(SqlEngine(spark), stdout=io.StringIO())
    assert "| 42 |" in typed.execute("SELECT 42 AS a FROM (VALUES (1)) t(b)")
    typed.warm_up()  # a statement came first: nothing of the warm-up's runs
    assert typed.warming is not None
    typed.warming.join(300)
    assert typed.warming.ran == 0
