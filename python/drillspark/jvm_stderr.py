"""The driver JVM's stderr without the notices of Spark's fixed launch flags.

Spark's launcher puts `--add-modules=jdk.incubator.vector` on every driver command line, and
Java 17 then prints `WARNING: Using incubator modules: jdk.incubator.vector` at start, with no
flag to silence it; it also opens `java.base/sun.security.action`, a package Java 24 removed,
and Java 25 says `WARNING: package sun.security.action not in java.base`. So
`drillspark.session()` launches the driver JVM itself, through PySpark's `launch_gateway`
(whose `popen_kwargs` choose the child's stderr), with the JVM's stderr on a pipe: a daemon
thread copies everything to this process's stderr except those lines, for the JVM's whole
life (its later stderr, e.g. Spark's logs at `--log-level INFO`, passes the same way). This
process's own stderr is never touched: a progress line or a prompt written while
Spark starts goes straight to the terminal. (Swapping file descriptor 2 for the start instead
mixed those writes into the filtered stream, where `\\r` lines waited for a newline, and made
`sys.stderr.isatty()` change under other threads.) `DRILLSPARK_JVM_STDERR=raw` leaves the
JVM's stderr alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Mapping

NOTICES = (
    b"WARNING: Using incubator modules: jdk.incubator.vector",
    b"WARNING: package sun.security.action not in java.base",
)
RAW_ENV = "DRILLSPARK_JVM_STDERR"
_copiers: list[threading.Thread] = []
# Sessions may start from two threads at once (the shell warms Spark up while the first
# statement asks for it): one launches the JVM, the other then finds it.
_launching = threading.Lock()


def enabled() -> bool:
    return os.environ.get(RAW_ENV) != "raw"


def _copy(read_fd: int, out_fd: int) -> None:
    """Copy from `read_fd` to `out_fd` until every writer has closed the pipe, dropping lines
    that are exactly a notice. Text is passed on as soon as it arrives: only a line start
    that could still become a notice waits for more (a progress bar's `\\r` line does not
    wait for a newline that never comes)."""
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        pending = b""  # the start of a line, held while it may be a notice
        while chunk := pipe.read(65536):
            pending += chunk
            out = []
            while (end := pending.find(b"\n")) >= 0:
                line, pending = pending[: end + 1], pending[end + 1 :]
                if line.rstrip(b"\r\n") not in NOTICES:
                    out.append(line)
            if pending and not any(n.startswith(pending) for n in NOTICES):
                out.append(pending)
                pending = b""
            if out:
                _write_all(out_fd, b"".join(out))
        if pending and pending.rstrip(b"\r") not in NOTICES:
            _write_all(out_fd, pending)
    os.close(out_fd)


def _write_all(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):  # stderr closed or a broken pipe: nothing to tell
        while data:
            data = data[os.write(fd, data) :]


def filtered_stderr() -> int | None:
    """A new pipe's write end whose text reaches this process's stderr without the notice
    (the caller hands it to a child process and closes it); None when there is no stderr."""
    try:
        out_fd = os.dup(2)
    except OSError:
        return None
    read_fd, write_fd = os.pipe()
    copier = threading.Thread(
        target=_copy, args=(read_fd, out_fd), name="drillspark-jvm-stderr", daemon=True
    )
    copier.start()
    _copiers.append(copier)
    return write_fd


def _connect(options: Mapping[str, str]) -> bool:
    """Whether the session is Spark Connect (no driver JVM of ours)."""
    mode = str(options.get("spark.api.mode", os.environ.get("SPARK_API_MODE", ""))).lower()
    return (
        "spark.remote" in options
        or mode == "connect"
        or any(v in os.environ for v in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED"))
    )


def start_driver(options: Mapping[str, str]) -> bool:
    """Launch the driver JVM for a session built with these builder `options`, its stderr
    filtered, as this process's SparkContext; the builder's getOrCreate() then finds it
    (exactly what getOrCreate would have made: a SparkConf of the same options, given to the
    same launcher). Does nothing and returns False when the filter is off, a JVM already runs
    in this process, spark-submit started it (`PYSPARK_GATEWAY_PORT`), or the session is
    Spark Connect."""
    if not enabled() or "PYSPARK_GATEWAY_PORT" in os.environ or _connect(options):
        return False
    with _launching:
        return _launch(options)


def _launch(options: Mapping[str, str]) -> bool:
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or SparkContext._active_spark_context is not None:
        return False  # one JVM per process: later sessions reuse it
    conf = SparkConf()
    for key, value in options.items():
        conf.set(key, value)
    write_fd = filtered_stderr()
    if write_fd is None:
        return False
    try:
        sys.stderr.flush()
        gateway = launch_gateway(conf, popen_kwargs={"stderr": write_fd})
    finally:
        os.close(write_fd)  # the JVM holds its own copy; the copier ends when it exits
    SparkContext(conf=conf, gateway=gateway)
    return True


def join(timeout: float) -> bool:
    """Wait until every copier has seen its pipe close (every process holding it has ended);
    True when all have. For tests and orderly shut-downs: normal exits do not wait."""
    for copier in _copiers:
        copier.join(timeout)
    return not any(c.is_alive() for c in _copiers)
