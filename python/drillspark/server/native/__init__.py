"""Drill 1.22's native user protocol (the JDBC driver's and sqlline's, on Drill's port 31010)
for `drillspark serve`: protobuf messages over length-prefixed RPC frames, results as Drill's
value vectors. See docs/server.md, "Native protocol".

    wire.py        a small protobuf codec (varints, fields, messages as dataclasses)
    messages.py    the user protocol's messages and enums that drillspark uses
    framing.py     RPC frames: length, RpcHeader, body, raw buffers
    rows.py        an answer as Arrow record batches (the QueryManager's arrow writer)
    vectors.py     Arrow batches as Drill's value vectors (record batches), column by column
    metadata.py    catalogs, schemas, tables, columns, server meta, prepared statements
    connection.py  one client: handshake, login, queries, cancel, heartbeats
    server.py      the listener"""

from __future__ import annotations

from drillspark.server.native.server import DEFAULT_PORT, NativeServer

__all__ = ["DEFAULT_PORT", "NativeServer"]
