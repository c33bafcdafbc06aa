"""The native protocol's encoding, byte for byte against what Drill 1.22 sent its JDBC driver.

`drill_wire.json` holds frames recorded between Drill's JDBC driver 1.22.0 and a real Drill
1.22.0 Drillbit (../shared/tools/drill/server.sh, its user port, through a recording proxy):
the handshake and, per query, its record batches (QueryData body and raw vector buffers) and
its final QueryResult. drillspark's encoder is given the same columns (typed as Drill typed
them) and rows, and must write the same bytes; only the bytes under a null value, which Drill
leaves as they were in its buffer and drillspark zeroes, are not compared."""

from __future__ import annotations

import datetime as dt
import json
import socket
import struct
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from drillspark.server.native import framing, vectors
from drillspark.server.native import messages as m
from drillspark.server.native.metadata import like
from drillspark.server.native.vectors import Column
from drillspark.server.native.wire import WireError

WIRE = json.loads((Path(__file__).parent / "drill_wire.json").read_text())
T, D = m.MinorType, m.DataMode

_WIDTH = {T.INT: 4, T.BIGINT: 8, T.FLOAT4: 4, T.FLOAT8: 8, T.DATE: 8, T.TIMESTAMP: 8, T.TIME: 4,
          T.INTERVALYEAR: 4}  # fmt: skip


def column_of_field(f: m.SerializedField) -> Column:
    """The Column a captured field describes (as Drill typed it)."""
    major = f.major_type
    assert major is not None and f.name_part is not None
    name = f.name_part.name or ""
    minor, mode = T(major.minor_type), D(major.mode)
    if minor == T.MAP and mode == D.REQUIRED:
        return Column(name, minor, mode, children=[column_of_field(c) for c in f.child])
    if (mode == D.REPEATED and minor == T.MAP) or minor == T.DICT:
        return Column(name, minor, mode, children=[column_of_field(c) for c in f.child[1:]])
    if mode == D.REPEATED:
        element = column_of_field(f.child[1])
        return Column(name, minor, mode, children=[element])
    return Column(name, minor, mode, major.precision, major.scale)


def ignored(fields: list[m.SerializedField], raw: bytes) -> set[int]:
    """Positions of value bytes under nulls (fixed-width nullable columns)."""
    out: set[int] = set()
    pos = 0

    def walk(f: m.SerializedField, start: int) -> None:
        major = f.major_type
        assert major is not None
        if major.mode == D.OPTIONAL and f.child and f.child[0].name_part.name == "$bits$":
            bits = raw[start : start + (f.child[0].buffer_length or 0)]
            width = _WIDTH.get(T(major.minor_type))
            values = start + len(bits)
            if width:
                for i, bit in enumerate(bits):
                    if not bit:
                        out.update(range(values + i * width, values + (i + 1) * width))
            return
        if major.minor_type == T.MAP:
            at = start
            for c in f.child:
                walk(c, at)
                at += c.buffer_length or 0

    for f in fields:
        walk(f, pos)
        pos += f.buffer_length or 0
    return out


def _days(y: int, mo: int, d: int) -> int:
    return (dt.date(y, mo, d) - dt.date(1970, 1, 1)).days


def _ms(text: str) -> int:
    t = dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)
    return int(t.timestamp() * 1000)


# the rows of each recorded query, as rows.py writes them
ROWS: dict[str, list[list[Any]]] = {
    "SELECT CAST(1.5": [
        [
            150,
            2,
            3,
            0.5,
            1.5,
            _days(2024, 1, 2),
            _ms("2024-01-02 03:04:05.678"),
            ((3 * 60 + 4) * 60 + 5) * 1000,
            True,
            None,
            "héllo",
            "YWI=",
        ]
    ],
    "SELECT N_NATIONKEY": [[0, "ALGERIA", 0], [1, "ARGENTINA", 1], [2, "BRAZIL", 1]],
    "SELECT N_NAME": [],
    "SELECT id, m": [
        [1, [1, "a"], [1, 2], ["x", "y"], 0.5],
        [2, [2, None], [], [], None],
    ],
    "SELECT INTERVAL '1' DAY": [[[1, 0], 14, [1, 7384500], -12345678, 0, 128, -128, False]],
    "SELECT nest": [[[[1, 2], [3]]], [[]]],  # an array of arrays: a REPEATED LIST
    "SELECT INTERVAL '14'": [[14, 24, 14, None, -3]],  # year-month intervals: their months
    # a Parquet map (Drill's DICT: its key and value vectors, a null map an empty one)
    "SELECT id, d": [[1, [["a", 1], ["b", 2]]], [2, []], [3, None]],
    # a Parquet list of maps (Drill's REPEATED DICT: `$offsets$`, then the maps' `$inner$` DICT;
    # a null list an empty one)
    "SELECT id, ld": [[1, [[["a", 1], ["b", 2]], [["c", 3]]]], [2, []], [3, None], [4, [[]]]],
}


def _recorded() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for entry in WIRE["batches"]:
        for prefix in ROWS:
            if entry["sql"].startswith(prefix) and entry["data"]:
                out.append((prefix, entry))
    return out


@pytest.mark.parametrize(("prefix", "entry"), _recorded(), ids=[p for p, _ in _recorded()])
def test_record_batch_bytes_as_drill(prefix: str, entry: dict[str, Any]) -> None:
    recorded = entry["data"][-1]  # (a Parquet scan sends its schema in an empty batch first)
    body, raw = bytes.fromhex(recorded["body"]), bytes.fromhex(recorded["raw"])
    theirs = m.QueryData.decode(body)
    assert theirs.def_ is not None
    columns = [column_of_field(f) for f in theirs.def_.field]
    fields, ours_raw = vectors.batch(columns, ROWS[prefix])
    ours = m.QueryData(
        query_id=theirs.query_id,
        row_count=len(ROWS[prefix]),
        def_=m.RecordBatchDef(
            record_count=len(ROWS[prefix]), field=fields, carries_two_byte_selection_vector=False
        ),
    )
    assert ours == theirs
    assert ours.encode() == body
    skip = ignored(theirs.def_.field, raw)
    assert len(ours_raw) == len(raw)
    assert [b for i, b in enumerate(ours_raw) if i not in skip] == [
        b for i, b in enumerate(raw) if i not in skip
    ]


def test_empty_schema_batch_as_drill() -> None:
    """A Parquet scan's first batch is empty: its vectors with no values, as Drill lists them
    (an empty REPEATED DICT's `$inner$` lists its `$offsets$` alone)."""
    checked = 0
    for prefix, entry in _recorded():
        if len(entry["data"]) < 2:
            continue
        last = m.QueryData.decode(bytes.fromhex(entry["data"][-1]["body"]))
        first = m.QueryData.decode(bytes.fromhex(entry["data"][0]["body"]))
        assert last.def_ is not None and first.def_ is not None
        columns = [column_of_field(f) for f in last.def_.field]
        fields, raw = vectors.batch(columns, [])
        assert (fields, raw) == (first.def_.field, bytes.fromhex(entry["data"][0]["raw"])), prefix
        checked += 1
    assert checked == 2  # the map and the list of maps


def test_query_result_and_error_shape() -> None:
    completed = m.QueryResult.decode(bytes.fromhex(WIRE["batches"][0]["result"]))
    assert completed.query_state == m.QueryState.COMPLETED and completed.error == []
    failed = m.QueryResult.decode(bytes.fromhex(WIRE["batches"][-1]["result"]))
    assert failed.query_state == m.QueryState.FAILED
    err = failed.error[0]
    assert err.error_type == m.ErrorType.PARSE
    assert err.message is not None and err.message.startswith("PARSE ERROR: ")
    assert err.message.endswith(f"[Error Id: {err.error_id} ]")
    # drillspark's errors keep that shape: TYPE ERROR: message, then the id
    from drillspark.server.native.errors import drill_error

    ours = drill_error("Table not found", m.ErrorType.VALIDATION)
    assert ours.message == f"VALIDATION ERROR: Table not found\n\n\n[Error Id: {ours.error_id} ]"
    assert m.DrillPBError.decode(ours.encode()) == ours


def test_handshake_messages() -> None:
    client = m.UserToBitHandshake.decode(bytes.fromhex(WIRE["handshake"]["client"]))
    assert client.rpc_version == m.RPC_VERSION == 5
    assert client.credentials == m.UserCredentials(user_name="anonymous")
    assert client.sasl_support == 2 and client.support_timeout
    assert client.client_infos is not None
    assert client.client_infos.name == "Apache Drill JDBC Driver"
    server = m.BitToUserHandshake.decode(bytes.fromhex(WIRE["handshake"]["server"]))
    assert server.status == m.HandshakeStatus.SUCCESS
    assert server.server_infos is not None and server.server_infos.version == "1.22.0"
    # the same fields, re-encoded, are the same bytes (the codec writes in field order)
    assert server.encode() == bytes.fromhex(WIRE["handshake"]["server"])
    assert client.encode() == bytes.fromhex(WIRE["handshake"]["client"])


def test_frames_round_trip_and_refuse_garbage() -> None:
    body = m.QueryId(part1=-5, part2=7).encode()
    data = framing.encode(m.RpcMode.RESPONSE, 3, m.RpcType.QUERY_HANDLE, body, b"\x01\x02")
    a, b = socket.socketpair()
    with a, b:
        a.sendall(data + framing.encode(m.RpcMode.PING, 0, 0, m.Ack(ok=True).encode()))
        frame = framing.read_frame(b)
        assert (frame.mode, frame.coordination_id, frame.rpc_type) == (1, 3, 7)
        assert m.QueryId.decode(frame.body) == m.QueryId(part1=-5, part2=7)
        assert frame.raw == b"\x01\x02"
        ping = framing.read_frame(b)
        assert ping.mode == m.RpcMode.PING and m.Ack.decode(ping.body).ok
        a.sendall(b"\x05garba")  # five bytes that are no frame
        with pytest.raises(framing.FrameError):
            framing.read_frame(b)
        a.sendall(b"\x81\x80\x80\x80\x01")  # 256 MiB and a byte: more than allowed
        with pytest.raises(framing.FrameError, match="more than"):
            framing.read_frame(b)
        a.close()
        with pytest.raises(framing.PeerClosed):
            framing.read_frame(b)
    with pytest.raises(WireError):
        m.QueryId.decode(b"\x09\x01")  # a fixed64 cut short


def test_negative_int32_is_ten_bytes() -> None:
    # protobuf writes a negative int32 as its 64-bit two's complement
    assert m.RpcHeader(coordination_id=-1).encode() == b"\x10" + b"\xff" * 9 + b"\x01"
    assert m.RpcHeader.decode(b"\x10" + b"\xff" * 9 + b"\x01").coordination_id == -1


def test_arrow_from_spark_types() -> None:
    """Each Spark type's Arrow form (as Spark's JVM writes it: microseconds, date32, a
    duration, decimal128, a map) is encoded as the plain entries the recorded Drill batches
    pin (epoch milliseconds, days, [days, milliseconds], the unscaled decimal, ...)."""
    from decimal import Decimal

    import pyarrow as pa
    from pyspark.sql import types as ST
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = ST.StructType(
        [
            ST.StructField("d", ST.DecimalType(10, 3)),
            ST.StructField("ts", ST.TimestampNTZType()),
            ST.StructField("old", ST.TimestampType()),
            ST.StructField("dt", ST.DateType()),
            ST.StructField("iv", ST.DayTimeIntervalType()),
            ST.StructField("b", ST.BinaryType()),
            ST.StructField("m", ST.MapType(ST.StringType(), ST.LongType())),
            ST.StructField("s", ST.StructType([ST.StructField("k", ST.LongType())])),
            ST.StructField("a", ST.ArrayType(ST.StringType(), False)),
            ST.StructField("x", ST.DoubleType()),
        ]
    )
    arrow = to_arrow_schema(schema, timezone="UTC")
    before_1970 = dt.datetime(1969, 12, 31, 23, 59, 59, 999500, tzinfo=dt.UTC)
    values = [
        [Decimal("-12345.678"), None],
        [dt.datetime(2024, 1, 2, 3, 4, 5, 678000), None],
        [before_1970, None],
        [dt.date(2024, 1, 2), dt.date(1969, 12, 31)],
        [-dt.timedelta(seconds=0.5), dt.timedelta(days=1, seconds=7384, microseconds=500_000)],
        [b"ab", None],
        [{"a": 1}, None],
        [{"k": 7}, None],
        [["x", "yz"], None],
        [float("nan"), None],
    ]
    arrays = [pa.array(v, f.type) for v, f in zip(values, arrow, strict=True)]
    entries = [
        [-12345678, _ms("2024-01-02 03:04:05.678"), -1, _days(2024, 1, 2), [0, -500], "YWI=",
         [["a", 1]], [7], ["x", "yz"], "NaN"],
        [None, None, None, -1, [1, 7384500], None, None, [None], None, None],
    ]  # fmt: skip
    cols = vectors.columns_of([], schema, [])
    assert [c.minor for c in cols] == [
        T.VARDECIMAL, T.TIMESTAMP, T.TIMESTAMP, T.DATE, T.INTERVALDAY, T.VARBINARY, T.DICT, T.MAP,
        T.VARCHAR, T.FLOAT8,
    ]  # fmt: skip
    assert cols[8].mode == D.REPEATED
    fields, raw = vectors.encode(cols, arrays)
    assert (fields, raw) == vectors.batch(cols, entries)
    assert sum(f.buffer_length or 0 for f in fields) == len(raw)
    # a slice (a batch cut in two) is encoded as its own values
    assert vectors.encode(cols, [a.slice(1) for a in arrays]) == vectors.batch(cols, entries[1:])
    # the double NaN is Drill's NaN
    nan = raw[-16:-8]  # the last column: its bits, then two doubles
    assert struct.unpack("<d", nan)[0] != struct.unpack("<d", nan)[0]


def test_year_month_intervals_as_months(spark) -> None:
    """Spark writes no Arrow for a year-month interval: each goes as its months."""
    from drillspark.server.native import rows as native_rows

    df = spark.sql(
        "SELECT INTERVAL '14' MONTH AS m, INTERVAL '2' YEAR AS y, 1 AS m, "
        "INTERVAL '-1-2' YEAR TO MONTH AS ym, CAST(NULL AS INTERVAL YEAR TO MONTH) AS n"
    )
    out = native_rows.months(df)
    assert out.columns == ["m", "y", "m", "ym", "n"]
    assert [tuple(r) for r in out.collect()] == [(14, 24, 1, -14, None)]


def test_variant_values_as_their_json_text(spark) -> None:
    """Spark's Arrow for a VARIANT is its binary encoding: a variant, at the top or inside a
    struct, goes as its JSON text, a VARCHAR column whose vectors encode that text."""
    from drillspark.server.flight import batches
    from drillspark.server.native import rows as native_rows

    df = spark.sql(
        """SELECT parse_json('{"a":1,"b":[1.5]}') AS v, named_struct('k', parse_json('[2]')) AS s"""
    )
    cols = vectors.columns_of([], df.schema, [])
    assert [(c.minor, c.as_text) for c in cols] == [(T.VARCHAR, True), (T.VARCHAR, True)]
    out = list(native_rows.write(df, df.columns, None, True))
    got = pa.Table.from_batches(out[1:])
    assert got.schema.types == [pa.string(), pa.string()]
    assert got.to_pylist() == [{"v": '{"a":1,"b":[1.5]}', "s": '{"k":[2]}'}]
    fields, raw = vectors.encode(cols, out[1].columns)
    assert sum(f.buffer_length or 0 for f in fields) == len(raw)
    assert batches.spark_schema(df.schema).types == [pa.string(), pa.string()]


def test_like_filters_as_drill() -> None:
    f = m.LikeFilter
    assert like(None)("anything")
    assert like(f(pattern="dfs%", escape="\\"))("dfs.data")
    # schema names in any case, other names case-sensitively (Drill 1.22)
    assert like(f(pattern="INFORMATION_SCHEMA", escape="\\"), fold=True)("information_schema")
    assert not like(f(pattern="CATALOGS", escape="\\"))("catalogs")
    assert not like(f(pattern="dfs\\_x", escape="\\"))("dfsax")
    assert like(f(pattern="dfs\\_x", escape="\\"))("dfs_x")
    assert like(f(pattern="a_c"))("abc") and not like(f(pattern="a_c"))("abbc")
    assert not like(f(pattern="%"))(None)


def test_prepared_statement_columns_as_drill() -> None:
    # what Drill 1.22 answered CREATE_PREPARED_STATEMENT for SELECT CAST(1 AS INT) AS i,
    # CAST(1.5 AS DECIMAL(5,2)) AS d, DATE '2024-01-02' AS dt, CAST(1 AS BIGINT) AS bi, and a
    # nullable VARCHAR column of a JSON file (nullability aside, which Spark decides)
    from drillspark.server.native.metadata import result_column

    drill = {
        "i": ("INTEGER", 0, 0, True, 11, "java.lang.Integer"),
        "d": ("DECIMAL", 5, 2, True, 7, "java.math.BigDecimal"),
        "dt": ("DATE", 0, 0, False, 10, "java.sql.Date"),
        "bi": ("BIGINT", 0, 0, True, 20, "java.lang.Long"),
        "N_NAME": ("CHARACTER VARYING", 65535, 0, False, 65535, "java.lang.String"),
    }
    columns = [
        Column("i", T.INT, D.REQUIRED),
        Column("d", T.VARDECIMAL, D.REQUIRED, 5, 2),
        Column("dt", T.DATE, D.REQUIRED),
        Column("bi", T.BIGINT, D.REQUIRED),
        Column("N_NAME", T.VARCHAR, D.OPTIONAL),
    ]
    for column in columns:
        got = result_column(column)
        assert (
            got.data_type,
            got.precision,
            got.scale,
            got.signed,
            got.display_size,
            got.class_name,
        ) == drill[column.name]
        assert (got.catalog_name, got.schema_name, got.table_name) == ("DRILL", "", "")
        assert (got.searchability, got.updatability, got.is_aliased) == (4, 1, True)
        assert got.is_nullable == (column.mode == D.OPTIONAL)
