"""Clients that do not follow the protocol, and clients that go away: each gets one clear
answer (Drill's wording where Drill has one) or a closed connection, and the server and every
other connection carry on. A small client of the tests' own (drillspark's codec) speaks to the
server frame by frame."""

from __future__ import annotations

import socket
import time

import pytest

from drillspark.server.native import framing
from drillspark.server.native import messages as m


class RawClient:
    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.next_id = 0

    def close(self) -> None:
        self.sock.close()

    def send(self, rpc_type: int, body: m.Message | bytes, mode: int = m.RpcMode.REQUEST) -> int:
        self.next_id += 1
        data = body if isinstance(body, bytes) else body.encode()
        self.sock.sendall(framing.encode(mode, self.next_id, rpc_type, data))
        return self.next_id

    def read(self) -> framing.Frame:
        return framing.read_frame(self.sock)

    def handshake(self, version: int = m.RPC_VERSION) -> m.BitToUserHandshake:
        self.send(
            m.RpcType.HANDSHAKE,
            m.UserToBitHandshake(
                rpc_version=version,
                credentials=m.UserCredentials(user_name="raw"),
                support_timeout=True,
                sasl_support=2,
            ),
        )
        return m.BitToUserHandshake.decode(self.read().body)

    def closed(self) -> bool:
        """Whether the server closed the connection (a read sees its end)."""
        try:
            while True:
                if not self.sock.recv(65536):
                    return True
        except OSError:
            return True

    def query(self, sql: str) -> tuple[m.QueryId, list[m.QueryData], m.QueryResult]:
        self.send(m.RpcType.RUN_QUERY, m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan=sql))
        handle = self.read()
        assert handle.rpc_type == m.RpcType.QUERY_HANDLE
        qid = m.QueryId.decode(handle.body)
        batches = []
        while True:
            frame = self.read()
            ack = framing.encode(
                m.RpcMode.RESPONSE, frame.coordination_id, m.RpcType.ACK, b"\x08\x01"
            )
            self.sock.sendall(ack)
            if frame.rpc_type == m.RpcType.QUERY_DATA:
                batches.append(m.QueryData.decode(frame.body))
            elif frame.rpc_type == m.RpcType.QUERY_RESULT:
                return qid, batches, m.QueryResult.decode(frame.body)


@pytest.fixture
def port(native_server) -> int:
    return native_server.native.port


def _still_serves(port: int) -> None:
    c = RawClient(port)
    try:
        assert c.handshake().status == m.HandshakeStatus.SUCCESS
        _, batches, result = c.query("SELECT 1 AS one")
        assert result.query_state == m.QueryState.COMPLETED
        assert [b.row_count for b in batches] == [1]
    finally:
        c.close()


def test_handshake_and_ping(port):
    c = RawClient(port)
    try:
        hello = c.handshake()
        assert hello.status == m.HandshakeStatus.SUCCESS and hello.rpc_version == 5
        assert hello.server_infos is not None
        assert hello.server_infos.name == "Apache Drill Server"
        assert hello.server_infos.version == "1.22.0"
        assert set(hello.supported_methods) >= {m.RpcType.RUN_QUERY, m.RpcType.GET_TABLES}
        c.sock.sendall(framing.encode(m.RpcMode.PING, 0, 0, m.Ack(ok=True).encode()))
        pong = c.read()
        assert pong.mode == m.RpcMode.PONG and m.Ack.decode(pong.body).ok
    finally:
        c.close()


def test_another_protocol_version(port):
    c = RawClient(port)
    try:
        hello = c.handshake(version=4)
        assert hello.status == m.HandshakeStatus.RPC_VERSION_MISMATCH
        assert hello.error_message == "Invalid rpc version. Expected 5, actual 4."  # Drill's
        assert c.closed()
    finally:
        c.close()
    _still_serves(port)


@pytest.mark.parametrize(
    "data",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",  # another protocol
        b"\x05\x01\x02\x03\x04\x05",  # a frame that is no RPC frame
        b"\xff\xff\xff\xff\x0f",  # a frame of 4 GiB
        b"\x00",  # a frame of length 0
        framing.encode(m.RpcMode.REQUEST, 1, m.RpcType.RUN_QUERY, b""),  # before the handshake
    ],
    ids=["http", "garbage", "too-large", "empty", "no-handshake"],
)
def test_bad_frames_close_the_connection(port, data):
    c = RawClient(port)
    try:
        c.sock.sendall(data)
        assert c.closed()
    finally:
        c.close()
    _still_serves(port)


def test_truncated_frame_then_gone(port):
    c = RawClient(port)
    c.sock.sendall(b"\x40\x0a\x02")  # 64 bytes announced, 2 sent, then the client leaves
    c.close()
    _still_serves(port)


def test_unknown_request_is_answered_with_a_failure(port):
    c = RawClient(port)
    try:
        c.handshake()
        c.send(m.RpcType.GET_QUERY_PLAN_FRAGMENTS, b"")
        answer = c.read()
        assert answer.mode == m.RpcMode.RESPONSE_FAILURE
        error = m.DrillPBError.decode(answer.body)
        assert error.message is not None and "request type 12" in error.message
        _, _, result = c.query("SELECT 2 AS two")  # the connection goes on
        assert result.query_state == m.QueryState.COMPLETED
    finally:
        c.close()


def test_failed_query_result(port):
    c = RawClient(port)
    try:
        c.handshake()
        qid, batches, result = c.query("SELECT * FROM dfs.data.`nosuch.json`")
        assert batches == [] and result.query_state == m.QueryState.FAILED
        assert result.query_id == qid
        (error,) = result.error
        assert error.error_type == m.ErrorType.VALIDATION
        assert error.message is not None and error.message.startswith("VALIDATION ERROR: ")
        assert error.message.endswith(f"[Error Id: {error.error_id} ]")
    finally:
        c.close()


def test_client_gone_mid_result_cancels_its_query(port, native_server):
    sql = "SELECT i, s FROM dfs.tmp.`huge.json` WHERE i >= 0"
    c = RawClient(port)
    c.handshake()
    c.send(m.RpcType.RUN_QUERY, m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan=sql))
    assert c.read().rpc_type == m.RpcType.QUERY_HANDLE
    first = c.read()  # a batch, never acknowledged: the server waits, then the client leaves
    assert first.rpc_type == m.RpcType.QUERY_DATA
    c.close()
    deadline = time.monotonic() + 60
    ended: list = []
    while time.monotonic() < deadline and not ended:
        ended = [q for q in native_server.queries.finished() if q.text == sql]
        time.sleep(0.5)
    assert ended and ended[0].state == "CANCELED", ended
    _still_serves(port)


def test_heartbeat_answered_while_a_query_streams(port):
    c = RawClient(port)
    try:
        c.handshake()
        sql = "SELECT i, s FROM dfs.tmp.`huge.json` WHERE i < 100000"
        c.send(m.RpcType.RUN_QUERY, m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan=sql))
        assert c.read().rpc_type == m.RpcType.QUERY_HANDLE
        first = c.read()  # not acknowledged: the server's sender waits for the client
        assert first.rpc_type == m.RpcType.QUERY_DATA
        c.sock.sendall(framing.encode(m.RpcMode.PING, 0, 0, m.Ack(ok=True).encode()))
        frame = c.read()
        while frame.mode != m.RpcMode.PONG:  # batches sent before the ping come first
            assert frame.rpc_type == m.RpcType.QUERY_DATA
            frame = c.read()
        # the client cancels, still acknowledging nothing: the server acknowledges the cancel
        # and ends the query CANCELED (a cancelled query's sender no longer waits for acks)
        qid = m.QueryData.decode(first.body).query_id
        assert qid is not None
        cancel_id = c.send(m.RpcType.CANCEL_QUERY, qid)
        acked = False
        while True:
            frame = c.read()
            if frame.mode == m.RpcMode.RESPONSE and frame.coordination_id == cancel_id:
                acked = m.Ack.decode(frame.body).ok or False
            elif frame.rpc_type == m.RpcType.QUERY_RESULT:
                result = m.QueryResult.decode(frame.body)
                break
            else:
                assert frame.rpc_type == m.RpcType.QUERY_DATA
        assert acked, "the cancel was not acknowledged"
        assert result.query_state == m.QueryState.CANCELED and result.error == [], result
    finally:
        c.close()


def test_many_connections_at_once(port):
    import threading

    answers: dict[int, object] = {}

    def one(k: int) -> None:
        c = RawClient(port)
        try:
            c.handshake()
            _, batches, result = c.query(f"SELECT {k} AS k")
            answers[k] = (result.query_state, [b.row_count for b in batches])
        finally:
            c.close()

    threads = [threading.Thread(target=one, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert answers == {k: (m.QueryState.COMPLETED, [1]) for k in range(8)}


def _limited(spark, native_tmp, **limits):
    from drillspark.server import DrillServer, Limits

    srv = DrillServer(
        spark, port=0, user_port=0, workspaces={"tmp": str(native_tmp)}, limits=Limits(**limits)
    )
    return srv.start()


def test_the_servers_row_limit(spark, native_tmp):
    srv = _limited(spark, native_tmp, max_rows=5000, max_seconds=300)
    c = RawClient(srv.native.port)
    try:
        c.handshake()
        # more rows than --max-rows: the rows up to it, then Drill's failure naming the limit
        _, batches, result = c.query("SELECT i FROM dfs.tmp.`big.json`")
        assert result.query_state == m.QueryState.FAILED
        assert sum(b.row_count or 0 for b in batches) <= 5000
        (error,) = result.error
        assert error.message is not None and "more than 5000 rows" in error.message
    finally:
        c.close()
        srv.stop()


def test_the_servers_time_limit(spark, native_tmp):
    srv = _limited(spark, native_tmp, max_seconds=2)
    c = RawClient(srv.native.port)
    try:
        c.handshake()
        # longer than --max-seconds: cancelled by the server, FAILED with the reason
        # (10,000^3 row triples, each compared: hours on any machine; an equi-join of unique
        # keys finished inside the limit on a fast one)
        _, _, result = c.query(
            "SELECT count(*) AS n FROM dfs.tmp.`big.json` a, dfs.tmp.`big.json` b, "
            "dfs.tmp.`big.json` c WHERE concat(a.s, b.s, c.s) LIKE '%time-limit%'"
        )
        assert result.query_state == m.QueryState.FAILED, result
        (error,) = result.error
        assert error.error_type == m.ErrorType.RESOURCE
        assert error.message is not None and "time limit of 2 s" in error.message
    finally:
        c.close()
        srv.stop()


def test_too_many_connections_are_refused(native_server, port, monkeypatch):
    monkeypatch.setattr(native_server.native, "max_connections", 1)
    holder = RawClient(port)
    try:
        holder.handshake()
        deadline = time.monotonic() + 30
        while len(native_server.native.connections()) > 1 and time.monotonic() < deadline:
            time.sleep(0.1)  # connections of earlier tests still closing
        extra = RawClient(port)
        try:
            assert extra.closed()  # closed at once, no answer
        finally:
            extra.close()
        _, _, result = holder.query("SELECT 1 AS one")  # the open one is served
        assert result.query_state == m.QueryState.COMPLETED
    finally:
        holder.close()
