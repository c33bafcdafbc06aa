"""A Drill join condition's `relationship` (plan.operators.RELATIONSHIPS, and the `=` / `<>`
spellings of plans Drill writes) as Spark compares two columns: the one map every join reads
(the translator's join and semi-join, the jdbc join push-down)."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column

NULL_SAFE = "IS NOT DISTINCT FROM"
RELATIONSHIPS: dict[str, Callable[[Column, Column], Column]] = {
    "==": lambda a, b: a == b,
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<>": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    NULL_SAFE: lambda a, b: a.eqNullSafe(b),
}
# the spellings of plain equality (a NULL matches nothing)
EQUALITY = ("==", "=")
# the relationships that order their sides (a string's order is its collation's in a database)
ORDERING = ("<", "<=", ">", ">=")
