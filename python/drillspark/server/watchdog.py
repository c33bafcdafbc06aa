"""One thread that watches the server's queries (#37): each query's deadline (the server's
time limit, `--max-seconds`) and, until its first row, whether its REST client still holds its
connection (a query nobody waits for is cancelled, not run to its end).

A thread per query for each (a `threading.Timer` and a watch of the connection) cost two thread
starts per statement, and a start waits until the new thread has run: under sixteen BI clients
each waited for the server's GIL (about a tenth of a chart's time, docs/performance.md). The
thread starts with the first watch and ends after `linger` seconds with nothing to watch.
"""

from __future__ import annotations

import itertools
import logging
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

# The longest sleep: `--max-seconds inf` (or past threading.TIMEOUT_MAX) is a deadline that
# never comes, and Condition.wait of it raises OverflowError.
LONGEST_WAIT = 3600.0


class Watchdog:
    def __init__(self, every: float = 0.5, linger: float = 30.0):
        self.every = every  # how often a connection is looked at
        self.linger = linger
        self._cond = threading.Condition()
        self._deadlines: dict[int, tuple[float, Callable[[], Any]]] = {}
        self._clients: dict[int, tuple[socket.socket, Callable[[], Any]]] = {}
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None
        self._sleeps_until = 0.0  # when the thread wakes up on its own

    def after(self, seconds: float, fire: Callable[[], Any]) -> Callable[[], None]:
        """Call `fire()` in `seconds` unless the returned function is called first."""
        token = next(self._tokens)
        with self._cond:
            at = time.monotonic() + seconds
            self._deadlines[token] = (at, fire)
            self._wake(at)
        return lambda: self._drop(self._deadlines, token)

    def client(self, conn: socket.socket, gone: Callable[[], Any]) -> Callable[[], None]:
        """Every `every` seconds, until the returned function is called, look whether the
        client closed `conn` and call `gone()` if it did (then stop looking); bytes of a next
        request mean the client is there (from its first row on, a write would notice)."""
        token = next(self._tokens)
        with self._cond:
            self._clients[token] = (conn, gone)
            self._wake(time.monotonic() + self.every)
        return lambda: self._drop(self._clients, token)

    def _drop(self, watched: dict[int, Any], token: int) -> None:
        with self._cond:
            watched.pop(token, None)

    def _wake(self, by: float) -> None:
        """Under the lock: the thread looks again by `by` (woken only if it would sleep past
        it: a wake-up per query would be one more turn at the GIL), or starts (again, if the
        last one died: every later watch would otherwise go unwatched)."""
        if self._thread is None or not self._thread.is_alive():
            thread = threading.Thread(target=self._run, name="drillspark-watchdog", daemon=True)
            try:
                thread.start()
            except RuntimeError:  # no thread to be had: the next watch tries again
                log.exception("the server's watchdog could not start its thread")
                self._thread = None
                return
            self._thread = thread
        elif by < self._sleeps_until:
            self._cond.notify()

    def _run(self) -> None:
        try:
            self._watch()
        except Exception:
            log.exception("the server's watchdog stopped; the next watch starts it again")
            with self._cond:
                if self._thread is threading.current_thread():
                    self._thread = None

    def _watch(self) -> None:
        idle_since: float | None = None
        next_look = 0.0
        while True:
            with self._cond:
                now = time.monotonic()
                if self._deadlines or self._clients:
                    idle_since = None
                elif idle_since is None:
                    idle_since = now
                elif now - idle_since >= self.linger:
                    self._thread = None  # the next watch starts another
                    return
                due = [t for t, (at, _) in self._deadlines.items() if at <= now]
                fired = [self._deadlines.pop(t)[1] for t in due]
                looked = list(self._clients.items()) if self._clients and now >= next_look else []
                if looked:
                    next_look = now + self.every
                if not fired and not looked:
                    waits = [at - now for at, _ in self._deadlines.values()]
                    if self._clients:
                        waits.append(next_look - now)
                    if idle_since is not None:
                        waits.append(idle_since + self.linger - now)
                    wait = min(max(min(waits), 0.0), LONGEST_WAIT)
                    self._sleeps_until = now + wait
                    self._cond.wait(wait)
                    self._sleeps_until = 0.0  # awake: a new watch is seen on this turn
                    continue
            for fire in fired:
                _call(fire)
            for token, (conn, gone) in looked:
                closed = _closed(conn)
                if closed is None:
                    continue
                self._drop(self._clients, token)
                if closed:
                    _call(gone)


def _closed(conn: socket.socket) -> bool | None:
    """True if the client closed `conn`, False if it sent more (it is there), None while it
    is silent."""
    try:
        if not _readable(conn):
            return None
        return conn.recv(1, socket.MSG_PEEK) == b""  # b"": the client's end of the stream
    except (OSError, ValueError):  # the connection is already closed
        return True


def _readable(conn: socket.socket) -> bool:
    """Whether `conn` has bytes, its end or an error to read now; poll, where there is one,
    takes any descriptor (select only those below FD_SETSIZE, 1024: a busy server's were
    taken for closed clients)."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(conn, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))
    readable, _, _ = select.select([conn], [], [], 0)
    return bool(readable)


def _call(fire: Callable[[], Any]) -> None:
    try:
        fire()
    except Exception:  # a cancel that failed must not stop the watching of the others
        log.exception("the server's watchdog: a call failed")
