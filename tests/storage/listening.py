"""Waiting for a test server started as a process (FerretDB, a Kafka broker) to listen on its
loopback port: its own log's tail when it exits at start, a clear error when it never listens."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def wait_listening(
    proc: subprocess.Popen,
    port: int,
    name: str,
    log: Path,
    seconds: float,
    stop: Callable[[], None],
) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if proc.poll() is not None:
            stop()
            raise RuntimeError(
                f"{name} exited at start: " + log.read_text(errors="replace")[-2000:]
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                stop()
                raise RuntimeError(f"{name} did not listen within {seconds:g} s") from None
            time.sleep(0.1)
