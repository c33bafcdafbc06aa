"""An answer's rows, from the Spark tasks to the server in pieces of bounded size.

`toLocalIterator` brings one whole partition into the driver at a time (and, under a local
master, the task first builds the whole partition as bytes in the same JVM): one large partition
can take the driver's memory. Here each partition is a Spark job whose task turns its rows into
Drill's REST JSON text and sends them, in pieces of about PIECE_BYTES, through a socket to this
process (an Arrow answer's task sends its batches as the JVM encoded them, from the JVM: the
jar's `drillspark.server.PartitionStream`). The task waits while the server has not read (TCP
back-pressure), so the driver holds a piece at a time whatever a partition's size. Partitions
are read in order, the next one computed while one is read (as `toLocalIterator` prefetches).
Tasks prove who they are with a secret the job carries."""

from __future__ import annotations

import functools
import hmac
import secrets
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from typing import Any

from drillspark.errors import ExecutionError
from drillspark.server import values

PIECE_BYTES = 1 << 20  # what a task sends at most at once (rows are never cut)
_HEADER = struct.Struct(">I")  # a piece's length, a partition's number; the same in _sender
_ACCEPT_WAIT = 0.5  # seconds between looks at the jobs while waiting for a task
_AHEAD = 1  # partitions computed while one is read
_FAILURE_WAIT = 30.0  # seconds a broken stream waits for its job to say why
ARROW_ROWS = 10_000  # rows of an answer made in the server from Arrow (stream_rows)


class StreamFailed(ExecutionError):
    """The rows stopped before a partition's end, and its job says nothing of why."""


def driver_host(spark: Any) -> str:
    """Where tasks reach this process: loopback under a local master, else the driver's host."""
    sc = spark.sparkContext
    if sc.master.startswith("local"):
        return "127.0.0.1"
    return str(sc.getConf().get("spark.driver.host", socket.gethostname()))


class _Job:
    """One partition's Spark job, run in a thread of its own (runJob blocks)."""

    def __init__(self, run: Callable[[], Any], in_job: Callable[[], None]):
        self.failure: BaseException | None = None

        def go() -> None:
            try:
                in_job()
                run()
            except BaseException as e:  # handed to the reading thread
                self.failure = e

        self.thread = threading.Thread(target=go, name="drillspark-partition", daemon=True)
        self.thread.start()

    def check(self, wait: float | None = None) -> None:
        """Raise the job's failure once it ends (within `wait` seconds); StreamFailed if it
        ended without one, or still runs: a task that failed mid-partition and is being run
        again would send the partition from its start, so its rows are never taken."""
        self.thread.join(wait)
        if self.failure is not None:
            raise self.failure
        if self.thread.is_alive():
            raise StreamFailed(
                "a task's rows stopped before its partition's end and Spark runs it again; "
                "the query is stopped rather than sending rows twice"
            )
        raise StreamFailed("a partition's rows stopped before their end")


# what a stream's jobs are made by: given where the server listens (host, port) and the
# stream's secret, the function that runs one partition's job (blocking until it ends)
Runner = Callable[[str, int, bytes], Callable[[int], Any]]


def stream_partitions(
    spark: Any, rdd: Any, write: Callable[[Any], str], in_job: Callable[[], None]
) -> Iterator[str]:
    """The rows of every partition of `rdd`, in order, as `write` makes them (in Spark's Python
    workers). `in_job()` runs first in each job's thread (the query's job group and pool)."""

    def runner(host: str, port: int, secret: bytes) -> Callable[[int], Any]:
        send = _sender(host, port, secret, write)
        return lambda partition: spark.sparkContext.runJob(rdd, send, [partition])

    for _, piece in stream_elements(spark, rdd.getNumPartitions(), runner, in_job):
        yield from piece.decode("utf-8").split("\n")


def stream_rows(df: Any, write: Callable[[Any], str], in_job: Callable[[], None]) -> Iterator[str]:
    """The rows of every partition of `df`, in order, each as `write` makes it from the row's
    Python values (as pyspark's `collect()` gives them).

    On classic Spark, where Spark writes every column as Arrow, the first partitions' tasks send
    Arrow batches from the JVM (as stream_arrow's) and their rows are made here, as Spark
    Connect's client makes them (pyspark's ArrowTableToRowsConversion): a Python worker per
    task cost a small GROUP BY without a LIMIT 40-120 ms over its LIMIT form (#37). Once
    ARROW_ROWS rows were made here, the partitions started after are written in the tasks'
    Python workers (as stream_partitions'), two at a time beside the server rather than in its
    one thread: a large nested answer's rows are written faster there. Without Arrow for a
    column, every partition is written by the workers. A year-month interval column comes as
    its months, the value `write` takes for it."""
    df = values.months(df)
    spark = df.sparkSession
    large = large_var_types(spark)
    read_as = _arrow_rows(df, large)
    if read_as is None:
        yield from stream_partitions(spark, df.rdd, write, in_job)
        return
    import pyarrow as pa
    from pyspark.sql.conversion import ArrowTableToRowsConversion

    schema = df.schema
    elements = df._jdf.toArrowBatchRdd()
    made = 0  # rows made here from Arrow so far
    arrow: set[int] = set()  # the partitions sent as Arrow

    def runner(host: str, port: int, secret: bytes) -> Callable[[int], Any]:
        send_arrow = _arrow_sender(df, elements, host, port, secret)
        send_text: list[Callable[[int], Any]] = []  # made at the first partition that needs it
        lock = threading.Lock()  # each job's thread runs `run`

        def run(partition: int) -> Any:
            with lock:  # decided before the task connects: the reader knows its pieces' kind
                if made < ARROW_ROWS:
                    arrow.add(partition)
                elif not send_text:
                    send = _sender(host, port, secret, write)
                    rdd = df.rdd  # the same executed plan: a shuffle's output is not made again
                    send_text.append(lambda p: spark.sparkContext.runJob(rdd, send, [p]))
            if partition in arrow:
                return send_arrow(partition)
            return send_text[0](partition)

        return run

    for partition, piece in stream_elements(spark, elements.getNumPartitions(), runner, in_job):
        if partition not in arrow:
            yield from piece.decode("utf-8").split("\n")
            continue
        batch = pa.ipc.read_record_batch(pa.py_buffer(piece), read_as)
        made += batch.num_rows
        table = pa.Table.from_batches([batch])
        for row in ArrowTableToRowsConversion.convert(table, schema, return_as_tuples=True):
            yield write(row)


def _arrow_rows(df: Any, large: bool) -> Any:
    """The JVM's Arrow types of `df` (_read_as) where its rows can come as Arrow: classic Spark,
    and every column of a type Spark writes as Arrow and pyspark reads back as collect() gives
    it (no year-month interval inside another type); else None."""
    if getattr(df, "_jdf", None) is None or values.holds_year_month(df.schema):
        return None
    try:
        return _read_as(df, large)
    except Exception:  # noqa: BLE001 (pyspark's unsupported-type error)
        return None


def large_var_types(spark: Any) -> bool:
    """Spark's useLargeVarTypes setting: whether its Arrow strings and binaries are large ones."""
    return spark.conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false") == "true"


def stream_arrow(df: Any, large: bool, in_job: Callable[[], None]) -> Iterator[Any]:
    """The record batches of every partition of `df` (classic Spark), in order, each as its
    task's JVM wrote it (Dataset.toArrowBatchRdd: Arrow IPC, no Python object per row) and sent
    it from the JVM (the jar's `drillspark.server.PartitionStream`): no Python worker. `df`'s
    columns must be ones Spark writes as Arrow; `large` is Spark's useLargeVarTypes setting."""
    import pyarrow as pa

    spark = df.sparkSession
    read_as = _read_as(df, large)
    elements = df._jdf.toArrowBatchRdd()

    def runner(host: str, port: int, secret: bytes) -> Callable[[int], Any]:
        return _arrow_sender(df, elements, host, port, secret)

    for _, message in stream_elements(spark, elements.getNumPartitions(), runner, in_job):
        yield pa.ipc.read_record_batch(pa.py_buffer(message), read_as)


def _read_as(df: Any, large: bool) -> Any:
    """The JVM's Arrow types of `df`: what its IPC messages are read as (they carry no schema)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(df.schema, timezone="UTC", prefers_large_types=large)


def _arrow_sender(
    df: Any, elements: Any, host: str, port: int, secret: bytes
) -> Callable[[int], Any]:
    """What runs one partition's job of `df`'s Arrow batches `elements`, whose task sends them
    from the JVM (the jar's `drillspark.server.PartitionStream`); a small input's one partition
    runs that task in the job's thread, without a Spark job (the jar's LocalPartitionRun)."""
    stream = df.sparkSession._jvm.drillspark.server.PartitionStream
    here = stream.runsHere(df._jdf, elements)
    return lambda partition: stream.run(
        df._jdf, elements, partition, host, port, bytearray(secret), here
    )


def stream_elements(
    spark: Any, partitions: int, runner: Runner, in_job: Callable[[], None]
) -> Iterator[tuple[int, bytes]]:
    """The pieces every partition's task sends (each with its partition's number), partition
    after partition, in order, each as it comes: each of the `partitions` jobs run by `runner`,
    whose task sends its partition's number and then its pieces (Arrow record batches as the
    JVM encoded them, from the jar's `drillspark.server.PartitionStream`: no Python worker; or
    rows as text, stream_partitions)."""
    host = driver_host(spark)
    secret = secrets.token_bytes(16)
    with socket.create_server((host, 0)) as server:
        server.settimeout(_ACCEPT_WAIT)
        run = runner(host, server.getsockname()[1], secret)
        jobs: dict[int, _Job] = {}
        waiting: dict[int, socket.socket] = {}  # connected tasks not read yet
        try:
            for partition in range(partitions):
                for ahead in range(partition, min(partition + _AHEAD + 1, partitions)):
                    if ahead not in jobs:
                        jobs[ahead] = _Job(functools.partial(run, ahead), in_job)
                conn = _connection(server, secret, partition, jobs[partition], waiting)
                with conn:
                    for piece in _pieces(conn, jobs[partition]):
                        yield partition, piece
                done = jobs.pop(partition)
                done.thread.join()
                if done.failure is not None:
                    raise done.failure
        finally:
            for conn in waiting.values():
                conn.close()  # a task still sending fails, and its job with it


def _connection(
    server: socket.socket,
    secret: bytes,
    partition: int,
    job: _Job,
    waiting: dict[int, socket.socket],
) -> socket.socket:
    """The connection of `partition`'s task (others that come first wait in `waiting`)."""
    while partition not in waiting:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if not job.thread.is_alive():
                job.check()
            continue
        conn.settimeout(None)
        try:
            if not hmac.compare_digest(_read_exact(conn, len(secret)), secret):
                conn.close()  # not one of our tasks
                continue
            (number,) = _HEADER.unpack(_read_exact(conn, _HEADER.size))
        except (StreamFailed, OSError):
            conn.close()
            continue
        waiting[number] = conn
    return waiting.pop(partition)


def _pieces(conn: socket.socket, job: _Job) -> Iterator[bytes]:
    while True:
        try:
            (size,) = _HEADER.unpack(_read_exact(conn, _HEADER.size))
            if size == 0:
                return
            piece = _read_exact(conn, size)
        except (StreamFailed, OSError):
            job.check(_FAILURE_WAIT)  # the task's failure (a bad value, a cancel), if it says
            raise
        yield piece


def _read_exact(conn: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 16))
        if not chunk:
            raise StreamFailed("a partition's rows stopped before their end")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _sender(
    host: str, port: int, secret: bytes, write: Callable[[Any], str]
) -> Callable[[Iterator[Any]], list[Any]]:
    """The task's side: its partition's number, then rows as text in pieces of about
    PIECE_BYTES, then an empty piece. Runs in Spark's Python workers (pickled by value: it uses
    modules, never this module's objects)."""

    def send(rows: Iterator[Any]) -> list[Any]:
        from pyspark import TaskContext

        context = TaskContext.get()
        number = context.partitionId() if context is not None else 0
        with socket.create_connection((host, port)) as conn:
            conn.sendall(secret + struct.pack(">I", number))
            piece: list[str] = []
            size = 0
            for row in rows:
                text = write(row)
                piece.append(text)
                size += len(text) + 1
                if size >= PIECE_BYTES:
                    data = "\n".join(piece).encode("utf-8")
                    conn.sendall(struct.pack(">I", len(data)) + data)
                    piece, size = [], 0
            if piece:
                data = "\n".join(piece).encode("utf-8")
                conn.sendall(struct.pack(">I", len(data)) + data)
            conn.sendall(struct.pack(">I", 0))
        return []

    return send
