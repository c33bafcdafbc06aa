"""A program on a pseudo-terminal, for the tests that type into the shell and press Ctrl-C
(test_firsthour_terminal.py, test_cancel.py)."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path


class Terminal:
    """A program on a pseudo-terminal: what it printed so far, and keys to send."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None):
        env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "TERM": "dumb", **(env or {})}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the program itself
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        self.out = b""

    def read_until(self, marker: bytes, timeout: float, start: int = 0) -> bool:
        end = time.monotonic() + timeout
        while marker not in self.out[start:] and time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    break
        return marker in self.out[start:]

    def send(self, data: bytes) -> int:
        mark = len(self.out)
        os.write(self.fd, data)
        return mark

    def exit_code(self, timeout: float) -> int | None:
        """The program's exit status once it has ended (reading what it prints meanwhile)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.read_until(b"\0never\0", 0.5)  # what is left in the terminal
                self.pid = 0
                return os.waitstatus_to_exitcode(status)
            self.read_until(b"\0never\0", 0.2)
        return None

    def close(self) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError):  # it may have left already
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
