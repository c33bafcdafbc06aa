"""The results of drillspark.run() and drillspark.sql(): `Result`, the methods every result
shares (PySpark-like: show, collect, to_pandas, to_arrow, a notebook table); `DrillResult`, a
query's rows as a Spark DataFrame, including Drill's batch protocol (docs/operators.md) over Arrow
record batches; `StatementResult`, the rows of a statement answered without a Spark job
(USE, SHOW, DESCRIBE, EXPLAIN, ALTER SESSION, CREATE / DROP)."""

from __future__ import annotations

import abc
import contextlib
import io
import re
import signal
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from drillspark import display
from drillspark.errors import ExecutionError
from drillspark.operators.outcome import IterOutcome

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from pyspark.sql import DataFrame, Row, SparkSession

    from drillspark.progress import ProgressCallback
    from drillspark.spark.failures import Located
    from drillspark.spark.single_pass import Reads
    from drillspark.spark.storage import WriteReport

T = TypeVar("T")
# a result read from samples: its reads, its full-discovery rebuild, its confirmation (or None)
OnePass = tuple["Reads", "Callable[[], DataFrame]", "Callable[[], None] | None"]
DEFAULT_BATCH_ROWS = 4096  # Drill's default rows per batch
_ERROR_CLASS = re.compile(r"(\[[A-Z][A-Z0-9_.]+\] [^\n]*)")


class DrillRuntimeError(ExecutionError, RuntimeError):
    """Computing the result's rows failed; the message is Spark's error class and message in
    one paragraph, the original exception is the `__cause__`."""

    # a file of a remote table was deleted after planning: reading again (a new listing)
    # would answer without it, so the failure stands
    vanished: bool = False


def runtime_message(error: BaseException) -> str:
    """One paragraph for a failure while rows were computed (Spark wraps those in socket or
    py4j errors whose text is a JVM stack trace), without the operator tags of row errors
    (drillspark.spark.row_errors)."""
    from drillspark.errors import untag

    return untag(_runtime_text(error))


def _runtime_text(error: BaseException) -> str:
    from drillspark.errors import describe

    if isinstance(error, DrillRuntimeError) or _names_operator(error):
        return str(error)
    text = describe(error)
    if text.startswith(("invalid logical plan", "[")):
        return text
    found = _ERROR_CLASS.findall(str(error))
    if found:
        return "running the plan failed: " + found[-1].split(" SQLSTATE")[0].strip()
    return text


def _vanished(text: str, plan: Any) -> str | None:
    """`text` as the file system names a file of a scanned remote table deleted after the
    plan was built (spark/storage/filesystems.vanished), else None."""
    ops = getattr(plan, "operators", None)
    if not ops or "://" not in text:
        return None
    from drillspark.spark.storage import filesystems

    storage = getattr(plan, "storage", None) or {}
    tables = []
    for op in ops:
        if getattr(op, "OP", None) != "scan":
            continue
        cfg: Any = storage.get(op.storage_engine)
        config = cfg.to_json() if hasattr(cfg, "to_json") else cfg
        found = filesystems.scanned_table(op.storage_engine, op.selection, config)
        if found is not None:
            tables.append(found)
    return filesystems.vanished(text, tables) if tables else None


def _names_operator(error: BaseException) -> bool:
    """Whether `error`'s message already names the plan operator that failed."""
    return (
        isinstance(error, ExecutionError) and error.detail is not None and error.op_id is not None
    )


def _plain_failure(error: BaseException) -> DrillRuntimeError:
    return DrillRuntimeError(runtime_message(error))


@contextlib.contextmanager
def _fetching(
    failure: Callable[[BaseException], DrillRuntimeError] = _plain_failure,
) -> Iterator[None]:
    try:
        yield
    except DrillRuntimeError:
        raise
    except Exception as e:
        from pyspark.errors import PySparkException

        if isinstance(e, PySparkException) or "py4j" in type(e).__module__:
            raise failure(e) from e
        raise


def _to_pandas(df: DataFrame) -> pd.DataFrame:
    """pyspark's toPandas, without the warning it gives with the JVM's whole stack trace when a
    job fails under Arrow before it raises that same failure (which to_pandas then reports as one
    paragraph). A local filter: a global one added at import would be a caller's to undo."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message=r"toPandas attempted Arrow optimization because .* has reached the error below",
            category=UserWarning,
        )
        return df.toPandas()


class QueryInterrupted(KeyboardInterrupt):
    """Ctrl-C (or a notebook's interrupt) while a result's rows were computed: the query's
    Spark jobs were cancelled. A KeyboardInterrupt, so `except Exception` does not swallow
    it; IPython and Jupyter show it as its one line."""

    def __init__(self) -> None:
        super().__init__("Query cancelled.")

    def _render_traceback_(self) -> list[str]:  # IPython's hook for an exception's display
        return ["Query cancelled."]


def _interruptible(spark: SparkSession, work: Callable[[], T]) -> T:
    """`work()` (a result's Spark action), such that Ctrl-C on the main thread (a notebook's
    interrupt too) cancels its Spark jobs and raises QueryInterrupted once they have stopped.

    The work runs in a worker thread (pyspark's InheritableThread: it keeps the caller's job
    group, tags and local properties) whose jobs carry a SparkContext job tag of their own,
    while the main thread waits where a signal reaches it at once: a main thread blocked in a
    JVM call sees Ctrl-C only when the call returns, and PySpark's own handler, calling into
    the JVM from inside that call, fails ("reentrant call"), logs dozens of lines of Py4J
    traceback and leaves the jobs running. `SparkContext.cancelJobsWithTag` works from any
    thread; `SparkSession.interruptTag` of classic Spark finds only tags its calling thread
    added. Off the main thread (the CLI and the server run statements in worker threads and
    cancel them themselves) and on Spark Connect, `work()` runs as is."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    try:
        context = spark.sparkContext
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext
        return work()
    from pyspark import InheritableThread

    tag = f"drillspark-{uuid.uuid4().hex[:12]}"
    box: dict[str, Any] = {}
    # waited on instead of Thread.join: a join interrupted by Ctrl-C leaves is_alive() False
    # (CPython 3.11) while the thread still runs
    done = threading.Event()

    def target() -> None:
        try:
            context.addJobTag(tag)
            # a cancelled task's thread is interrupted, not left computing
            context.setLocalProperty("spark.job.interruptOnCancel", "true")
            box["value"] = work()
        except BaseException as e:  # handed to the waiting thread
            box["error"] = e
        finally:
            with contextlib.suppress(Exception):  # the session may be gone
                context.removeJobTag(tag)
            done.set()

    def cancel() -> None:
        # again until the action has stopped: a cancel cancels only the jobs running then,
        # and an action may start its next job a moment later (a busy machine's gap between
        # a query's jobs), which would run on unseen
        from drillspark.spark import cancel_jobs

        while not done.is_set():
            with contextlib.suppress(Exception):  # nothing left to cancel, or no session
                cancel_jobs.tag(spark, tag, "interrupted (Ctrl-C)")
            done.wait(0.5)

    worker = InheritableThread(target, session=spark)
    worker.name = tag
    worker.daemon = True
    # Python's plain Ctrl-C while waiting: PySpark's handler would cancel every job
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        worker.start()
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        threading.Thread(target=cancel, name=f"{tag}-cancel", daemon=True).start()
        done.wait(30)  # the action fails as soon as its jobs are cancelled
        raise QueryInterrupted() from None
    finally:
        signal.signal(signal.SIGINT, previous)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _plain(value: Any) -> Any:
    """Spark Rows to dicts/lists, recursively."""
    from pyspark.sql import Row

    if isinstance(value, Row):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class BatchStream:
    """Drill's `next()` protocol over Arrow batches: the first call gives `OK_NEW_SCHEMA` (with
    the first batch, or an empty batch carrying the schema for an empty result), then `OK` per
    further batch, then `NONE` for every later call. A failure gives `STOP`, with the error in
    `.error`. Iterating yields `(outcome, batch)` pairs up to and including NONE or STOP."""

    def __init__(
        self,
        df: DataFrame,
        batch_rows: int = DEFAULT_BATCH_ROWS,
        failure: Callable[[BaseException], DrillRuntimeError] = _plain_failure,
    ):
        self._df = df
        self._failure = failure
        self._batch_rows = max(1, int(batch_rows))
        self._rows: Iterator[Any] | None = None
        self._started = False
        self._done = False
        self.schema: pa.Schema | None = None
        self.error: BaseException | None = None

    def _next_batch(self) -> pa.RecordBatch | None:
        import pyarrow as pa

        assert self._rows is not None
        chunk = []
        for row in self._rows:
            chunk.append(_plain(row))
            if len(chunk) >= self._batch_rows:
                break
        if not chunk:
            return None
        return pa.RecordBatch.from_pylist(chunk, schema=self.schema)

    def next(self) -> tuple[IterOutcome, pa.RecordBatch | None]:
        if self.error is not None:
            return IterOutcome.STOP, None
        if self._done:
            return IterOutcome.NONE, None
        try:
            if not self._started:
                from pyspark.sql.pandas.types import to_arrow_schema

                self.schema = to_arrow_schema(self._df.schema)
                self._rows = self._df.toLocalIterator()
                self._started = True
                batch = self._next_batch()
                if batch is None:  # empty result: the schema still comes first
                    import pyarrow as pa

                    batch = pa.RecordBatch.from_pylist([], schema=self.schema)
                    self._done = True
                return IterOutcome.OK_NEW_SCHEMA, batch
            batch = self._next_batch()
        except Exception as e:  # the protocol reports failures as STOP, the error attached
            err = self._failure(e)
            err.__cause__ = e
            self.error = err
            return IterOutcome.STOP, None
        if batch is None:
            self._done = True
            return IterOutcome.NONE, None
        return IterOutcome.OK, batch

    def __iter__(self) -> Iterator[tuple[IterOutcome, pa.RecordBatch | None]]:
        while True:
            outcome, batch = self.next()
            yield outcome, batch
            if outcome in (IterOutcome.NONE, IterOutcome.STOP):
                return


HTML_ROWS = 20  # rows a notebook shows of a result (it says when there are more)


class Result(abc.ABC):
    """What every result of drillspark.sql() and drillspark.run() offers, query results and
    statement results alike."""

    @property
    @abc.abstractmethod
    def columns(self) -> list[str]:
        """The column names, in order."""

    @abc.abstractmethod
    def rows(self) -> list[dict[str, Any]]:
        """All records as plain dicts (nested maps as dicts, arrays as lists)."""

    @abc.abstractmethod
    def collect(self) -> list[Row]:
        """All records as PySpark Rows (`row.name`, `row["name"]`, `row.asDict()`)."""

    @abc.abstractmethod
    def to_arrow(self) -> pa.Table:
        """All records as a pyarrow Table."""

    @abc.abstractmethod
    def _head(self, n: int) -> list[list[Any]]:
        """The first `n` records as lists of plain values."""

    def to_pandas(self) -> pd.DataFrame:
        """All records as a pandas DataFrame."""
        return self.to_arrow().to_pandas()

    def show(self, n: int = 20, truncate: bool | int = True) -> None:
        """Print the first `n` rows as a table; `truncate` cuts cells at 20 characters (True),
        at that many (an int), or not at all (False)."""
        print(self.show_text(n, truncate))

    def show_text(self, n: int = 20, truncate: bool | int = True) -> str:
        """What show() prints."""
        head = self._head(n + 1)
        width = 20 if truncate is True else int(truncate) if truncate else 1 << 30
        footer = f"only showing the first {n} rows" if len(head) > n else None
        return display.table(self.columns, head[:n], max(width, 4), footer)

    def _repr_html_(self) -> str:
        """The notebook's view: an HTML table of the first rows (HTML_ROWS), saying when the
        result has more."""
        head = self._head(HTML_ROWS + 1)
        note = f"only showing the first {HTML_ROWS} rows" if len(head) > HTML_ROWS else None
        return display.html_table(self.columns, head[:HTML_ROWS], note)


class DrillResult(Result):
    """The result of running a plan. `.df` is the Spark DataFrame of the result stream (for
    a plan whose sinks only write files: one row per written target). `.written` lists the
    `WriteReport`s of file stores (path, format, rows, files).

    A failure while rows are computed is a `DrillRuntimeError` whose message names the plan
    operator that failed (for row-level data errors such as a bad cast, see
    `drillspark.spark.failures`), else the plan file or SQL `statement`."""

    def __init__(
        self,
        df: DataFrame,
        plan: Any = None,
        written: Sequence[WriteReport] = (),
        plan_text: str | None = None,
        locate: Callable[[BaseException], Located | None] | None = None,
        plan_name: str | None = None,
        statement: str | None = None,
        one_pass: OnePass | None = None,
    ):
        self._df = df
        # while `_df` reads JSON tables from a sample (spark/single_pass.py): the
        # reads, how to build the DataFrame again with full discovery, and what to call once
        # a whole fetch confirmed the sample (it keeps the translation: spark/plan_reuse.py)
        self._one_pass = one_pass
        self.plan = plan
        self.written = list(written)
        self._plan_text = plan_text
        self._locate = locate
        self.plan_name = plan_name
        self.statement = statement  # the SQL text, for results of drillspark.sql

    # reports the progress of fetching the rows (drillspark.progress); set by run() / sql()
    progress: ProgressCallback | None = None

    def failure_message(self, error: BaseException) -> str:
        """One paragraph for `error`, raised while this result's rows were computed: the
        failing operator `@id` where it can be found, and the query or plan it belongs to."""
        return str(self.failure(error))

    def failure(self, error: BaseException) -> DrillRuntimeError:
        """The DrillRuntimeError for `error` (message as `failure_message`), with `op_id` and
        `op` of the operator it was traced to."""
        text = runtime_message(error)
        if isinstance(error, ExecutionError) and _names_operator(error):
            return DrillRuntimeError(text).locate(op_id=error.op_id, op=error.op)
        text = text.removeprefix("running the plan failed: ")
        where = None
        if self._locate is not None:
            try:
                where = self._locate(error)
            except Exception:  # locating is best effort; never hide the real error
                where = None
        if self.statement:
            origin = "query " + " ".join(self.statement.split())
        else:
            origin = f"plan {self.plan_name}" if self.plan_name else "the plan"
        gone = _vanished(text, self.plan)
        if gone is not None:  # a remote file deleted after planning: named as the user did
            lost = DrillRuntimeError(f"{gone} (in {origin})")
            lost.vanished = True
            return lost
        if where:
            return DrillRuntimeError(f"{where}: {text} (in {origin})").locate(
                op_id=where.op_id, op=where.op
            )
        return DrillRuntimeError(f"running {origin} failed: {text}")

    @property
    def df(self) -> DataFrame:
        """The result's Spark DataFrame. One that reads from a sample is first built again
        with full discovery: whoever takes the DataFrame may read it any way, and only the
        result's own whole fetches (collect, rows, to_arrow, to_pandas) can read again."""
        if self._one_pass is not None:
            self._df = self._one_pass[1]()
            self._one_pass = None
        return self._df

    @df.setter
    def df(self, value: DataFrame) -> None:
        self._df = value
        self._one_pass = None

    @property
    def one_pass(self) -> bool:
        """Whether the next whole fetch reads the JSON tables from their samples, checking
        every value (docs/scan.md, "One pass"); False once a fetch confirmed the sample, or
        the DataFrame was built with full discovery."""
        return self._one_pass is not None

    def map_df(self, fn: Callable[[DataFrame], DataFrame]) -> None:
        """Replace the DataFrame by `fn(df)`, also when it is built again."""
        self._df = fn(self._df)
        if self._one_pass is not None:
            reads, rebuild, confirmed = self._one_pass
            self._one_pass = (reads, lambda: fn(rebuild()), confirmed)

    def _fetch_all(self, action: Callable[[DataFrame], T]) -> T:
        """`action(df)`, which reads the whole result (see `_fetch`). A read from a sample
        that fails is read again with full discovery: after a misfit (what the sample had
        not seen; the session then remembers the tables), and after any other error too,
        which the sample's types may have caused before the misfit was reached (an integer
        division by zero where the full read has a DOUBLE), so that the error reported is
        the full read's. A read that succeeds confirms the sample."""
        if self._one_pass is None:
            return self._fetch(lambda: action(self._df))
        from drillspark.spark import single_pass

        reads, _, confirmed = self._one_pass
        try:
            out = self._fetch(lambda: action(self._df))
        except DrillRuntimeError as e:
            if e.vanished:  # not read again: a new listing would leave its rows out unsaid
                raise
            if single_pass.is_misfit(e):
                single_pass.remember(self._df.sparkSession, reads)
            with self.fetching():
                df = self.df  # full discovery fails as a fetch does
            return self._fetch(lambda: action(df))
        self._one_pass = None
        if confirmed is not None:
            confirmed()
        return out

    def fetching(self) -> contextlib.AbstractContextManager[None]:
        """A context in which Spark failures while fetching rows become DrillRuntimeErrors
        with `failure_message` (for callers that read `.df` directly)."""
        return _fetching(self.failure)

    def _fetch(self, action: Callable[[], T]) -> T:
        """`action()` (computes the rows) within fetching(), with the progress reported while
        Spark computes, and Ctrl-C cancelling its jobs (QueryInterrupted)."""
        return _interruptible(self._df.sparkSession, lambda: self._reporting(action))

    def _reporting(self, action: Callable[[], T]) -> T:
        with self.fetching():
            if self.progress is None:
                return action()
            from drillspark.progress import ProgressWatch

            with ProgressWatch(self.progress, lambda: self._df.sparkSession):
                return action()

    @property
    def columns(self) -> list[str]:
        return list(self.df.columns)

    def rows(self) -> list[dict[str, Any]]:
        """All result records as plain dicts (nested maps as dicts, arrays as lists)."""
        return [_plain(r) for r in self._fetch_all(lambda df: df.collect())]

    def collect(self) -> list[Row]:
        return self._fetch_all(lambda df: df.collect())

    def _head(self, n: int) -> list[list[Any]]:
        rows = self._fetch(self.df.limit(n).collect)
        return [[display.plain(v) for v in r] for r in rows]

    def to_arrow(self) -> pa.Table:
        from drillspark.spark import arrow_collect

        return self._fetch_all(arrow_collect.table)

    def to_pandas(self) -> pd.DataFrame:
        return self._fetch_all(_to_pandas)

    def explain(self, print_it: bool = True) -> str:
        """The Drill plan followed by Spark's physical plan (returned, and printed unless
        `print_it` is false)."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.df.explain(mode="formatted")
        text = ""
        if self._plan_text:
            text += "== Drill logical plan ==\n" + self._plan_text.rstrip() + "\n\n"
        text += "== Spark plan ==\n" + buf.getvalue()
        if print_it:
            print(text)
        return text

    def batches(self, batch_rows: int = DEFAULT_BATCH_ROWS) -> BatchStream:
        return BatchStream(self.df, batch_rows, self.failure)

    def __repr__(self) -> str:
        return f"DrillResult(columns={self.df.columns!r}, written={len(self.written)})"


class StatementResult(Result):
    """The answer of a statement that needs no Spark job (USE, ALTER SESSION, SHOW, DESCRIBE,
    EXPLAIN, CREATE / DROP): its rows, held in memory. `text`, when set, is what show() prints
    instead of a table (EXPLAIN's plan JSON)."""

    def __init__(
        self,
        columns: Sequence[str],
        data: Sequence[Sequence[Any]] | None = None,
        text: str | None = None,
    ):
        self._columns = list(columns)
        self.data: list[list[Any]] = [list(r) for r in data or []]
        self.text = text

    @property
    def columns(self) -> list[str]:
        return list(self._columns)

    @property
    def df(self) -> DataFrame:
        """The rows as a Spark DataFrame, on the active session (else drillspark.session()),
        for code that treats every result as a DataFrame."""
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
        if spark is None:
            from drillspark.session import session

            spark = session()
        return spark.createDataFrame(self.to_arrow())

    def rows(self) -> list[dict[str, Any]]:
        return [dict(zip(self._columns, r, strict=True)) for r in self.data]

    def collect(self) -> list[Row]:
        from pyspark.sql import Row

        make = Row(*self._columns)
        return [make(*r) for r in self.data]

    def _head(self, n: int) -> list[list[Any]]:
        return [list(r) for r in self.data[:n]]

    def to_arrow(self) -> pa.Table:
        import pyarrow as pa

        arrays = [pa.array([r[i] for r in self.data]) for i in range(len(self._columns))]
        return pa.Table.from_arrays(arrays, names=self._columns)

    def show_text(self, n: int = 20, truncate: bool | int = True) -> str:
        return self.text if self.text is not None else super().show_text(n, truncate)

    def _repr_html_(self) -> str:
        if self.text is not None:
            import html

            return f"<pre>{html.escape(self.text)}</pre>"
        return super()._repr_html_()

    def __iter__(self) -> Iterator[list[Any]]:
        return iter([list(r) for r in self.data])

    def __len__(self) -> int:
        return len(self.data)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, StatementResult)
            and self._columns == other._columns
            and self.data == other.data
            and self.text == other.text
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"StatementResult(columns={self._columns!r}, rows={len(self.data)})"
