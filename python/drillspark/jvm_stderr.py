"""The driver JVM's stderr without Java's incubator-module notice.

Spark's launcher puts `--add-modules=jdk.incubator.vector` on every driver command line, and
Java 17 then prints `WARNING: Using incubator modules: jdk.incubator.vector` at start, with no
flag to silence it. The JVM inherits stderr from this process when PySpark launches it, so
while the session starts, file descriptor 2 is a pipe: a daemon thread copies every line to
the real stderr except that one notice. The JVM keeps the pipe for its life (its later stderr,
e.g. Spark's logs at `--log-level INFO`, is copied the same way); this process's own stderr is
restored as soon as the session is up. `DRILLSPARK_JVM_STDERR=raw` leaves stderr alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

NOTICE = b"WARNING: Using incubator modules: jdk.incubator.vector"
_copiers: list[threading.Thread] = []


def _copy(read_fd: int, out_fd: int) -> None:
    """Copy lines from `read_fd` to `out_fd`, dropping the notice, until the writers close."""
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        pending = b""
        while chunk := pipe.read(65536):
            pending += chunk
            *lines, pending = pending.split(b"\n")
            kept = [line for line in lines if line.rstrip(b"\r") != NOTICE]
            if kept:
                _write_all(out_fd, b"\n".join(kept) + b"\n")
        if pending and pending.rstrip(b"\r") != NOTICE:
            _write_all(out_fd, pending)
    os.close(out_fd)


def _write_all(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):  # stderr closed or a broken pipe: nothing to tell
        while data:
            data = data[os.write(fd, data) :]


@contextlib.contextmanager
def without_incubator_notice() -> Iterator[None]:
    """Run the body (which may launch the driver JVM) with stderr filtered as above."""
    if os.environ.get("DRILLSPARK_JVM_STDERR") == "raw" or os.name != "posix":
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to filter
        yield
        return
    read_fd, write_fd = os.pipe()
    out_fd = os.dup(saved)  # the copier's own handle: closed when the pipe ends
    copier = threading.Thread(
        target=_copy, args=(read_fd, out_fd), name="drillspark-jvm-stderr", daemon=True
    )
    copier.start()
    _copiers.append(copier)
    sys.stderr.flush()
    os.dup2(write_fd, 2)
    os.close(write_fd)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def join(timeout: float) -> bool:
    """Wait until every copier has seen its pipe close (every process holding it has ended);
    True when all have. For tests and orderly shut-downs: normal exits do not wait."""
    for copier in _copiers:
        copier.join(timeout)
    return not any(c.is_alive() for c in _copiers)
