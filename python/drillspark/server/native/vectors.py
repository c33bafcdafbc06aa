"""Drill's value vectors: result rows (rows.py's entries) as the record batches the native
protocol sends (a RecordBatchDef naming each column's vector, and the vectors' buffers one
after another), laid out as Drill 1.22's Drillbit lays them out for its JDBC driver:

* fixed-width values little-endian, one after another (BIT packed eight to a byte, DATE and
  TIMESTAMP as epoch milliseconds in 8 bytes, TIME as milliseconds of the day in 4,
  INTERVALDAY as days and milliseconds in 12, INTERVALYEAR as months in 4);
* variable-width values (VARCHAR, VARBINARY, VARDECIMAL) as a child `$offsets$` vector (UINT4,
  one offset more than values) and the bytes (a VARDECIMAL's unscaled value big-endian, two's
  complement, in as few bytes as hold it);
* a nullable (OPTIONAL) column as a child `$bits$` vector (UINT1: 1 set, 0 null) and a child
  holding the values, typed as the column;
* a MAP as its members' vectors; a REPEATED column as `$offsets$` and the elements' vector
  (`$data$`, REQUIRED; a REPEATED MAP lists its members instead; an array of arrays is a
  REPEATED LIST whose `$data$` is itself a REPEATED vector).

An empty batch keeps every vector with no values and no bytes (the schema of an empty
answer)."""

from __future__ import annotations

import base64
import json
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from drillspark.server.native.messages import (
    DataMode,
    MajorType,
    MinorType,
    NamePart,
    SerializedField,
)

_DAY_MS = 86_400_000

# fixed-width types: (struct format per value, width in bytes)
_FIXED: dict[MinorType, tuple[str, int]] = {
    MinorType.TINYINT: ("b", 1),
    MinorType.SMALLINT: ("h", 2),
    MinorType.INT: ("i", 4),
    MinorType.BIGINT: ("q", 8),
    MinorType.FLOAT4: ("f", 4),
    MinorType.FLOAT8: ("d", 8),
    MinorType.DATE: ("q", 8),
    MinorType.TIMESTAMP: ("q", 8),
    MinorType.TIME: ("i", 4),
    MinorType.INTERVALYEAR: ("i", 4),
}
_VARIABLE = {MinorType.VARCHAR, MinorType.VARBINARY, MinorType.VARDECIMAL}


@dataclass
class Column:
    """A result column's Drill type: the vector that carries it."""

    name: str
    minor: MinorType
    mode: DataMode = DataMode.OPTIONAL
    precision: int | None = None
    scale: int | None = None
    children: list[Column] = field(default_factory=list)  # MAP members, a REPEATED element
    as_text: bool = False  # a Spark type Drill has no vector for here: its JSON text

    def major(self) -> MajorType:
        return MajorType(
            minor_type=self.minor, mode=self.mode, precision=self.precision, scale=self.scale
        )

    def required(self) -> Column:
        return Column(
            self.name, self.minor, DataMode.REQUIRED, self.precision, self.scale, self.children
        )


# ------------------------------------------------------------------------ types
def column_of(name: str, data_type: Any, nullable: bool = True) -> Column:
    """The Drill column for a Spark field."""
    mode = DataMode.OPTIONAL if nullable else DataMode.REQUIRED
    kind = type(data_type).__name__
    if kind == "StructType":
        members = [column_of(f.name, f.dataType, f.nullable) for f in data_type.fields]
        return Column(name, MinorType.MAP, DataMode.REQUIRED, children=members)
    if kind == "ArrayType":
        element = column_of("$data$", data_type.elementType, False)
        if element.as_text:
            return Column(name, MinorType.VARCHAR, mode, as_text=True)
        if element.minor == MinorType.MAP and element.mode == DataMode.REQUIRED:
            return Column(name, MinorType.MAP, DataMode.REPEATED, children=element.children)
        if element.mode == DataMode.REPEATED:  # an array of arrays: Drill's REPEATED LIST
            return Column(name, MinorType.LIST, DataMode.REPEATED, children=[element])
        element.precision = element.precision or 0
        element.scale = element.scale or 0
        return Column(name, element.minor, DataMode.REPEATED, children=[element])
    if kind == "DecimalType":
        return Column(name, MinorType.VARDECIMAL, mode, data_type.precision, data_type.scale)
    if kind == "NullType":  # Drill types an untyped null INT
        return Column(name, MinorType.INT, DataMode.OPTIONAL)
    minor = _SIMPLE.get(kind)
    if minor is None:  # MapType and whatever else: its JSON text
        return Column(name, MinorType.VARCHAR, mode, as_text=True)
    return Column(name, minor, mode)


_SIMPLE = {
    "BooleanType": MinorType.BIT,
    "ByteType": MinorType.TINYINT,
    "ShortType": MinorType.SMALLINT,
    "IntegerType": MinorType.INT,
    "LongType": MinorType.BIGINT,
    "FloatType": MinorType.FLOAT4,
    "DoubleType": MinorType.FLOAT8,
    "StringType": MinorType.VARCHAR,
    "VarcharType": MinorType.VARCHAR,
    "CharType": MinorType.VARCHAR,
    "BinaryType": MinorType.VARBINARY,
    "DateType": MinorType.DATE,
    "TimestampType": MinorType.TIMESTAMP,
    "TimestampNTZType": MinorType.TIMESTAMP,
    "TimeType": MinorType.TIME,
    "DayTimeIntervalType": MinorType.INTERVALDAY,
    "YearMonthIntervalType": MinorType.INTERVALYEAR,
}

# values.python_type's names (an answer made without Spark)
_BY_NAME = {
    "BIT": MinorType.BIT,
    "BIGINT": MinorType.BIGINT,
    "FLOAT8": MinorType.FLOAT8,
    "TIMESTAMP": MinorType.TIMESTAMP,
    "DATE": MinorType.DATE,
    "VARCHAR": MinorType.VARCHAR,
}


def columns_of(names: list[str], schema: Any, metadata: list[str]) -> list[Column]:
    """The columns of an answer: from its Spark schema, else (an answer made without Spark)
    from the REST metadata names of its Python values."""
    if schema is not None:
        return [column_of(f.name, f.dataType, f.nullable) for f in schema.fields]
    return [
        Column(n, _BY_NAME.get(m, MinorType.VARCHAR)) for n, m in zip(names, metadata, strict=True)
    ]


# ------------------------------------------------------------------------ batches
def batch(
    columns: list[Column], rows: Sequence[Sequence[Any]]
) -> tuple[list[SerializedField], bytes]:
    """The vectors of `rows` (lists of entries): each column's field and all their buffers."""
    fields, buffers = [], []
    for i, column in enumerate(columns):
        f, data = vector(column, [row[i] for row in rows])
        fields.append(f)
        buffers.append(data)
    return fields, b"".join(buffers)


def _field(
    column: Column, count: int, size: int, children: list[SerializedField]
) -> SerializedField:
    return SerializedField(
        major_type=column.major(),
        name_part=NamePart(name=column.name),
        child=children,
        value_count=count,
        buffer_length=size,
    )


def vector(column: Column, values: list[Any]) -> tuple[SerializedField, bytes]:
    """One column's vector for `values` (entries, None for null)."""
    count = len(values)
    if column.as_text:
        values = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
    if column.mode == DataMode.OPTIONAL:
        bits = bytes(0 if v is None else 1 for v in values)
        bits_field = SerializedField(
            major_type=MajorType(minor_type=MinorType.UINT1, mode=DataMode.REQUIRED),
            name_part=NamePart(name="$bits$"),
            value_count=count,
            buffer_length=len(bits),
        )
        inner, data = _values(column, values)
        return _field(column, count, len(bits) + len(data), [bits_field, inner]), bits + data
    if column.mode == DataMode.REPEATED:
        return _repeated(column, values)
    return _values(column, values)


def _offsets(lengths: list[int]) -> tuple[SerializedField, bytes]:
    """The `$offsets$` vector of values of these lengths (none at all for no values)."""
    if not lengths:
        offsets = b""
        count = 0
    else:
        positions = [0]
        for n in lengths:
            positions.append(positions[-1] + n)
        offsets = struct.pack(f"<{len(positions)}I", *positions)
        count = len(positions)
    f = SerializedField(
        major_type=MajorType(minor_type=MinorType.UINT4, mode=DataMode.REQUIRED),
        name_part=NamePart(name="$offsets$"),
        value_count=count,
        buffer_length=len(offsets),
    )
    return f, offsets


def _values(column: Column, values: list[Any]) -> tuple[SerializedField, bytes]:
    """The values themselves (a null's slot holds a zero value)."""
    count = len(values)
    minor = column.minor
    if minor == MinorType.MAP:
        children, parts = [], []
        for j, member in enumerate(column.children):
            f, data = vector(member, [None if v is None else v[j] for v in values])
            children.append(f)
            parts.append(data)
        data = b"".join(parts)
        return _field(column, count, len(data), children), data
    if minor in _VARIABLE:
        items = [b"" if v is None else _bytes(minor, v) for v in values]
        offsets_field, offsets = _offsets([len(x) for x in items])
        data = offsets + b"".join(items)
        return _field(column, count, len(data), [offsets_field]), data
    if minor == MinorType.BIT:
        packed = bytearray((count + 7) // 8)
        for i, v in enumerate(values):
            if v:
                packed[i >> 3] |= 1 << (i & 7)
        return _field(column, count, len(packed), []), bytes(packed)
    if minor == MinorType.INTERVALDAY:
        data = b"".join(struct.pack("<iii", *(v if v is not None else (0, 0)), 0) for v in values)
        return _field(column, count, len(data), []), data
    fmt, _ = _FIXED[minor]
    data = struct.pack(f"<{count}{fmt}", *(_fixed(minor, v) for v in values))
    return _field(column, count, len(data), []), data


def _fixed(minor: MinorType, v: Any) -> Any:
    if v is None:
        return 0.0 if minor in (MinorType.FLOAT4, MinorType.FLOAT8) else 0
    if minor == MinorType.DATE:
        return v * _DAY_MS
    if minor in (MinorType.FLOAT4, MinorType.FLOAT8):
        return float(v) if not isinstance(v, str) else _special(v)
    return int(v)


def _special(text: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(text, 0.0)


def _bytes(minor: MinorType, v: Any) -> bytes:
    if minor == MinorType.VARCHAR:
        return str(v).encode("utf-8", "replace")
    if minor == MinorType.VARBINARY:
        return base64.b64decode(v)
    # VARDECIMAL: the unscaled value as Java's BigInteger.toByteArray writes it
    n = int(v)
    size = (n + (n < 0)).bit_length() // 8 + 1
    return n.to_bytes(size, "big", signed=True)


def _repeated(column: Column, values: list[Any]) -> tuple[SerializedField, bytes]:
    count = len(values)
    lists = [v or [] for v in values]
    elements = [x for items in lists for x in items]
    if not count:  # Drill's empty repeated vector: its children, no values, no bytes
        offsets_field, _ = _offsets([])
        empty = [vector(c, [])[0] for c in column.children]
        return _field(column, 0, 0, [offsets_field, *empty]), b""
    offsets_field, offsets = _offsets([len(items) for items in lists])
    if column.minor == MinorType.MAP:  # REPEATED MAP: the members' vectors over all elements
        children, parts = [offsets_field], [offsets]
        for j, member in enumerate(column.children):
            f, data = vector(member, [None if e is None else e[j] for e in elements])
            children.append(f)
            parts.append(data)
        data = b"".join(parts)
        return _field(column, count, len(data), children), data
    element = column.children[0]
    inner, data = vector(element, elements)
    out = _field(column, count, len(offsets) + len(data), [offsets_field, inner])
    if element.minor in _VARIABLE and element.mode == DataMode.REQUIRED:
        out.var_byte_length = len(data) - (inner.child[0].buffer_length or 0)
    return out, offsets + data
