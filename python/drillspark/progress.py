"""Progress of a running statement: the phase, the elapsed time and the Spark stages and tasks of
the jobs running now, read from Spark's public `SparkContext.statusTracker()`. The one owner of
that polling: `drillspark.sql(..., progress=...)` / `drillspark.run(..., progress=...)` callbacks,
the notebook's text line, and the progress line of `drillspark sql` and the shell use it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

STARTING = "starting Spark"
RUNNING = "running"
DONE = "done"


@dataclass(frozen=True)
class ProgressInfo:
    """One report: `phase` is "starting Spark", "running" or "done"; stages and tasks count
    those of the Spark jobs running at the time (0/0 between jobs)."""

    phase: str
    elapsed: float
    stages_done: int = 0
    stages_total: int = 0
    tasks_done: int = 0
    tasks_total: int = 0

    def line(self, width: int = 20) -> str:
        """The report as one line, e.g. `Running [#####.....] 4/8 tasks, stage 1/2  2.5s`."""
        if self.phase == STARTING:
            return f"Starting Spark... {self.elapsed:5.1f}s"
        what = "Done" if self.phase == DONE else "Running"
        if not self.tasks_total:
            return f"{what} [{'.' * width}] {self.elapsed:5.1f}s"
        filled = int(width * self.tasks_done / self.tasks_total)
        return (
            f"{what} [{'#' * filled}{'.' * (width - filled)}] {self.tasks_done}/"
            f"{self.tasks_total} tasks, stage {self.stages_done}/{self.stages_total} "
            f"{self.elapsed:5.1f}s"
        )


ProgressCallback = Callable[[ProgressInfo], Any]


def spark_status(spark: SparkSession) -> tuple[int, int, int, int]:
    """(stages done, stages, tasks done, tasks) of the jobs running now; zeros on Spark Connect,
    which has no status tracker."""
    stages_done = stages_total = tasks_done = tasks_total = 0
    try:
        tracker = spark.sparkContext.statusTracker()
        for job_id in tracker.getActiveJobsIds():
            job = tracker.getJobInfo(job_id)
            if job is None:  # finished since it was listed
                continue
            for stage_id in job.stageIds:
                stages_total += 1
                stage = tracker.getStageInfo(stage_id)
                if stage is None:  # skipped (its output was reused) or not known yet
                    continue
                tasks_done += stage.numCompletedTasks
                tasks_total += stage.numTasks
                if stage.numTasks and stage.numCompletedTasks >= stage.numTasks:
                    stages_done += 1
    except Exception:  # noqa: BLE001 - progress is informative; Spark forgets old jobs
        return 0, 0, 0, 0
    return stages_done, stages_total, tasks_done, tasks_total


class ProgressWatch:
    """While the `with` block runs, calls `callback` with a ProgressInfo every `interval`
    seconds after a first `delay`, from a thread of its own; then once more with phase "done"
    (when it reported at all). `spark()` gives the session, or None while it is still starting
    (the watch never starts Spark itself). A callback that raises is not called again, and its
    error is raised when the block ends (unless the block itself failed)."""

    def __init__(
        self,
        callback: ProgressCallback,
        spark: Callable[[], SparkSession | None],
        interval: float = 0.5,
        delay: float = 0.0,
    ):
        self.callback = callback
        self.spark = spark
        self.interval = interval
        self.delay = delay
        self.reported = False
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="drillspark-progress", daemon=True)
        self._start = 0.0

    def __enter__(self) -> ProgressWatch:
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._stop.set()
        self._thread.join()
        if self.reported and self._error is None:
            self._report(DONE)
        if self._error is not None and exc_type is None:
            raise self._error

    def info(self, phase: str | None = None) -> ProgressInfo:
        elapsed = time.monotonic() - self._start
        spark = self.spark()
        if spark is None:
            return ProgressInfo(phase or STARTING, elapsed)
        return ProgressInfo(phase or RUNNING, elapsed, *spark_status(spark))

    def _report(self, phase: str | None = None) -> None:
        try:
            self.callback(self.info(phase))
            self.reported = True
        except BaseException as e:  # noqa: BLE001 - handed to the caller when the block ends
            self._error = e

    def _loop(self) -> None:
        if self._stop.wait(self.delay):
            return
        while self._error is None:
            self._report()
            if self._stop.wait(self.interval):
                return


class TextProgress:
    """A callback that keeps one line up to date on `stream` (stderr by default) once a
    statement runs longer than `after` seconds: `\\r` and spaces rather than terminal escapes,
    so it works in a terminal and in a notebook's output alike; the line is blanked when the
    statement is done."""

    def __init__(self, stream: TextIO | None = None, after: float = 1.0):
        self.stream = stream
        self.after = after
        self._width = 0

    def __call__(self, info: ProgressInfo) -> None:
        stream = self.stream or sys.stderr
        if info.phase == DONE:
            if self._width:
                stream.write("\r" + " " * self._width + "\r")
                stream.flush()
                self._width = 0
            return
        if info.elapsed < self.after:
            return  # a quick statement: no line flashing by
        text = info.line()
        stream.write("\r" + text.ljust(self._width))
        stream.flush()
        self._width = max(self._width, len(text))


def in_notebook() -> bool:
    """True inside IPython (a Jupyter kernel or the IPython shell)."""
    ipython = sys.modules.get("IPython")
    try:
        return ipython is not None and ipython.get_ipython() is not None
    except Exception:  # noqa: BLE001 - an IPython without get_ipython
        return False


def resolve(progress: ProgressCallback | bool | None) -> ProgressCallback | None:
    """The callback for a `progress=` argument: a callable as given; True, or None inside
    IPython, a TextProgress line on stderr; False (or None elsewhere) nothing."""
    if progress is None:
        return TextProgress() if in_notebook() else None
    if progress is True:
        return TextProgress()
    if progress is False:
        return None
    if not callable(progress):
        raise TypeError(f"progress must be a callable, True, False or None, not {progress!r}")
    return progress
