"""Rows of partitions too large to collect whole into the driver.

`toLocalIterator` (the server's ordinary fetch) brings one whole partition into the driver at a
time; the server caps that with `spark.driver.maxResultSize`. A partition over the cap is read
here instead: a Spark task turns its rows into Drill's REST JSON text and sends them, in pieces
of bounded size, through a socket to this process, one partition after another in order. The
task waits while the server has not read (TCP back-pressure), so the driver holds one piece at
a time whatever the partition's size. Tasks prove who they are with a secret the job carries."""

from __future__ import annotations

import hmac
import secrets
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from typing import Any

PIECE_BYTES = 1 << 20  # what a task sends at most at once (rows are never cut)
_FRAME = struct.Struct(">I")  # a piece's length; the same in _sender
_ACCEPT_WAIT = 0.5  # seconds between looks at the job while waiting for its task


class StreamFailed(Exception):
    """The socket broke before the partition's end: the task failed or was cancelled."""


def driver_host(spark: Any) -> str:
    """Where tasks reach this process: loopback under a local master, else the driver's host."""
    sc = spark.sparkContext
    if sc.master.startswith("local"):
        return "127.0.0.1"
    return str(sc.getConf().get("spark.driver.host", socket.gethostname()))


def stream_partitions(
    spark: Any,
    rdd: Any,
    write: Callable[[Any], str],
    first: int,
    in_job: Callable[[], None],
) -> Iterator[str]:
    """The rows of `rdd`'s partitions from `first` on, in order, as `write` makes them.
    `in_job()` runs in each job's thread first (the query's job group and pool)."""
    host = driver_host(spark)
    secret = secrets.token_bytes(16)
    with socket.create_server((host, 0)) as server:
        server.settimeout(_ACCEPT_WAIT)
        port = server.getsockname()[1]
        send = _sender(host, port, secret, write)
        for partition in range(first, rdd.getNumPartitions()):
            failure: list[BaseException] = []

            def job(p: int = partition, failure: list[BaseException] = failure) -> None:
                try:
                    in_job()
                    spark.sparkContext.runJob(rdd, send, [p])
                except BaseException as e:  # handed to the reading thread
                    failure.append(e)

            runner = threading.Thread(target=job, name="drillspark-partition-stream", daemon=True)
            runner.start()
            try:
                yield from _receive(server, secret, runner, failure)
            finally:
                runner.join()
            if failure:
                raise failure[0]


def _receive(
    server: socket.socket, secret: bytes, runner: threading.Thread, failure: list[BaseException]
) -> Iterator[str]:
    while True:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if not runner.is_alive():
                if failure:
                    raise failure[0] from None
                raise StreamFailed("the task ended without sending its rows") from None
            continue
        with conn:
            conn.settimeout(None)
            if not hmac.compare_digest(_read_exact(conn, len(secret)), secret):
                continue  # not our task: ignore it
            while True:
                (size,) = _FRAME.unpack(_read_exact(conn, _FRAME.size))
                if size == 0:
                    return
                yield from _read_exact(conn, size).decode("utf-8").split("\n")


def _read_exact(conn: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 16))
        if not chunk:
            raise StreamFailed("the task's connection closed before the partition's end")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _sender(
    host: str, port: int, secret: bytes, write: Callable[[Any], str]
) -> Callable[[Iterator[Any]], list[Any]]:
    """The task's side: rows as text, sent in pieces of about PIECE_BYTES; then an empty
    piece, the partition's end. Runs in Spark's Python workers (pickled by value: it uses
    modules, not this module's objects)."""

    def send(rows: Iterator[Any]) -> list[Any]:
        with socket.create_connection((host, port)) as conn:
            conn.sendall(secret)
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
