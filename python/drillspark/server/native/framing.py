"""Drill's RPC frames: a varint length, then (as protobuf fields 1, 2 and 3 of one message)
the RpcHeader, the message body and, for record batches, the raw vector buffers."""

from __future__ import annotations

import socket
from dataclasses import dataclass

from drillspark.errors import UsageError
from drillspark.server.native.messages import RpcHeader
from drillspark.server.native.wire import WireError, read_varint, varint

MAX_FRAME = 256 << 20  # a client's frame larger than this is refused (queries are small)
_HEADER_TAG = varint(1 << 3 | 2)
_BODY_TAG = varint(2 << 3 | 2)
_RAW_TAG = varint(3 << 3 | 2)


class FrameError(WireError):
    """A frame that is not Drill's RPC framing (garbage, truncated, too large)."""


class PeerClosed(UsageError):
    """The peer closed the connection between frames (the end of a conversation)."""


@dataclass
class Frame:
    mode: int
    coordination_id: int
    rpc_type: int
    body: bytes
    raw: bytes = b""


def encode(mode: int, coordination_id: int, rpc_type: int, body: bytes, raw: bytes = b"") -> bytes:
    header = RpcHeader(mode=mode, coordination_id=coordination_id, rpc_type=rpc_type).encode()
    out = _HEADER_TAG + varint(len(header)) + header + _BODY_TAG + varint(len(body)) + body
    if raw:
        out += _RAW_TAG + varint(len(raw)) + raw
    return varint(len(out)) + out


def decode(data: bytes) -> Frame:
    """One frame's content (without its length)."""
    pos = 0
    parts: dict[int, bytes] = {}
    for tag, number in ((_HEADER_TAG, 1), (_BODY_TAG, 2), (_RAW_TAG, 3)):
        if pos == len(data) and number == 3:
            break
        if data[pos : pos + len(tag)] != tag:
            raise FrameError(f"expected field {number} of an RPC frame at byte {pos}")
        pos += len(tag)
        size, pos = read_varint(data, pos)
        if pos + size > len(data):
            raise FrameError("an RPC frame's part runs past its end")
        parts[number] = data[pos : pos + size]
        pos += size
    if pos != len(data):
        raise FrameError("bytes after an RPC frame's parts")
    header = RpcHeader.decode(parts[1])
    return Frame(
        header.mode or 0,
        header.coordination_id or 0,
        header.rpc_type or 0,
        parts[2],
        parts.get(3, b""),
    )


def read_frame(sock: socket.socket, max_frame: int = MAX_FRAME) -> Frame:
    """The next frame from `sock`; PeerClosed when the peer closed between frames."""
    length = shift = 0
    for i in range(5):
        byte = sock.recv(1)
        if not byte:
            if i == 0:
                raise PeerClosed("the peer closed the connection")
            raise FrameError("the connection closed inside a frame's length")
        length |= (byte[0] & 0x7F) << shift
        shift += 7
        if byte[0] < 0x80:
            break
    else:
        raise FrameError("a frame length wider than 32 bits")
    if length <= 0:
        raise FrameError("a frame of length 0")
    if length > max_frame:
        raise FrameError(f"a frame of {length} bytes, more than the {max_frame} allowed")
    return decode(_read_exact(sock, length))


def _read_exact(sock: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise FrameError("the connection closed inside a frame")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)
