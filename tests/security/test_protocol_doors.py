"""The native protocol (Drill's user port) and Flight SQL are doors of their own into a server's
workspaces (#38; docs/security.md, "The native protocol and Flight SQL"). Each refuses what REST
refuses: a name that leaves its workspace (`..`, an absolute path, a URI, a link out), SHOW FILES
of a folder outside, a CTAS, CREATE VIEW or DROP target outside, with the reads' error naming the
workspace and never the server's folders; nothing outside is read, written or removed. With
`--users`, neither door runs anything for a client that has not logged in, whatever it sends
first. Real clients: Drill's JDBC driver 1.22 (tests/native) and ADBC's Flight SQL driver; the
protocol-level attempts with the tests' raw native client and pyarrow's Flight client."""

from __future__ import annotations

import json
import os

import pyarrow.flight as flight
import pytest
from tests.flight.conftest import adbc_connect
from tests.native.conftest import client_jars, jdbc  # noqa: F401 (Drill's JDBC driver)
from tests.native.test_native_bad_input import RawClient
from tests.server.helpers import PASSWORDS, write_users

from drillspark.server import DrillServer
from drillspark.server.auth import read_users
from drillspark.server.flight import messages as fm
from drillspark.server.native import messages as m

SECRET = "doors-secret-7f3a"
VALUES = "SELECT 1 AS x FROM (VALUES(1))"
REFUSED = [
    "SELECT * FROM dfs.data.`../outside/secret.json`",
    "SELECT * FROM dfs.data.`sub/../../outside/secret.json`",
    "SELECT * FROM dfs.data.`{base}/outside/secret.json`",
    "SELECT * FROM dfs.data.`file:///etc/passwd`",
    "SELECT * FROM dfs.data.`link.json`",
    "SHOW FILES IN dfs.data.`/etc`",
    "SHOW FILES IN dfs.data.`../outside`",
    "SHOW FILES IN dfs.data.`outdir`",
    f"CREATE TABLE dfs.tmp.`../outside/t` AS {VALUES}",
    f"CREATE VIEW dfs.tmp.`../outside/v` AS {VALUES}",
    "DROP TABLE dfs.tmp.`../outside`",
]


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """data/ and tmp/ (the workspaces), outside/ beside them; links out of data/."""
    base = tmp_path_factory.mktemp("doors")
    for name in ("data/sub", "tmp", "outside"):
        (base / name).mkdir(parents=True)
    (base / "outside" / "secret.json").write_text(json.dumps({"s": SECRET}) + "\n")
    (base / "data" / "ok.json").write_text('{"a": 1}\n')
    os.symlink(base / "outside" / "secret.json", base / "data" / "link.json")
    os.symlink(base / "outside", base / "data" / "outdir")
    return base


@pytest.fixture(scope="module")
def srv(spark, layout):
    server = DrillServer(
        spark,
        port=0,
        user_port=0,
        flight_port=0,
        workspaces={"data": str(layout / "data"), "tmp": str(layout / "tmp")},
    ).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def auth_srv(spark, layout, tmp_path_factory):
    server = DrillServer(
        spark,
        port=0,
        user_port=0,
        flight_port=0,
        workspaces={"data": str(layout / "data")},
        users=read_users(write_users(tmp_path_factory.mktemp("doors-users"))),
    ).start()
    yield server
    server.stop()


def _refused(layout, sql: str, message: str) -> None:
    assert "refused in workspace" in message, (sql, message)
    # no server folder, unless the user typed it (the absolute name)
    assert str(layout) not in message.replace(f"{layout}/outside/secret.json", ""), message
    assert SECRET not in message, (sql, message)


def _outside_untouched(layout) -> None:
    assert sorted(p.name for p in (layout / "outside").iterdir()) == ["secret.json"]
    assert json.loads((layout / "outside" / "secret.json").read_text()) == {"s": SECRET}


def test_the_native_protocol_refuses_names_leaving_a_workspace(jdbc, srv, layout):  # noqa: F811
    url = f"jdbc:drill:drillbit=127.0.0.1:{srv.native.port}"
    steps = [f"query:{sql.format(base=layout)}" for sql in REFUSED]
    answers = jdbc.run(url, *steps, "query:SELECT a FROM dfs.data.`ok.json`")
    for step in steps:
        assert "error" in answers[step], answers[step]
        _refused(layout, step, answers[step]["error"])
    assert answers["query:SELECT a FROM dfs.data.`ok.json`"]["rows"] == [[1]]
    _outside_untouched(layout)


def test_flight_sql_refuses_names_leaving_a_workspace(srv, layout):
    conn = adbc_connect(srv)
    try:
        for sql in REFUSED:
            sql = sql.format(base=layout)
            cur = conn.cursor()
            with pytest.raises(Exception) as e:
                cur.execute(sql)
                cur.fetchall()
            _refused(layout, sql, str(e.value))
        cur = conn.cursor()
        cur.execute("SELECT a FROM dfs.data.`ok.json`")
        assert cur.fetchall() == [(1,)]
    finally:
        conn.close()
    _outside_untouched(layout)


# ------------------------------------------------------------------ logins (--users)
def _ran_nothing(server: DrillServer, marker: str) -> None:
    assert not [q for q in server.queries.finished() if marker in q.text]
    assert not [q for q in server.queries.running() if marker in q.text]


def test_the_native_protocol_runs_nothing_before_a_login(auth_srv):
    port = auth_srv.native.port
    marker = "native-no-login"
    run = m.RunQuery(results_mode=1, type=m.QueryType.SQL, plan=f"SELECT '{marker}' AS s")
    # a query as the first frame, without a handshake: the connection is closed
    c = RawClient(port)
    c.send(m.RpcType.RUN_QUERY, run)
    assert c.closed()
    c.close()
    # the handshake (AUTH_REQUIRED), then a query instead of the SASL exchange: closed
    c = RawClient(port)
    assert c.handshake().status == m.HandshakeStatus.AUTH_REQUIRED
    c.send(m.RpcType.RUN_QUERY, run)
    assert c.closed()
    c.close()
    # SASL PLAIN with bob's password claiming alice (an admin) as the identity: refused
    c = RawClient(port)
    assert c.handshake().status == m.HandshakeStatus.AUTH_REQUIRED
    plain = b"alice\0bob\0" + PASSWORDS["bob"].encode()
    c.send(m.RpcType.SASL_MESSAGE, m.SaslMessage(mechanism="PLAIN", data=plain))
    assert m.SaslMessage.decode(c.read().body).status == m.SaslStatus.SASL_FAILED
    assert c.closed()
    c.close()
    # a client older than SASL (credentials in the handshake): a wrong or no password
    for password in ("not-alices", None):
        props = [m.Property(key="password", value=password)] if password else []
        c = RawClient(port)
        c.send(
            m.RpcType.HANDSHAKE,
            m.UserToBitHandshake(
                rpc_version=m.RPC_VERSION,
                credentials=m.UserCredentials(user_name="alice"),
                properties=m.UserProperties(properties=props),
            ),
        )
        hello = m.BitToUserHandshake.decode(c.read().body)
        assert hello.status == m.HandshakeStatus.AUTH_FAILED
        assert "not-alices" not in (hello.error_message or "")
        c.send(m.RpcType.RUN_QUERY, run)  # the server closed the connection: nothing runs
        assert c.closed()
        c.close()
    _ran_nothing(auth_srv, marker)
    # the same server logs a client in (SASL PLAIN) and runs its query
    c = RawClient(port)
    assert c.handshake().status == m.HandshakeStatus.AUTH_REQUIRED
    plain = b"\0bob\0" + PASSWORDS["bob"].encode()
    c.send(m.RpcType.SASL_MESSAGE, m.SaslMessage(mechanism="PLAIN", data=plain))
    assert m.SaslMessage.decode(c.read().body).status == m.SaslStatus.SASL_SUCCESS
    _, batches, result = c.query("SELECT 1 AS one")
    assert result.query_state == m.QueryState.COMPLETED
    c.close()


def test_flight_sql_runs_nothing_before_a_login(auth_srv):
    marker = "flight-no-login"
    sql = f"SELECT '{marker}' AS s"
    command = flight.FlightDescriptor.for_command(fm.pack(fm.CommandStatementQuery(query=sql)))
    alice = flight.FlightClient(auth_srv.flight.uri)
    token = alice.authenticate_basic_token("alice", PASSWORDS["alice"])
    info = alice.get_flight_info(command, flight.FlightCallOptions(headers=[token]))
    ticket = info.endpoints[0].ticket
    stranger = flight.FlightClient(auth_srv.flight.uri)
    forged = flight.FlightCallOptions(headers=[(b"authorization", b"Bearer forged-token")])
    for options in (flight.FlightCallOptions(), forged):
        with pytest.raises(flight.FlightUnauthenticatedError):
            stranger.get_flight_info(command, options)
        with pytest.raises(flight.FlightUnauthenticatedError):
            stranger.do_get(ticket, options).read_all()  # alice's ticket, without her token
        with pytest.raises(flight.FlightUnauthenticatedError):
            list(stranger.do_action(flight.Action("CreatePreparedStatement", b""), options))
    with pytest.raises(flight.FlightUnauthenticatedError):
        stranger.authenticate_basic_token("alice", "not-alices")
    # alice's ticket is still hers to read, once
    got = alice.do_get(ticket, flight.FlightCallOptions(headers=[token])).read_all()
    assert got.to_pylist() == [{"s": marker}]
    assert [q.user for q in auth_srv.queries.finished() if marker in q.text] == ["alice"]
    alice.close()
    stranger.close()
