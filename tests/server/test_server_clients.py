"""Drill's clients from PyPI against `drillspark serve`: pydrill, requests (plain HTTP), many
at once, a cancelled query, and logins right and wrong."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from pydrill.client import PyDrill
from tests.server.helpers import PASSWORDS, Http

NATION = "dfs.data.`breadth/tpch_json/nation.json`"
SUPPLIER = "dfs.data.`breadth/tpch_json/supplier.json`"


def test_pydrill(server):
    drill = PyDrill(host="127.0.0.1", port=server.port)
    assert drill.is_active()
    result = drill.query(
        f"SELECT N_NAME, N_REGIONKEY FROM {NATION} WHERE N_REGIONKEY = 1 ORDER BY N_NAME",
        timeout=300,
    )
    assert result.columns == ["N_NAME", "N_REGIONKEY"]
    assert [r["N_NAME"] for r in result] == [
        "ARGENTINA",
        "BRAZIL",
        "CANADA",
        "PERU",
        "UNITED STATES",
    ]
    frame = result.to_dataframe()
    assert list(frame["N_NAME"])[:2] == ["ARGENTINA", "BRAZIL"]
    stats = drill.stats()
    assert stats.drillbits_number == 1 and stats.drillbits[0].address == "localhost"
    # cp, dfs and the plugins Drill ships disabled (s3, mongo, http, kafka)
    assert {p["name"] for p in drill.storage().data} == {
        "cp",
        "dfs",
        "s3",
        "mongo",
        "http",
        "kafka",
    }
    assert drill.storage_detail("dfs").data["config"]["type"] == "file"
    assert any(o["name"] == "store.json.all_text_mode" for o in drill.options().data)
    profiles = drill.profiles()
    assert any(q["query"].startswith("SELECT N_NAME") for q in profiles.finished_queries)
    assert "counters" in drill.metrics().data


@pytest.mark.parametrize("schema", ["sys", "INFORMATION_SCHEMA"])
def test_a_session_in_a_metadata_schema_keeps_working(server, schema):
    # Drill 1.22 (2026-12-07): after USE sys every request of the session runs, and
    # defaultSchema "sys" lists its tables; the session had kept "sys." and refused every later
    # request ("schema [sys.] is not valid"), sqlalchemy-drill's drill+sadrill://host/sys too
    url = server.url + "/query.json"
    with requests.Session() as s:
        use = s.post(url, json={"queryType": "SQL", "query": f"USE {schema}"}).json()
        summary = f"Default schema changed to [{schema.lower()}]"
        assert use["rows"] == [{"ok": True, "summary": summary}], use
        after = s.post(url, json={"queryType": "SQL", "query": "SELECT 1 AS x FROM (VALUES(1))"})
        assert after.status_code == 200 and after.json()["rows"] == [{"x": 1}], after.text
        tables = s.post(url, json={"queryType": "SQL", "query": "SHOW TABLES"}).json()
        assert {r["TABLE_SCHEMA"] for r in tables["rows"]} == {schema.lower()}, tables
    tables = requests.post(
        url, json={"queryType": "SQL", "query": "SHOW TABLES", "defaultSchema": schema}
    )
    assert tables.status_code == 200, tables.text
    assert {r["TABLE_SCHEMA"] for r in tables.json()["rows"]} == {schema.lower()}


def test_requests_session_keeps_use_and_alter_session(server):
    with requests.Session() as s:
        url = server.url + "/query.json"
        use = s.post(url, json={"queryType": "SQL", "query": "USE dfs.data"}).json()
        assert use["rows"] == [{"ok": True, "summary": "Default schema changed to [dfs.data]"}]
        s.post(
            url,
            json={
                "queryType": "SQL",
                "query": "ALTER SESSION SET `store.json.all_text_mode` = true",
            },
        )
        answer = s.post(
            url,
            json={
                "queryType": "SQL",
                "query": "SELECT N_NATIONKEY FROM `breadth/tpch_json/nation.json` LIMIT 1",
            },
        ).json()
        assert answer["metadata"] == ["VARCHAR"], answer
    # without the cookie: a session of its own, as every anonymous Drill request
    fresh = requests.post(
        server.url + "/query.json",
        json={
            "queryType": "SQL",
            "query": "SELECT N_NATIONKEY FROM `breadth/tpch_json/nation.json`",
        },
    )
    assert fresh.json()["queryState"] == "FAILED"
    assert "no default schema" in fresh.json()["errorMessage"]


def test_sixteen_clients_with_their_own_session_options(server):
    def client(i: int) -> tuple[int, list[str], list[str]]:
        http = Http(server.url, cookies=True)
        text_mode = i % 2 == 0
        http.query(f"ALTER SESSION SET `store.json.all_text_mode` = {str(text_mode).lower()}")
        http.query("USE dfs.data")
        seen = []
        for _ in range(3):
            a = http.query(
                "SELECT N_NATIONKEY, N_NAME FROM `breadth/tpch_json/nation.json` "
                f"WHERE N_NATIONKEY = {i}"
            )
            assert a["queryState"] == "COMPLETED", a
            seen.append(a["metadata"][0])
            assert a["rows"][0]["N_NATIONKEY"] == (str(i) if text_mode else i)
        return i, seen, [a["rows"][0]["N_NAME"]]

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(client, range(16)))
    for i, seen, _ in results:
        assert seen == ["VARCHAR" if i % 2 == 0 else "BIGINT"] * 3
    assert len({name for _, _, (name,) in results}) == 16


@pytest.mark.load  # the long tier: 45-66 s of `make test`'s 20 minutes
def test_a_running_query_is_cancelled(server):
    http = Http(server.url)
    slow = (
        f"SELECT count(*) AS n FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, {SUPPLIER} d "
        "WHERE concat(a.S_COMMENT, b.S_COMMENT, c.S_COMMENT, d.S_COMMENT) LIKE '%zzqq%'"
    )
    worker, answer, query_id = http.start(slow)
    assert query_id is not None, answer
    status, _, data = http.get(f"/profiles/cancel/{query_id}")
    assert status == 200 and data.decode() == f"Cancelled query {query_id} on locally running node."
    worker.join(timeout=120)
    assert not worker.is_alive()
    assert answer["queryState"] == "CANCELED", answer
    profile = http.get_json(f"/profiles/{query_id}.json")
    assert profile["state"] == 3 and "error" not in profile  # as Drill's canceled profile
    entry = next(
        q for q in http.get_json("/profiles.json")["finishedQueries"] if q["queryId"] == query_id
    )
    assert entry["state"] == "Canceled"
    # the server goes on answering
    assert http.query("SELECT 1 AS one FROM (VALUES(1))")["rows"] == [{"one": 1}]


def test_form_login_and_session_cookie(auth_server):
    base = auth_server.url
    with requests.Session() as s:
        denied = s.post(base + "/query.json", json={"queryType": "SQL", "query": "SELECT 1"})
        assert denied.status_code == 401
        assert "authentication required" in denied.json()["errorMessage"]
        page = s.post(
            base + "/j_security_check", data={"j_username": "bob", "j_password": PASSWORDS["bob"]}
        )
        assert page.status_code == 200
        assert "Invalid username/password credentials" not in page.text
        answer = s.post(
            base + "/query.json",
            json={
                "queryType": "SQL",
                "query": "SELECT 1 AS one FROM (VALUES(1))",
                "userName": "mallory",
            },
        ).json()
        assert answer["rows"] == [{"one": 1}]
        entry = next(
            q
            for q in s.get(base + "/profiles.json").json()["finishedQueries"]
            if q["queryId"] == answer["queryId"]
        )
        assert entry["user"] == "bob"  # the login, not the userName field
        # a user is not an admin
        assert s.get(base + "/storage/dfs/enable/false").status_code == 403
        assert s.get(base + "/logout").status_code == 200
        assert (
            s.post(base + "/query.json", json={"queryType": "SQL", "query": "SELECT 1"}).status_code
            == 401
        )


def test_wrong_password(auth_server):
    base = auth_server.url
    with requests.Session() as s:
        page = s.post(
            base + "/j_security_check",
            data={"j_username": "alice", "j_password": "not-her-password"},
        )
        assert "Invalid username/password credentials" in page.text
        assert (
            s.post(base + "/query.json", json={"queryType": "SQL", "query": "SELECT 1"}).status_code
            == 401
        )
    wrong = requests.post(
        base + "/query.json", auth=("alice", "nope"), json={"queryType": "SQL", "query": "SELECT 1"}
    )
    assert wrong.status_code == 401
    assert wrong.headers["WWW-Authenticate"].startswith("Basic")
    assert json.loads(wrong.text)["errorMessage"] == "Invalid username/password credentials."
    unknown = requests.get(base + "/profiles.json", auth=("nobody", "x"))
    assert unknown.status_code == 401


def test_http_basic_and_pydrill_login(auth_server):
    base = auth_server.url
    ok = requests.post(
        base + "/query.json",
        auth=("alice", PASSWORDS["alice"]),
        json={"queryType": "SQL", "query": "SELECT 2 AS two FROM (VALUES(1))"},
    )
    assert ok.json()["rows"] == [{"two": 2}]
    assert (
        requests.get(base + "/cluster.json", auth=("alice", PASSWORDS["alice"])).json()[
            "authEnabled"
        ]
        is True
    )
    drill = PyDrill(host="127.0.0.1", port=auth_server.port, auth=f"alice:{PASSWORDS['alice']}")
    assert drill.query("SELECT 3 AS three FROM (VALUES(1))", timeout=300).rows == [{"three": 3}]
    # a browser without a login is sent to the login form
    page = requests.get(base + "/query", headers={"Accept": "text/html"})
    assert 'action="/j_security_check"' in page.text


def test_bind_refused_without_auth(spark):
    import pytest

    from drillspark.server import BindError, DrillServer

    with pytest.raises(BindError, match="--insecure-bind"):
        DrillServer(spark, host="0.0.0.0", port=0)


def test_cli_sql_connect(server, capsys):
    from drillspark.cli.main import main

    code = main(
        [
            "sql",
            "--connect",
            server.url,
            "--format",
            "json",
            "USE dfs.data; SELECT N_NAME FROM `breadth/tpch_json/nation.json` "
            "WHERE N_NATIONKEY = 3",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[-1] == '{"N_NAME": "CANADA"}'  # the USE held for the second statement
    code = main(["sql", "--connect", server.url, "selec 1"])
    assert code == 1
    assert "FAILED: Syntax error" in capsys.readouterr().err  # as a local run, on stderr


def test_cli_shell_connect(server, capsys, monkeypatch):
    """`drillspark shell --connect URL` with piped statements: the server answers them, USE
    holds for the next statement (the session cookie), and an error is one line."""
    import io

    from drillspark.cli.main import main

    monkeypatch.setattr(
        "sys.stdin",
        io.StringIO(
            "!tables\n"  # no default schema yet: dfs.root's files, as the local shell
            "USE dfs.data;\n"
            "!tables\n"
            "SELECT N_NAME FROM `breadth/tpch_json/nation.json`\n WHERE N_NATIONKEY = 3;\n"
            "SELECT count(*) AS n FROM `breadth/tpch_json/nation.json`;\n"
            "selec 1;\n"
        ),
    )
    code = main(["shell", "--connect", server.url, "--history", "/dev/null"])
    out = capsys.readouterr().out
    assert "Default schema changed to [dfs.data]" in out
    before, after = out.split("Default schema changed to [dfs.data]")
    assert "README.md" in before and "| breadth " in after, out
    assert "| CANADA |" in out and "| 25 |" in out, out
    assert "Error: FAILED: Syntax error" in out and "Traceback" not in out
    assert code == 1  # a statement failed
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1;\n"))
    assert main(["shell", "--connect", "http://127.0.0.1:9", "--history", "/dev/null"]) == 1
    assert "Error: cannot reach http://127.0.0.1:9" in capsys.readouterr().out


@pytest.mark.load  # the long tier: 40-90 s of `make test`'s 20 minutes
def test_a_cancelled_create_table_leaves_nothing_half_written(server):
    """A CTAS cancelled while Spark writes (as the server's stop cancels it) leaves no table
    behind: reading it fails as unknown and the same name can be created again."""
    import os

    http = Http(server.url)
    sql = (
        f"CREATE TABLE dfs.tmp.halfway AS SELECT a.S_NAME AS n, b.S_COMMENT AS c, "
        f"c.S_COMMENT AS d, e.S_NAME AS e FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, "
        f"{SUPPLIER} e"
    )
    worker, answer, query_id = http.start(sql)
    assert query_id is not None, answer
    tmp = server.catalog.workspaces["tmp"]

    def ours() -> list[str]:  # the table, its staging folder and its write lock
        return sorted(n for n in os.listdir(tmp) if "halfway" in n)

    deadline = time.monotonic() + 300
    # Spark has started writing into the staging folder (storage/writers.py)
    while not any(n.startswith(".halfway.drillspark-") and not n.endswith("lock") for n in ours()):
        assert time.monotonic() < deadline and worker.is_alive(), (answer, ours())
        time.sleep(0.1)
    # the write runs inside the statement's planning call: the profile says Running anyway,
    # once Spark runs the write's job (a moment after the staging folder appears)
    while http.get_json(f"/profiles/{query_id}.json")["state"] != 1:  # Drill's RUNNING
        assert time.monotonic() < deadline and worker.is_alive(), (answer, ours())
        time.sleep(0.1)
    listed = http.get_json("/profiles.json")["runningQueries"]
    assert [q["state"] for q in listed if q["queryId"] == query_id] == ["Running"], listed
    time.sleep(1)
    assert http.get(f"/profiles/cancel/{query_id}")[0] == 200
    worker.join(timeout=120)
    assert answer["queryState"] == "CANCELED", answer
    assert ours() == []
    failed = http.query("SELECT * FROM dfs.tmp.halfway")
    assert failed["queryState"] == "FAILED" and "not found" in failed["errorMessage"], failed
    again = http.query("CREATE TABLE dfs.tmp.halfway AS SELECT 1 AS one FROM (VALUES(1))")
    assert again["queryState"] == "COMPLETED", again
    assert http.query("SELECT one FROM dfs.tmp.halfway")["rows"] == [{"one": 1}]


def test_a_query_over_the_time_limit_is_cancelled(spark, shared):
    """--max-seconds: a query running longer is cancelled with a message saying why, and
    the server answers the next one."""
    from drillspark.server import DrillServer, Limits

    srv = DrillServer(
        spark, port=0, workspaces={"data": str(shared / "data")}, limits=Limits(max_seconds=5)
    )
    with srv:
        http = Http(srv.url)
        # every row of the 900^4 cross product is tested (a predicate on a and d alone
        # filters before the other two joins and finished inside 5 s on an idle machine)
        slow = (
            f"SELECT count(*) AS n FROM {SUPPLIER} a, {SUPPLIER} b, {SUPPLIER} c, "
            f"{SUPPLIER} d WHERE concat(a.S_COMMENT, b.S_COMMENT, c.S_COMMENT, d.S_COMMENT) "
            "LIKE '%timelimit%'"
        )
        answer = http.query(slow)
        assert answer["queryState"] == "CANCELED", answer
        assert answer["errorMessage"] == (
            "query exceeded the server's time limit of 5 s and was cancelled"
        )
        assert http.get_json("/status.json") == {"status": "Running!"}
        assert http.query("SHOW SCHEMAS")["queryState"] == "COMPLETED"


@pytest.mark.load  # the long tier: 40-90 s of `make test`'s 20 minutes
def test_a_large_answer_is_streamed_a_partition_at_a_time(spark, shared):
    """The body is chunked and sent while Spark still computes it: a client that has read
    only the beginning of a three-partition answer (each partition's JSON, megabytes of it, more
    than the sockets buffer) holds the server at its first two partitions — fewer than three
    partitions fetched — and then gets every row."""
    import http.client

    from drillspark.server import DrillServer, Limits

    lineitem = "dfs.data.`breadth/tpch/lineitem.parquet`"
    srv = DrillServer(
        spark, port=0, workspaces={"data": str(shared / "data")}, limits=Limits(max_rows=0)
    )
    with srv:
        client = Http(srv.url)
        total = client.query(f"SELECT count(*) AS n FROM {lineitem}")["rows"][0]["n"]
        sql = " UNION ALL ".join([f"SELECT * FROM {lineitem}"] * 3)
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=300)
        conn.request(
            "POST",
            "/query.json",
            json.dumps({"queryType": "SQL", "query": sql}).encode(),
            {"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("Transfer-Encoding") == "chunked"
        assert response.getheader("Content-Length") is None
        head = response.read(64 * 1024)
        query_id = json.loads(head.split(b"\n", 1)[0] + b"}")["queryId"]
        progress = client.get_json(f"/profiles/{query_id}/progress.json")
        # the answer's partitions are fetched one job each (toLocalIterator), the next one
        # computed while this one is sent; the reads of the files' schemas come before
        fetched = [
            s["completed"]
            for j in progress["jobs"]
            for s in j["stages"]
            if s["name"].startswith("toLocalIterator")
        ]
        assert progress["state"] == "RUNNING" and sum(fetched) < 3, progress
        answer = json.loads(head + response.read())
        conn.close()
    assert answer["queryState"] == "COMPLETED"
    assert len(answer["rows"]) == 3 * total
