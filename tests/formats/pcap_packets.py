"""Small packet captures written byte by byte (classic pcap and pcapng), for the pcap tests and
for asking real Drill the same questions: the files are made here, never committed."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _ipv4(proto: int, src: str, dst: str, payload: bytes) -> bytes:
    header = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0,
        socket.inet_aton(src), socket.inet_aton(dst),
    )  # fmt: skip
    header = header[:10] + struct.pack("!H", _checksum(header)) + header[12:]
    return DST_MAC + SRC_MAC + b"\x08\x00" + header + payload


def _ipv6(proto: int, src: str, dst: str, payload: bytes) -> bytes:
    header = struct.pack("!IHBB", 0x60000000, len(payload), proto, 64)
    header += socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst)
    return DST_MAC + SRC_MAC + b"\x86\xdd" + header + payload


def udp(src: str, sport: int, dst: str, dport: int, data: bytes, v6: bool = False) -> bytes:
    segment = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    return _ipv6(17, src, dst, segment) if v6 else _ipv4(17, src, dst, segment)


def tcp(src: str, sport: int, dst: str, dport: int, flags: int, seq: int, ack: int = 0,
        data: bytes = b"") -> bytes:  # fmt: skip
    segment = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + data
    return _ipv4(6, src, dst, segment)


FIN, SYN, RST, PSH, ACK, URG = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20

# (epoch seconds, microseconds, frame): the captures every pcap test and the oracle read
PACKETS: list[tuple[int, int, bytes]] = [
    (1700000000, 123456, udp("192.168.1.10", 53000, "8.8.8.8", 53, b"hello drill")),
    (1700000001, 500000, tcp("192.168.1.10", 40000, "93.184.216.34", 80, SYN, 1000)),
    (1700000002, 7, tcp("93.184.216.34", 80, "192.168.1.10", 40000, SYN | ACK, 5000, 1001)),
    (
        1700000003,
        999999,
        tcp(
            "192.168.1.10",
            40000,
            "93.184.216.34",
            80,
            PSH | ACK,
            1001,
            5001,
            b"GET / HTTP/1.0\r\n\r\n",
        ),
    ),  # fmt: skip
    (1700000004, 0, udp("fe80::1", 5353, "ff02::fb", 5353, b"mdns", v6=True)),
    (1700000005, 250000, tcp("10.0.0.1", 1234, "10.0.0.2", 22, FIN | ACK | URG, 7, 8)),
]


def write_pcap(path: Path, packets=PACKETS) -> Path:
    """Classic pcap: little-endian, microseconds, Ethernet link type."""
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for sec, usec, frame in packets:
        out += struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame
    path.write_bytes(bytes(out))
    return path


def _block(kind: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    length = 12 + len(body)
    return struct.pack("<II", kind, length) + body + struct.pack("<I", length)


def write_pcapng(path: Path, packets=PACKETS) -> Path:
    """pcapng: a section header, one Ethernet interface (microseconds), enhanced packet blocks."""
    out = bytearray(_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
    out += _block(1, struct.pack("<HHI", 1, 0, 65535))
    for sec, usec, frame in packets:
        ts = sec * 1_000_000 + usec
        body = struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(frame), len(frame)) + frame
        out += _block(6, body)
    path.write_bytes(bytes(out))
    return path


def write_truncated_pcap(path: Path) -> Path:
    """Two whole packets, then a record header promising more bytes than the file holds."""
    write_pcap(path, PACKETS[:2])
    frame = PACKETS[2][2]
    with path.open("ab") as f:
        f.write(struct.pack("<IIII", 1700000009, 0, len(frame), len(frame)) + frame[:10])
    return path


def _conversation(client: str, cport: int, server: str, sport: int, t0: int, ask: bytes,
                  reply: bytes) -> list[tuple[int, int, bytes]]:  # fmt: skip
    """One whole TCP connection: handshake, a request and a reply, both sides closing."""
    c, s = 1000, 5000
    steps = [
        (True, SYN, c, 0, b""),
        (False, SYN | ACK, s, c + 1, b""),
        (True, ACK, c + 1, s + 1, b""),
        (True, PSH | ACK, c + 1, s + 1, ask),
        (False, PSH | ACK, s + 1, c + 1 + len(ask), reply),
        (True, FIN | ACK, c + 1 + len(ask), s + 1 + len(reply), b""),
        (False, FIN | ACK, s + 1 + len(reply), c + 2 + len(ask), b""),
        (True, ACK, c + 2 + len(ask), s + 2 + len(reply), b""),
    ]
    out = []
    for i, (outgoing, flags, seq, ack, data) in enumerate(steps):
        frame = (
            tcp(client, cport, server, sport, flags, seq, ack, data)
            if outgoing
            else tcp(server, sport, client, cport, flags, seq, ack, data)
        )
        out.append((t0 + i, 250000 * (i % 4), frame))
    return out


# Two interleaved TCP connections and a UDP datagram: what `sessionizeTCPStreams` groups
SESSION_PACKETS: list[tuple[int, int, bytes]] = sorted(
    _conversation("10.1.1.1", 5000, "10.1.1.2", 80, 1700001000, b"hello", b"world!")
    + _conversation("10.1.1.3", 6000, "10.1.1.2", 443, 1700001002, b"ping", b"pong pong")
    + [(1700001003, 500000, udp("10.1.1.9", 999, "10.1.1.2", 53, b"dns?"))]
)
