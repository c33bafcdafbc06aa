"""Drill 1.22's REST API as `drillspark serve` answers it: the shapes recorded from the real
Drill (shared/tools/drill/README.md, "REST responses") with drillspark's own answers."""

from __future__ import annotations

import json
import re
import time

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
        r',"queryState":"COMPLETED"\n\}\n',  # Drill 1.22 ends the body with a newline
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


def test_a_parquet_map_is_its_pairs_and_a_null_list_is_empty(http, server):
    # Drill 1.22's REST (2026-12-07, server.sh over the same file): a map<string, int64> is
    # [{"key":"k","value":1}], a null map and a null list [] (a repeated value is never null);
    # drillspark had sent {"k":1} and null
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = server.catalog.workspaces["tmp"]
    table = pa.table(
        {
            "id": pa.array([1, 2], pa.int64()),
            "mp": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64())),
            "lst": pa.array([["a", "b"], None], pa.list_(pa.string())),
            "ll": pa.array([[[1, 2], [3]], []], pa.list_(pa.list_(pa.int64()))),
        }
    )
    pq.write_table(table, f"{folder}/maps.parquet")
    answer = http.query("SELECT mp, lst, ll FROM dfs.tmp.`maps.parquet` ORDER BY id")
    # a list of lists is LIST in Drill's metadata
    assert answer["metadata"] == ["DICT", "VARCHAR", "LIST"], answer
    assert answer["rows"] == [
        {"mp": [{"key": "k", "value": 1}], "lst": ["a", "b"], "ll": [[1, 2], [3]]},
        {"mp": [], "lst": [], "ll": []},
    ]


def test_an_aggregate_over_a_parquet_time_column(http):
    # Drill 1.22 (2026-12-07): MIN / MAX of allTypsUniq's TIME column col4 are 10:59:58.119 and
    # 23:45:35.120 (milliseconds of the day in REST), COUNT(DISTINCT col8) 22 of 22 rows. Under the
    # server Spark's analysis had read the fallback conf on a request's thread (no active
    # session there): "[UNSUPPORTED_TIME_TYPE] The data type TIME is not supported"
    table = "dfs.data.`breadth/tf/window_functions/allTypsUniq.parquet`"
    answer = http.query(f"SELECT min(col4) AS lo, max(col4) AS hi FROM {table}")
    assert answer["metadata"] == ["TIME", "TIME"], answer
    assert answer["rows"] == [{"lo": 39598119, "hi": 85535120}]
    answer = http.query(f"SELECT count(DISTINCT col8) AS d, count(*) AS n FROM {table}")
    assert answer["rows"] == [{"d": 22, "n": 22}], answer


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
    # Drill 1.22 reads request options as text: {"planner.slice_target": "x"} was answered
    # 500 {"errorMessage" : "Query submission failed"}, and
    # {"store.json.all_text_mode": "true"} worked as true
    status, _, body = http.query_raw(
        "SELECT 1 FROM (VALUES(1))", options={"planner.slice_target": "x"}
    )
    assert status == 500
    assert json.loads(body)["errorMessage"].startswith("Query submission failed")
    text = http.query(
        f"SELECT N_NATIONKEY FROM {NATION} LIMIT 1", options={"store.json.all_text_mode": "true"}
    )
    assert text["metadata"] == ["VARCHAR"] and text["rows"] == [{"N_NATIONKEY": "0"}]


def test_auto_limit_is_read_as_drill_reads_it(http):
    """Drill 1.22 answered `SELECT N_NAME FROM nation.json` with all 25 rows and
    attemptedAutoLimit 0 for autoLimit -1, "-1", "1.5", 2.7, true and "abc", and with 2
    rows and attemptedAutoLimit 2 for " 2": a whole number limits, anything else does not
    (never an error)."""
    for value in (-1, "-1", "1.5", 2.7, True, "abc"):
        answer = http.query(f"SELECT N_NAME FROM {NATION}", autoLimit=value)
        assert answer["queryState"] == "COMPLETED", (value, answer)
        assert answer["attemptedAutoLimit"] == 0 and len(answer["rows"]) == 25, value
    answer = http.query(f"SELECT N_NAME FROM {NATION}", autoLimit=" 2")
    assert answer["attemptedAutoLimit"] == 2 and len(answer["rows"]) == 2


def test_request_without_a_query_as_drill_answers_it(http):
    """Drill 1.22: no `query` member, or no body at all: HTTP 500
    {"errorMessage" : "Query submission failed"}; `"query": ""` and `"query": 5` become
    queries that fail (HTTP 200, FAILED); `"options": []` is HTTP 400 (Drill's text is
    Jackson's, text/plain; drillspark's is JSON)."""
    json_type = {"Content-Type": "application/json"}
    for body in (b'{"queryType":"SQL"}', b""):
        status, headers, data = http.request("POST", "/query.json", body, json_type)
        assert status == 500 and headers["Content-Type"] == "application/json"
        assert json.loads(data)["errorMessage"].startswith("Query submission failed")
    for query in ("", 5):
        status, _, data = http.request(
            "POST",
            "/query.json",
            json.dumps({"queryType": "SQL", "query": query}).encode(),
            json_type,
        )
        answer = json.loads(data)
        assert status == 200 and answer["queryState"] == "FAILED", answer
        assert list(answer) == ["queryId", "errorMessage", "queryState"]
    status, _, data = http.query_raw("SELECT 1 AS x FROM (VALUES(1))", options=[])
    assert status == 400 and "options" in json.loads(data)["errorMessage"]


def test_types_as_drill_sends_them(http):
    """Drill 1.22 over REST (server.sh): `CAST(0.1 AS FLOAT)` is FLOAT4
    0.10000000149011612 (the float widened to a double); `INTERVAL '1 02:03:04.5' DAY TO
    SECOND` "P1DT7384.500S", `INTERVAL '0.25' SECOND` "PT0.250S", `INTERVAL '-1
    00:00:00.5' DAY TO SECOND` "P-1DT-0.500S", `INTERVAL '0' DAY` "PT0S", `INTERVAL '-3'
    MONTH` "P-3M", `INTERVAL '2' YEAR` "P2Y"; `SELECT NULL AS x` has metadata INT;
    `TIMESTAMP '1969-12-31 23:59:59.5'` -500, `DATE '1900-01-01'` -2208988800000,
    `TIME '23:59:59.999'` 86399999."""
    answer = http.query(
        "SELECT CAST(0.1 AS FLOAT) AS f4, INTERVAL '1 02:03:04.5' DAY TO SECOND AS a, "
        "INTERVAL '0.25' SECOND AS b, INTERVAL '-1 00:00:00.5' DAY TO SECOND AS e, "
        "INTERVAL '0' DAY AS f, INTERVAL '-3' MONTH AS c, INTERVAL '2' YEAR AS d, "
        "NULL AS x, TIMESTAMP '1969-12-31 23:59:59.5' AS ts0, DATE '1900-01-01' AS d0, "
        "TIME '23:59:59.999' AS t1 FROM (VALUES(1))"
    )
    assert answer["queryState"] == "COMPLETED", answer
    assert answer["metadata"] == [
        "FLOAT4",
        "INTERVALDAY",
        "INTERVALDAY",
        "INTERVALDAY",
        "INTERVALDAY",
        "INTERVALYEAR",
        "INTERVALYEAR",
        "INT",
        "TIMESTAMP",
        "DATE",
        "TIME",
    ]
    assert answer["rows"] == [
        {
            "f4": 0.10000000149011612,
            "a": "P1DT7384.500S",
            "b": "PT0.250S",
            "e": "P-1DT-0.500S",
            "f": "PT0S",
            "c": "P-3M",
            "d": "P2Y",
            "x": None,
            "ts0": -500,
            "d0": -2208988800000,
            "t1": 86399999,
        }
    ]


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


def test_profiles_running_and_completed_lists(http):
    # Drill 1.22 (2026-12-07): /profiles/running.json and /profiles/completed.json are each
    # one list of /profiles.json's, and max=N keeps the newest N finished queries (max=0
    # none); both had been a 404 here, and max was ignored. A max that is no number: Drill
    # answers 500 "Failed to get completed profiles"; here a 400 that names it.
    first = http.query("SELECT 1 AS one FROM (VALUES(1))")
    second = http.query("SELECT 2 AS two FROM (VALUES(1))")
    running = http.get_json("/profiles/running.json")
    assert list(running) == ["errors", "runningQueries", "maxFetchedQueries", "queriesPerPage"]
    completed = http.get_json("/profiles/completed.json?max=2")
    assert list(completed) == ["errors", "finishedQueries", "maxFetchedQueries", "queriesPerPage"]
    ids = [e["queryId"] for e in completed["finishedQueries"]]
    assert ids == [second["queryId"], first["queryId"]]
    assert [e["queryId"] for e in http.get_json("/profiles.json?max=1")["finishedQueries"]] == [
        second["queryId"]
    ]
    assert http.get_json("/profiles.json?max=0")["finishedQueries"] == []
    status, _, data = http.get("/profiles.json?max=abc")
    assert status == 400 and "max must be a whole number" in data.decode(), data
    status, _, page = http.get("/profiles/completed")
    assert status == 200 and b"<html" in page.lower()


def test_storage_endpoints(http, server, tmp_path):
    plugins = http.get_json("/storage.json")
    # cp and dfs, and the plugins Drill 1.22 ships disabled, to be filled in and enabled
    assert [p["name"] for p in plugins] == ["cp", "dfs", "http", "kafka", "mongo", "s3"]
    shipped = {p["name"]: p["config"] for p in plugins if p["name"] not in ("cp", "dfs")}
    assert all("enabled" not in c for c in shipped.values())  # as Drill shows one off
    assert shipped["s3"]["config"] == {"fs.s3a.access.key": "*****", "fs.s3a.secret.key": "*****"}
    assert not [r for r in http.query("SHOW SCHEMAS")["rows"] if r["SCHEMA_NAME"].startswith("s3")]
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
    assert status == 400  # Drill 1.22's words (its own form answers nothing)
    assert json.loads(data)["errorMessage"] == (
        "'maybe' is not a valid value for option 'store.json.all_text_mode' of type BOOLEAN"
    )
    # every option Drill 1.22 lists, as its /options.json and /internal_options.json do
    assert len(options) == 227 and len(http.get_json("/internal_options.json")) == 14
    notes = http.get_json("/options/notes.json")
    assert notes["store.json.all_text_mode"]["applies"] is True
    assert notes["planner.enable_hashjoin"]["applies"] is False
    assert notes["planner.enable_hashjoin"]["note"]


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


def test_alter_system_summaries_as_drill_words_them(http):
    """Drill 1.22: `ALTER SYSTEM SET `store.json.all_text_mode` = false` and `ALTER SYSTEM
    RESET `store.json.all_text_mode`` both answer {"ok": true, "summary":
    "store.json.all_text_mode updated."}; `ALTER SYSTEM RESET ALL` "ALL updated."."""
    for sql, summary in (
        (
            "ALTER SYSTEM SET `store.json.all_text_mode` = false",
            "store.json.all_text_mode updated.",
        ),
        ("ALTER SYSTEM RESET `store.json.all_text_mode`", "store.json.all_text_mode updated."),
        ("ALTER SYSTEM RESET ALL", "ALL updated."),
    ):
        answer = http.query(sql)
        assert answer["metadata"] == ["BIT", "VARCHAR"]
        assert answer["rows"] == [{"ok": True, "summary": summary}], sql


def test_storage_answers_as_drill_lists_them(http):
    """Drill 1.22: `GET /storage/nosuch/enable/true` is HTTP 404 {"result" : "No plugin exists
    with the given name: nosuch"}; `cp` lists the formats parquet, avro, json, csvh, tsv,
    csv, and `dfs` parquet, json, (sequencefile,) csvh, psv, avro, tsv, csv, a text format's
    members in the order type, extensions, lineDelimiter, fieldDelimiter, quote, escape,
    comment (extractHeader)."""
    status, _, data = http.get("/storage/nosuch/enable/true")
    assert status == 404
    assert json.loads(data) == {"result": "No plugin exists with the given name: nosuch"}
    cp = http.get_json("/storage/cp.json")["config"]["formats"]
    assert list(cp) == ["parquet", "avro", "json", "csvh", "tsv", "csv"]
    dfs = http.get_json("/storage/dfs.json")["config"]["formats"]
    assert list(dfs) == ["parquet", "json", "csvh", "psv", "avro", "tsv", "csv"]
    assert list(dfs["csvh"]) == [
        "type",
        "extensions",
        "lineDelimiter",
        "fieldDelimiter",
        "quote",
        "escape",
        "comment",
        "extractHeader",
    ]
    assert dfs["psv"]["fieldDelimiter"] == "|" and list(dfs["psv"])[3] == "fieldDelimiter"


def _profile_text(http, query_id: str) -> str:
    status, headers, data = http.get(f"/profiles/{query_id}.json")
    assert status == 200 and headers["Content-Type"] == "application/json"
    return data.decode()


def test_profile_json_as_drill_writes_it(http):
    """Drill 1.22's profile of `SELECT 1 AS x FROM (VALUES(1))`: compact JSON, `"state":2,
    "totalFragments":1,"finishedFragments":0`, `"optionsJson":"[ ]"`-style Jackson text, no
    `scannedPlugins`; of `selec 1`: `"state":4,"totalFragments":0,"finishedFragments":0`
    and `planEnd` = `end`; of a query over dfs with request options
    {"planner.enable_nljoin_for_scalar_only": false}: an optionsJson entry `{\\n  "kind" :
    "BOOLEAN",\\n  "accessibleScopes" : "ALL",\\n  "name" : ...,\\n  "bool_val" : false,\\n
    "scope" : "SESSION"\\n}` and, last, `"scannedPlugins":["dfs"]`."""
    done = http.query("SELECT 1 AS x FROM (VALUES(1))")
    text = _profile_text(http, done["queryId"])
    assert "\n" not in text.replace("\\n", "") and '","' in text  # compact
    profile = json.loads(text)
    assert (profile["state"], profile["totalFragments"], profile["finishedFragments"]) == (2, 1, 0)
    assert profile["optionsJson"] == "[ ]"
    assert "scannedPlugins" not in profile
    failed = http.query("selec 1")
    profile = json.loads(_profile_text(http, failed["queryId"]))
    assert (profile["state"], profile["totalFragments"], profile["finishedFragments"]) == (4, 0, 0)
    assert profile["planEnd"] == profile["end"] and "plan" not in profile
    scan = http.query(
        f"SELECT count(*) AS n FROM {NATION}",
        options={"planner.enable_nljoin_for_scalar_only": False},
    )
    profile = json.loads(_profile_text(http, scan["queryId"]))
    assert profile["optionsJson"] == (
        '[ {\n  "kind" : "BOOLEAN",\n  "accessibleScopes" : "ALL",\n'
        '  "name" : "planner.enable_nljoin_for_scalar_only",\n  "bool_val" : false,\n'
        '  "scope" : "SESSION"\n} ]'
    )
    assert list(profile)[-2:] == ["queryId", "scannedPlugins"]
    assert profile["scannedPlugins"] == ["dfs"]


def test_query_cancelled_while_running_keeps_its_columns(http):
    """Drill 1.22 answered a query cancelled while it ran (GET /profiles/cancel/{id}) with
    its columns and metadata, no rows, and CANCELED: `{"queryId":...,"columns":["n"],
    "metadata":["BIGINT"],"attemptedAutoLimit":0,"rows":[\\n]\\n,"queryState":"CANCELED"}`;
    drillspark adds its errorMessage."""
    sql = (
        f"SELECT count(*) AS n FROM {NATION} a, {NATION} b, {NATION} c, {NATION} d, "
        f"{NATION} e WHERE concat(a.N_COMMENT, b.N_COMMENT, c.N_COMMENT, d.N_COMMENT, "
        "e.N_COMMENT) LIKE '%cancelledwithcolumns%'"
    )
    worker, answer, query_id = http.start(sql)
    assert query_id is not None, answer
    # once Spark runs a job for it, the query is past planning: its columns are known
    while worker.is_alive() and not http.get_json(f"/profiles/{query_id}/progress.json")["jobs"]:
        time.sleep(0.2)
    status, _, data = http.get(f"/profiles/cancel/{query_id}")
    assert data.decode() == f"Cancelled query {query_id} on locally running node."
    worker.join(timeout=300)
    assert list(answer) == [
        "queryId",
        "columns",
        "metadata",
        "attemptedAutoLimit",
        "rows",
        "errorMessage",
        "queryState",
    ], answer
    assert (answer["columns"], answer["metadata"], answer["rows"]) == (["n"], ["BIGINT"], [])
    assert answer["queryState"] == "CANCELED"


def test_profile_list_duration_as_drill_writes_it():
    """Drill 1.22's /profiles.json showed a running query's duration as "08 min 4.555 sec"
    and short ones as "0.955 sec": minutes in two digits once there are any."""
    from drillspark.server.queries import duration_text

    assert duration_text(955) == "0.955 sec"
    assert duration_text(8 * 60_000 + 4_555) == "08 min 4.555 sec"
    assert duration_text(3_600_000 + 1_000) == "1 hr 00 min 1.000 sec"  # the same rule
    assert duration_text(60_000) == "01 min 0.000 sec"


def test_a_profiles_plan_read_by_two_at_once_is_the_same_plan():
    """A profile's plan is made when first read (#37); a second reader meanwhile (the
    console's poll beside `sys.profiles`) waits for it rather than seeing none."""
    import threading
    import time

    from drillspark.server.queries import Query

    q = Query(id="q", text="SELECT 1", user="u")
    made: list[int] = []

    def source() -> str:
        made.append(1)
        time.sleep(0.3)
        return '{"plan": 1}'

    q._plan_source = source
    seen: list[str | None] = []
    readers = [threading.Thread(target=lambda: seen.append(q.plan)) for _ in range(2)]
    for r in readers:
        r.start()
    for r in readers:
        r.join(5)
    assert seen == ['{"plan": 1}', '{"plan": 1}'] and made == [1]


def test_catalog_statements_clients_send(http):
    """The statements Drill's clients send, over REST, answered as Drill 1.22 answered them
    (server.sh, workspaces data, tmp and root as here): `SHOW DATABASES` (and `SHOW
    SCHEMAS`) list dfs.data, dfs.default, dfs.root, dfs.tmp, information_schema, sys,
    cp.default in that order; sqlalchemy-drill's SCHEMATA query gives TYPE `file`;
    `USE dfs.data` says "Default schema changed to [dfs.data]"; `USE drill` fails ("Schema
    [drill] is not valid ..."); `select min(version) version from sys.drillbits` is
    "1.22.0"; after a CREATE VIEW and a CTAS in dfs.tmp, INFORMATION_SCHEMA.TABLES and
    VIEWS list the view (not the table), COLUMNS gives the view's column as DATA_TYPE `ANY`,
    `DESCRIBE` the view `N_NAME ANY YES`, and `DESCRIBE` a JSON file no rows."""
    for sql in ("SHOW DATABASES", "SHOW SCHEMAS"):
        answer = http.query(sql)
        assert answer["columns"] == ["SCHEMA_NAME"] and answer["metadata"] == ["VARCHAR"]
        assert [r["SCHEMA_NAME"] for r in answer["rows"]] == [
            "dfs.data",
            "dfs.default",
            "dfs.root",
            "dfs.tmp",
            "information_schema",
            "sys",
            "cp.default",
        ]
    plugin = http.query(
        "SELECT SCHEMA_NAME, TYPE\n            FROM INFORMATION_SCHEMA.`SCHEMATA`\n"
        "            WHERE SCHEMA_NAME LIKE '%dfs.data%'"
    )
    assert plugin["rows"] == [{"SCHEMA_NAME": "dfs.data", "TYPE": "file"}]
    assert http.query("USE dfs.data")["rows"] == [
        {"ok": True, "summary": "Default schema changed to [dfs.data]"}
    ]
    wrong = http.query("USE drill")
    assert wrong["queryState"] == "FAILED" and "[drill] is not valid" in wrong["errorMessage"]
    assert http.query("select min(version) version from sys.drillbits")["rows"] == [
        {"version": "1.22.0"}
    ]
    created = http.query(f"CREATE VIEW dfs.tmp.v_clients AS SELECT N_NAME FROM {NATION}")
    assert created["rows"] == [
        {"ok": True, "summary": "View 'v_clients' created successfully in 'dfs.tmp' schema"}
    ]
    ctas = http.query(f"CREATE TABLE dfs.tmp.t_clients AS SELECT N_NAME FROM {NATION}")
    assert ctas["columns"] == ["Fragment", "Number of records written"]
    assert sum(r["Number of records written"] for r in ctas["rows"]) == 25
    try:
        names = http.query(
            "SELECT `TABLE_NAME` AS name FROM INFORMATION_SCHEMA.`TABLES` "
            "WHERE `TABLE_SCHEMA` = 'dfs.tmp' AND TABLE_NAME LIKE '%_clients'"
        )
        assert names["rows"] == [{"name": "v_clients"}]
        views = http.query(
            "SELECT `TABLE_NAME` FROM INFORMATION_SCHEMA.views WHERE table_schema='dfs.tmp' "
            "AND TABLE_NAME LIKE '%_clients'"
        )
        assert views["rows"] == [{"TABLE_NAME": "v_clients"}]
        columns = http.query(
            "SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE, IS_NESTED FROM "
            "INFORMATION_SCHEMA.`COLUMNS` WHERE TABLE_SCHEMA = 'dfs.tmp' AND "
            "TABLE_NAME = 'v_clients'"
        )
        assert columns["metadata"] == ["VARCHAR", "INT", "VARCHAR", "VARCHAR", "BIT"]
        assert columns["rows"] == [
            {
                "COLUMN_NAME": "N_NAME",
                "ORDINAL_POSITION": 1,
                "IS_NULLABLE": "YES",
                "DATA_TYPE": "ANY",
                "IS_NESTED": False,
            }
        ]
        described = http.query("DESCRIBE dfs.tmp.v_clients")
        assert described["columns"] == ["COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE"]
        assert described["rows"] == [
            {"COLUMN_NAME": "N_NAME", "DATA_TYPE": "ANY", "IS_NULLABLE": "YES"}
        ]
        assert http.query(f"DESCRIBE {NATION}")["rows"] == []
    finally:
        http.query("DROP VIEW IF EXISTS dfs.tmp.v_clients")
        http.query("DROP TABLE IF EXISTS dfs.tmp.t_clients")
