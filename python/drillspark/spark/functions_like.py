"""LIKE and ILIKE. Spark answers a pattern with at most one inner wildcard by plain string
tests ('a%', '%a', '%a%', 'a%b'); any other pattern goes through java.util.regex. A literal
pattern of only '%' wildcards ('%special%requests%', TPC-H q13) is answered here by ordered
searches instead: the leftmost match of each piece after the previous one is a match whenever
one exists, and locate() costs about half of the regex (measured: docs/performance.md).
Registered into the one catalog."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.function_catalog import (
    Arg,
    Builder,
    Context,
    DrillFunction,
    FunctionArgumentError,
    FunctionCatalog,
    lit_str,
)

# Drill's LIKE has no escape character unless one is given; Spark's defaults to a backslash,
# so without one a character no pattern holds (NUL) stands in for "none".
_NO_ESCAPE = "\u0000"

_UPPER, _LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"


def ordered_pieces(pattern: str, escape: str) -> tuple[str, list[str], str] | None:
    """(prefix, inner pieces, suffix) of a pattern Spark would send to a regex but ordered
    searches answer: only '%' wildcards, no escape, and more than Spark's own forms."""
    if "_" in pattern or escape in pattern or "%" not in pattern:
        return None
    prefix, *rest = pattern.split("%")
    suffix = rest.pop()
    inner = [p for p in rest if p]
    # no inner piece: 'a%', '%a', 'a%b'; one with no ends: '%a%' (Spark's plain tests)
    if not inner or (len(inner) == 1 and not prefix and not suffix):
        return None
    return prefix, inner, suffix


def ordered_match(text: Column, prefix: str, inner: list[str], suffix: str) -> Column:
    """The pieces found in order: each searched from where the previous one ended. A piece
    not found makes the next start null, and locate() from a null start answers 0 (so the
    answer is false, not NULL: FALSE AND NULL is FALSE)."""
    start: Column = F.lit(len(prefix) + 1)
    for piece in inner:
        found = F.call_function("locate", F.lit(piece), text, start)
        start = F.nullif(found, F.lit(0)) + F.lit(len(piece))
    match = start.isNotNull()
    if prefix:
        match = text.startswith(prefix) & match
    if suffix:
        # the suffix must begin at or after where the last piece ended
        room = F.length(text) - F.lit(len(suffix) - 1)
        match = match & text.endswith(suffix) & (start <= room)
    # a NULL text is NULL, as LIKE's answer is
    return F.when(text.isNotNull(), match)


def _like(fn: str) -> Builder:
    def build(a: list[Arg], ctx: Context) -> Column:
        escape = lit_str(a[2], fn, 3) if len(a) > 2 else _NO_ESCAPE
        if len(escape) != 1:
            raise FunctionArgumentError(f"{fn}(): the escape {escape!r} must be one character")
        text, pattern = a[0].col, a[1].col
        literal = a[1].literal if a[1].is_literal and isinstance(a[1].literal, str) else None
        if fn == "ilike":
            # Drill's ILIKE ignores the case of ASCII letters only (Drill 1.22: ILIKE('ÄBC',
            # 'äbc') is false; Spark's ilike folds every letter)
            text, pattern = (F.translate(x, _UPPER, _LOWER) for x in (text, pattern))
            if literal is not None:
                literal = literal.translate(str.maketrans(_UPPER, _LOWER))
        if literal is not None and isinstance(ctx.type_of(a[0].col), T.StringType):
            pieces = ordered_pieces(literal, escape)
            if pieces is not None:
                return ordered_match(text, *pieces)
        return F.call_function("like", text, pattern, F.lit(escape))

    return build


def register(cat: FunctionCatalog) -> None:
    for fn in ("like", "ilike"):
        cat.add(DrillFunction(fn, "scalar", _like(fn), 2, 3))
