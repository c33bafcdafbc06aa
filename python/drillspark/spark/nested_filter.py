"""Filtering nested values (docs/running-plans.md, Filtering nested values), natively with Spark's higher-order functions.

When the filter's field path crosses arrays, the filter applies inside the tree: an array keeps
only the elements that satisfy it (recursively, keeping array nesting), a map is kept whole when
its matching child survives, and a record is kept when the path matched anywhere in it. So
`a.x > 3` turns `{a:[[{x:1},{x:4}],[{x:5}]]}` into `{a:[[{x:4}],[{x:5}]]}` and
`{a:{b:2, x:[1,2,3,4,5]}}` into `{a:{b:2, x:[4,5]}}`.

The path applies per element only where the expression uses it as one value (`a.x > 3`). As
the argument of a function that takes the whole array or value (`repeated_count(a.x)`,
`isnotnull(a.x)`, ...) it means the whole value, as anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.plan.expressions import Convert, Expr, FieldPath, FunctionCall
from drillspark.spark.scope import field_type, quote, real_name

Predicate = Callable[[Column], Column]  # leaf value -> boolean column

# Drill functions whose first argument is a whole value (an array, a map or any value as such)
WHOLE_VALUE_FUNCTIONS = frozenset(
    {
        "repeated_count",
        "repeated_contains",
        "flatten",
        "kvgen",
        "mappify",
        "typeof",
        "drilltypeof",
        "sqltypeof",
        "modeof",
        "isnull",
        "isnotnull",
        "convert_to",
    }
)


def crosses_array(schema: T.StructType, path: FieldPath) -> bool:
    """True when `path` (names only) passes through, or ends at, an array in `schema`."""
    return leaf_type(schema, path) is not None and _arrays_on(schema, path)


def _arrays_on(schema: T.StructType, path: FieldPath) -> bool:
    t: T.DataType | None = schema
    for seg in path.segments:
        if isinstance(t, T.ArrayType):
            return True
        t = field_type(t, (seg,))
    return isinstance(t, T.ArrayType)


def leaf_type(schema: T.StructType, path: FieldPath) -> T.DataType | None:
    """The type of one element the path reaches, with every array on the way (and at its
    end) stepped into; None for a missing path or one with array indexes."""
    if any(isinstance(s, int) for s in path.segments):
        return None
    t: T.DataType | None = schema
    for seg in path.segments:
        while isinstance(t, T.ArrayType):
            t = t.elementType
        t = field_type(t, (seg,))
        if t is None:
            return None
    while isinstance(t, T.ArrayType):
        t = t.elementType
    return t


def element_uses(e: Expr, path: FieldPath) -> list[FieldPath]:
    """The occurrences of `path` in `e` that stand for one value (not the argument of a
    whole-value function), as the node objects themselves."""
    want = tuple(str(s).lower() for s in path.segments)
    out: list[FieldPath] = []

    def visit(node: Expr, whole: bool) -> None:
        if isinstance(node, FieldPath):
            if not whole and tuple(str(s).lower() for s in node.segments) == want:
                out.append(node)
            return
        for i, child in enumerate(node.children()):
            visit(child, i == 0 and _takes_whole_value(node))

    visit(e, False)
    return out


def _takes_whole_value(node: Expr) -> bool:
    if isinstance(node, FunctionCall):
        return node.name.lower() in WHOLE_VALUE_FUNCTIONS
    return isinstance(node, Convert) and node.direction == "to"


def _prune(
    col: Column, t: T.DataType, rest: tuple[str, ...], pred: Predicate
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
    name = real_name([f.name for f in t.fields], rest[0])
    if name is None:
        return col, F.lit(False)
    f = t[name]
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
    root = real_name(df.columns, path.root)
    assert root is not None
    t = df.schema[root].dataType
    value, matched = _prune(F.col(quote(root)), t, tuple(path.segments[1:]), pred)  # type: ignore[arg-type]
    return df.where(matched).withColumn(root, value)
