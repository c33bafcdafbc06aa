"""Drill's value vectors: an answer's Arrow record batches as the record batches the native
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
  REPEATED LIST whose `$data$` is itself a REPEATED vector); a DICT (a Spark map) as
  `$offsets$` and its entries' `key` and `value` vectors (a null map is an empty one); an
  array of maps is a REPEATED DICT: `$offsets$` and the maps' DICT vector (`$inner$`, REQUIRED).

A column is encoded whole from its Arrow buffers (numpy and pyarrow compute), never a Python
object per value: the answer's batches come from Spark's JVM as Arrow (rows.py). An empty
batch keeps every vector with no values and no bytes (the schema of an empty answer).
`entry_array` builds a column's Arrow array from plain entries (an answer made without Spark,
and the tests' rows), so that one encoder writes every answer."""

from __future__ import annotations

import base64
import decimal
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from drillspark.server.native.messages import (
    DataMode,
    MajorType,
    MinorType,
    NamePart,
    SerializedField,
)
from drillspark.server.values import holds, holds_year_month

_DAY_MS = 86_400_000

# fixed-width types: a value's numpy type (little-endian) and Arrow type
_FIXED: dict[MinorType, tuple[str, pa.DataType]] = {
    MinorType.TINYINT: ("<i1", pa.int8()),
    MinorType.SMALLINT: ("<i2", pa.int16()),
    MinorType.INT: ("<i4", pa.int32()),
    MinorType.BIGINT: ("<i8", pa.int64()),
    MinorType.FLOAT4: ("<f4", pa.float32()),
    MinorType.FLOAT8: ("<f8", pa.float64()),
    MinorType.DATE: ("<i8", pa.date32()),
    MinorType.TIMESTAMP: ("<i8", pa.timestamp("ms")),
    MinorType.TIME: ("<i4", pa.time32("ms")),
    MinorType.INTERVALYEAR: ("<i4", pa.int32()),
}
_VARIABLE = {MinorType.VARCHAR, MinorType.VARBINARY, MinorType.VARDECIMAL}
# an Arrow time unit's ticks per millisecond
_PER_MS = {"s": 0.001, "ms": 1, "us": 1_000, "ns": 1_000_000}


@dataclass
class Column:
    """A result column's Drill type: the vector that carries it."""

    name: str
    minor: MinorType
    mode: DataMode = DataMode.OPTIONAL
    precision: int | None = None
    scale: int | None = None
    children: list[Column] = field(default_factory=list)  # MAP members, an element, DICT's two
    as_text: bool = False  # a Spark type Drill has no vector for here: its text

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
    nested = kind in ("StructType", "ArrayType", "MapType")
    if nested and (holds_year_month(data_type) or holds(data_type, "VariantType")):
        # as Flight SQL's writer sends it (batches.arrow_ready): Spark writes no Arrow for a
        # year-month interval, and a VARIANT's is its binary encoding: a nested one as text
        return Column(name, MinorType.VARCHAR, mode, as_text=True)
    if kind == "StructType":
        members = [column_of(f.name, f.dataType, f.nullable) for f in data_type.fields]
        return Column(name, MinorType.MAP, DataMode.REQUIRED, children=members)
    if kind == "MapType":  # Drill's DICT: never null (a null map is an empty one)
        # its key nullable, as Drill 1.22 reads a Parquet map's (required) key
        key = column_of("key", data_type.keyType, True)
        value = column_of("value", data_type.valueType, data_type.valueContainsNull)
        if key.as_text or value.as_text:
            return Column(name, MinorType.VARCHAR, mode, as_text=True)
        return Column(name, MinorType.DICT, DataMode.REQUIRED, children=[key, value])
    if kind == "ArrayType":
        element = column_of("$data$", data_type.elementType, False)
        if element.as_text:
            return Column(name, MinorType.VARCHAR, mode, as_text=True)
        if element.minor == MinorType.DICT:  # Drill's REPEATED DICT: its maps' `$inner$`
            element.name = "$inner$"
            return Column(name, MinorType.DICT, DataMode.REPEATED, children=[element])
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
    if minor is None:  # whatever else: its text
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
def encode(
    columns: list[Column], arrays: Sequence[pa.Array]
) -> tuple[list[SerializedField], bytes]:
    """The vectors of one record batch (an Arrow array per column): each column's field and
    all their buffers."""
    fields, buffers = [], []
    for column, array in zip(columns, arrays, strict=True):
        f, data = vector(column, array)
        fields.append(f)
        buffers.append(data)
    return fields, b"".join(buffers)


def batch(
    columns: list[Column], rows: Sequence[Sequence[Any]]
) -> tuple[list[SerializedField], bytes]:
    """The vectors of plain `rows` (lists of entries, as entry_array takes them)."""
    return encode(columns, [entry_array(c, [r[i] for r in rows]) for i, c in enumerate(columns)])


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


def _valid(array: pa.Array) -> np.ndarray:
    """Which values are set (a bool per value)."""
    if not array.null_count:
        return np.ones(len(array), dtype=bool)
    return np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def vector(column: Column, array: pa.Array) -> tuple[SerializedField, bytes]:
    """One column's vector for an Arrow array of its values."""
    count = len(array)
    if column.as_text:
        array = _text(array)
    if column.mode == DataMode.OPTIONAL:
        bits = _valid(array).view(np.uint8).tobytes()
        bits_field = SerializedField(
            major_type=MajorType(minor_type=MinorType.UINT1, mode=DataMode.REQUIRED),
            name_part=NamePart(name="$bits$"),
            value_count=count,
            buffer_length=len(bits),
        )
        inner, data = _values(column, array)
        return _field(column, count, len(bits) + len(data), [bits_field, inner]), bits + data
    if column.mode == DataMode.REPEATED:
        return _repeated(column, array)
    return _values(column, array)


def _text(array: pa.Array) -> pa.Array:
    """An as-text column's values: Spark's text of them (a string array), else their JSON."""
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        return array
    return pa.array(
        [None if v is None else json.dumps(v, default=str) for v in array.to_pylist()],
        pa.string(),
    )


def _offsets(lengths: np.ndarray) -> tuple[SerializedField, bytes]:
    """The `$offsets$` vector of values of these lengths (none at all for no values)."""
    if not len(lengths):
        offsets = b""
        count = 0
    else:
        positions = np.zeros(len(lengths) + 1, dtype="<u4")
        np.cumsum(lengths, out=positions[1:], dtype="<u4")
        offsets = positions.tobytes()
        count = len(positions)
    f = SerializedField(
        major_type=MajorType(minor_type=MinorType.UINT4, mode=DataMode.REQUIRED),
        name_part=NamePart(name="$offsets$"),
        value_count=count,
        buffer_length=len(offsets),
    )
    return f, offsets


def _values(column: Column, array: pa.Array) -> tuple[SerializedField, bytes]:
    """The values themselves (a null's slot holds a zero value)."""
    count = len(array)
    minor = column.minor
    if minor == MinorType.MAP:
        members = _members(array, len(column.children))
        children, parts = [], []
        for member, values in zip(column.children, members, strict=True):
            f, data = vector(member, values)
            children.append(f)
            parts.append(data)
        data = b"".join(parts)
        return _field(column, count, len(data), children), data
    if minor == MinorType.DICT:
        return _repeated(column, array)
    if minor in _VARIABLE:
        lengths, data = (_decimals if minor == MinorType.VARDECIMAL else _bytes)(array)
        offsets_field, offsets = _offsets(lengths)
        data = offsets + data
        return _field(column, count, len(data), [offsets_field]), data
    if minor == MinorType.BIT:
        if pa.types.is_null(array.type):
            bools = np.zeros(count, dtype=bool)
        else:
            bools = np.asarray(array.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        packed = np.packbits(bools, bitorder="little").tobytes()
        return _field(column, count, len(packed), []), packed
    if minor == MinorType.INTERVALDAY:
        total = _ticks(array, "ms")  # milliseconds, as Drill's interval holds them
        days = np.where(total < 0, -(-total // _DAY_MS), total // _DAY_MS)
        slots = np.zeros((count, 3), dtype="<i4")  # days, milliseconds, an unused int
        slots[:, 0] = days
        slots[:, 1] = total - days * _DAY_MS
        data = slots.tobytes()
        return _field(column, count, len(data), []), data
    data = _fixed(minor, array).tobytes()
    return _field(column, count, len(data), []), data


def _members(array: pa.Array, n: int) -> list[pa.Array]:
    """A struct's member arrays (a null struct's members null)."""
    if pa.types.is_null(array.type):
        return [array] * n
    return list(array.flatten())


def _ticks(array: pa.Array, unit: str) -> np.ndarray:
    """A temporal array (timestamp, time, duration) as whole `unit`s (floored; rounded for a
    duration, as Drill rounds a second's fraction), nulls 0."""
    if pa.types.is_null(array.type):
        return np.zeros(len(array), dtype=np.int64)
    from_unit = getattr(array.type, "unit", unit)
    whole = pa.int32() if pa.types.is_time32(array.type) else pa.int64()
    raw = pc.cast(array, whole).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    ratio = _PER_MS[from_unit] / _PER_MS[unit]
    if ratio == 1:
        return raw
    if ratio < 1:
        return raw * round(1 / ratio)
    if pa.types.is_duration(array.type):
        return np.rint(raw / ratio).astype(np.int64)
    return raw // int(ratio)


def _fixed(minor: MinorType, array: pa.Array) -> np.ndarray:
    dtype, _ = _FIXED[minor]
    t = array.type
    if pa.types.is_null(t):
        return np.zeros(len(array), dtype=dtype)
    if minor == MinorType.DATE:
        if pa.types.is_date32(t):
            days = pc.cast(array, pa.int32()).fill_null(0).to_numpy(zero_copy_only=False)
            return days.astype(dtype) * _DAY_MS
        return _ticks(array, "ms").astype(dtype)
    if minor in (MinorType.TIMESTAMP, MinorType.TIME):
        return _ticks(array, "ms").astype(dtype)
    if pa.types.is_string(t):  # NaN / Infinity as text
        array = pc.cast(array, pa.float64())
    return array.fill_null(0).to_numpy(zero_copy_only=False).astype(dtype, copy=False)


def _bytes(array: pa.Array) -> tuple[np.ndarray, bytes]:
    """The lengths and bytes of a string or binary array (a null is no bytes)."""
    t = array.type
    kinds = (
        pa.types.is_string,
        pa.types.is_binary,
        pa.types.is_large_string,
        pa.types.is_large_binary,
    )
    if not any(kind(t) for kind in kinds):
        array = pc.cast(array, pa.string())
    if array.null_count:
        binary = pa.types.is_binary(array.type) or pa.types.is_large_binary(array.type)
        array = array.fill_null(pa.scalar(b"" if binary else "", array.type))
    n = len(array)
    if not n:
        return np.zeros(0, dtype=np.int64), b""
    wide = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    _, offsets_buffer, data_buffer = array.buffers()
    assert offsets_buffer is not None
    offsets = np.frombuffer(offsets_buffer, dtype="<i8" if wide else "<i4")
    offsets = offsets[array.offset : array.offset + n + 1]
    start, end = int(offsets[0]), int(offsets[-1])
    data = b"" if data_buffer is None or end == start else data_buffer[start:end].to_pybytes()
    return np.diff(offsets), data


def _decimals(array: pa.Array) -> tuple[np.ndarray, bytes]:
    """The lengths and bytes of a decimal array: each unscaled value as Java's
    BigInteger.toByteArray writes it (big-endian two's complement, the fewest bytes that keep
    its sign; a null is no bytes)."""
    n = len(array)
    if not pa.types.is_decimal(array.type):
        array = pc.cast(array, pa.decimal128(38, 0))
    width = array.type.byte_width
    if not n:
        return np.zeros(0, dtype=np.int64), b""
    raw = np.frombuffer(array.buffers()[1], dtype=np.uint8)
    little = raw[array.offset * width : (array.offset + n) * width].reshape(n, width)
    big = little[:, ::-1]
    negative = big[:, 0] >= 0x80
    sign_byte = np.where(negative, 0xFF, 0).astype(np.uint8)
    # leading bytes that only repeat the sign (the last byte always stays)
    lead = np.cumprod(big[:, : width - 1] == sign_byte[:, None], axis=1).sum(axis=1)
    first = big[np.arange(n), lead]
    lengths = width - lead + ((first >= 0x80) != negative)  # a sign byte back where needed
    lengths[~_valid(array)] = 0
    keep = np.arange(width)[None, :] >= (width - lengths)[:, None]
    return lengths, big[keep].tobytes()


def _list_parts(array: pa.Array) -> tuple[np.ndarray, Callable[[pa.Array], pa.Array]]:
    """A list (or map) array's lengths (a null list is empty) and how to cut its elements
    (a child array) down to those of its values, in order."""
    if pa.types.is_null(array.type):
        return np.zeros(len(array), dtype=np.int64), lambda child: child.slice(0, 0)
    offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    lengths = np.diff(offsets)
    start, end = (int(offsets[0]), int(offsets[-1])) if len(offsets) else (0, 0)
    valid = _valid(array)
    if not valid.all():
        if lengths[~valid].any():  # a null list over elements: leave them out
            keep = np.repeat(valid, lengths)
            picked = pa.array(np.arange(start, end)[keep])
            return np.where(valid, lengths, 0), lambda child: child.take(picked)
        lengths = np.where(valid, lengths, 0)
    return lengths, lambda child: child.slice(start, end - start)


def _repeated(column: Column, array: pa.Array) -> tuple[SerializedField, bytes]:
    """A REPEATED column (its elements' vector or a REPEATED MAP's members) or a DICT (its
    keys' and values' vectors)."""
    count = len(array)
    offsets_field, _ = _offsets(np.zeros(0, dtype=np.int64))
    if not count and _repeats_dicts(column):
        # Drill 1.22's empty REPEATED DICT: its `$inner$` lists its `$offsets$` alone
        inner = _field(column.children[0], 0, 0, [offsets_field])
        return _field(column, 0, 0, [offsets_field, inner]), b""
    if not count:  # Drill's empty repeated vector: its children, no values, no bytes
        empty = [vector(c, entry_array(c, []))[0] for c in column.children]
        return _field(column, 0, 0, [offsets_field, *empty]), b""
    lengths, cut = _list_parts(array)
    offsets_field, offsets = _offsets(lengths)
    if column.minor == MinorType.DICT and not _repeats_dicts(column):
        if pa.types.is_null(array.type):
            parts = [entry_array(c, []) for c in column.children]
        else:
            parts = [cut(array.keys), cut(array.items)]
    elif column.minor == MinorType.MAP:  # REPEATED MAP: the members over all elements
        elements = array.values if not pa.types.is_null(array.type) else pa.nulls(0)
        parts = _members(cut(elements), len(column.children))
    else:
        elements = array.values if not pa.types.is_null(array.type) else pa.nulls(0)
        parts = [cut(elements)]
    children, buffers = [offsets_field], [offsets]
    for child, values in zip(column.children, parts, strict=True):
        f, data = vector(child, values)
        children.append(f)
        buffers.append(data)
    data = b"".join(buffers)
    out = _field(column, count, len(data), children)
    element = column.children[0] if column.minor not in (MinorType.DICT, MinorType.MAP) else None
    if element is not None and element.minor in _VARIABLE and element.mode == DataMode.REQUIRED:
        out.var_byte_length = len(data) - len(offsets) - (children[1].child[0].buffer_length or 0)
    return out, data


def _repeats_dicts(column: Column) -> bool:
    """A REPEATED DICT (an array of maps), not a DICT (whose own vector repeats entries)."""
    return column.minor == MinorType.DICT and column.mode == DataMode.REPEATED


# ------------------------------------------------------------------------ plain entries
def entry_array(column: Column, values: list[Any]) -> pa.Array:
    """A column's Arrow array from plain entries, None for null: numbers, booleans and
    strings as they are, a decimal's unscaled integer, binary as base64 text, a date as days
    since 1970-01-01, a timestamp as epoch milliseconds, a time as milliseconds of the day, a
    day-time interval as [days, milliseconds], a year-month one as months, a struct as a list
    of its members' entries, an array as a list of its elements' entries, a map as a list of
    [key, value] entries."""
    minor = column.minor
    if column.as_text:
        text = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
        return pa.array(text, pa.string())
    if column.mode == DataMode.REPEATED or minor == MinorType.DICT:
        lists = [v or [] for v in values]
        offsets = pa.array(np.cumsum([0, *map(len, lists)]), pa.int32())
        flat = [x for items in lists for x in items]
        if minor == MinorType.DICT and column.mode != DataMode.REPEATED:
            key, value = column.children
            keys = entry_array(key, [e[0] for e in flat])
            items = entry_array(value, [e[1] for e in flat])
            return pa.MapArray.from_arrays(offsets, keys, items)
        element = (  # a REPEATED DICT's element: its `$inner$` DICT column
            Column("$data$", MinorType.MAP, DataMode.REQUIRED, children=column.children)
            if minor == MinorType.MAP
            else column.children[0]
        )
        return pa.ListArray.from_arrays(offsets, entry_array(element, flat))
    if minor == MinorType.MAP:
        members = [
            entry_array(m, [None if v is None else v[j] for v in values])
            for j, m in enumerate(column.children)
        ]
        names = [m.name for m in column.children]
        if not members:
            return pa.nulls(len(values), pa.struct([]))
        return pa.StructArray.from_arrays(members, names=names)
    if minor == MinorType.VARCHAR:
        return pa.array([None if v is None else str(v) for v in values], pa.string())
    if minor == MinorType.VARBINARY:
        return pa.array([None if v is None else base64.b64decode(v) for v in values], pa.binary())
    if minor == MinorType.VARDECIMAL:
        scale = column.scale or 0
        exact = [None if v is None else decimal.Decimal(int(v)).scaleb(-scale) for v in values]
        return pa.array(exact, pa.decimal128(column.precision or 38, scale))
    if minor == MinorType.BIT:
        return pa.array([None if v is None else bool(v) for v in values], pa.bool_())
    if minor == MinorType.INTERVALDAY:
        ms = [None if v is None else v[0] * _DAY_MS + v[1] for v in values]
        return pa.array(ms, pa.duration("ms"))
    if minor in (MinorType.FLOAT4, MinorType.FLOAT8):
        values = [_special(v) if isinstance(v, str) else v for v in values]
    _, arrow_type = _FIXED[minor]
    return pa.array(values, arrow_type)


def _special(text: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(text, 0.0)
