"""A small protobuf codec, written for the messages of Drill's user protocol (messages.py).

A message is a dataclass deriving from `Message` whose fields are declared with `pb(number,
kind)`: `kind` is one of the scalar kinds below or a Message class (a nested message). A field
left at None is absent from the encoding (protobuf's "not set"); a repeated field is a list.
Fields are written in field-number order, as protobuf's Java runtime (Drill's) writes them, so
an encoding is byte for byte what a Drillbit would send for the same values. Decoding skips
unknown fields, as protobuf does, and keeps the last value of a repeated scalar field's packed
or unpacked encodings alike.

Only what Drill's user messages use is here: varint kinds (int32, uint32, int64, bool, enum),
sfixed64, double, string, bytes and nested messages."""

from __future__ import annotations

import dataclasses
import struct
from typing import Any, Self, cast

from drillspark.errors import UsageError

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
_VARINT_KINDS = {"int32", "uint32", "int64", "bool", "enum"}
_WIRE = {
    "int32": VARINT,
    "uint32": VARINT,
    "int64": VARINT,
    "bool": VARINT,
    "enum": VARINT,
    "sfixed64": FIXED64,
    "double": FIXED64,
    "string": LENGTH,
    "bytes": LENGTH,
}


class WireError(UsageError, ValueError):
    """Bytes that are not the protobuf encoding of the expected message."""


def varint(value: int) -> bytes:
    """The base-128 varint of `value`; a negative value as its 64-bit two's complement (ten
    bytes), as protobuf writes a negative int32."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """(value, next position) of the varint at `pos`."""
    result = shift = 0
    end = len(data)
    while True:
        if pos >= end:
            raise WireError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise WireError("malformed varint (more than ten bytes)")


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


@dataclasses.dataclass(frozen=True)
class _Spec:
    number: int
    kind: str | type[Message]
    repeated: bool


def _own(spec: _Spec, cls: type[Message]) -> _Spec:
    """A spec whose kind "self" (a message holding messages of its own type) names `cls`."""
    return dataclasses.replace(spec, kind=cls) if spec.kind == "self" else spec


def pb(number: int, kind: str | type[Message], repeated: bool = False) -> Any:
    """A message field: its number and kind (a scalar kind's name, a Message class, or
    "self" for the message's own class)."""
    spec = _Spec(number, kind, repeated)
    if repeated:
        return dataclasses.field(default_factory=list, metadata={"pb": spec})
    return dataclasses.field(default=None, metadata={"pb": spec})


_SPECS: dict[type, list[tuple[str, _Spec]]] = {}


class Message:
    """Base of the protocol's messages (each a dataclass of `pb` fields)."""

    @classmethod
    def specs(cls) -> list[tuple[str, _Spec]]:
        """(attribute, spec) of each field, in field-number order."""
        cached = _SPECS.get(cls)
        if cached is None:
            fields = dataclasses.fields(cast(Any, cls))
            cached = sorted(
                ((f.name, _own(f.metadata["pb"], cls)) for f in fields if "pb" in f.metadata),
                key=lambda item: item[1].number,
            )
            _SPECS[cls] = cached
        return cached

    # ----------------------------------------------------------------- encoding
    def encode(self) -> bytes:
        out = bytearray()
        for name, spec in self.specs():
            value = getattr(self, name)
            if value is None:
                continue
            for item in value if spec.repeated else (value,):
                _encode_field(out, spec, item)
        return bytes(out)

    # ----------------------------------------------------------------- decoding
    @classmethod
    def decode(cls, data: bytes | memoryview) -> Self:
        by_number = {spec.number: (name, spec) for name, spec in cls.specs()}
        values: dict[str, Any] = {}
        pos, end = 0, len(data)
        while pos < end:
            tag, pos = read_varint(data, pos)
            number, wire = tag >> 3, tag & 7
            if number == 0:
                raise WireError("field number 0")
            if wire == VARINT:
                raw: Any
                raw, pos = read_varint(data, pos)
            elif wire == FIXED64:
                raw = bytes(data[pos : pos + 8])
                pos += 8
            elif wire == FIXED32:
                raw = bytes(data[pos : pos + 4])
                pos += 4
            elif wire == LENGTH:
                size, pos = read_varint(data, pos)
                raw = data[pos : pos + size]
                pos += size
            else:
                raise WireError(f"unsupported wire type {wire}")
            if pos > end:
                raise WireError("truncated message")
            known = by_number.get(number)
            if known is None:
                continue
            name, spec = known
            for value in _decode_value(spec, wire, raw):
                if spec.repeated:
                    values.setdefault(name, []).append(value)
                else:
                    values[name] = value
        return cls(**values)


def _encode_field(out: bytearray, spec: _Spec, value: Any) -> None:
    kind = spec.kind
    if isinstance(kind, type):
        body = value.encode()
        out += varint(spec.number << 3 | LENGTH) + varint(len(body)) + body
        return
    out += varint(spec.number << 3 | _WIRE[kind])
    if kind in _VARINT_KINDS:
        out += varint(int(value))
    elif kind == "sfixed64":
        out += struct.pack("<q", value)
    elif kind == "double":
        out += struct.pack("<d", value)
    elif kind == "string":
        body = value.encode("utf-8", "surrogatepass")
        out += varint(len(body)) + body
    else:  # bytes
        out += varint(len(value)) + bytes(value)


def _decode_value(spec: _Spec, wire: int, raw: Any) -> list[Any]:
    kind = spec.kind
    if isinstance(kind, type):
        if wire != LENGTH:
            raise WireError(f"field {spec.number}: a message needs wire type 2")
        return [kind.decode(raw)]
    if kind in _VARINT_KINDS and wire == LENGTH:  # a packed repeated field
        items, pos = [], 0
        while pos < len(raw):
            value, pos = read_varint(raw, pos)
            items.append(_scalar(kind, value))
        return items
    if wire != _WIRE[kind]:
        raise WireError(f"field {spec.number}: wire type {wire} for a {kind}")
    if kind in _VARINT_KINDS:
        return [_scalar(kind, raw)]
    if kind == "sfixed64":
        return [struct.unpack("<q", raw)[0]]
    if kind == "double":
        return [struct.unpack("<d", raw)[0]]
    if kind == "string":
        try:
            return [bytes(raw).decode("utf-8")]
        except UnicodeDecodeError:
            raise WireError(f"field {spec.number}: a string that is not UTF-8") from None
    return [bytes(raw)]


def _scalar(kind: str, value: int) -> Any:
    if kind == "bool":
        return value != 0
    if kind in ("int32", "enum"):
        return _signed(value, 32) if value < (1 << 32) else _signed(value, 64)
    if kind == "int64":
        return _signed(value, 64)
    return value  # uint32
