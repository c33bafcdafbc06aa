"""Running REST queries on the server's one SparkSession: each query is a Spark job group (so
it can be cancelled), runs in its own FAIR scheduler pool, is bounded in time and rows, and
leaves a profile (Drill's /profiles) behind."""

from __future__ import annotations

import collections
import datetime as _dt
import itertools
import json
import logging
import os
import re
import struct
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from drillspark.errors import ExecutionError, UsageError
from drillspark.options import REGISTRY
from drillspark.plan.model import LogicalPlan
from drillspark.plan.row_bounds import catalog_sources_only, most_records
from drillspark.server import responses, values
from drillspark.server.auth import log_text
from drillspark.server.partition_stream import stream_rows
from drillspark.server.watchdog import Watchdog
from drillspark.spark import cancel_jobs, job_properties, pickled_collect, plan_reuse
from drillspark.sql.errors import SqlError, TableNotFoundError
from drillspark.sql.session import SqlSession

log = logging.getLogger("drillspark.server")
_SURROGATE = re.compile("[\ud800-\udfff]")

# Drill's QueryState numbers (profile `state`) and the names its profile list shows
STATE_NUMBER = {
    "STARTING": 0,
    "RUNNING": 1,
    "COMPLETED": 2,
    "CANCELED": 3,
    "FAILED": 4,
    "CANCELLATION_REQUESTED": 5,
    "ENQUEUED": 6,
    "PREPARING": 7,
    "PLANNING": 8,
}
STATE_DISPLAY = {
    "STARTING": "Starting",
    "RUNNING": "Running",
    "COMPLETED": "Succeeded",
    "CANCELED": "Canceled",
    "FAILED": "Failed",
    "CANCELLATION_REQUESTED": "Cancellation Requested",
    "ENQUEUED": "Enqueued",
    "PREPARING": "Preparing",
    "PLANNING": "Planning",
}


# An answer bounded by a limit of at most this many rows is collected whole, in one action
# (one df.collect()); any other is streamed from its tasks (partition_stream.py), whatever its
# partitions' size.
SMALL_ANSWER = 10_000


class QueryFailed(ExecutionError):
    """A query ended without a result: FAILED (message) or CANCELED."""

    def __init__(self, message: str, state: str = "FAILED", exception: str = ""):
        super().__init__(message)
        self.state = state
        self.exception = exception
        # (columns, metadata, attemptedAutoLimit) of a query cancelled once they were known:
        # Drill has sent them by then, and answers them with no rows
        self.head: tuple[list[str], list[str], int] | None = None


class QueryIdInUse(UsageError):
    """A client-chosen query id (X-Drillspark-Query-Id) that names a known query."""


class ConfinedSession(SqlSession):
    """A SqlSession whose tables must lie inside one of its workspaces (or cp): the server
    never reads a file outside the folders it was given, whatever path a query names."""

    def resolve_table(self, parts: tuple[str, ...], check: bool = True) -> Any:
        table = super().resolve_table(parts, check)
        real = os.path.realpath(table.path)
        roots = [os.path.realpath(p) for p in [*self.workspaces.values(), self.cp_root]]
        if not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            raise TableNotFoundError(
                f"table '{'.'.join(parts)}' not found: {table.display} "
                "lies outside the server's workspaces"
            )
        return table


def plain_text(text: str) -> str:
    """`text` with unpaired surrogates (which no UTF-8 encoder takes) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def new_query_id() -> str:
    """Drill's query id text: two 64-bit halves as 8-4-4-4-12 hex digits."""
    return str(uuid.uuid4())


def client_query_id(value: str) -> str | None:
    """A client-chosen query id if it is in canonical 8-4-4-4-12 lower-case form, else
    None."""
    try:
        parsed = str(uuid.UUID(value))
    except (ValueError, AttributeError):
        return None
    return parsed if parsed == value else None


def id_parts(query_id: str) -> dict[str, int]:
    raw = uuid.UUID(query_id).bytes
    part1, part2 = struct.unpack(">qq", raw)
    return {"part1": part1, "part2": part2}


# held while a profile's plan text is made from its source (Query.plan)
_PLAN_MADE = threading.Lock()


@dataclass
class Query:
    """One query, running or finished (the profile)."""

    id: str
    text: str
    user: str
    query_type: str = "SQL"
    options: dict[str, Any] = field(default_factory=dict)
    start: int = field(default_factory=lambda: int(time.time() * 1000))
    end: int | None = None
    state: str = "STARTING"
    error: str | None = None
    error_id: str | None = None
    exception: str = ""
    _plan: str | None = None
    # makes the profile's plan text when it is first asked for (most profiles never are: a
    # chart's plan written as JSON and scrubbed of folders took a tenth of its GIL time, #37)
    _plan_source: Callable[[], str] | None = None
    rows: int = 0
    columns: list[str] = field(default_factory=list)
    pool: str | None = None
    cancel_reason: str | None = None
    queue_wait_end: int | None = None
    plan_end: int | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def running(self) -> bool:
        return self.end is None

    @property
    def plan(self) -> str | None:
        """The plan that ran, as the profile shows it (the server's folders as its users see
        them); None for a statement without one."""
        with _PLAN_MADE:  # two readers at once (a console poll, sys.profiles) see one plan
            source, self._plan_source = self._plan_source, None
            if source is not None:
                try:
                    self._plan = source()
                except Exception:  # the profile's plan is informative only
                    self._plan = None
            return self._plan

    @plan.setter
    def plan(self, text: str | None) -> None:
        self._plan, self._plan_source = text, None

    def duration_ms(self) -> int:
        return (self.end or int(time.time() * 1000)) - self.start


def duration_text(ms: int) -> str:
    """Drill's profile list duration: `0.955 sec`, `08 min 4.555 sec` (as Drill 1.22 showed
    them): minutes, in two digits, once there are any; hours and days by the same rule
    (`1 hr 00 min 1.000 sec`; not seen from Drill)."""
    seconds, millis = divmod(max(ms, 0), 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    out = f"{days} day " if days else ""
    out += f"{hours} hr " if days or hours else ""
    out += f"{minutes:02d} min " if days or hours or minutes else ""
    return out + f"{seconds}.{millis:03d} sec"


# How a protocol other than REST writes a row (QueryManager.run's `row_writer`): given the
# column names and the answer's Spark schema (None for an answer made without Spark, whose rows
# are lists of Python values), a function from one row to its text, without a newline (it may
# run in Spark's Python workers, pickled by value)
RowWriter = Callable[[list[str], Any], Callable[[Any], str]]

# How a protocol that takes Arrow writes an answer (QueryManager.run's `arrow`, Flight SQL's):
# given the answer's DataFrame, or None and the plain rows of an answer made without Spark, its
# columns, and whether it is small enough to collect whole (else it is streamed from the tasks):
# the answer's Arrow schema (so `run` returns once it is planned: the Spark job runs while read),
# then its record batches (whole batches, never a Python object per row)
ArrowWriter = Callable[[Any, list[str], list[list[Any]] | None, bool], Iterator[Any]]


def rest_rows(columns: list[str], schema: Any) -> Callable[[Any], str]:
    """REST's row writer: each row as Drill's JSON object text (values.py's converters), the
    REST handler's way of encoding rows, as rows.py's is the native protocol's."""
    if schema is None:
        return values.row_writer(columns, [values.python_value] * len(columns))
    return values.row_writer(columns, [values.converter(f.dataType) for f in schema.fields])


def _first_rows(
    sc: Any, group: str, items: Iterator[Any], limit: int, batches: bool
) -> Iterator[Any]:
    """The items (rows, or record batches when `batches`) of a streamed answer up to `limit`
    rows (0: all), the last batch cut; once reached, the stream is closed and the query's jobs
    still computing (a partition ahead) cancelled."""
    if not limit:
        yield from items
        return
    left = limit
    try:
        for item in items:
            rows = item.num_rows if batches else 1
            yield item.slice(0, left) if rows > left else item
            left -= rows
            if left <= 0:
                break
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
    if left <= 0:
        sc.cancelJobGroup(group)


class Result:
    """What a query answers before its rows: column names, Drill types, and the rows (each
    already as Drill's JSON object text, or as the run's `row_writer` writes them). Iterate it
    to the end or `close()` it: either ends the query's profile and frees its slot. `schema`
    is the rows' Spark schema (None for an answer made without Spark)."""

    def __init__(
        self,
        columns: list[str],
        metadata: list[str],
        rows: Iterator[str],
        auto_limit: int,
        abandon: Callable[[], None],
        schema: Any = None,
        park: Callable[[], None] | None = None,
    ):
        self.columns = columns
        self.metadata = metadata
        self.auto_limit = auto_limit
        self.schema = schema
        self._rows = rows
        self._abandon = abandon
        self._park = park
        self._started = False

    def wait_for_reader(self) -> None:
        """Give back the running slot until the next item is asked for (an Arrow answer
        whose schema was read: Flight's ticket before its DoGet); reading takes a slot again,
        waiting while all are busy."""
        if self._park is not None:
            self._park()

    def __iter__(self) -> Iterator[str]:
        self._started = True
        return self._rows

    def close(self) -> None:
        if self._started:
            close = getattr(self._rows, "close", None)
            if close is not None:
                close()
        else:  # never iterated: the generator's own clean-up would not run
            self._abandon()


class QueryManager:
    """Runs queries for the HTTP handlers and keeps their profiles (the newest `keep`)."""

    def __init__(
        self,
        spark: Any,
        max_running: int = 16,
        max_seconds: float = 0,
        max_rows: int = 0,
        keep: int = 100,
    ):
        self.spark = spark
        self.max_seconds = max_seconds  # 0: unbounded
        self.max_rows = max_rows  # 0: unbounded
        self.keep = keep
        self._lock = threading.Lock()
        self._running: dict[str, Query] = {}
        self._finished: collections.OrderedDict[str, Query] = collections.OrderedDict()
        self._pools = [f"drillspark-{i}" for i in range(max_running)]
        self._slots = threading.Semaphore(max_running)
        self.counters: collections.Counter[str] = collections.Counter()
        self.closing = False
        # each query's deadline, and whether a REST client still waits for its answer
        self.watchdog = Watchdog()
        # how a text (an error, a plan) names the server's folders to its users (shown_paths),
        # as the workspaces are now: a text made later (a profile's plan) keeps the rule of
        # when its query ran
        self.shown_now: Callable[[], Callable[[str], str]] = lambda: lambda text: text

    # --------------------------------------------------------------- bookkeeping
    def new(
        self,
        text: str,
        user: str,
        query_type: str,
        options: dict[str, Any],
        query_id: str | None = None,
    ) -> Query:
        """A query, registered as running; `query_id` is one the client chose (so it can
        cancel the query while waiting for the answer), else a fresh one."""
        q = Query(query_id or new_query_id(), text, user, query_type, dict(options))
        with self._lock:
            if q.id in self._running or q.id in self._finished:
                raise QueryIdInUse(f"query id {q.id} is already in use")
            self._running[q.id] = q
        return q

    def get(self, query_id: str) -> Query | None:
        with self._lock:
            return self._running.get(query_id) or self._finished.get(query_id)

    def running(self) -> list[Query]:
        with self._lock:
            return sorted(self._running.values(), key=lambda q: -q.start)

    def finished(self) -> list[Query]:
        with self._lock:
            return sorted(self._finished.values(), key=lambda q: -q.start)

    def finish(self, q: Query, state: str, error: str | None = None) -> None:
        if q.end is not None:
            return
        q.end = int(time.time() * 1000)
        q.state = state
        if error is not None:
            q.error = error
            q.error_id = str(uuid.uuid4())
        with self._lock:
            self._running.pop(q.id, None)
            self._finished[q.id] = q
            while len(self._finished) > self.keep:
                self._finished.popitem(last=False)
        self.counters[state.lower()] += 1
        q.done.set()
        log.info(
            "query %s %s user=%s rows=%d %.3fs: %s%s",
            q.id,
            state,
            log_text(q.user),
            q.rows,
            q.duration_ms() / 1000,
            log_text(" ".join(q.text.split())[:500]),
            f" -- {log_text(error)}" if error else "",
        )

    # --------------------------------------------------------------- cancelling
    def cancel(self, query_id: str, reason: str = "canceled") -> bool:
        """Ask a running query to stop: its Spark jobs are cancelled now, and again while
        it still runs (a job started between two checks is caught by the next)."""
        q = self.get(query_id)
        if q is None or not q.running:
            return False
        if q.cancel_reason is None:
            q.cancel_reason = reason
        q.state = "CANCELLATION_REQUESTED" if q.state != "ENQUEUED" else q.state

        def keep_cancelling() -> None:
            while q.running and not q.done.wait(0.0):
                try:
                    cancel_jobs.group(self.spark, q.id, self._cancel_message(q))
                except Exception:  # the context is stopping; the query ends with it
                    return
                if q.done.wait(1.0):
                    return

        threading.Thread(target=keep_cancelling, name=f"cancel-{q.id}", daemon=True).start()
        return True

    def cancel_all(self, reason: str) -> None:
        for q in self.running():
            self.cancel(q.id, reason)

    def _check(self, q: Query) -> None:
        if q.cancel_reason is not None:
            raise QueryFailed(self._cancel_message(q), "CANCELED")

    def _cancel_message(self, q: Query) -> str:
        if q.cancel_reason == "timeout":
            return (
                f"query exceeded the server's time limit of {self.max_seconds:g} s and "
                "was cancelled"
            )
        if q.cancel_reason == "shutdown":
            return "the server is shutting down; the query was cancelled"
        if q.cancel_reason == "client":
            return "the client closed the connection before the answer; the query was cancelled"
        return "the query was cancelled"

    # --------------------------------------------------------------- running
    def run(
        self,
        q: Query,
        execute: Callable[[], Any],
        auto_limit: int,
        row_writer: RowWriter | None = None,
        arrow: ArrowWriter | None = None,
    ) -> Result:
        """Run the statement (`execute()` returns a DrillResult or a RowsResult) as Spark
        job group `q.id`; the Result's row iterator must be consumed or closed. A failure
        before the first row raises QueryFailed (and finishes the profile). `row_writer`:
        how the rows are written (default: rest_rows, Drill's REST JSON objects); `arrow`: the
        rows as Arrow record batches instead (the Result then yields batches)."""
        end_deadline = None
        if self.max_seconds:
            end_deadline = self.watchdog.after(
                self.max_seconds, lambda: self.cancel(q.id, "timeout")
            )
        q.state = "ENQUEUED"
        while not self._slots.acquire(timeout=0.2):
            if q.cancel_reason is not None:
                if end_deadline:
                    end_deadline()
                self.finish(q, "CANCELED", self._cancel_message(q))
                raise QueryFailed(self._cancel_message(q), "CANCELED")
        released: list[bool] = []
        slot = threading.Lock()  # guards `held`: parked, resumed and released from other calls
        held: list[bool] = [True]

        def clear_thread() -> None:
            job_properties.leave(self.spark)  # a dead JVM: the slot is freed all the same

        def give() -> None:
            with slot:
                if not held:
                    return
                held.clear()
                with self._lock:
                    if q.pool is not None:
                        self._pools.append(q.pool)
                self._slots.release()

        def release() -> None:
            """Give back the slot, the pool and the thread's job properties: once, on every
            path (a failure anywhere after the slot was taken must not leak it)."""
            if released:
                return
            released.append(True)
            if end_deadline:
                end_deadline()
            clear_thread()
            give()

        def park() -> None:
            """An answer planned and waiting for its reader (Flight's ticket before DoGet)
            holds no slot: a client that never reads cannot starve the others."""
            with slot:
                if not held or released:
                    return
            clear_thread()
            give()
            q.state = "ENQUEUED"

        def resume() -> None:
            """The reader came: take a slot again (waiting, as any query, while all are
            busy; a cancel while waiting ends the wait)."""
            if held or released:
                return
            self._check(q)
            while not self._slots.acquire(timeout=0.2):
                self._check(q)
            with slot, self._lock:
                if released:  # finished (an expired ticket) while this waited: give it back
                    self._slots.release()
                    return
                q.pool = self._pools.pop()
                held.append(True)
            q.state = "RUNNING"

        head: tuple[list[str], list[str], int] | None = None
        try:
            with self._lock:
                q.pool = self._pools.pop()
            q.queue_wait_end = int(time.time() * 1000)
            q.state = "PLANNING"
            # the description is only shown by Spark's UI; py4j cannot send a lone surrogate
            job_properties.enter(self.spark, q.id, plain_text(q.text[:200]), q.pool)
            self._check(q)
            result = execute()
            self._check(q)
            q.plan_end = int(time.time() * 1000)
            q.state = "RUNNING"
            fetch, limit = self._limit(auto_limit)
            rows, columns, metadata, schema = self._rows(q, result, fetch, row_writer, arrow)
            head = (columns, metadata, limit)
            first = next(rows, None)  # a failure in the first Spark job still gets FAILED
            self._check(q)
        except QueryFailed as e:
            release()
            self.finish(q, e.state, str(e))
            e.head = head if e.state == "CANCELED" else None
            raise
        except BaseException as e:
            release()
            message = self._message(q, e)
            self.finish(q, "CANCELED" if q.cancel_reason else "FAILED", message)
            if not isinstance(e, Exception):  # KeyboardInterrupt, SystemExit: not ours to keep
                raise
            failed = QueryFailed(message, q.state, type(e).__name__)
            failed.head = head if q.state == "CANCELED" else None
            raise failed from None
        q.columns = columns

        def abandon() -> None:
            try:
                cancel_jobs.group(self.spark, q.id, "the client closed the connection")
                getattr(rows, "close", lambda: None)()
            except Exception:  # best effort: the client is gone
                pass
            release()
            self.finish(q, "CANCELED", "the client closed the connection")

        weigh = (lambda batch: getattr(batch, "num_rows", 0)) if arrow is not None else None
        if arrow is not None:  # Arrow's first item is the schema: the batches may wait
            rows = _resuming(rows, resume)
        return Result(
            columns,
            metadata,
            self._stream(q, first, rows, release, weigh),
            limit,
            abandon,
            schema,
            park if arrow is not None else None,
        )

    def _limit(self, auto_limit: int) -> tuple[int, int]:
        """(rows to fetch, attemptedAutoLimit): the client's autoLimit when it is within the
        server's maximum; else one row more than the maximum, so an answer that would be
        cut fails (never a silently short result)."""
        auto_limit = max(auto_limit, 0)
        if self.max_rows and (auto_limit == 0 or auto_limit > self.max_rows):
            return self.max_rows + 1, auto_limit
        return auto_limit, auto_limit

    def _message(self, q: Query, e: BaseException) -> str:
        if q.cancel_reason is not None:
            return self._cancel_message(q)
        if isinstance(e, SqlError):
            return self.shown_now()(str(e))
        from drillspark.result import runtime_message

        return self.shown_now()(runtime_message(e))

    def _rows(
        self,
        q: Query,
        result: Any,
        limit: int,
        row_writer: RowWriter | None = None,
        arrow: ArrowWriter | None = None,
    ) -> tuple[Iterator[Any], list[str], list[str], Any]:
        data = getattr(result, "data", None)
        if isinstance(data, list):  # answered without Spark (USE, SHOW FILES, ...)
            columns = list(result.columns)
            plain = [list(r) for r in (data[:limit] if limit else data)]
            metadata = [values.python_type([r[i] for r in plain]) for i in range(len(columns))]
            if arrow is not None:
                return arrow(None, columns, plain, True), columns, metadata, None
            write = (row_writer or rest_rows)(columns, None)
            return (write(r) for r in plain), columns, metadata, None
        plan = getattr(result, "plan", None)
        if plan is not None:
            shown = self.shown_now()  # the folders as they are while the query runs
            q._plan_source = lambda: shown(plan.to_json_text())
        most = most_records(plan) if isinstance(plan, LogicalPlan) else None
        # the fetch's limit only where the plan's own LIMIT does not already bound the answer
        # by it: one DataFrame (its analysis, its schema) less for BI tools' LIMIT probes
        cut = bool(limit) and (most is None or most > limit)
        bounds = [b for b in (limit, most) if b]
        # a catalog table's answer (INFORMATION_SCHEMA, sys) is small too: fetched without
        # the per-partition jobs and Python workers of the stream (BI tools ask many)
        small_catalog = isinstance(plan, LogicalPlan) and catalog_sources_only(plan)
        small = bool(bounds and min(bounds) <= SMALL_ANSWER) or small_catalog
        # a streamed answer is cut as it is read (_first_rows): `limit()` would be a new
        # DataFrame each run, analyzed and planned afresh, where a kept translation's own was
        # planned once (spark/plan_reuse.py; 30 ms of a small GROUP BY without a LIMIT, #37),
        # and Spark would move every row to one partition to cut it
        df = plan_reuse.limited(self.spark, result.df, limit) if cut and small else result.df
        schema = df.schema
        columns = [f.name for f in schema.fields]
        metadata = [values.metadata_name(f.dataType) for f in schema.fields]
        sc = self.spark.sparkContext
        read_cut = limit if cut and not small else 0
        if arrow is not None:

            def batches() -> Iterator[Any]:
                with result.fetching():
                    # a small answer is collected whole: a job per partition through the
                    # stream would cost more than its rows
                    answer = arrow(df, columns, None, small)
                    yield next(answer)  # the schema: nothing computed yet
                    # the batches are read by another call's thread (Flight's DoGet): its
                    # Spark jobs join the query's group and pool there (so cancel stops them),
                    # and the thread leaves them after
                    job_properties.enter(self.spark, q.id, plain_text(q.text[:200]), q.pool)
                    try:
                        yield from _first_rows(sc, q.id, answer, read_cut, batches=True)
                    finally:
                        job_properties.leave(self.spark)

            return batches(), columns, metadata, schema
        write = (row_writer or rest_rows)(columns, schema)
        if small:

            def rows() -> Iterator[str]:
                with result.fetching():
                    # whole, in one action: the answer is bounded. Spark's collect runs a
                    # LIMIT's scan of the first partitions only and an ORDER BY ... LIMIT's
                    # top rows without a shuffle, where toLocalIterator ran the plan's
                    # `execute` (its shuffle to one partition, a job per partition; #37).
                    # A catalog answer is local to the driver: no job at all
                    for row in pickled_collect.rows(df):
                        yield write(row)

            return rows(), columns, metadata, schema

        def in_job() -> None:  # a job started in another thread belongs to the query too
            job_properties.enter(self.spark, q.id, plain_text(q.text[:200]), q.pool)

        def streamed() -> Iterator[str]:
            with result.fetching():
                # from the tasks in bounded pieces: no partition is ever held whole
                rows = stream_rows(df, write, in_job)
                yield from _first_rows(sc, q.id, rows, read_cut, batches=False)

        return streamed(), columns, metadata, schema

    def _stream(
        self,
        q: Query,
        first: Any,
        rows: Iterator[Any],
        release: Callable[[], None],
        weigh: Callable[[Any], int] | None = None,
    ) -> Iterator[Any]:
        """The rows (or, with `weigh`, batches of that many rows each); the profile is
        finished when the iterator ends, fails or is closed."""
        state, error = "COMPLETED", None
        try:
            items: Iterator[Any] = rows
            if first is not None and weigh is None:
                q.rows += 1
                yield first
            elif first is not None:  # a first batch is bounded as the next ones are
                items = itertools.chain((first,), rows)
            for row in items:
                q.rows += 1 if weigh is None else weigh(row)
                if weigh is not None or q.rows % 1024 == 0:
                    self._check(q)
                if self.max_rows and q.rows > self.max_rows:
                    raise QueryFailed(
                        f"the result has more than {self.max_rows} rows, the "
                        "server's maximum per answer (--max-rows): ask for fewer "
                        "with autoLimit or LIMIT"
                    )
                yield row
            self._check(q)
        except QueryFailed as e:
            state, error = e.state, str(e)
            raise
        except GeneratorExit:  # the client went away
            state, error = "CANCELED", "the client closed the connection"
            raise
        except Exception as e:
            state = "CANCELED" if q.cancel_reason else "FAILED"
            error = self._message(q, e)
            raise QueryFailed(error, state, type(e).__name__) from None
        finally:
            close = getattr(rows, "close", None)
            if close is not None and state != "COMPLETED":
                try:
                    cancel_jobs.group(self.spark, q.id, error or "the query ended")
                    close()
                except Exception:  # closing after a failure is best effort
                    pass
            release()
            self.finish(q, state, error)

    # --------------------------------------------------------------- profiles as Drill shows them
    def state(self, q: Query) -> str:
        """The query's state as a profile shows it. A statement that does its work while it
        is being planned (CTAS writes, DROP, a SHOW that lists files) runs Spark jobs before
        `run` marks it RUNNING: once Spark has a job in the query's group, it is running."""
        if q.state != "PLANNING":
            return q.state
        try:
            if self.spark.sparkContext.statusTracker().getJobIdsForGroup(q.id):
                return "RUNNING"
        except Exception:  # the tracker is informative only; the recorded state stands
            pass
        return q.state

    def list_entry(self, q: Query, base_url: str) -> dict[str, Any]:
        started = _dt.datetime.fromtimestamp(q.start / 1000, _dt.UTC)
        return {
            "queryId": q.id,
            "startTime": q.start,
            "endTime": q.end if q.end is not None else int(time.time() * 1000),
            "time": started.strftime("%m/%d/%Y %H:%M:%S"),
            "link": f"{base_url}/profiles/{q.id}.json",
            "foreman": "localhost",
            "query": q.text[:150],  # as Drill's list cuts it; the profile has it whole
            "state": STATE_DISPLAY.get(self.state(q), q.state),
            "user": q.user,
            "totalCost": 0.0,
            "queueName": q.pool or "-",
            "duration": duration_text(q.duration_ms()),
        }

    def profile(self, q: Query, ports: dict[str, int]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": id_parts(q.id),
            "type": {"SQL": 1, "LOGICAL": 2, "PHYSICAL": 3}.get(q.query_type, 1),
            "start": q.start,
            "end": q.end if q.end is not None else 0,
            "query": q.text,
            **({"plan": q.plan} if q.plan else {}),
            "foreman": {
                "address": "localhost",
                # only the ports that listen (no control or data port here)
                **({"userPort": ports["user"]} if ports.get("user") else {}),
                "version": ports.get("version", ""),
                "state": 0,
            },
            "state": STATE_NUMBER.get(self.state(q), 1),
            # as Drill 1.22's profiles: one fragment once planned, none finished (Drill
            # answered 1 and 0 for a completed query, 0 and 0 for one that failed planning)
            "totalFragments": 1 if q.plan else 0,
            "finishedFragments": 0,
            **({"fragmentProfile": []} if q.plan else {}),
            "user": q.user,
        }
        if q.error is not None and q.state != "CANCELED":  # Drill records no error then
            out["error"] = q.error
            out["verboseError"] = q.error
            out["errorId"] = q.error_id
        # Jackson's pretty text, as Drill's (`[ ]` when empty); a request's options are
        # SESSION options there
        out["optionsJson"] = responses.jackson(
            [
                {
                    "kind": REGISTRY[k].KIND,
                    "accessibleScopes": REGISTRY[k].scopes,
                    "name": k,
                    REGISTRY[k].VALUE_KEY: v,
                    "scope": "SESSION",
                }
                for k, v in q.options.items()
            ]
        )
        plan_end = q.plan_end
        if plan_end is None and q.end is not None and not q.plan:
            plan_end = q.end  # it failed while planned: its planning ended then, as Drill's
        out["planEnd"] = plan_end or 0
        out["queueWaitEnd"] = q.queue_wait_end or 0
        out["totalCost"] = 0.0
        out["queueName"] = q.pool or "-"
        out["queryId"] = q.id
        scanned = _scanned_plugins(q.plan)
        if scanned:  # as Drill's, after queryId, for a query that read storage
            out["scannedPlugins"] = scanned
        return out

    def progress(self, q: Query) -> dict[str, Any]:
        """Spark's view of a query's jobs: per job its stages' task counts."""
        tracker = self.spark.sparkContext.statusTracker()
        jobs = []
        try:
            for job_id in sorted(tracker.getJobIdsForGroup(q.id)):
                info = tracker.getJobInfo(job_id)
                if info is None:
                    continue
                stages = []
                for sid in info.stageIds:
                    s = tracker.getStageInfo(sid)
                    if s is not None:
                        stages.append(
                            {
                                "stageId": sid,
                                "name": s.name,
                                "tasks": s.numTasks,
                                "completed": s.numCompletedTasks,
                                "active": s.numActiveTasks,
                                "failed": s.numFailedTasks,
                            }
                        )
                jobs.append({"jobId": job_id, "status": info.status, "stages": stages})
        except Exception:  # Spark forgets old jobs; progress is informative only
            pass
        return {
            "queryId": q.id,
            "state": self.state(q),
            "rows": q.rows,
            "duration": q.duration_ms(),
            "jobs": jobs,
        }


def _resuming(items: Iterator[Any], resume: Callable[[], None]) -> Iterator[Any]:
    """`items`, calling `resume()` before each is computed (a parked answer retakes its slot
    before its Spark job runs)."""
    try:
        while True:
            resume()
            try:
                item = next(items)
            except StopIteration:
                return
            yield item
    finally:
        getattr(items, "close", lambda: None)()


def _scanned_plugins(plan: str | None) -> list[str]:
    """The storage plugins the logical plan's scans read, in plan order."""
    if not plan:
        return []
    try:
        ops = json.loads(plan).get("query") or []
    except (ValueError, AttributeError):
        return []
    out: list[str] = []
    for op in ops:
        name = op.get("storageengine") if isinstance(op, dict) and op.get("op") == "scan" else None
        if isinstance(name, str) and name not in out:
            out.append(name)
    return out
