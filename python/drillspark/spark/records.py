"""Building and updating records (rows whose fields may be nested maps = Spark structs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.scope import field_type, quote, real_name

Path = tuple[str, ...]


def names_of(ref: Any) -> Path:
    """A ref (FieldPath of names) as a tuple of names; indexes are not allowed in refs."""
    segs = tuple(ref.segments)
    if any(isinstance(s, int) for s in segs):
        raise ValueError(f"a ref cannot contain an array index: {ref.dotted()}")
    return segs  # type: ignore[return-value]


def real_column(df: DataFrame, name: str) -> str | None:
    """The DataFrame's column matching `name` case-insensitively (Drill identifiers)."""
    return real_name(df.columns, name)


def _non_null_struct(col: Column, t: T.StructType) -> Column:
    # Drill maps are never null: a null map is a map whose members are all null.
    empty = F.struct(*[F.lit(None).cast(f.dataType).alias(f.name) for f in t.fields])
    return F.coalesce(col, empty) if t.fields else col


def _nest(names: Sequence[str], value: Column) -> Column:
    """The map {names[0]: {names[1]: ... {names[-1]: value}}}."""
    for n in reversed(names):
        value = F.struct(value.alias(n))
    return value


def set_path(
    df: DataFrame, path: Path, value: Column, schema: T.StructType | None = None
) -> DataFrame:
    """`df` with the field at `path` added or replaced (maps on the way are created).
    `schema`, when given, is that of `df`'s columns up to some it adds whose names `path`
    does not use (a new DataFrame's first `.schema` is a round trip)."""
    if schema is None:
        schema = df.schema
    root = real_name(schema.names, path[0]) or path[0]
    if len(path) == 1:
        return df.withColumn(root, value)
    t = field_type(schema, (root,))
    if not isinstance(t, T.StructType):
        return df.withColumn(root, _nest(path[1:], value))
    # walk down the existing structs; create what is missing below them
    existing: list[str] = []
    cur: T.DataType | None = t
    for name in path[1:-1]:
        nxt = field_type(cur, (name,))
        if not isinstance(nxt, T.StructType):
            break
        existing.append(_member(cur, name))
        cur = nxt
    rest = path[1 + len(existing) :]
    if len(rest) == 1:
        leaf_name, leaf = _member(cur, rest[0]), value
    else:  # the first missing map holds the rest of the path
        leaf_name, leaf = rest[0], _nest(rest[1:], value)
    col = _non_null_struct(F.col(quote(root)), t)
    field_path = ".".join(quote(n) for n in (*existing, leaf_name))
    return df.withColumn(root, col.withField(field_path, leaf))


def _member(t: T.DataType | None, name: str) -> str:
    names = [f.name for f in t.fields] if isinstance(t, T.StructType) else []
    return real_name(names, name) or name


def drop_path(df: DataFrame, path: Path) -> DataFrame:
    root = real_column(df, path[0])
    if root is None:
        return df
    if len(path) == 1:
        return df.drop(root)
    if field_type(df.schema, (root, *path[1:])) is None:
        return df
    return df.withColumn(root, F.col(quote(root)).dropFields(".".join(quote(n) for n in path[1:])))


def record_of(fields: list[tuple[Path, Column]]) -> list[Column]:
    """Top-level columns for a record given as (path, value) pairs; later pairs override
    earlier ones, nested paths build maps."""
    tree: dict[str, Any] = {}
    for path, value in fields:
        node = tree
        for name in path[:-1]:
            key = real_name(node, name) or name
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        key = real_name(node, path[-1]) or path[-1]
        node[key] = value
    return [_build(v).alias(k) for k, v in tree.items()]


def _build(v: Any) -> Column:
    if isinstance(v, dict):
        return F.struct(*[_build(x).alias(k) for k, x in v.items()])
    return v
