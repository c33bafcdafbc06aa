"""Drill 1.22's REST API as `drillspark serve` answers it: the shapes recorded from the real
Drill (shared/tools/drill/README.md, "REST responses") with drillspark's own answers."""

from __future__ import annotations

import json
import re

NATION = "dfs.data.`breadth/tpch_json/nation.json`"


def test_query_json_streams_drills_shape(http):
    status, headers, body = http.query_raw(
        f"SELECT N_NATIONKEY, N_NAME FROM {NATION} WHERE N_NATIONKEY < 2 ORDER BY N_NATIONKEY"
    )
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    text = body.decode()
    # Drill's layout: compact JSON, a newline before each comma, columns/metadata before rows
    assert re.fullmatch(
        r'\{"queryId":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"\n'
        r',"columns":\["N_NATIONKEY","N_NAME"\]\n'
        r',"metadata":\["BIGINT","VARCHAR"\]\n'
        r',"attemptedAutoLimit":0\n'
        r',"rows":\[\n'
        r'\{"N_NATIONKEY":0,"N_NAME":"ALGERIA"\}\n'
        r',\{"N_NATIONKEY":1,"N_NAME":"ARGENTINA"\}\n'
        r"\]\n"
        r',"queryState":"COMPLETED"\n\}',
        text,
    ), text
    assert list(json.loads(text)) == [
        "queryId",
        "columns",
        "metadata",
        "attemptedAutoLimit",
        "rows",
        "queryState",
    ]


def test_values_travel_as_drill_sends_them(http):
    # the values of the README's types example (Drill 1.22 over REST)
    answer = http.query(
        "SELECT CAST(1.5 AS DECIMAL(5,2)) AS d, CAST(2 AS INT) AS i, CAST(3 AS BIGINT) AS bi, "
        "CAST(0.5 AS FLOAT) AS f4, 1.5e0 AS f8, DATE '2024-01-02' AS dt, "
        "TIMESTAMP '2024-01-02 03:04:05.678' AS ts, TIME '03:04:05' AS tm, true AS b, "
        "CAST(NULL AS VARCHAR) AS n, CAST('ab' AS VARBINARY) AS vb, "
        "CAST('NaN' AS DOUBLE) AS nan FROM (VALUES(1))"
    )
    assert answer["queryState"] == "COMPLETED", answer
    assert answer["metadata"] == [
        "VARDECIMAL(5, 2)",
        "INT",
        "BIGINT",
        "FLOAT4",
        "FLOAT8",
        "DATE",
        "TIMESTAMP",
        "TIME",
        "BIT",
        "VARCHAR",
        "VARBINARY",
        "FLOAT8",
    ]
    assert answer["rows"] == [
        {
            "d": 1.50,
            "i": 2,
            "bi": 3,
            "f4": 0.5,
            "f8": 1.5,
            "dt": 1704153600000,
            "ts": 1704164645678,
            "tm": 11045000,
            "b": True,
            "n": None,
            "vb": "YWI=",
            "nan": "NaN",
        }
    ]


def test_decimal_keeps_its_scale_and_maps_keep_null_members(http, server):
    status, _, body = http.query_raw("SELECT CAST(1.5 AS DECIMAL(5,2)) AS d FROM (VALUES(1))")
    assert '{"d":1.50}' in body.decode()
    # the README's types.json: REST keeps a map's null members ("s":null), JDBC drops them
    folder = server.catalog.workspaces["tmp"]
    with open(f"{folder}/types.json", "w") as f:
        f.write(
            '{"id":1,"m":{"k":1,"s":"a"},"arr":[1,2],"f":0.5}\n'
            '{"id":2,"m":{"k":2},"arr":[],"f":null}\n'
        )
    answer = http.query("SELECT m, arr, f FROM dfs.tmp.`types.json` ORDER BY id")
    assert answer["metadata"] == ["MAP", "BIGINT", "FLOAT8"]
    assert answer["rows"] == [
        {"m": {"k": 1, "s": "a"}, "arr": [1, 2], "f": 0.5},
        {"m": {"k": 2, "s": None}, "arr": [], "f": None},
    ]


def test_every_row_carries_every_column(http, shared):
    answer = http.query(
        "SELECT * FROM dfs.data.`drill-conformance/data/drill/complex_student.json` LIMIT 3"
    )
    assert answer["queryState"] == "COMPLETED", answer
    for row in answer["rows"]:
        assert list(row) == answer["columns"]


def test_failed_query_is_http_200_with_message(http):
    status, _, body = http.query_raw("selec 1")
    assert status == 200
    answer = json.loads(body)
    assert list(answer) == ["queryId", "errorMessage", "queryState"]
    assert answer["queryState"] == "FAILED"
    assert "line 1, column" in answer["errorMessage"]


def test_verbose_errors_option_adds_exception_and_trace(http):
    answer = http.query(
        "SELECT * FROM dfs.data.`nosuch.json`",
        options={"drill.exec.http.rest.errors.verbose": True},
    )
    assert list(answer) == ["queryId", "exception", "errorMessage", "stackTrace", "queryState"]
    assert answer["queryState"] == "FAILED"
    assert "nosuch.json" in answer["errorMessage"]
    assert not any("Traceback" in line or "\tat " in line for line in answer["stackTrace"])


def test_auto_limit_cuts_and_is_announced(http):
    answer = http.query(f"SELECT N_NAME FROM {NATION}", autoLimit="3")
    assert answer["attemptedAutoLimit"] == 3
    assert len(answer["rows"]) == 3
    answer = http.query(f"SELECT N_NAME FROM {NATION}", autoLimit=100)
    assert answer["attemptedAutoLimit"] == 100
    assert len(answer["rows"]) == 25


def test_result_over_the_server_maximum_fails_after_its_rows(http):
    # the fixture's server answers at most 5000 rows; 25 * 25 * 25 = 15625
    status, _, body = http.query_raw(f"SELECT a.N_NAME FROM {NATION} a, {NATION} b, {NATION} c")
    answer = json.loads(body)
    assert answer["queryState"] == "FAILED"
    assert len(answer["rows"]) == 5000
    assert "5000 rows" in answer["errorMessage"]
    assert answer["attemptedAutoLimit"] == 0


def test_default_schema_and_options_per_request(http):
    answer = http.query(
        "SELECT count(*) AS n FROM `breadth/tpch_json/nation.json`", defaultSchema="dfs.data"
    )
    assert answer["rows"] == [{"n": 25}]
    typed = http.query(
        f"SELECT N_NATIONKEY FROM {NATION} LIMIT 1", options={"store.json.all_text_mode": True}
    )
    assert typed["metadata"] == ["VARCHAR"] and typed["rows"] == [{"N_NATIONKEY": "0"}]
    again = http.query(f"SELECT N_NATIONKEY FROM {NATION} LIMIT 1")
    assert again["metadata"] == ["BIGINT"]  # the option was for that request only


def test_bad_request_option_is_refused_as_drill_does(http):
    status, _, body = http.query_raw("SELECT 1 FROM (VALUES(1))", options={"nosuch.option": 1})
    assert status == 500
    assert json.loads(body)["errorMessage"].startswith("Query submission failed")
    status, _, body = http.query_raw("SELECT 1 FROM (VALUES(1))", autoLimit="abc")
    assert status == 500 and "autoLimit" in json.loads(body)["errorMessage"]


def test_malformed_requests_get_json_errors_and_the_server_stays_up(http):
    post = http.request
    cases = [
        (b'{"queryType":"SQL"', {"Content-Type": "application/json"}, 400),
        (b"[1,2]", {"Content-Type": "application/json"}, 400),
        (b'{"query":"select 1"}', {"Content-Type": "application/json"}, 400),
        (b"\xff\xfe", {"Content-Type": "application/json"}, 400),
        (
            b"queryType=SQL&query=select+1",
            {"Content-Type": "application/x-www-form-urlencoded"},
            415,
        ),
    ]
    for body, headers, expected in cases:
        status, hdrs, data = post("POST", "/query.json", body, headers)
        assert status == expected, data
        assert hdrs["Content-Type"] == "application/json"
        message = json.loads(data)["errorMessage"]
        assert message and "Traceback" not in message
    status, _, data = post(
        "POST", "/query.json", b"x" * (2 << 20), {"Content-Type": "application/json"}
    )
    assert status == 413 and "limit" in json.loads(data)["errorMessage"]
    assert http.get_json("/status.json") == {"status": "Running!"}


def test_unknown_paths_and_methods(http):
    status, _, data = http.get("/nosuch.json")
    assert status == 404 and json.loads(data) == {"errorMessage": "HTTP 404 Not Found"}
    status, _, _ = http.request("DELETE", "/query.json")
    assert status == 405


def test_console_files_are_looked_up_by_name_never_opened(http):
    """Found by fuzzing (tests/fuzz/test_rest_fuzz.py): a 300-character name under /static/
    reached open() and came back as a 500 internal error (file name too long)."""
    for name in ("a" * 300, "..", ".", "console", "nosuch.js"):
        status, _, data = http.get(f"/static/{name}")
        assert status == 404 and json.loads(data) == {"errorMessage": "HTTP 404 Not Found"}, name
    status, headers, data = http.get("/static/app.js")
    assert status == 200 and "javascript" in headers["Content-Type"]
    assert data  # the shipped file


def test_one_statement_per_request(http):
    answer = http.query("SELECT 1 AS a FROM (VALUES(1)); SELECT 2 AS b FROM (VALUES(1))")
    assert answer["queryState"] == "FAILED"
    assert "one statement" in answer["errorMessage"]


def test_queries_stay_inside_the_workspaces(http):
    for table in ("dfs.`/etc/passwd`", "dfs.data.`../../../etc/passwd`"):
        answer = http.query(f"SELECT * FROM {table}")
        assert answer["queryState"] == "FAILED"
        # the one workspace rule (docs/security.md) refuses both before anything is read
        assert "is refused in workspace" in answer["errorMessage"]


def test_profiles_list_and_profile(http):
    done = http.query("SELECT 1 AS one FROM (VALUES(1))", userName="carol")
    failed = http.query("SELECT * FROM dfs.data.`nosuch.json`")
    listing = http.get_json("/profiles.json")
    assert list(listing) == [
        "errors",
        "runningQueries",
        "finishedQueries",
        "maxFetchedQueries",
        "queriesPerPage",
    ]
    entries = {e["queryId"]: e for e in listing["finishedQueries"]}
    ok = entries[done["queryId"]]
    assert list(ok) == [
        "queryId",
        "startTime",
        "endTime",
        "time",
        "link",
        "foreman",
        "query",
        "state",
        "user",
        "totalCost",
        "queueName",
        "duration",
    ]
    assert ok["state"] == "Succeeded" and ok["user"] == "carol"
    assert re.fullmatch(r"\d+\.\d{3} sec", ok["duration"])
    assert entries[failed["queryId"]]["state"] == "Failed"
    profile = http.get_json(f"/profiles/{failed['queryId']}.json")
    assert profile["state"] == 4 and "nosuch.json" in profile["error"]
    assert profile["queryId"] == failed["queryId"]
    good = http.get_json(f"/profiles/{done['queryId']}.json")
    assert good["state"] == 2 and "error" not in good
    assert json.loads(good["plan"])["query"]  # the Drill logical plan that ran
    status, _, data = http.get("/profiles/cancel/" + done["queryId"])
    assert status == 200 and data.decode().startswith("Failure attempting to cancel query")


def test_storage_endpoints(http, server, tmp_path):
    plugins = http.get_json("/storage.json")
    assert [p["name"] for p in plugins] == ["cp", "dfs"]
    dfs = http.get_json("/storage/dfs.json")
    assert dfs["config"]["workspaces"]["data"]["writable"] is False
    assert dfs["config"]["enabled"] is True
    assert http.get_json("/storage/nosuch.json") == {"name": "nosuch", "config": None}
    # a new workspace, usable at once
    dfs["config"]["workspaces"]["extra"] = {"location": str(tmp_path), "writable": False}
    (tmp_path / "one.json").write_text('{"x": 7}\n')
    body = json.dumps(dfs).encode()
    status, _, data = http.request(
        "POST", "/storage/dfs.json", body, {"Content-Type": "application/json"}
    )
    assert status == 200 and json.loads(data) == {"result": "Success"}
    assert http.query("SELECT x FROM dfs.extra.`one.json`")["rows"] == [{"x": 7}]
    status, _, data = http.get("/storage/dfs/enable/false")
    assert json.loads(data) == {"result": "Success"}
    off = http.query("SELECT x FROM dfs.extra.`one.json`")
    assert off["queryState"] == "FAILED" and "disabled" in off["errorMessage"]
    assert "enabled" not in http.get_json("/storage/dfs.json")["config"]
    http.get("/storage/dfs/enable/true")
    del dfs["config"]["workspaces"]["extra"]
    http.request(
        "POST", "/storage/dfs.json", json.dumps(dfs).encode(), {"Content-Type": "application/json"}
    )
    assert "extra" not in http.get_json("/storage/dfs.json")["config"]["workspaces"]
    status, _, data = http.request("DELETE", "/storage/dfs.json")
    assert status == 400 and "cannot be deleted" in json.loads(data)["errorMessage"]


def test_options_endpoints(http):
    options = {o["name"]: o for o in http.get_json("/options.json")}
    mode = options["store.json.all_text_mode"]
    assert mode == {
        "name": "store.json.all_text_mode",
        "value": False,
        "defaultValue": "false",
        "accessibleScopes": "ALL",
        "kind": "BOOLEAN",
        "optionScope": "BOOT",
    }
    status, _, data = http.request(
        "POST",
        "/option/store.json.all_text_mode",
        b"name=store.json.all_text_mode&value=true&kind=BOOLEAN",
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 200, data
    try:
        changed = {o["name"]: o for o in http.get_json("/options.json")}
        assert changed["store.json.all_text_mode"]["value"] is True
        assert changed["store.json.all_text_mode"]["optionScope"] == "SYSTEM"
        typed = http.query(f"SELECT N_NATIONKEY FROM {NATION} LIMIT 1")
        assert typed["metadata"] == ["VARCHAR"]  # a system option reaches every session
    finally:
        http.request(
            "POST",
            "/option/store.json.all_text_mode",
            b"value=false&kind=BOOLEAN",
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
    status, _, data = http.request(
        "POST",
        "/option/store.json.all_text_mode",
        b"value=maybe",
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 400 and "true or false" in json.loads(data)["errorMessage"]


def test_status_endpoints(http, server):
    assert http.get_json("/status.json") == {"status": "Running!"}
    status, headers, data = http.get("/status")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    metrics = http.get_json("/status/metrics")
    assert list(metrics) == ["version", "gauges", "counters", "histograms", "meters", "timers"]
    assert "drill.queries.running" in metrics["counters"]
    status, headers, data = http.get("/status/threads")
    assert headers["Content-Type"] == "text/plain" and b"drillspark-http" in data
    cluster = http.get_json("/cluster.json")
    bit = cluster["drillbits"][0]
    assert bit["httpPort"] == str(server.port) and bit["version"] >= "1.19"
    assert cluster["authEnabled"] is False
    stats = http.get_json("/stats.json")
    assert stats[0] == {"name": "Number of Drill Bits", "value": 1}
    status, _, data = http.request("HEAD", "/")
    assert status == 200 and data == b""


def test_a_client_may_name_its_query(http):
    """drillspark's X-Drillspark-Query-Id: the id a client gives its query (to cancel it
    while it waits); a malformed or used one is refused."""
    import uuid

    query_id = str(uuid.uuid4())
    headers = {"Content-Type": "application/json", "X-Drillspark-Query-Id": query_id}
    body = json.dumps({"queryType": "SQL", "query": "SELECT 1 AS one FROM (VALUES(1))"}).encode()
    status, _, data = http.request("POST", "/query.json", body, headers)
    assert status == 200 and json.loads(data)["queryId"] == query_id
    assert http.get_json(f"/profiles/{query_id}.json")["queryId"] == query_id
    status, _, data = http.request("POST", "/query.json", body, headers)
    assert status == 409
    assert json.loads(data) == {"errorMessage": f"query id {query_id} is already in use"}
    for bad in ("x", query_id.upper(), "../" + query_id):
        status, _, data = http.request(
            "POST", "/query.json", body, {**headers, "X-Drillspark-Query-Id": bad}
        )
        assert status == 400 and "X-Drillspark-Query-Id" in json.loads(data)["errorMessage"]
