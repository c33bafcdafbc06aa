"""The sys tables that describe the server (#36), over REST as Drill 1.22 answers them. Asked
of Drill 1.22's server.sh (`SELECT * FROM sys.<table>` over /query.json):

- sys.profiles: columns queryId startTime foreman fragments user queue planTime queueTime
  executeTime totalTime state pluginCount pluginList query, metadata VARCHAR TIMESTAMP
  VARCHAR BIGINT VARCHAR VARCHAR BIGINT BIGINT BIGINT BIGINT VARCHAR BIGINT VARCHAR VARCHAR;
  a finished query's row e.g. foreman "localhost", user "anonymous", queue "Unknown",
  queueTime 0, state "COMPLETED", pluginCount 1, pluginList "[sys]", query its text (the
  query that reads sys.profiles is not listed: it has not finished).
- sys.profiles_json: queryId VARCHAR, json VARCHAR (the profile /profiles/{id}.json gives).
- sys.connections: user client drillbit established duration queries isAuthenticated
  isEncrypted usingSSL session; VARCHAR VARCHAR VARCHAR TIMESTAMP VARCHAR INT BIT BIT BIT
  VARCHAR; e.g. "anonymous", "127.0.0.1", "localhost", ..., "27.948 sec", 0, false, false,
  false, a UUID.
- sys.boot: name kind accessibleScopes optionScope status num_val string_val bool_val
  float_val; VARCHAR VARCHAR VARCHAR VARCHAR VARCHAR BIGINT VARCHAR BIT FLOAT8; e.g.
  drill.exec.rpc.user.server.port LONG BOOT BOOT BOOT 31010, drill.exec.http.ssl_enabled
  BOOLEAN ... false, drill.exec.security.user.auth.enabled BOOLEAN ... false,
  drill.exec.http.session_max_idle_secs LONG 3600; a STRING's string_val is quoted
  (`"0.0.0.0"`).
"""

from __future__ import annotations

import json
import re
import uuid

import requests
from tests.server.helpers import PASSWORDS


def test_profiles_list_the_finished_queries(http):
    marker = f"SELECT 'sys-profiles-{uuid.uuid4().hex[:8]}' AS m FROM (VALUES(1))"
    ran = http.query(marker)
    answer = http.query(
        "SELECT * FROM sys.profiles WHERE query LIKE '%sys-profiles-%' AND query NOT LIKE "
        "'%sys.profiles%'"
    )
    assert answer["columns"] == [
        "queryId",
        "startTime",
        "foreman",
        "fragments",
        "user",
        "queue",
        "planTime",
        "queueTime",
        "executeTime",
        "totalTime",
        "state",
        "pluginCount",
        "pluginList",
        "query",
    ]
    assert answer["metadata"] == [
        "VARCHAR",
        "TIMESTAMP",
        "VARCHAR",
        "BIGINT",
        "VARCHAR",
        "VARCHAR",
        "BIGINT",
        "BIGINT",
        "BIGINT",
        "BIGINT",
        "VARCHAR",
        "BIGINT",
        "VARCHAR",
        "VARCHAR",
    ]
    row = next(r for r in answer["rows"] if r["query"] == marker)
    assert row["queryId"] == ran["queryId"]
    assert (row["foreman"], row["user"], row["state"]) == ("localhost", "anonymous", "COMPLETED")
    assert row["totalTime"] >= row["planTime"] >= 0 and row["queueTime"] == 0
    assert row["totalTime"] == row["planTime"] + row["queueTime"] + row["executeTime"]
    assert row["pluginCount"] == 0 and row["pluginList"] == "[]"
    # a query that read storage names its plugins as Drill's list does
    http.query("SELECT * FROM sys.version")
    read_sys = http.query(
        "SELECT pluginCount, pluginList FROM sys.profiles WHERE query = 'SELECT * FROM sys.version'"
    )
    assert {"pluginCount": 1, "pluginList": "[sys]"} in read_sys["rows"]
    # the query reading the table is not there: it has not finished
    me = http.query("SELECT count(*) AS n FROM sys.profiles WHERE query LIKE '%AS n FROM sys%'")
    assert me["rows"] == [{"n": 0}]


def test_profiles_json_is_the_profile_the_server_shows(http):
    ran = http.query("SELECT 42 AS answer FROM (VALUES(1))")
    answer = http.query(f"SELECT * FROM sys.profiles_json WHERE queryId = '{ran['queryId']}'")
    assert answer["columns"] == ["queryId", "json"]
    assert answer["metadata"] == ["VARCHAR", "VARCHAR"]
    [row] = answer["rows"]
    profile = json.loads(row["json"])
    assert profile == http.get_json(f"/profiles/{ran['queryId']}.json")
    assert profile["query"] == "SELECT 42 AS answer FROM (VALUES(1))"


def test_boot_names_the_settings_the_server_started_with(server, http):
    answer = http.query("SELECT * FROM sys.boot")
    assert answer["columns"] == [
        "name",
        "kind",
        "accessibleScopes",
        "optionScope",
        "status",
        "num_val",
        "string_val",
        "bool_val",
        "float_val",
    ]
    assert answer["metadata"] == [
        "VARCHAR",
        "VARCHAR",
        "VARCHAR",
        "VARCHAR",
        "VARCHAR",
        "BIGINT",
        "VARCHAR",
        "BIT",
        "FLOAT8",
    ]
    rows = {r["name"]: r for r in answer["rows"]}
    port = rows["drill.exec.http.port"]
    assert (port["kind"], port["num_val"], port["status"]) == ("LONG", server.port, "BOOT")
    assert rows["drill.exec.http.bind_addr"]["string_val"] == json.dumps(server.host)
    assert rows["drill.exec.security.user.auth.enabled"]["bool_val"] is False
    assert rows["drill.exec.http.ssl_enabled"]["bool_val"] is False
    assert rows["drill.exec.http.session_max_idle_secs"]["num_val"] == 3600
    assert all(r["accessibleScopes"] == "BOOT" for r in answer["rows"])


def test_connections_list_a_logged_in_session_without_its_cookie(auth_server):
    with requests.Session() as client:
        page = client.post(
            auth_server.url + "/j_security_check",
            data={"j_username": "bob", "j_password": PASSWORDS["bob"]},
        )
        assert page.status_code == 200 and client.cookies
        answer = client.post(
            auth_server.url + "/query.json",
            json={"queryType": "SQL", "query": "SELECT * FROM sys.connections"},
        ).json()
        cookies = list(client.cookies.values())
    assert answer["columns"] == [
        "user",
        "client",
        "drillbit",
        "established",
        "duration",
        "queries",
        "isAuthenticated",
        "isEncrypted",
        "usingSSL",
        "session",
    ]
    assert answer["metadata"] == [
        "VARCHAR",
        "VARCHAR",
        "VARCHAR",
        "TIMESTAMP",
        "VARCHAR",
        "INT",
        "BIT",
        "BIT",
        "BIT",
        "VARCHAR",
    ]
    bobs = [r for r in answer["rows"] if r["user"] == "bob"]
    assert bobs, answer["rows"]
    row = bobs[-1]
    assert row["drillbit"] == "localhost" and row["isAuthenticated"] is True
    assert re.fullmatch(r"\d+\.\d{3} sec|\d\d min \d+\.\d{3} sec", row["duration"])
    uuid.UUID(row["session"])
    # the session cookie is a credential: it appears nowhere in the answer
    assert cookies and not any(c in json.dumps(answer) for c in cookies)


def test_stats_give_the_direct_memory_limit(http):
    """pydrill's `stats()` test asks for a non-zero `Maximum Direct Memory` (Drill 1.22 no
    longer serves /stats.json; older Drills gave the Drillbit's limit)."""
    stats = {e["name"]: e["value"] for e in http.get_json("/stats.json")}
    direct_max = http.query("SELECT direct_max FROM sys.memory")["rows"][0]["direct_max"]
    assert stats["Maximum Direct Memory"] == direct_max > 0


def test_connections_list_a_native_connection(spark, shared):
    """Drill's JDBC driver on the user port, asking sys.connections on its own connection:
    Drill 1.22 lists it (user `anonymous`, client `127.0.0.1`, drillbit `localhost`, queries
    counted, isAuthenticated false without logins, a session UUID)."""
    from tests.native.conftest import Jdbc, fetch_drill_clients

    from drillspark.server import DrillServer

    srv = DrillServer(spark, port=0, user_port=0, workspaces={"data": str(shared / "data")})
    srv.start()
    try:
        url = f"jdbc:drill:drillbit=127.0.0.1:{srv.native.port}"
        answers = Jdbc(fetch_drill_clients.classpath()).run(
            url,
            "query:SELECT 1 AS one FROM (VALUES(1))",
            "query:SELECT `user`, client, drillbit, queries, isAuthenticated, session "
            "FROM sys.connections",
        )
        [step] = [a for k, a in answers.items() if "sys.connections" in k]
        assert "error" not in step, step
        [row] = [r for r in step["rows"] if r[1] == "127.0.0.1"]
        user, client, drillbit, queries, authenticated, session = row
        assert (user, client, drillbit, authenticated) == (
            "anonymous",
            "127.0.0.1",
            "localhost",
            False,
        )
        assert queries == 2  # this one and the one before, on this connection
        uuid.UUID(session)
    finally:
        srv.stop()
