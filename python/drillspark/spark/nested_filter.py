"""Filtering nested values (seed 001, Appendix A), natively with Spark's higher-order functions.

When the filter's field path crosses arrays, the filter applies inside the tree: an array keeps
only the elements that satisfy it (recursively, keeping array nesting), a map is kept whole when
its matching child survives, and a record is kept when the path matched anywhere in it. So
`a.x > 3` turns `{a:[[{x:1},{x:4}],[{x:5}]]}` into `{a:[[{x:4}],[{x:5}]]}` and
`{a:{b:2, x:[1,2,3,4,5]}}` into `{a:{b:2, x:[4,5]}}`.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.plan.expressions import FieldPath
from drillspark.spark.scope import field_type, quote

Predicate = Callable[[Column], Column]  # leaf value -> boolean column


def crosses_array(schema: T.StructType, path: FieldPath) -> bool:
    """True when `path` (names only) passes through, or ends at, an array in `schema`."""
    if any(isinstance(s, int) for s in path.segments):
        return False
    t: T.DataType | None = schema
    for seg in path.segments:
        if isinstance(t, T.ArrayType):
            return True
        t = field_type(t, (seg,))
        if t is None:
            return False
    return isinstance(t, T.ArrayType)


def _prune(col: Column, t: T.DataType, rest: tuple[str, ...], pred: Predicate
           ) -> tuple[Column, Column]:
    """(pruned value, matched?) for `col` of type `t` with the path `rest` still to follow."""
    if isinstance(t, T.ArrayType):
        et = t.elementType

        def pair(e: Column) -> Column:
            v, m = _prune(e, et, rest, pred)
            return F.struct(v.alias("v"), m.alias("m"))

        kept = F.filter(F.transform(col, pair), lambda s: s["m"])
        return F.transform(kept, lambda s: s["v"]), F.coalesce(F.size(kept) > 0, F.lit(False))
    if not rest:
        return col, F.coalesce(pred(col), F.lit(False))
    if not isinstance(t, T.StructType):
        return col, F.lit(False)
    match = [f for f in t.fields if f.name.lower() == rest[0].lower()]
    if not match:
        return col, F.lit(False)
    f = match[0]
    child, matched = _prune(col.getField(f.name), f.dataType, rest[1:], pred)
    if _has_array(f.dataType, rest[1:]):
        col = col.withField(quote(f.name), child)
    return col, matched


def _has_array(t: T.DataType | None, rest: tuple[str, ...]) -> bool:
    for seg in rest:
        if isinstance(t, T.ArrayType):
            return True
        t = field_type(t, (seg,))
    return isinstance(t, T.ArrayType)


def filter_nested(df: DataFrame, path: FieldPath, pred: Predicate) -> DataFrame:
    """Keep records where `path` matches `pred` somewhere, pruning arrays along the path."""
    root = next(c for c in df.columns if c.lower() == path.root.lower())
    t = df.schema[root].dataType
    value, matched = _prune(F.col(quote(root)), t, tuple(path.segments[1:]), pred)  # type: ignore[arg-type]
    return df.where(matched).withColumn(root, value)
