"""The `http` plugin's CSV and XML answers, the INDEX and HEADER_INDEX paginators, LIMIT pushed
into the request (`limitQueryParam`, paginators stopping early) and `postParameterLocation`,
against the tests' real HTTP API (tests/storage/http_api.py), each checked against what Drill
1.22's own http plugin answered and asked over the same API with the same connections
(tests/storage/data/drill_http_more_answers.json); and where drillspark differs on purpose:
a paginator that never ends, a next page on another host, maxRecords."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.storage.test_http_plugin import Api

from drillspark.errors import Error
from drillspark.plugin_configs import PluginConfigError, config_from_json
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

HERE = Path(__file__).resolve().parent
DRILL = json.loads((HERE / "data" / "drill_http_more_answers.json").read_text("utf-8"))
ANSWERS = {a["sql"]: a for a in DRILL["answers"]}


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[Api]:
    server = Api(tmp_path_factory.mktemp("http-paging-api"))
    yield server
    server.stop()


def connections(api: Api) -> dict[str, Any]:
    """The connections Drill was asked with, on this API's port (and two of drillspark's own)."""
    text = json.dumps(DRILL["connections"]).replace("PORT", str(api.port))
    conns = json.loads(text)
    here = f"http://127.0.0.1:{api.port}"
    conns["evilindex"] = {
        "url": here + "/keyevil",
        "requireTail": False,
        "dataPath": "results",
        "paginator": {"method": "INDEX", "nextPageParam": "next"},
    }
    conns["evilheader"] = {**conns["evilindex"]}
    conns["evilheader"]["paginator"] = {"method": "HEADER_INDEX", "nextPageParam": "X-Next-Page"}
    return conns


@pytest.fixture(scope="module")
def engine(spark, api) -> SqlEngine:
    plugin = {"type": "http", "timeout": 5, "connections": connections(api)}
    return SqlEngine(spark, SqlSession(workspaces={}, plugins={"http": plugin}))


def run(engine: SqlEngine, sql: str) -> tuple[list[str], list[dict[str, Any]]]:
    result = engine.execute(sql)[-1]
    return list(result.columns), result.rows()


def _drill_rows(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(zip(answer["columns"], row, strict=True)) for row in answer["rows"]]


def _plain(value: Any) -> Any:
    """A map as Drill's JDBC rows show it (members that are null dropped); a JSON body echoed
    back as its value (Drill sends JSON_BODY's members in Java's HashMap order)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str) and value.startswith("{"):
        return json.loads(value)
    return value


SAME_AS_DRILL = [
    # CSV: a header names VARCHAR columns, values trimmed, an empty one NULL, blank lines skipped
    "SELECT * FROM http.csv.`data.csv`",
    "SELECT typeof(id) t, id, name, note FROM http.csv.`data.csv`",
    "SELECT * FROM http.semi",  # csvOptions.delimiter; nullValue changes nothing here
    "SELECT * FROM http.nohead",  # headerExtractionEnabled false: Drill 1.22 still reads one
    "SELECT * FROM http.csvpages",  # a PAGE paginator over CSV pages
    # XML: a row at xmlDataLevel / xmlOptions.dataLevel, attributes in one map, all text
    "SELECT * FROM http.xml.`books.xml`",
    "SELECT * FROM http.xml2",
    "SELECT * FROM http.xmlopt",
    # INDEX: the next page by index (with has-more) or by URL, both given in the answer
    "SELECT * FROM http.keyfirst",
    "SELECT * FROM http.keyurlfirst",
    # HEADER_INDEX: the next page's URL in a Link header or a header of its own
    "SELECT * FROM http.linked",
    "SELECT * FROM http.xnext",
    # LIMIT into the request and paginators that stop early
    "SELECT * FROM http.limited LIMIT 2",
    "SELECT * FROM http.limited",
    "SELECT n FROM http.limited WHERE n > 1 LIMIT 2",
    "SELECT * FROM http.offsets LIMIT 3",
    "SELECT * FROM http.pages LIMIT 3",
    "SELECT * FROM http.limited LIMIT 2 OFFSET 1",
    "SELECT n FROM http.limited LIMIT 3",
    "SELECT * FROM http.limitedpages LIMIT 3",
    "SELECT * FROM http.keyfirst LIMIT 3",
    "SELECT * FROM http.linked LIMIT 1",
    "SELECT * FROM http.csv.`data.csv` LIMIT 1",
    "SELECT count(*) AS n FROM http.limited LIMIT 1",
    # postParameterLocation
    "SELECT * FROM http.postq WHERE q = 'x' AND n = 5",
    "SELECT * FROM http.postq",
    "SELECT * FROM http.postb WHERE q = 'x' AND n = 5",
    "SELECT * FROM http.postb",
    "SELECT * FROM http.postj WHERE q = 'x' AND n = 5",
    "SELECT * FROM http.postj",
    "SELECT * FROM http.postx WHERE q = 'x' AND n = 5",
    "SELECT * FROM http.postx",
    "SELECT * FROM http.getb WHERE q = 'x'",
]


@pytest.mark.parametrize("sql", SAME_AS_DRILL)
def test_rows_and_columns_as_drill_answers(engine, sql):
    want = ANSWERS[sql]
    assert want["ok"]
    columns, rows = run(engine, sql)
    assert columns == want["columns"]
    assert [_plain(r) for r in rows] == [_plain(r) for r in _drill_rows(want)]


def _drill_requests(first: str, count: int) -> list[str]:
    """`count` of Drill's requests from the first `first`, runs of one line written out."""
    out: list[str] = []
    for line in DRILL["requests"]:
        text, _, times = line.partition(" (x")
        out += [text] * (int(times.rstrip(")")) if times else 1)
    start = out.index(first)
    return out[start : start + count]


@pytest.mark.parametrize(
    "sql, first, count",
    [
        ("SELECT * FROM http.csvpages", "GET /pages.csv?page=1&per_page=2 key=", 3),
        ("SELECT * FROM http.keyfirst", "GET /keyfirst key=", 3),
        ("SELECT * FROM http.keyurlfirst", "GET /keyurlfirst key=", 3),
        ("SELECT * FROM http.linked", "GET /linked key=", 3),
        ("SELECT * FROM http.limited LIMIT 2", "GET /limited?max=2 key=", 1),
        ("SELECT * FROM http.offsets LIMIT 3", "GET /offsets?offset=0&limit=2 key=", 2),
        ("SELECT * FROM http.pages LIMIT 3", "GET /pages?page=1&per_page=2 key=", 2),
        ("SELECT * FROM http.limited LIMIT 2 OFFSET 1", "GET /limited?max=3 key=", 1),
        ("SELECT * FROM http.limitedpages LIMIT 3", "GET /offsets?offset=0&limit=2&max=3 key=", 2),
        ("SELECT * FROM http.keyfirst LIMIT 3", "GET /keyfirst key=", 2),
        ("SELECT * FROM http.postb WHERE q = 'x' AND n = 5", "POST /postecho a=1&b=2&q=x&n=5", 1),
        ("SELECT * FROM http.postx WHERE q = 'x' AND n = 5", "POST /postecho <request><q>x", 1),
        ("SELECT * FROM http.getb WHERE q = 'x'", "GET /limited?q=x key=", 1),
    ],
)
def test_the_requests_are_drills(engine, api, sql, first, count):
    if first.startswith("POST /postecho <request>"):
        first = "POST /postecho <request><q>x</q><n>5</n></request>"
    api.clear()
    run(engine, sql)
    assert api.requests() == _drill_requests(first, count)


def test_a_limit_not_reaching_the_scan_alone_is_not_pushed(engine, api):
    api.clear()
    assert run(engine, "SELECT n FROM http.limited WHERE n > 1 LIMIT 2")[1] == [{"n": 2}, {"n": 3}]
    assert api.requests() == ["GET /limited key="]  # Drill's too


def test_a_malformed_xml_page_names_the_connection_and_url(engine):
    assert "Unexpected close tag" in ANSWERS["SELECT * FROM http.xml.`broken.xml`"]["error"]
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM http.xml.`broken.xml`")
    message = str(e.value)
    assert "connection 'xml'" in message and "/broken.xml" in message
    assert "Traceback" not in message and "at org." not in message


def test_an_index_that_never_changes_is_an_error_not_a_hang(engine, api):
    """Drill 1.22 asked `?cursor=same` 362,691 times in 2 x 300 s and timed out (maxRecords
    set or not); here the second ask of one page ends it with an error."""
    assert "timed out" in ANSWERS["SELECT count(*) AS n FROM http.keyloopfirst"]["error"]
    for conn in ("keyloopfirst", "keyloopfirstnomax"):
        api.clear()
        started = time.monotonic()
        with pytest.raises(Error, match="asks for a page it asked before") as e:
            run(engine, f"SELECT count(*) AS n FROM http.{conn}")
        assert f"connection '{conn}'" in str(e.value) and "cursor=same" in str(e.value)
        assert time.monotonic() - started < 30
        assert api.requests() == ["GET /keyloopfirst key=", "GET /keyloopfirst?cursor=same key="]


@pytest.mark.parametrize("conn", ["evilindex", "evilheader"])
def test_a_next_page_on_another_host_is_refused(engine, api, conn):
    api.clear()
    with pytest.raises(Error, match="leads to another host") as e:
        run(engine, f"SELECT * FROM http.{conn}")
    assert "only the configured host is contacted" in str(e.value)
    assert api.requests() == ["GET /keyevil key="]


def test_where_drillspark_differs_from_drill(engine):
    # INDEX fields after the records: Drill 1.22 read one page (it had not seen them yet)
    assert len(ANSWERS["SELECT * FROM http.keyset"]["rows"]) == 2
    assert [r["n"] for r in run(engine, "SELECT * FROM http.keyset")[1]] == [1, 2, 3, 4, 5]
    # a Link header whose first URL is rel="first": Drill followed it (pages 1-2 twice)
    assert len(ANSWERS["SELECT * FROM http.linkorder"]["rows"]) == 7
    assert [r["n"] for r in run(engine, "SELECT * FROM http.linkorder")[1]] == [1, 2, 3, 4, 5]
    # maxRecords 3: Drill 1.22 answered all 5 records with PAGE and HEADER_INDEX
    for conn in ("linkedmax", "pagesmax"):
        assert len(ANSWERS[f"SELECT * FROM http.{conn}"]["rows"]) == 5
        assert [r["n"] for r in run(engine, f"SELECT * FROM http.{conn}")[1]] == [1, 2, 3]


@pytest.mark.parametrize(
    "connection, message",
    [
        ({"postParameterLocation": "HEADER"}, "'postParameterLocation' must be one of"),
        ({"csvOptions": {"delimeter": ";"}}, "csvOptions: unknown field 'delimeter'"),
        ({"csvOptions": {"skipEmptyLines": "x"}}, "field 'skipEmptyLines' must be a boolean"),
        ({"xmlOptions": {"dataLevel": "two"}}, "field 'dataLevel' must be a number"),
    ],
)
def test_a_bad_config_names_plugin_connection_and_field(connection, message):
    with pytest.raises(PluginConfigError) as e:
        config_from_json(
            "api", {"type": "http", "connections": {"c1": {"url": "http://x/", **connection}}}
        )
    assert "storage plugin 'api' (http), connection 'c1'" in str(e.value)
    assert message in str(e.value)


def test_a_paginator_missing_its_fields_is_named(spark):
    plugin = {
        "type": "http",
        "connections": {
            "c": {"url": "http://127.0.0.1:1/", "requireTail": False},
            "i": {
                "url": "http://127.0.0.1:1/",
                "requireTail": False,
                "paginator": {"method": "INDEX"},
            },
        },
    }
    engine = SqlEngine(spark, SqlSession(workspaces={}, plugins={"h": plugin}))
    with pytest.raises(Error, match="connection 'i': the INDEX paginator needs indexParam"):
        run(engine, "SELECT * FROM h.i")
