"""Name resolution for expressions: which Spark column a Drill field path means.

Field paths resolve against the input's schema, case-insensitively as Drill's identifiers,
so a missing field or member is NULL (never an analysis error) and an index past the end of
an array is NULL too. Over a text scan (every column marked `TEXT_COLUMN` by the text reader)
a missing column is '' instead, VARCHAR NOT NULL, as Drill's text reader answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.names import fold
from drillspark.spark import single_pass

# StructField metadata key the text reader sets on its data columns (see Scope.text_default)
TEXT_COLUMN = "drill.text"
# StructField metadata key of a column Drill reads as NOT NULL though Spark's file sources
# make every column nullable (Parquet REQUIRED): modeof of such a column is NOT NULL
REQUIRED_COLUMN = "drill.required"
# StructField metadata key of a DECIMAL column whose type Drill's planner knows (a CAST's, a
# database table's; not a schema-free or Parquet file's): its AVG keeps 6 places (see _avg)
PLAN_TYPED = "drill.planTyped"
# StructField metadata key of an implicit file column a scan adds (`filename`, `filepath`,
# `fqn`, `suffix`, when the query names it): a star does not stand for it, as in Drill
IMPLICIT_COLUMN = "drill.implicit"
_IMPLICIT = re.compile(r"dir\d+|filename|filepath|fqn|suffix|\$file", re.IGNORECASE)


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def field_type(schema: T.DataType | None, path: tuple) -> T.DataType | None:
    """The Spark type at `path` (names/indexes) in `schema`, or None when it does not exist."""
    t = schema
    for seg in path:
        if isinstance(t, T.VariantType):
            continue  # a member of parsed JSON (CONVERT_FROM(x, 'JSON')) is JSON too
        if isinstance(seg, int):
            if not isinstance(t, T.ArrayType):
                return None
            t = t.elementType
        elif isinstance(t, T.StructType):
            real = real_name([f.name for f in t.fields], seg)
            if real is None:
                return None
            t = t[real].dataType
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


def real_name(names: Iterable[str], name: str) -> str | None:
    """The one of `names` that `name` means: the exact spelling first, else the first one
    equal ignoring case (Drill identifiers are case-insensitive: `fold`, the extension's
    rule); None when there is none."""
    names = list(names)
    if name in names:
        return name
    key = fold(name)
    return next((n for n in names if fold(n) == key), None)


def _real_name(struct: T.StructType, name: str) -> str:
    return real_name([f.name for f in struct.fields], name) or name


@dataclass
class Scope:
    """What names mean in one operator's expressions: the input DataFrame's columns, or
    explicit columns (joins compile each side against its own renamed columns)."""

    df: DataFrame
    where: str = ""
    columns: Mapping[str, Column] | None = None  # root name (folded) -> column
    schema: T.StructType | None = None  # schema matching `columns` (root names as given)
    # column name -> `F.col` of it, shared by the scopes of one translation (the name alone
    # makes the column, whatever the DataFrame); None: this scope's own
    named: dict[str, Column] | None = field(default=None, repr=False)
    # type_of answers by Column object (kept alive here, so ids are never reused): each
    # analysis is a round trip on Spark Connect
    _types: dict[int, tuple[Column, T.DataType]] = field(default_factory=dict, repr=False)
    # path (as written) -> its Column: an operator's expressions name the same fields again
    # and again, and each column reference is py4j round trips (none on Spark Connect)
    _paths: dict[tuple, Column] = field(default_factory=dict, repr=False)
    # plan expression -> the type its compiled column has here (see expr_type)
    _expr_types: dict[Any, T.DataType] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.schema is None:
            self.schema = self.df.schema

    def type_of(self, col: Column) -> T.DataType:
        """The Spark type of `col` over this input (an analysis of `select(col)`)."""
        hit = self._types.get(id(col))
        if hit is None:
            hit = (col, self.df.select(col.alias("t")).schema.fields[0].dataType)
            self._types[id(col)] = hit
        return hit[1]

    def expr_type(self, e: Any, col: Column) -> T.DataType:
        """The type of `col`, compiled from the plan expression `e` over this scope. Equal
        expressions compile to columns of one type here (`1 - l_discount` written twice), so
        one analysis answers them all."""
        t = self._expr_types.get(e)
        if t is None:
            t = self._expr_types[e] = self.type_of(col)
        return t

    def path_type(self, path: Any) -> T.DataType:
        """The type `path(path)` has, read off the schema (no analysis); NullType when the
        path is missing."""
        assert self.schema is not None
        t = field_type(self.schema, tuple(path.segments))
        return T.NullType() if t is None else t

    def typing_scope(self) -> Scope:
        """A scope whose columns Spark can analyze on their own (see ops_rows' leaf scope)."""
        return self

    def text_default(self) -> bool:
        """Whether a missing column is '' here: every data column comes from a text scan."""
        assert self.schema is not None
        data = [f for f in self.schema.fields if not _IMPLICIT.fullmatch(f.name)]
        return bool(data) and all(f.metadata.get(TEXT_COLUMN) for f in data)

    def is_required(self, path: Any) -> bool:
        """Whether `path` is a whole column its reader marked NOT NULL (REQUIRED_COLUMN)."""
        return self._marked(path, REQUIRED_COLUMN)

    def is_plan_typed(self, path: Any) -> bool:
        """Whether `path` is a whole column marked PLAN_TYPED (its type known when planned)."""
        return self._marked(path, PLAN_TYPED)

    def _marked(self, path: Any, key: str) -> bool:
        """Whether `path` is a whole column whose metadata has `key`."""
        assert self.schema is not None
        real = real_name([f.name for f in self.schema.fields], path.root)
        return (
            len(path.segments) == 1
            and real is not None
            and bool(self.schema[real].metadata.get(key))
        )

    def is_missing(self, path: Any) -> bool:
        """Whether `path` names no column or member of the input (it compiles to NULL)."""
        assert self.schema is not None
        if field_type(self.schema, (path.root,)) is None:
            return not (len(path.segments) == 1 and self.text_default())
        t = field_type(self.schema, (_real_name(self.schema, path.root),))
        for seg in path.segments[1:]:
            t = field_type(t, (seg,))
            if t is None:
                return True
        return False

    def path(self, path: Any) -> Column:
        key = tuple(path.segments)
        col = self._paths.get(key)
        if col is None:
            col = self._paths[key] = self._path(path)
        return col

    def _named(self, name: str) -> Column:
        if self.named is None:
            self.named = {}
        col = self.named.get(name)
        if col is None:
            col = self.named[name] = F.col(quote(name))
        return col

    def _path(self, path: Any) -> Column:
        assert self.schema is not None
        if field_type(self.schema, (path.root,)) is None:
            single_pass.missed()  # a sample may lack what the full read has
            if len(path.segments) == 1 and self.text_default():
                return F.lit("")
            return F.lit(None)  # a missing column is NULL in Drill
        root = _real_name(self.schema, path.root)
        col = self.columns[fold(root)] if self.columns is not None else self._named(root)
        t: T.DataType | None = field_type(self.schema, (root,))
        for seg in path.segments[1:]:
            nxt = field_type(t, (seg,))
            if nxt is None:
                single_pass.missed()
                return F.lit(None)  # a missing member or an index into a non-array
            if isinstance(t, T.VariantType):
                col = F.try_variant_get(col, _variant_path(seg), "variant")
            elif isinstance(seg, int):
                col = F.get(col, F.lit(seg))  # NULL past the end (no ANSI error)
            elif isinstance(t, T.MapType):
                col = col.getItem(seg)
            else:
                col = col.getField(_real_name(_struct_of(t), seg))
            t = nxt
        return col


class NamedColumns(Mapping[str, Column]):
    """Root name (folded) -> the column of that name, made on first use: a join's scope
    offers every column of its side, a condition reads one or two."""

    def __init__(self, names: Mapping[str, str]):
        self._names = dict(names)  # folded root name -> the DataFrame's column name
        self._made: dict[str, Column] = {}

    def __getitem__(self, key: str) -> Column:
        col = self._made.get(key)
        if col is None:
            col = self._made[key] = F.col(quote(self._names[key]))
        return col

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def _variant_path(seg: str | int) -> str:
    """Spark's path of one member or index of a VARIANT: `$[0]`, `$["name"]`."""
    if isinstance(seg, int):
        return f"$[{seg}]"
    return f'$["{seg}"]' if '"' not in seg else f"$['{seg}']"


def _struct_of(t: T.DataType | None) -> T.StructType:
    if isinstance(t, T.ArrayType):
        return _struct_of(t.elementType)
    return t if isinstance(t, T.StructType) else T.StructType([])
