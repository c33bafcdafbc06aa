"""Drill's RPC frames: a varint length, then (as protobuf fields 1, 2 and 3 of one message)
the RpcHeader, the message body and, for record batches, the raw vector buffers."""

from __future__ import annotations

import select
import socket
import time
from dataclasses import dataclass

from drillspark.errors import UsageError
from drillspark.server.native.messages import RpcHeader
from drillspark.server.native.wire import WireError, read_varint, varint

MAX_FRAME = 256 << 20  # a client's frame larger than this is refused (queries are small)
FRAME_SECONDS = 30.0  # a frame begun must be whole within this time
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


def read_frame(
    sock: socket.socket,
    max_frame: int = MAX_FRAME,
    frame_seconds: float = FRAME_SECONDS,
    first_seconds: float | None = None,
) -> Frame:
    """The next frame from `sock`; PeerClosed when the peer closed between frames. Once a
    frame has begun, the rest must come within `frame_seconds` (a client stopped inside a
    frame is dropped); `first_seconds`: how long to wait for the frame to begin (None: no
    limit). The socket's own timeout is left alone (another thread sends on it)."""
    first = _recv(sock, 1, None if first_seconds is None else time.monotonic() + first_seconds)
    if not first:
        raise PeerClosed("the peer closed the connection")
    deadline = time.monotonic() + frame_seconds
    length, shift, byte = 0, 0, first[0]
    for i in range(5):
        if i:
            more = _recv(sock, 1, deadline)
            if not more:
                raise FrameError("the connection closed inside a frame's length")
            byte = more[0]
        length |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    else:
        raise FrameError("a frame length wider than 32 bits")
    if length <= 0:
        raise FrameError("a frame of length 0")
    if length > max_frame:
        raise FrameError(f"a frame of {length} bytes, more than the {max_frame} allowed")
    data = _read_exact(sock, length, deadline)
    if data[: len(_HEADER_TAG)] != _HEADER_TAG:
        raise FrameError("not an RPC frame (it does not start with its header)")
    return decode(data)


def _recv(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    if deadline is not None:
        left = deadline - time.monotonic()
        readable, _, _ = select.select([sock], [], [], max(left, 0))
        if not readable:
            raise FrameError("the client stopped sending inside a frame (or never began)")
    return sock.recv(size)


def _read_exact(sock: socket.socket, size: int, deadline: float | None = None) -> bytes:
    parts, left = [], size
    while left:
        chunk = _recv(sock, min(left, 1 << 20), deadline)
        if not chunk:
            raise FrameError("the connection closed inside a frame")
        parts.append(chunk)
        left -= len(chunk)
        if left and len(parts) == 1 and parts[0][:1] not in (b"", _HEADER_TAG):
            raise FrameError("not an RPC frame (it does not start with its header)")
    return b"".join(parts)
