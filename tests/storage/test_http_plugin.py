"""The `http` storage plugin against a real HTTP API (tests/storage/http_api.py, started on a
free loopback port and stopped by its process id), each answer checked against what Drill 1.22's
own http plugin answered over the same API (tests/storage/data/drill_http_answers.json): rows
and types through the `drill` reader, dataPath, requireTail, params pushed from WHERE into the
request, both paginators (the same requests, in the same order, as Drill's), basic auth, headers,
POST bodies; and bad input: a malformed page (its line and column), a 500, a refused connection,
a slow API past the timeout, a paginator that never ends, names that would lead to another host
or a redirect that does. Secrets never show."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drillspark.errors import Error
from drillspark.plugin_configs import PluginConfigError, config_from_json
from drillspark.plugin_configs.base import MASK
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

HERE = Path(__file__).resolve().parent
DRILL = json.loads((HERE / "data" / "drill_http_answers.json").read_text("utf-8"))
ANSWERS = {a["sql"]: a for a in DRILL["answers"]}
PASSWORD = "s3cret-pw"


class Api:
    def __init__(self, folder: Path):
        self.log = folder / "requests.log"
        self.log.write_text("")
        port_file = folder / "port"
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "http_api.py"), str(port_file), str(self.log)]
        )
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail("the test HTTP API did not start")
            time.sleep(0.05)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}/"

    def requests(self) -> list[str]:
        return self.log.read_text().splitlines()

    def clear(self) -> None:
        self.log.write_text("")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[Api]:
    server = Api(tmp_path_factory.mktemp("http-api"))
    yield server
    server.stop()


def plugin_config(api: Api, **plugin: Any) -> dict[str, Any]:
    """The `http` plugin Drill was asked with (its connections), on `api`'s port."""
    u = api.url
    paged = {"requireTail": False, "dataPath": "results"}
    return {
        "type": "http",
        **plugin,
        "connections": {
            "local": {"url": u, "method": "GET", "requireTail": True, "dataPath": "results"},
            "nested": {"url": u + "nested.json", "requireTail": False, "dataPath": "data/items"},
            "plain": {"url": u, "requireTail": True},
            "search": {"url": u + "search", **paged, "params": ["q", "lang"]},
            "pages": {
                "url": u + "pages",
                **paged,
                "paginator": {
                    "method": "PAGE",
                    "pageParam": "page",
                    "pageSizeParam": "per_page",
                    "pageSize": 2,
                },
            },
            "offsets": {
                "url": u + "offsets",
                **paged,
                "paginator": {
                    "method": "OFFSET",
                    "limitParam": "limit",
                    "offsetParam": "offset",
                    "pageSize": 2,
                },
            },
            "secure": {
                "url": u + "secure.json",
                **paged,
                "authType": "basic",
                "credentialsProvider": {
                    "credentialsProviderType": "PlainCredentialsProvider",
                    "credentials": {"username": "reader", "password": PASSWORD},
                },
            },
            "nopw": {"url": u + "secure.json", **paged},
            "fail": {"url": u + "fail", "requireTail": False},
            "keyed": {"url": u + "headers.json", **paged, "headers": {"X-Api-Key": "k-123"}},
            "poster": {"url": u + "post", "method": "POST", **paged, "postBody": "a=1\nb=2"},
            "down": {"url": "http://127.0.0.1:1/x.json", "requireTail": False},
            "slow": {"url": u + "slow.json?s=4", **paged},
            "endless": {
                "url": u + "endless",
                **paged,
                "paginator": {
                    "method": "PAGE",
                    "pageParam": "page",
                    "pageSizeParam": "per_page",
                    "pageSize": 2,
                    "maxRecords": 7,
                },
            },
            "texty": {**paged, "url": u + "types.json", "jsonOptions": {"allTextMode": True}},
            "strict": {**paged, "url": u + "secure.json", "errorOn400": True},
            "bare": {"url": f"http://127.0.0.1:{api.port}", "requireTail": True},
            "hop": {"url": u + "redirect?to=http://localhost:1/x", **paged},
            "samehop": {"url": u + "redirect?to=/api.json", **paged},
        },
    }


@pytest.fixture(scope="module")
def engine(spark, api) -> SqlEngine:
    session = SqlSession(workspaces={}, plugins={"http": plugin_config(api, timeout=1)})
    return SqlEngine(spark, session)


def run(engine: SqlEngine, sql: str) -> tuple[list[str], list[dict[str, Any]]]:
    result = engine.execute(sql)[-1]
    rows = result.rows()
    return list(result.columns), rows


def _drill_rows(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(zip(answer["columns"], row, strict=True)) for row in answer["rows"]]


def _plain(value: Any) -> Any:
    """Drill's REST shows a map whose members are all null as {}: compare maps without them."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


SAME_AS_DRILL = [
    "SELECT * FROM http.local.`api.json`",
    "SELECT * FROM http.nested",
    "SELECT * FROM http.plain.`plain.json`",
    "SELECT * FROM http.plain.`one.json`",
    "SELECT * FROM http.search WHERE q = 'drill' AND lang = 'en'",
    "SELECT * FROM http.search WHERE q = 'drill'",
    "SELECT * FROM http.search",
    "SELECT * FROM http.pages",
    "SELECT * FROM http.offsets",
    "SELECT count(*) AS n FROM http.pages",
    "SELECT * FROM http.secure",
    "SELECT * FROM http.nopw",
    "SELECT * FROM http.keyed",
    "SELECT * FROM http.poster",
    "SELECT typeof(i) ti, typeof(f) tf, typeof(b) tb, typeof(s) ts, typeof(arr) ta, "
    "typeof(m) tm, i, f, b, s, arr, m FROM http.local.`types.json`",
    "SELECT * FROM http.local.`missing.json`",
    "SELECT * FROM http.nested WHERE v > 10",
    "SELECT name FROM http.local.`api.json` WHERE id = 2",
    "SELECT typeof(i) ti, typeof(f) tf, typeof(b) tb, i, f, b FROM http.texty",
]


@pytest.mark.parametrize("sql", SAME_AS_DRILL)
def test_rows_and_columns_as_drill_answers(engine, sql):
    want = ANSWERS[" ".join(sql.split())]
    columns, rows = run(engine, sql)
    assert want["ok"]
    assert sorted(columns) == sorted(want["columns"])
    assert [_plain(r) for r in rows] == [_plain(r) for r in _drill_rows(want)]


def test_the_requests_are_drills(engine, api):
    """Push-down and paginators ask the API what Drill asked it, in the same order."""
    api.clear()
    for sql in (
        "SELECT * FROM http.search WHERE q = 'drill' AND lang = 'en'",
        "SELECT * FROM http.search WHERE q = 'drill'",
        "SELECT * FROM http.pages",
        "SELECT * FROM http.offsets",
        "SELECT * FROM http.keyed",
        "SELECT * FROM http.poster",
    ):
        run(engine, sql)
    drill = DRILL["requests"]
    searches = [r for r in drill if r.startswith("GET /search?")]
    pages = drill[drill.index("GET /pages?page=1&per_page=2 key=") :][:6]
    others = [r for r in drill if r.startswith(("GET /headers", "POST"))]
    assert api.requests() == searches + pages + others


def test_a_pushed_parameter_leaves_the_filter(engine, api):
    """The API does not echo `lang` here: Drill's answer still has the row (the filter went
    into the request); a filter on another column stays a filter."""
    columns, rows = run(engine, "SELECT n FROM http.search WHERE lang = 'fr' AND n = 1")
    assert rows == [{"n": 1}]
    assert api.requests()[-1] == "GET /search?lang=fr key="
    assert run(engine, "SELECT n FROM http.search WHERE lang = 'fr' AND n = 2")[1] == []


def test_a_malformed_page_names_its_line_and_column(engine):
    want = ANSWERS["SELECT * FROM http.local.`broken.json`"]
    assert "line: 3, column: 12" in want["error"]
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM http.local.`broken.json`")
    message = str(e.value)
    assert "connection 'local'" in message and "broken.json" in message
    assert "line 3, column 12" in message and "malformed JSON" in message
    assert "Traceback" not in message and "at org." not in message


@pytest.mark.parametrize(
    "sql, parts",
    [
        ("SELECT * FROM http.fail", ["500", "connection 'fail'", "/fail"]),
        ("SELECT * FROM http.down", ["connection 'down'", "127.0.0.1:1/x.json", "refused"]),
        ("SELECT * FROM http.strict", ["401", "connection 'strict'", "/secure.json"]),
    ],
)
def test_a_failing_api_is_one_clear_error(engine, sql, parts):
    assert not ANSWERS[sql]["ok"]  # Drill fails too
    with pytest.raises(Error) as e:
        run(engine, sql)
    for part in parts:
        assert part in str(e.value)


def test_a_slow_api_fails_at_the_timeout(engine):
    started = time.monotonic()
    with pytest.raises(Error, match=r"timed out after 1 s.*connection 'slow'"):
        run(engine, "SELECT * FROM http.slow")
    assert time.monotonic() - started < 3.5  # the API answers after 4 s


def test_a_paginator_that_never_ends_stops_at_max_records(engine, api):
    """Drill 1.22 answered no rows here (after one request); maxRecords is what it says."""
    assert ANSWERS["SELECT count(*) AS n FROM http.endless"]["rows"] == [[0]]
    api.clear()
    assert run(engine, "SELECT count(*) AS n FROM http.endless")[1] == [{"n": 7}]
    assert len(api.requests()) == 4  # 2 + 2 + 2 + 1


@pytest.mark.parametrize("tail", [".evil.example/x", "@evil.example/x", ":1/x"])
def test_a_table_name_never_leads_to_another_host(engine, api, tail):
    api.clear()
    with pytest.raises(Error, match="only the configured host is contacted"):
        run(engine, f"SELECT * FROM http.bare.`{tail}`")
    assert api.requests() == []


def test_a_redirect_to_another_host_is_refused(engine):
    with pytest.raises(Error, match="redirect to another host"):
        run(engine, "SELECT * FROM http.hop")
    assert len(run(engine, "SELECT * FROM http.samehop")[1]) == 2


def test_names_drill_refuses(engine):
    with pytest.raises(Error, match="API 'nosuch' does not exist in HTTP storage plugin"):
        run(engine, "SELECT * FROM http.nosuch")
    with pytest.raises(Error, match=r"needs a table name after it \(requireTail\)"):
        run(engine, "SELECT * FROM http.local")


def test_secrets_are_masked_in_the_config_the_plan_and_errors(engine, api):
    config = config_from_json("http", plugin_config(api))
    shown = json.dumps(config.to_json(masked=True))
    assert PASSWORD not in shown and MASK in shown
    assert PASSWORD in config.secrets()
    back = config_from_json("http", config.to_json(masked=True)).keeping_secrets_of(config)
    assert back.to_json(masked=False) == config.to_json(masked=False)
    plan = engine.execute("EXPLAIN PLAN FOR SELECT * FROM http.secure")[-1]
    assert PASSWORD not in json.dumps(plan.rows(), default=str)
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM http.fail")
    assert PASSWORD not in str(e.value)


@pytest.mark.parametrize(
    "connection, message",
    [
        ({"method": "GET"}, "field 'url' is required"),
        ({"url": "ftp://x/"}, "must be an http:// or https:// URL"),
        ({"url": "http://x/", "method": "PUT"}, "'method' must be GET or POST"),
        ({"url": "http://x/", "inputType": "yaml"}, "'inputType' must be json, csv or xml"),
        ({"url": "http://x/", "params": "q"}, "field 'params' must be a list"),
        ({"url": "http://x/", "paginator": {"method": "SOMETIMES"}}, "paginator 'method'"),
    ],
)
def test_a_bad_config_names_plugin_connection_and_field(connection, message):
    with pytest.raises(PluginConfigError) as e:
        config_from_json("api", {"type": "http", "connections": {"c1": connection}})
    assert "storage plugin 'api' (http), connection 'c1'" in str(e.value)
    assert message in str(e.value)


def test_a_plan_scans_a_connection(spark, api):
    import drillspark

    plan = {
        "head": {"version": 1, "type": "APACHE_DRILL_LOGICAL"},
        "storage": {"api": plugin_config(api)},
        "query": [
            {
                "op": "scan",
                "@id": 1,
                "storageengine": "api",
                "selection": {"connection": "search", "params": {"q": "plan"}},
            },
            {"op": "store", "@id": 2, "input": 1, "target": None, "storageEngine": "--SCREEN--"},
        ],
    }
    rows = drillspark.run(plan, spark=spark).to_pandas().to_dict("records")
    assert [(r["q"], r["n"]) for r in rows] == [("plan", 1)]


def test_connections_that_take_a_table_name_are_schemas(engine):
    want = ANSWERS[
        "SELECT SCHEMA_NAME, TYPE FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME LIKE 'http%'"
    ]
    _, rows = run(
        engine,
        "SELECT SCHEMA_NAME, TYPE FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME LIKE 'http%'",
    )
    got = {r["SCHEMA_NAME"] for r in rows}
    # Drill's run had one requireTail connection (local); this plugin has local, plain, bare
    assert {n for n, _ in want["rows"]} <= got == {"http", "http.local", "http.plain", "http.bare"}


def test_the_server_reads_an_http_plugin_created_over_rest(spark, api):
    from tests.server.helpers import Http

    from drillspark.server import DrillServer

    srv = DrillServer(spark, port=0, workspaces={}).start()
    try:
        http = Http(srv.url)
        body = json.dumps({"name": "api", "config": plugin_config(api)}).encode()
        status, _, data = http.request(
            "POST", "/storage/api.json", body, {"Content-Type": "application/json"}
        )
        assert status == 200, data
        shown = http.get_json("/storage/api.json")
        assert PASSWORD not in json.dumps(shown) and MASK in json.dumps(shown)
        answer = http.query("SELECT id, name FROM api.secure ORDER BY id")
        assert answer["rows"] == [{"id": 1, "name": "alpha"}, {"id": 2, "name": "beta"}], answer
        profile = http.get_json(f"/profiles/{answer['queryId']}.json")
        assert PASSWORD not in json.dumps(profile)
        pushed = http.query("SELECT n FROM api.search WHERE q = 'rest'")
        assert pushed["rows"] == [{"n": 1}] and api.requests()[-1] == "GET /search?q=rest key="
        failed = http.query("SELECT * FROM api.fail")
        assert failed["queryState"] == "FAILED" and "500" in failed["errorMessage"], failed
    finally:
        srv.stop()


def test_a_password_in_a_url_never_shows(spark):
    config = {
        "type": "http",
        "connections": {"c": {"url": "http://u:url-secret@127.0.0.1:1/x", "requireTail": False}},
    }
    engine = SqlEngine(spark, SqlSession(workspaces={}, plugins={"h": config}))
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM h.c")
    assert "url-secret" not in str(e.value) and "u:*****@127.0.0.1:1" in str(e.value)
    stored = config_from_json("h", config)
    shown = stored.to_json(masked=True)
    assert shown["connections"]["c"]["url"] == "http://u:*****@127.0.0.1:1/x"
    assert "url-secret" in stored.secrets()
    back = config_from_json("h", shown).keeping_secrets_of(stored)
    assert back.raw["connections"]["c"]["url"] == "http://u:url-secret@127.0.0.1:1/x"


def test_an_extension_message_never_shows_the_configs_secrets():
    from drillspark.spark.storage.http import _jvm_message, _secrets

    config = {
        "type": "http",
        "connections": {
            "c": {
                "url": "http://bob:S3cretPw@h/v1/",
                "headers": {"X-Api-Key": "k-abcdef", "X-One": "1"},
                "postBody": "token=pb-s3cret",
                "authType": "basic",
                "credentialsProvider": {
                    "credentialsProviderType": "PlainCredentialsProvider",
                    "credentials": {"username": "u", "password": "pw-s3cret"},
                },
            }
        },
    }
    said = "java.lang.RuntimeException: drillspark.source.input.DrillScanException: failed at "
    said += "http://bob:S3cretPw@h/v1/ with k-abcdef, token=pb-s3cret and pw-s3cret (1 try)"
    line = _jvm_message(Exception(said), _secrets("web", config))
    assert line.startswith("failed at http://bob:*****@h/v1/")
    for secret in ("S3cretPw", "k-abcdef", "pb-s3cret", "pw-s3cret"):
        assert secret not in line
    assert "(1 try)" in line
