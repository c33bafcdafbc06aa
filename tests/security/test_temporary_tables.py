"""Temporary tables over the REST API (docs/security.md, "Temporary tables"): their creator
reads them back by name in later requests of its session, no other client reaches them by name
or by path, and they are removed when the session ends, and after a crash by the next server."""

from __future__ import annotations

import os
import signal
import time

import pytest
from tests.reliability.test_server_resources import Serve, _slow
from tests.server.helpers import Http

from drillspark.server import DrillServer, Limits
from drillspark.sql.temporary import OWNER_FILE


def _session_folders(tmp) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if (p / OWNER_FILE).exists())


@pytest.fixture
def tmp_server(spark, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    srv = DrillServer(
        spark, port=0, workspaces={"tmp": str(tmp)}, limits=Limits(session_idle=3.0)
    ).start()
    yield srv, tmp
    srv.stop()


def test_a_temporary_table_is_its_sessions_alone_and_ends_with_it(tmp_server):
    srv, tmp = tmp_server
    alice = Http(srv.url, cookies=True)
    made = alice.query("CREATE TEMPORARY TABLE t AS SELECT 1 AS a, 'x' AS b")
    assert made["queryState"] == "COMPLETED", made
    assert alice.cookie is not None  # the table is state: the session is kept
    # before: "no default schema" (each request had a SqlSession of its own, without it)
    back = alice.query("SELECT a, b FROM t")
    assert back["rows"] == [{"a": 1, "b": "x"}], back
    assert alice.query("SELECT a FROM dfs.tmp.t")["rows"] == [{"a": 1}]
    (folder,) = _session_folders(tmp)
    # another client: not by name, not by the session folder's path (before: read by path)
    bob = Http(srv.url, cookies=True)
    for sql in ("SELECT * FROM t", f"SELECT * FROM dfs.tmp.`{folder}/t`"):
        answer = bob.query(sql)
        assert answer["queryState"] == "FAILED", (sql, answer)
        assert "not found" in answer["errorMessage"], answer
    listed = bob.query(f"SHOW FILES IN dfs.tmp.`{folder}`")
    assert listed["queryState"] == "FAILED" and "another session" in listed["errorMessage"]
    assert bob.query(f"DROP TABLE dfs.tmp.`{folder}/t`")["queryState"] == "FAILED"
    assert (tmp / folder / "t").is_dir()
    # the session idles past its limit (3 s here): swept, and its tables with it
    deadline = time.monotonic() + 30
    while _session_folders(tmp) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _session_folders(tmp) == []
    assert alice.query("SELECT * FROM t")["queryState"] == "FAILED"


def test_a_query_longer_than_the_idle_limit_keeps_its_sessions_tables(spark, shared, tmp_path):
    """A session idle for 1 s at most runs a query stopped by the 4 s time limit: the sweep
    (every 2 s) ran while it did. Before, the session's idle time counted from the start of
    the request, so the sweep took the session and its temporary table half way."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"tmp": str(tmp), "data": str(shared / "data")},
        limits=Limits(session_idle=1.0),
    ).start()
    try:
        alice = Http(srv.url, cookies=True)
        made = alice.query("CREATE TEMPORARY TABLE t AS SELECT 1 AS a")
        assert made["queryState"] == "COMPLETED", made
        srv.queries.max_seconds = 4  # now: the CTAS itself can take 4 s on a busy machine
        started = time.monotonic()
        slow = alice.query(_slow("idle-limit"))
        assert time.monotonic() - started > 3.0, slow  # past the idle limit and a sweep
        assert slow["queryState"] == "CANCELED" and "time limit" in slow["errorMessage"], slow
        srv.queries.max_seconds = 0
        back = alice.query("SELECT a FROM t")
        assert back["queryState"] == "COMPLETED" and back["rows"] == [{"a": 1}], back
        assert len(_session_folders(tmp)) == 1
    finally:
        srv.stop()


@pytest.mark.load  # the long tier: 45-66 s of `make test`'s 20 minutes
def test_a_flight_call_longer_than_the_idle_limit_keeps_its_sessions_tables(
    spark, shared, tmp_path
):
    """The same through Flight SQL (ADBC): the DoGet that runs the 4 s query held the session,
    which the sweep took half way before (each call touched it only as it began)."""
    from tests.flight.conftest import adbc_connect

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    srv = DrillServer(
        spark,
        port=0,
        flight_port=0,
        workspaces={"tmp": str(tmp), "data": str(shared / "data")},
        limits=Limits(session_idle=1.0),
    ).start()
    conn = adbc_connect(srv)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TEMPORARY TABLE t AS SELECT 1 AS a")
        cur.fetchall()
        srv.queries.max_seconds = 4  # now: the CTAS itself can take 4 s on a busy machine
        started = time.monotonic()
        with pytest.raises(Exception, match="time limit"):
            cur.execute(_slow("flight-idle-limit"))
            cur.fetchall()
        assert time.monotonic() - started > 3.0  # past the idle limit and a sweep
        srv.queries.max_seconds = 0
        cur = conn.cursor()
        cur.execute("SELECT a FROM t")
        assert cur.fetchall() == [(1,)]
        assert len(_session_folders(tmp)) == 1
    finally:
        conn.close()
        srv.stop()


def test_logging_out_removes_the_sessions_temporary_tables(spark, tmp_path, users_file):
    import requests
    from tests.server.helpers import PASSWORDS

    from drillspark.server.auth import read_users

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    srv = DrillServer(
        spark, port=0, workspaces={"tmp": str(tmp)}, users=read_users(str(users_file))
    ).start()
    try:
        with requests.Session() as alice:
            login = {"j_username": "alice", "j_password": PASSWORDS["alice"]}
            assert alice.post(srv.url + "/j_security_check", data=login).status_code == 200
            made = alice.post(
                srv.url + "/query.json",
                json={"queryType": "SQL", "query": "CREATE TEMPORARY TABLE t AS SELECT 1 AS a"},
            ).json()
            assert made["queryState"] == "COMPLETED", made
            assert len(_session_folders(tmp)) == 1
            alice.get(srv.url + "/logout")
            assert _session_folders(tmp) == []
    finally:
        srv.stop()


@pytest.mark.load  # the long tier: 20-35 s of `make test`'s time
@pytest.mark.spark_process
@pytest.mark.slow
def test_a_crashed_servers_temporary_tables_are_removed_at_the_next_start(spark, tmp_path):
    """`drillspark serve` killed (SIGKILL: no exit handler runs) with a temporary table: the
    next server on that temporary workspace removes it; a live process's folder is kept."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    srv = Serve(tmp_path, {"tmp": tmp})
    try:
        http = Http(srv.url, cookies=True)
        made = http.query("CREATE TEMPORARY TABLE t AS SELECT 1 AS a")
        assert made["queryState"] == "COMPLETED", made
        os.kill(srv.proc.pid, signal.SIGKILL)
        srv.proc.wait(60)
    finally:
        srv.stop()
    (orphan,) = _session_folders(tmp)
    live = DrillServer(spark, port=0, workspaces={"tmp": str(tmp)}).start()
    try:
        mine = Http(live.url, cookies=True)
        assert mine.query("CREATE TEMPORARY TABLE u AS SELECT 2 AS a")["queryState"] == (
            "COMPLETED"
        )
        assert orphan not in _session_folders(tmp)
        (kept,) = _session_folders(tmp)
        again = DrillServer(spark, port=0, workspaces={"tmp": str(tmp)}).start()
        again.stop()
        assert _session_folders(tmp) == [kept]  # this process runs: its folder stays
    finally:
        live.stop()
