"""How deep drillspark lets recursive code go: parsing and lowering SQL, parsing plan
expressions and translating them are recursive in the depth of the input. Python's default
limit (1000 frames) stops a 50-level parenthesised SQL expression; `room()` raises it while
such code runs, up to a level the C stack still holds (Python 3.11 runs Python-to-Python calls
without C frames, but calls through C, e.g. dataclass equality, still use some)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Frames allowed while compiling: enough for the documented nesting limits below, far
# below what an 8 MB thread stack holds.
RECURSION_LIMIT = 20_000
# Parentheses one SQL statement may nest (Drill 1.22 runs 500; each level costs sqlglot
# about 20 frames).
MAX_SQL_NESTING = 500

_lock = threading.Lock()
_users = 0
_saved = 0


@contextmanager
def room() -> Iterator[None]:
    """Raise Python's recursion limit to RECURSION_LIMIT (never lower it) while the block
    runs; the limit is process-wide, so it is restored when the last concurrent user leaves."""
    global _users, _saved
    with _lock:
        if _users == 0:
            _saved = sys.getrecursionlimit()
            if _saved < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0 and sys.getrecursionlimit() == RECURSION_LIMIT:
                sys.setrecursionlimit(_saved)
