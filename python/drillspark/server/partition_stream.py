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

PIECE_BYTES = 1 << 20  # what a task sends at most at once (rows are never cut)
_HEADER = struct.Struct(">I")  # a piece's length, a partition's number; the same in _sender
_ACCEPT_WAIT = 0.5  # seconds between looks at the jobs while waiting for a task
_AHEAD = 1  # partitions computed while one is read
_FAILURE_WAIT = 30.0  # seconds a broken stream waits for its job to say why


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

    for piece in stream_elements(spark, rdd.getNumPartitions(), runner, in_job):
        yield from piece.decode("utf-8").split("\n")


def stream_elements(
    spark: Any, partitions: int, runner: Runner, in_job: Callable[[], None]
) -> Iterator[bytes]:
    """The pieces every partition's task sends, partition after partition, in order, each as it
    comes: each of the `partitions` jobs run by `runner`, whose task sends its partition's number
    and then its pieces (Arrow record batches as the JVM encoded them, from the jar's
    `drillspark.server.PartitionStream`: no Python worker; or rows as text, stream_partitions)."""
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
                    yield from _pieces(conn, jobs[partition])
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
