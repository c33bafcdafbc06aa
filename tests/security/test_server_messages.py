"""What the server says: names built into messages are filled in, client text cannot forge the
query log line, and /status.json stops saying `Running!` once Spark is gone."""

from __future__ import annotations

import json

from tests.security.server_http import send
from tests.security.test_server_request_attacks import server_log  # noqa: F401
from tests.server.helpers import Http

from drillspark.server import DrillServer

JSON = {"Content-Type": "application/json"}


def test_a_disabled_plugin_is_named(spark, tmp_path):
    """Before: `(GET /storage/{table.plugin}/enable/true enables it)`, the braces literal."""
    (tmp_path / "x.json").write_text('{"a": 1}\n')
    srv = DrillServer(spark, port=0, workspaces={"data": str(tmp_path)}).start()
    try:
        http = Http(srv.url)
        assert http.request("POST", "/storage/dfs/enable/false", b"{}", JSON)[0] == 200
        message = http.query("SELECT * FROM dfs.data.`x.json`")["errorMessage"]
        assert "GET /storage/dfs/enable/true enables it" in message, message
        assert http.request("POST", "/storage/dfs/enable/true", b"{}", JSON)[0] == 200
        assert http.query("SELECT a FROM dfs.data.`x.json`")["rows"] == [{"a": 1}]
    finally:
        srv.stop()


def test_deleting_a_built_in_plugin_is_refused_naming_it(server):
    status, _, body = Http(server.url).request("DELETE", "/storage/dfs.json")
    assert status == 400
    assert "/storage/dfs/enable/false disables it" in body.decode(), body


def test_query_text_and_errors_cannot_forge_log_lines(server, server_log):  # noqa: F811
    """The query line of the log holds the SQL text and the error, both client-given."""
    sql = "SELECT * FROM dfs.data.`a\n2026-01-01 INFO forged\x1b[2J`"
    body = json.dumps({"queryType": "SQL", "query": sql}).encode()
    status, _, data = send(server.port, "POST", "/query.json", body, JSON)
    assert status == 200, data
    text = "\n".join(server_log.messages)
    assert "\x1b" not in text
    assert "\n2026-01-01 INFO forged" not in text
    assert any("2026-01-01 INFO forged" in m for m in server_log.messages)


def test_status_says_when_spark_is_gone(spark):
    """A server whose Spark is gone (the health watcher sets `failure`; the SIGKILL test in
    tests/reliability/test_server_resources.py shows the watcher doing it) answers 503 naming
    the cause, and a query fails with it instead of a 500."""
    srv = DrillServer(spark, port=0).start()
    try:
        http = Http(srv.url)
        assert http.get_json("/status.json") == {"status": "Running!"}
        srv.failure = "the Spark driver JVM is not answering (Py4JNetworkError)"
        srv.queries.closing = True
        status, _, body = http.get("/status.json")
        assert status == 503
        assert "driver JVM is not answering" in json.loads(body)["status"]
        answer = http.query("SELECT 1 AS one")
        assert answer["queryState"] == "FAILED"
        assert "driver JVM is not answering" in answer["errorMessage"]
    finally:
        srv.failure = None
        srv.stop()
