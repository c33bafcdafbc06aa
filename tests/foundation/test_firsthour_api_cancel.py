"""Ctrl-C in the Python API (a notebook's "interrupt kernel" sends the same SIGINT) while a
result's rows are computed: the query's Spark jobs are cancelled (none left running, no task
busy), `drillspark.QueryInterrupted` (a KeyboardInterrupt) says "Query cancelled." and shows
as that one line in IPython, no Py4J traceback is logged, and the next query runs. Before,
PySpark's own handler called into the JVM from inside the interrupted call: ~45 lines of
"reentrant call" tracebacks, and the job kept running. A real process and a real signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

SCRIPT = r"""
import json, sys, time
import drillspark

with open("n.json", "w") as f:
    for i in range(20000):
        f.write(json.dumps({"i": i, "s": "x" * 40 + str(i)}) + "\n")
# hours of work: 20,000 rows joined with themselves through a regex
SLOW = ("select count(*) as c from dfs.`n.json` a, dfs.`n.json` b "
        "where regexp_replace(a.s, 'x+', 'y') < regexp_replace(b.s, 'x+', 'z')")
spark = drillspark.session("local[2]")
result = drillspark.sql(SLOW)

def report(info):
    if info.tasks_total:
        print("TASKS", flush=True)  # the parent's cue: the query's jobs are running

result.progress = report
try:
    result.show()
    print("NOT INTERRUPTED", file=sys.stderr)
except Exception as e:
    print("AN EXCEPTION, NOT AN INTERRUPT:", repr(e), file=sys.stderr)
except KeyboardInterrupt as e:
    print("CAUGHT", type(e).__name__, isinstance(e, drillspark.QueryInterrupted),
          str(e), e._render_traceback_(), file=sys.stderr, flush=True)
tracker = spark.sparkContext.statusTracker()
deadline = time.monotonic() + 120  # Spark's listener reports the cancelled job's end a moment later
while time.monotonic() < deadline and (
    tracker.getActiveJobsIds() or any(e.numRunningTasks for e in tracker.getExecutorInfos())
):
    time.sleep(0.2)
print("ACTIVE JOBS", tracker.getActiveJobsIds(),
      "RUNNING TASKS", sum(e.numRunningTasks for e in tracker.getExecutorInfos()), file=sys.stderr)
print("NEXT", drillspark.sql("select 1+1 as two from (values(1))").rows(), file=sys.stderr)
"""


def _interrupted(script: str, cue: str, tmp_path: Path, pause: float = 0) -> tuple[int, str]:
    """Runs `script` in a new Python, sends it SIGINT `pause` s after it prints a line starting
    with `cue`; its return code and stderr."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(cue):
                break
        time.sleep(pause)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


def test_ctrl_c_cancels_the_querys_jobs_with_one_line(tmp_path: Path):
    # SIGINT well inside the query's hours of work
    returncode, err = _interrupted(SCRIPT, "TASKS", tmp_path, pause=1)
    assert returncode == 0, err[-3000:]
    assert "CAUGHT QueryInterrupted True Query cancelled. ['Query cancelled.']" in err, err[-3000:]
    assert "ACTIVE JOBS [] RUNNING TASKS 0" in err, err[-3000:]
    assert "NEXT [{'two': 2}]" in err
    for noise in ("Traceback", "Py4J", "ERROR", "reentrant"):
        assert noise not in err, err[-3000:]


GAP_SCRIPT = r"""
import sys, time
import drillspark
from drillspark.result import QueryInterrupted, _interruptible

spark = drillspark.session("local[2]")

def work():
    spark.range(3).collect()  # a first job, done
    print("GAP", flush=True)  # the parent's cue: Ctrl-C while no job runs
    time.sleep(3)
    # the action's next job, started after the cancel: hours of work
    return spark.range(0, 10**13, 1, 2).selectExpr("sum(id % 7) as s").collect()

started = time.monotonic()
try:
    _interruptible(spark, work)
    print("NOT INTERRUPTED", file=sys.stderr)
except QueryInterrupted:
    print("CAUGHT after %.0f s" % (time.monotonic() - started), file=sys.stderr, flush=True)
tracker = spark.sparkContext.statusTracker()
deadline = time.monotonic() + 20
while time.monotonic() < deadline and tracker.getActiveJobsIds():
    time.sleep(0.2)
print("ACTIVE JOBS", tracker.getActiveJobsIds(), file=sys.stderr)
print("JOBS", [(j, tracker.getJobInfo(j).status) for j in tracker.getJobIdsForGroup(None)],
      file=sys.stderr)
"""


def test_ctrl_c_between_two_jobs_cancels_the_job_started_after_it(tmp_path: Path):
    # a cancel reaches only the jobs running when it is sent: the action's next job, started
    # a moment later, is cancelled too (before, it ran on after "Query cancelled.")
    returncode, err = _interrupted(GAP_SCRIPT, "GAP", tmp_path)
    assert returncode == 0, err[-3000:]
    caught = [line for line in err.splitlines() if line.startswith("CAUGHT after")]
    assert caught, err[-3000:]
    assert int(caught[0].split()[2]) < 30, err[-3000:]  # not the 30 s give-up
    assert "ACTIVE JOBS []" in err, err[-3000:]
