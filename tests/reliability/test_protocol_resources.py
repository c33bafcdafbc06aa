"""The watchdog of docs/reliability.md ("The server's resources") through the two other doors:
failing requests of every kind over the native protocol and Flight SQL, clients that leave in
the middle, and Flight answers planned and never read, on a server with two running slots,
leave it with no running query and both slots free, and every door answers the next query
(REST's own: test_server_resources.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pyarrow.flight as flight
import pytest
from tests.flight.test_flight_cancel import CLIENT
from tests.native.cancel_checks import ended, running, slow_query
from tests.native.test_native_bad_input import RawClient
from tests.server.helpers import Http

from drillspark.server import DrillServer, Limits
from drillspark.server.flight import messages as fm
from drillspark.server.native import framing
from drillspark.server.native import messages as m

N = 4  # requests of each kind: two slots, so a kind that kept its slot wedges the third
MISSING = "SELECT * FROM dfs.data.`nope.json`"
RUNTIME = "SELECT CAST('abc' AS INT) AS n FROM (VALUES(1))"
FAILING_SQL = ["SELEC 1", MISSING, RUNTIME, "SELECT 1; SELECT 2"]


@pytest.fixture
def small_server(spark, shared):
    srv = DrillServer(
        spark,
        port=0,
        user_port=0,
        flight_port=0,
        workspaces={"data": str(shared / "data")},
        limits=Limits(max_running=2, max_seconds=120),
    ).start()
    yield srv
    srv.stop()


def _bad_utf8(encoded: bytes) -> bytes:
    """The encoded message with its text's `XYZ` replaced by a UTF-16 surrogate in UTF-8
    (ED A0 80, as many bytes): invalid UTF-8 that no client library would send."""
    assert encoded.count(b"XYZ") == 1
    return encoded.replace(b"XYZ", b"\xed\xa0\x80")


def _client(port: int) -> RawClient:
    c = RawClient(port)
    c.sock.settimeout(300)  # a shared machine under load answers slowly
    return c


def _native_failures(port: int) -> None:
    c = _client(port)
    try:
        assert c.handshake().status == m.HandshakeStatus.SUCCESS
        for _ in range(N):
            for sql in FAILING_SQL:
                _, batches, result = c.query(sql)
                assert result.query_state == m.QueryState.FAILED, sql
                assert "Traceback" not in (result.error[0].message or "")
            for kind, plan in ((m.QueryType.LOGICAL, "{"), (m.QueryType.PHYSICAL, "{}")):
                c.send(m.RpcType.RUN_QUERY, m.RunQuery(results_mode=1, type=kind, plan=plan))
                frame = c.read()
                if frame.rpc_type == m.RpcType.QUERY_HANDLE:  # a query: its result follows
                    frame = c.read()
                    assert m.QueryResult.decode(frame.body).query_state == m.QueryState.FAILED
                else:
                    assert frame.mode == m.RpcMode.RESPONSE_FAILURE
    finally:
        c.close()
    # half a surrogate pair in the SQL's bytes: answered or the connection closed, never a slot
    for _ in range(N):
        c = _client(port)
        try:
            c.handshake()
            run = m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan="SELECT 'XYZ' AS s")
            c.send(m.RpcType.RUN_QUERY, _bad_utf8(run.encode()))
            try:
                frame = c.read()
                if frame.rpc_type == m.RpcType.QUERY_HANDLE:
                    frame = c.read()
                    result = m.QueryResult.decode(frame.body)
                    assert result.query_state == m.QueryState.FAILED
            except (OSError, framing.PeerClosed):
                pass  # closed: a frame the server cannot read (as it logs)
        finally:
            c.close()


def _statement(sql: str) -> flight.FlightDescriptor:
    return flight.FlightDescriptor.for_command(fm.pack(fm.CommandStatementQuery(query=sql)))


def _flight_failures(uri: str) -> None:
    client = flight.FlightClient(uri)
    try:
        for _ in range(N):
            for sql in FAILING_SQL:
                with pytest.raises(flight.FlightError) as e:
                    info = client.get_flight_info(_statement(sql))
                    client.do_get(info.endpoints[0].ticket).read_all()
                assert "Traceback" not in str(e.value)
            bad = _bad_utf8(fm.pack(fm.CommandStatementQuery(query="SELECT 'XYZ' AS s")))
            with pytest.raises(flight.FlightError):
                client.get_flight_info(flight.FlightDescriptor.for_command(bad))
            with pytest.raises(flight.FlightError):
                client.get_flight_info(flight.FlightDescriptor.for_command(b"garbage"))
            with pytest.raises(flight.FlightError):
                client.do_get(flight.Ticket(fm.pack(fm.CommandGetCatalogs()))).read_all()
            request = fm.ActionCreatePreparedStatementRequest(query="SELEC 1")
            with pytest.raises(flight.FlightError):
                list(client.do_action(flight.Action("CreatePreparedStatement", fm.pack(request))))
    finally:
        client.close()


def _slots_back(srv: DrillServer, within: float = 120) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if srv.queries.running() == [] and srv.queries._slots._value == 2:
            return
        time.sleep(0.5)
    raise AssertionError(
        f"running {[q.text[:60] for q in srv.queries.running()]}, "
        f"slots free {srv.queries._slots._value} of 2"
    )


@pytest.mark.load  # the long tier: slow joins planned and cancelled (a minute or more)
def test_failing_and_vanishing_clients_of_every_door_give_their_slots_back(small_server):
    srv = small_server
    _native_failures(srv.native.port)
    _flight_failures(srv.flight.uri)
    _slots_back(srv, within=5)
    # native clients that leave while Spark computes their answer
    for i in range(2):
        c = _client(srv.native.port)
        c.handshake()
        marker = f"native-gone-{i}"
        c.send(
            m.RpcType.RUN_QUERY,
            m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan=slow_query(marker)),
        )
        running(srv, marker)
        c.close()
        assert ended(srv, marker).state == "CANCELED"
    # a Flight client killed while it reads
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLIENT, srv.flight.uri, slow_query("flight-gone")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        running(srv, "flight-gone")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    assert ended(srv, "flight-gone").state == "CANCELED"
    # Flight answers planned (GetFlightInfo) and never read: they hold no slot, and leave the
    # running list when their tickets expire
    srv.flight.statements.unread_seconds = 1.0
    client = flight.FlightClient(srv.flight.uri)
    for i in range(2):
        client.get_flight_info(_statement(f"SELECT {i} AS unread"))
    client.close()
    assert srv.queries._slots._value == 2
    _slots_back(srv, within=30)
    # every door answers
    assert Http(srv.url).query("SELECT 1 AS one")["rows"] == [{"one": 1}]
    c = _client(srv.native.port)
    try:
        c.handshake()
        assert c.query("SELECT 1 AS one")[2].query_state == m.QueryState.COMPLETED
    finally:
        c.close()
    client = flight.FlightClient(srv.flight.uri)
    info = client.get_flight_info(_statement("SELECT 1 AS one"))
    assert client.do_get(info.endpoints[0].ticket).read_all().to_pylist() == [{"one": 1}]
    client.close()


def test_flight_answers_never_read_hold_no_running_slot(small_server):
    """One client planning more answers than the server has slots (GetFlightInfo) and reading
    none (no DoGet) used to hold every slot until the tickets expired (120 s), so every other
    query of every door waited: now a planned answer waits for its reader without a slot, the
    others run, and each ticket read later takes a slot again and answers its rows."""
    srv = small_server
    hog = flight.FlightClient(srv.flight.uri)
    within = flight.FlightCallOptions(timeout=60)  # before the fix: the third call waited 120 s
    infos = [
        hog.get_flight_info(_statement(f"SELECT {i} AS n FROM (VALUES(1))"), within)
        for i in range(4)  # twice the slots
    ]
    assert srv.queries._slots._value == 2  # no unread answer holds a slot
    assert len(srv.queries.running()) == 4  # still cancellable, listed as waiting
    assert {q.state for q in srv.queries.running()} == {"ENQUEUED"}
    # every door answers another client meanwhile
    assert Http(srv.url).query("SELECT 1 AS one")["rows"] == [{"one": 1}]
    c = _client(srv.native.port)
    try:
        c.handshake()
        assert c.query("SELECT 1 AS one")[2].query_state == m.QueryState.COMPLETED
    finally:
        c.close()
    other = flight.FlightClient(srv.flight.uri)
    try:
        info = other.get_flight_info(_statement("SELECT 1 AS one"), within)
        assert other.do_get(info.endpoints[0].ticket, within).read_all().to_pylist() == [{"one": 1}]
    finally:
        other.close()
    # read later, each ticket takes a slot again and answers; then all are given back
    try:
        for i, info in enumerate(infos):
            table = hog.do_get(info.endpoints[0].ticket, within).read_all()
            assert table.to_pylist() == [{"n": i}]
    finally:
        hog.close()
    _slots_back(srv, within=10)
