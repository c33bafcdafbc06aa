"""What an operator's `next()` returns (docs/operators.md, The protocol): shared by operators and result streams."""

from __future__ import annotations

from enum import Enum


class IterOutcome(Enum):
    OK_NEW_SCHEMA = (
        "OK_NEW_SCHEMA"  # a batch whose schema differs from the previous one (or the first)
    )
    OK = "OK"  # a batch with the same schema as the previous one
    NONE = "NONE"  # no more data; every later next() returns NONE too
    STOP = "STOP"  # failed; the error is attached to the operator/stream
    NOT_YET = "NOT_YET"  # no batch now, ask again (kept for protocol completeness)
