"""Drill's names are case-insensitive. Two names are one when `fold` gives them the same key:
the rule of the extension's `Names.fold` (jvm/.../source/Names.scala), which folds as Spark's
resolver compares (String.equalsIgnoreCase: per code point, upper case then lower case, by the
simple one-character mappings). `str.lower()` differs on a few letters ("ſ" and "s", "İ" and
"i" are one name to Spark, two to str.lower()). tests/foundation/test_names_fold.py asks the JVM for
every code point; this module imports nothing so every layer may use it."""

from __future__ import annotations

from functools import lru_cache

# Where the simple mapping (UnicodeData) is one character but Python's str.lower / str.upper
# apply the full one (SpecialCasing) and give several: "İ".lower() is "i" + a combining dot.
_SIMPLE_LOWER = {"\u0130": "i"}


@lru_cache(maxsize=1024)
def _fold_char(c: str) -> str:
    upper = c.upper()
    if len(upper) != 1:  # only a full mapping (ß -> SS): the simple one keeps the letter
        upper = c
    lower = upper.lower()
    return lower if len(lower) == 1 else _SIMPLE_LOWER.get(upper, upper)


def fold(name: str) -> str:
    """The key under which `name` equals every other spelling of the same name."""
    if name.isascii():
        return name.lower()
    return "".join(_fold_char(c) for c in name)


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `name` + the smallest n >= 0 that is free: Drill's naming of a repeated
    output column (`dept0`; a later `dept0` becomes `dept00`). `taken` holds folded names; the
    name given is added to it."""
    free, n = name, 0
    while fold(free) in taken:
        free = f"{name}{n}"
        n += 1
    taken.add(fold(free))
    return free
