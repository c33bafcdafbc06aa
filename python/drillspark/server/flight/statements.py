"""Statements between the call that plans them (GetFlightInfo, CreatePreparedStatement) and the
calls that read or close them (DoGet, ClosePreparedStatement), by their handle: random bytes a
client cannot guess, tied to the user that made them. A ticket not read within
`unread_seconds` is closed (its query cancelled; it holds no running slot meanwhile);
prepared statements are closed with their session's idle time, and a session holds at most
`max_prepared`."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Ticketed:
    """An answer waiting for its DoGet: a running query's Result (its schema already read)
    or a metadata table."""

    user: str
    schema: Any
    result: Any = None  # a QueryManager Result (an iterator of record batches)
    table: Any = None  # a pyarrow Table
    query_id: str | None = None
    made: float = field(default_factory=time.monotonic)

    def close(self) -> None:
        if self.result is not None:
            self.result.close()


@dataclass
class Prepared:
    user: str
    session_id: str
    sql: str
    schema: Any
    used: float = field(default_factory=time.monotonic)


class Statements:
    def __init__(self, unread_seconds: float = 120.0, idle_seconds: float = 3600.0):
        self.unread_seconds = unread_seconds
        self.idle_seconds = idle_seconds
        self.max_prepared = 1000  # per user
        self._lock = threading.Lock()
        self._tickets: dict[bytes, Ticketed] = {}
        self._prepared: OrderedDict[bytes, Prepared] = OrderedDict()
        self._queries: dict[str, bytes] = {}  # query id: its ticket, while unread
        self._reading: dict[bytes, str] = {}  # ticket: its query's id, while DoGet reads it

    # ---------------------------------------------------------------- tickets
    def ticket(self, entry: Ticketed) -> bytes:
        handle = secrets.token_bytes(16)
        with self._lock:
            self._tickets[handle] = entry
            if entry.query_id:
                self._queries[entry.query_id] = handle
        self.sweep()
        return handle

    def take(self, handle: bytes, user: str) -> Ticketed | None:
        """The answer of a ticket, once: None for an unknown, read, expired or other user's."""
        with self._lock:
            entry = self._tickets.get(handle)
            if entry is None or entry.user != user:
                return None
            del self._tickets[handle]
            if entry.query_id:
                self._queries.pop(entry.query_id, None)
                self._reading[handle] = entry.query_id
            return entry

    def reading(self, handle: bytes) -> str | None:
        """The query id of a ticket being read."""
        with self._lock:
            return self._reading.get(handle)

    def read(self, handle: bytes) -> None:
        """A ticket's reading ended."""
        with self._lock:
            self._reading.pop(handle, None)

    def peek(self, handle: bytes, user: str) -> Ticketed | None:
        with self._lock:
            entry = self._tickets.get(handle)
            return entry if entry is not None and entry.user == user else None

    def sweep(self) -> None:
        now = time.monotonic()
        stale: list[Ticketed] = []
        with self._lock:
            for handle, entry in list(self._tickets.items()):
                if now - entry.made > self.unread_seconds:
                    stale.append(self._tickets.pop(handle))
                    if entry.query_id:
                        self._queries.pop(entry.query_id, None)
            for handle, p in list(self._prepared.items()):
                if now - p.used > self.idle_seconds:
                    del self._prepared[handle]
        for entry in stale:  # outside the lock: closing cancels a query
            entry.close()

    def close_all(self) -> None:
        with self._lock:
            entries = list(self._tickets.values())
            self._tickets.clear()
            self._queries.clear()
            self._prepared.clear()
        for entry in entries:
            entry.close()

    # ---------------------------------------------------------------- prepared statements
    def prepare(self, p: Prepared) -> bytes:
        handle = secrets.token_bytes(16)
        with self._lock:
            mine = [h for h, q in self._prepared.items() if q.user == p.user]
            for old in mine[: max(0, len(mine) - self.max_prepared + 1)]:
                del self._prepared[old]  # the least recently made
            self._prepared[handle] = p
        return handle

    def prepared(self, handle: bytes, user: str) -> Prepared | None:
        with self._lock:
            p = self._prepared.get(handle)
            if p is None or p.user != user:
                return None
            p.used = time.monotonic()
            return p

    def unprepare(self, handle: bytes, user: str) -> bool:
        with self._lock:
            p = self._prepared.get(handle)
            if p is None or p.user != user:
                return False
            del self._prepared[handle]
            return True
