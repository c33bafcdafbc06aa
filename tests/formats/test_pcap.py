"""The `pcap` format (classic .pcap and .pcapng) through both doors against Drill 1.22's
answers on the same captures (tests/formats/data/drill_pcap.json; the captures are written by
tests/formats/pcap_packets.py, here and when Drill was asked): Drill's two column sets, and a
truncated capture failing with the file, packet and byte offset."""

from __future__ import annotations

import pytest
from tests.formats import pcap_packets
from tests.formats.conftest import jdbc_rows, jdbc_types
from tests.formats.pinned import answer, assert_as_drill, cases

DRILL = cases("pcap")
PCAP = "SELECT * FROM dfs.data.`cap.pcap`"
PCAPNG = "SELECT * FROM dfs.data.`cap.pcapng`"

# Columns whose values differ from Drill's, with the reason (docs/formats.md, "Differences"):
# tcp_session is Drill's own hash of a connection's ends (drillspark's is another hash with the
# same grouping: equal for both directions of one connection, checked below); Drill's `data` of
# a classic pcap reads past the packet into the next record's header (its payload offset is off),
# drillspark's is the packet's payload.
OWN_VALUES = {"tcp_session", "data"}


@pytest.fixture
def data(tmp_path):
    pcap_packets.write_pcap(tmp_path / "cap.pcap")
    pcap_packets.write_pcapng(tmp_path / "cap.pcapng")
    pcap_packets.write_truncated_pcap(tmp_path / "trunc.pcap")
    return tmp_path


def without(columns, rows, names):
    keep = [i for i, c in enumerate(columns) if c not in names]
    return [[r[i] for i in keep] for r in rows]


@pytest.mark.parametrize("query", [PCAP, PCAPNG])
def test_as_drill(sql, data, query):
    want = DRILL[query]
    columns, types, rows = answer(sql, want)
    assert columns == want["columns"]
    assert types == want["types"]
    assert without(columns, rows, OWN_VALUES) == without(columns, want["rows"], OWN_VALUES)


def test_sessions_group_as_drill(sql, data):
    for query in (PCAP, PCAPNG):
        want = DRILL[query]
        columns, _, rows = answer(sql, want)
        i = columns.index("tcp_session")
        ours = [r[i] for r in rows]
        drills = [r[i] for r in want["rows"]]
        # the same packets share a session (0 for UDP) in both answers
        assert [[a == b for b in ours] for a in ours] == [[a == b for b in drills] for a in drills]
        assert [s == 0 for s in ours] == [s == 0 for s in drills]


def test_payload(sql, data):
    rows = sql("SELECT type, data FROM dfs.data.`cap.pcap`").collect()
    assert [r["data"] for r in rows] == ["hello drill", "", "", "GET / HTTP/1.0", "mdns", ""]


def test_aggregate_as_drill(sql, data):
    query = "SELECT src_ip, count(*) n FROM dfs.data.`cap.pcap` GROUP BY src_ip ORDER BY src_ip"
    want = DRILL[query]
    got = sql(query)
    assert got.columns == want["columns"] and jdbc_types(got.schema) == want["types"]
    assert jdbc_rows(got.collect()) == want["rows"]


def test_spark_door_same_answer(spark, sql, data):
    for name in ("cap.pcap", "cap.pcapng"):
        df = spark.read.format("drill-pcap").load(str(data / name))
        via_sql = sql(f"SELECT * FROM dfs.data.`{name}`")
        assert df.columns == via_sql.columns
        assert jdbc_rows(df.collect()) == jdbc_rows(via_sql.collect())


def test_truncated_capture_names_file_packet_and_offset(sql, data):
    assert "Packet too long" in DRILL["SELECT * FROM dfs.data.`trunc.pcap`"]["error"]
    with pytest.raises(Exception) as caught:
        sql("SELECT * FROM dfs.data.`trunc.pcap`").collect()
    message = str(caught.value)
    assert "trunc.pcap" in message and "packet 3 at byte 163" in message
    assert "truncated capture" in message and "\tat " not in message


def test_not_a_capture(sql, tmp_path):
    (tmp_path / "junk.pcap").write_bytes(b"this is not a capture at all")
    with pytest.raises(Exception, match="junk.pcap.*not a pcap or pcapng file"):
        sql("SELECT * FROM dfs.data.`junk.pcap`").collect()


def test_stat_option_refused(sql, data):
    with pytest.raises(Exception, match="'stat'"):
        sql("SELECT * FROM table(dfs.data.`cap.pcapng`(type => 'pcap', stat => true))")


def test_plain_spark_dfs_catalog_same_answer(spark, sql, data):
    for name in ("cap.pcap", "cap.pcapng"):
        df = spark.sql(f"SELECT * FROM dfs.`{data / name}`")
        via_sql = sql(f"SELECT * FROM dfs.data.`{name}`")
        assert df.columns == via_sql.columns
        assert jdbc_rows(df.collect()) == jdbc_rows(via_sql.collect())


def test_truncated_pcapng_names_file_and_offset(sql, tmp_path):
    whole = pcap_packets.write_pcapng(tmp_path / "whole.pcapng").read_bytes()
    (tmp_path / "cut.pcapng").write_bytes(whole[:-10])
    with pytest.raises(Exception) as caught:
        sql("SELECT * FROM dfs.data.`cut.pcapng`").collect()
    message = str(caught.value)
    assert "cut.pcapng" in message and "packet 6 at byte" in message
    assert "truncated capture" in message and "\tat " not in message


# ---- sessionizeTCPStreams, the `pcapng` type, pcap columns in queries: Drill 1.22's answers
# on the captures pcap_packets.py writes (tests/formats/data/drill_pcap_more.json)
MORE = cases("pcap_more")
SESSIONS = "SELECT * FROM table(dfs.data.`sess.pcap`(type => 'pcap', sessionizeTCPStreams => true))"
# Drill's data_volume_* and data_from_* count and show its `data` column's bytes, which run
# past each packet into the next record's header (see OWN_VALUES); drillspark's are the TCP
# payloads of each side (docs/formats.md, "Differences")
OWN_SESSION_VALUES = {
    "tcp_session",
    "data_volume_from_origin",
    "data_volume_from_remote",
    "data_from_originator",
    "data_from_remote",
}


@pytest.fixture
def sessions(tmp_path):
    pcap_packets.write_pcap(tmp_path / "sess.pcap", pcap_packets.SESSION_PACKETS)
    pcap_packets.write_pcapng(tmp_path / "sess.pcapng", pcap_packets.SESSION_PACKETS)
    pcap_packets.write_pcap(tmp_path / "cap.pcap")
    pcap_packets.write_pcapng(tmp_path / "cap.pcapng")
    return tmp_path


def test_sessionized_as_drill(spark, sql, sessions):
    want = MORE[SESSIONS]
    columns, types, rows = answer(sql, want)
    # Drill's durations are its INTERVAL, drillspark's Spark's day-time interval (docs/formats.md,
    # "Differences"); the values agree ('PT5.250S')
    assert columns == want["columns"]
    assert [t.replace("INTERVAL DAY TO SECOND", "INTERVAL") for t in types] == want["types"]
    assert without(columns, rows, OWN_SESSION_VALUES) == without(
        columns, want["rows"], OWN_SESSION_VALUES
    )
    own = [dict(zip(columns, r, strict=True)) for r in rows]
    assert [(r["data_from_originator"], r["data_from_remote"]) for r in own] == [
        ("hello", "world!"),
        ("ping", "pong pong"),
    ]
    assert [(r["data_volume_from_origin"], r["data_volume_from_remote"]) for r in own] == [
        (5, 6),
        (4, 9),
    ]
    # a session's tcp_session is its packets' (the same hash as the packet rows')
    packets = sql("SELECT DISTINCT tcp_session FROM dfs.data.`sess.pcap` WHERE type = 'TCP'")
    assert {r[0] for r in packets.collect()} == {r["tcp_session"] for r in own}
    # Spark's door, the option by name
    direct = spark.read.format("drill-pcap").option("sessionizeTCPStreams", "true")
    df = direct.load(str(sessions / "sess.pcap"))
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == rows


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM table(dfs.data.`sess.pcapng`(type => 'pcap', sessionizeTCPStreams => true))",
        "SELECT * FROM table(dfs.data.`cap.pcap`(type => 'pcap', sessionizeTCPStreams => true))",
        "SELECT * FROM table(dfs.data.`cap.pcapng`(type => 'pcapng'))",
    ],
)
def test_sessionize_edges_and_pcapng_type_as_drill(sql, sessions, query):
    """pcapng ignores sessionizeTCPStreams; connections never closed give no row; `pcapng` is
    a type of its own."""
    want = MORE[query]
    columns, types, rows = answer(sql, want)
    assert columns == want["columns"]
    assert [t.replace("INTERVAL DAY TO SECOND", "INTERVAL") for t in types] == want["types"]
    assert without(columns, rows, OWN_VALUES) == without(columns, want["rows"], OWN_VALUES)


@pytest.mark.parametrize(
    "query",
    [q for q in MORE if "table(" not in q and "SELECT * FROM" not in q],
)
def test_packet_queries_as_drill(sql, sessions, query):
    assert_as_drill(sql, MORE[query])


def test_plain_packets_of_the_session_capture_as_drill(sql, sessions):
    want = MORE["SELECT * FROM dfs.data.`sess.pcap`"]
    columns, types, rows = answer(sql, want)
    assert columns == want["columns"] and types == want["types"]
    assert without(columns, rows, OWN_VALUES) == without(columns, want["rows"], OWN_VALUES)


def test_stat_stays_refused_drill_fails_on_it_too(sql, sessions):
    # Drill 1.22's stat => true on a pcapng file without interface options: a JVM error text
    assert (
        "getInterfaceName()"
        in MORE["SELECT * FROM table(dfs.data.`cap.pcapng`(type => 'pcap', stat => true))"]["error"]
    )
    with pytest.raises(Exception, match="'stat'"):
        sql("SELECT * FROM table(dfs.data.`cap.pcapng`(type => 'pcapng', stat => true))")
