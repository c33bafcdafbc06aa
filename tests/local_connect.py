"""What tests that start a local Spark Connect server share. A plain module, not the conftest:
importing `tests.conftest` from a test would run the conftest a second time under that name."""

from __future__ import annotations

import contextlib
import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def one_local_connect_server() -> Iterator[None]:
    """Held while a test's process runs a local Spark Connect server (`remote("local[2]")`),
    which binds port 15002: `make test-long` runs two pytest-xdist workers (`--dist
    loadfile`), and two such servers at once would fail to bind."""
    lock = Path(tempfile.gettempdir()) / "drillspark-tests-spark-connect-15002.lock"
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield
