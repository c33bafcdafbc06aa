"""Name resolution for expressions: which Spark column a Drill field path means.

Field paths resolve against the input's schema, case-insensitively as Drill's identifiers,
so a missing field or member is NULL (never an analysis error) and an index past the end of
an array is NULL too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def field_type(schema: T.DataType | None, path: tuple) -> T.DataType | None:
    """The Spark type at `path` (names/indexes) in `schema`, or None when it does not exist."""
    t = schema
    for seg in path:
        if isinstance(seg, int):
            if not isinstance(t, T.ArrayType):
                return None
            t = t.elementType
        elif isinstance(t, T.StructType):
            match = [f for f in t.fields if f.name == seg] or \
                [f for f in t.fields if f.name.lower() == seg.lower()]
            if not match:
                return None
            t = match[0].dataType
        elif isinstance(t, T.ArrayType) and isinstance(t.elementType, T.StructType):
            # a member of an array of maps: Spark extracts it from every element
            inner = field_type(t.elementType, (seg,))
            if inner is None:
                return None
            t = T.ArrayType(inner)
        elif isinstance(t, T.MapType):
            t = t.valueType
        else:
            return None
    return t


def _real_name(struct: T.StructType, name: str) -> str:
    for f in struct.fields:
        if f.name == name:
            return name
    for f in struct.fields:
        if f.name.lower() == name.lower():
            return f.name
    return name


@dataclass
class Scope:
    """What names mean in one operator's expressions: the input DataFrame's columns, or
    explicit columns (joins compile each side against its own renamed columns)."""

    df: DataFrame
    where: str = ""
    columns: dict[str, Column] | None = None  # root name (lower case) -> column
    schema: T.StructType | None = None  # schema matching `columns` (root names as given)

    def __post_init__(self) -> None:
        if self.schema is None:
            self.schema = self.df.schema

    def type_of(self, col: Column) -> T.DataType:
        return self.df.select(col.alias("t")).schema.fields[0].dataType

    def is_missing(self, path: Any) -> bool:
        """Whether `path` names no column or member of the input (it compiles to NULL)."""
        assert self.schema is not None
        if field_type(self.schema, (path.root,)) is None:
            return True
        t = field_type(self.schema, (_real_name(self.schema, path.root),))
        for seg in path.segments[1:]:
            t = field_type(t, (seg,))
            if t is None:
                return True
        return False

    def path(self, path: Any) -> Column:
        assert self.schema is not None
        if field_type(self.schema, (path.root,)) is None:
            return F.lit(None)  # a missing column is NULL in Drill
        root = _real_name(self.schema, path.root)
        col = self.columns[root.lower()] if self.columns is not None else F.col(quote(root))
        t: T.DataType | None = field_type(self.schema, (root,))
        for seg in path.segments[1:]:
            nxt = field_type(t, (seg,))
            if nxt is None:
                return F.lit(None)  # a missing member or an index into a non-array
            if isinstance(seg, int):
                col = F.get(col, F.lit(seg))  # NULL past the end (no ANSI error)
            elif isinstance(t, T.MapType):
                col = col.getItem(seg)
            else:
                col = col.getField(_real_name(_struct_of(t), seg))
            t = nxt
        return col


def _struct_of(t: T.DataType | None) -> T.StructType:
    if isinstance(t, T.ArrayType):
        return _struct_of(t.elementType)
    return t if isinstance(t, T.StructType) else T.StructType([])
