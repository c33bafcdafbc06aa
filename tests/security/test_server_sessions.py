"""HTTP sessions cannot be flooded away (issue #38): before, every request without a cookie that
reached /query.json created a session, the store kept 10,000 and dropped the oldest, so 10,020
cheap requests by one client dropped another's login. Now a request creates a session only
when it changes session state (USE, ALTER SESSION) or logs in; each client address (anonymous)
and each user holds at most `sessions_per_client`, evicting its own oldest; a logged-in
session is never evicted by anyone else; idle sessions expire on their own."""

from __future__ import annotations

import base64
import json
import time

import pytest
from tests.security.server_http import send
from tests.server.helpers import PASSWORDS

from drillspark.server import DrillServer, Limits, auth
from drillspark.server.auth import SessionStore, read_users

NATION = "dfs.data.`breadth/tpch_json/nation.json`"
JSON = {"Content-Type": "application/json"}


def _basic(user: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{PASSWORDS[user]}".encode()).decode()
    return {"Authorization": "Basic " + token}


def _query(srv, sql: str, headers: dict[str, str] | None = None, source: str | None = None):
    body = json.dumps({"queryType": "SQL", "query": sql}).encode()
    status, hdrs, data = send(
        srv.port, "POST", "/query.json", body, {**JSON, **(headers or {})}, source
    )
    assert status == 200, data
    cookie = hdrs.get("Set-Cookie")
    return json.loads(data), cookie.split(";")[0] if cookie else None


def _shrink(store: SessionStore) -> None:
    """20 sessions in all, 4 per client (set on the store, as Limits(sessions_max=20,
    sessions_per_client=4) does: test_limits_reach_the_store)."""
    store.limit, store.per_owner = 20, 4


@pytest.fixture(scope="module")
def small(spark, shared, users_file):
    """A server with users whose store is small enough to flood in a test: 20 sessions in all
    (anonymous), 4 per client address or user."""
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(shared / "data")},
        users=read_users(str(users_file)),
    ).start()
    _shrink(srv.sessions)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def open_server(spark, shared):
    """No users; 20 sessions in all, 4 per client address."""
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(shared / "data")},
    ).start()
    _shrink(srv.sessions)
    yield srv
    srv.stop()


def test_cheap_requests_create_no_session(server):
    """Reading status, options, profiles, a failed request, a plain SELECT: no cookie, no
    session kept."""
    before = len(server.sessions)
    for path in ("/status.json", "/options.json", "/profiles.json", "/storage.json", "/nosuch"):
        status, hdrs, _ = send(server.port, "GET", path)
        assert "Set-Cookie" not in hdrs, path
    status, hdrs, _ = send(server.port, "POST", "/query.json", b"{bad", JSON)
    assert status == 400 and "Set-Cookie" not in hdrs
    for sql in ("SELECT 1 AS one FROM (VALUES(1))", "SHOW SCHEMAS", "selec 1"):
        _, cookie = _query(server, sql)
        assert cookie is None, sql
    # a statement that changes session state does get one, and it holds
    use, cookie = _query(server, "USE dfs.data")
    assert use["queryState"] == "COMPLETED" and cookie and cookie.startswith("JSESSIONID=")
    answer, again = _query(
        server, "SELECT N_NAME FROM `breadth/tpch_json/nation.json` LIMIT 1", {"Cookie": cookie}
    )
    assert answer["rows"] == [{"N_NAME": "ALGERIA"}] and again is None
    assert len(server.sessions) == before + 1
    status, _, _ = send(server.port, "GET", "/logout", headers={"Cookie": cookie})
    assert len(server.sessions) == before


def test_a_flood_by_one_user_does_not_drop_anothers_login(small):
    """bob logs in with the form; alice (HTTP Basic, no cookie) sends many statements, plain
    ones and USE: bob stays logged in; alice holds at most 4 sessions, her newest working."""
    form = f"j_username=bob&j_password={PASSWORDS['bob']}".encode()
    status, hdrs, _ = send(
        small.port,
        "POST",
        "/j_security_check",
        form,
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 303
    bob = hdrs["Set-Cookie"].split(";")[0]
    for _ in range(25):
        _query(small, "SHOW SCHEMAS", _basic("alice"))
    cookies = [_query(small, "USE dfs.data", _basic("alice"))[1] for _ in range(25)]
    assert all(cookies)
    answer, _ = _query(small, "SELECT 1 AS one FROM (VALUES(1))", {"Cookie": bob})
    assert answer["rows"] == [{"one": 1}]
    assert (
        json.loads(send(small.port, "GET", "/session.json", headers={"Cookie": bob})[2])["user"]
        == "bob"
    )
    # alice's newest session keeps its USE; her oldest was evicted (by her own requests)
    newest, _ = _query(
        small,
        "SELECT N_NAME FROM `breadth/tpch_json/nation.json` LIMIT 1",
        {**_basic("alice"), "Cookie": cookies[-1]},
    )
    assert newest["rows"] == [{"N_NAME": "ALGERIA"}]
    oldest, _ = _query(
        small,
        "SELECT N_NAME FROM `breadth/tpch_json/nation.json` LIMIT 1",
        {**_basic("alice"), "Cookie": cookies[0]},
    )
    assert oldest["queryState"] == "FAILED"  # no default schema: that session is gone
    assert len(small.sessions) <= 1 + 4


def test_a_session_of_another_user_is_not_used_with_basic(small):
    """A cookie made under alice's HTTP Basic login is not bob's to use."""
    _, cookie = _query(small, "USE dfs.data", _basic("alice"))
    answer, _ = _query(
        small,
        "SELECT N_NAME FROM `breadth/tpch_json/nation.json` LIMIT 1",
        {**_basic("bob"), "Cookie": cookie},
    )
    assert answer["queryState"] == "FAILED" and "no default schema" in answer["errorMessage"]


def test_one_address_cannot_evict_anothers_session(open_server):
    """Anonymous sessions are counted per client address: 127.0.0.2's USE survives 30 from
    127.0.0.1."""
    _, other = _query(open_server, "USE dfs.data", source="127.0.0.2")
    assert other
    for _ in range(30):
        _query(open_server, "USE dfs.data", source="127.0.0.1")
    answer, _ = _query(
        open_server,
        "SELECT N_NAME FROM `breadth/tpch_json/nation.json` LIMIT 1",
        {"Cookie": other},
        source="127.0.0.2",
    )
    assert answer["rows"] == [{"N_NAME": "ALGERIA"}], answer
    assert len(open_server.sessions) <= 4 + 1


def test_idle_sessions_expire_without_being_asked_for(open_server):
    """Before, an idle session was dropped only when its own cookie came back: abandoned
    sessions stayed until the store was full."""
    _, cookie = _query(open_server, "USE dfs.data", source="127.0.0.3")
    assert cookie
    count = len(open_server.sessions)
    open_server.sessions.idle = 0.5
    try:
        time.sleep(1.0)
        assert len(open_server.sessions) == 0 < count
        assert (
            json.loads(send(open_server.port, "GET", "/status/metrics")[2])["gauges"][
                "drillspark.sessions.count"
            ]["value"]
            == 0
        )
    finally:
        open_server.sessions.idle = 3600.0


# ------------------------------------------------------------------ the store itself
def test_limits_reach_the_store(spark, shared):
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(shared / "data")},
        limits=Limits(sessions_max=20, sessions_per_client=4, session_idle=60.0),
    )
    try:
        assert (srv.sessions.limit, srv.sessions.per_owner, srv.sessions.idle) == (20, 4, 60.0)
    finally:
        srv.httpd.server_close()


def test_the_store_evicts_only_its_owners_sessions():
    store = SessionStore(idle=3600, limit=6, per_owner=3)
    alice = [store.create("user:alice") for _ in range(3)]
    a = [store.create(auth.client_owner("10.0.0.1")) for _ in range(3)]
    b = [store.create(auth.client_owner("10.0.0.2")) for _ in range(2)]
    store.create(auth.client_owner("10.0.0.1"))  # over its own cap: its oldest goes
    assert store.get(a[0].id) is None and store.get(a[1].id) is not None
    assert all(store.get(s.id) for s in b)
    # the anonymous total (6) is full: a new address takes from the address holding most,
    # never from a logged-in user
    for _ in range(3):
        store.create(auth.client_owner("10.0.0.9"))
    assert all(store.get(s.id) for s in alice)
    assert len(store) <= 6 + 3
    # a user over their cap evicts their own oldest only
    store.create("user:alice")
    assert store.get(alice[0].id) is None and store.get(alice[1].id) is not None
    # IPv6 clients are counted by their /64
    assert auth.client_owner("2001:db8::1") == auth.client_owner("2001:db8::ffff")
    assert auth.client_owner("::ffff:10.0.0.1") == auth.client_owner("10.0.0.1")


def test_a_session_is_not_idle_while_a_request_of_it_runs():
    """Before, a session's idle time counted from the start of its last request: a query
    longer than the idle limit lost its session (and its temporary tables) to the sweep half
    way, and the client's next request found none."""
    store = SessionStore(idle=0.3)
    s = store.create("addr:10.0.0.1")
    assert store.get(s.id, hold=True) is s  # a request of it begins
    time.sleep(0.6)
    assert len(store) == 1  # the sweep (every count) leaves it: a request runs
    store.release(s)  # the answer is sent: idle from now
    assert store.get(s.id) is s
    time.sleep(0.6)
    assert len(store) == 0  # idle past the limit, nothing running: swept
    assert store.get(s.id) is None
