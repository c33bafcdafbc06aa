"""Drill's URL parameters (1.20+): `{name}` in an `http` connection's url, filled from the
WHERE clause's `name = value`, against the tests' real HTTP API (tests/storage/http_api.py
echoes the path it was asked). Drill 1.22 was asked the same (its answers pinned below, from
`../shared/tools/drill/query.sh --plugins` over a server echoing its path): `WHERE org =
'apache'` asks `/orgs/apache/repos`; a name also listed in `params` goes into the query string
too (`/orgs/a/repos?org=a&q=b`); a number is its text (`/orgs/5/repos`); no value, or an OR of
values, is "API Query with URL Parameters must be populated." A value cannot add a path
segment, and a parameter in the host is refused (only the configured host is contacted)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.storage.test_http_plugin import Api

from drillspark.errors import Error
from drillspark.plugin_configs import PluginConfigError, config_from_json
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

DRILLS_ERROR = "API Query with URL Parameters must be populated"


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[Api]:
    server = Api(tmp_path_factory.mktemp("http-url-params"))
    yield server
    server.stop()


def plugin(api: Api) -> dict[str, Any]:
    u = api.url
    return {
        "type": "http",
        "connections": {
            "gh": {"url": u + "orgs/{org}/repos", "requireTail": False, "dataPath": "results"},
            "ghq": {
                "url": u + "orgs/{org}/repos",
                "requireTail": False,
                "dataPath": "results",
                "params": ["org", "q"],
            },
            "ght": {"url": u + "orgs/{org}/", "requireTail": True, "dataPath": "results"},
            "ghd": {
                "url": u + "orgs/{org=apache}/repos",
                "requireTail": False,
                "dataPath": "results",
            },
        },
    }


@pytest.fixture(scope="module")
def engine(spark, api) -> SqlEngine:
    return SqlEngine(spark, SqlSession(workspaces={}, plugins={"api": plugin(api)}))


def rows(engine: SqlEngine, sql: str) -> list[dict[str, Any]]:
    return engine.execute(sql)[-1].rows()


@pytest.mark.parametrize(
    "sql, asked",
    [  # what Drill 1.22 asked the API for the same statements
        ("SELECT * FROM api.gh WHERE org = 'apache'", "/orgs/apache/repos"),
        ("SELECT * FROM api.ghq WHERE org = 'a' AND q = 'b'", "/orgs/a/repos?org=a&q=b"),
        ("SELECT * FROM api.ght.`r?x=1` WHERE org = 'a'", "/orgs/a/r?x=1"),
        ("SELECT * FROM api.gh WHERE org = 5", "/orgs/5/repos"),
        ("SELECT * FROM api.gh WHERE ORG = 'Up'", "/orgs/Up/repos"),
    ],
)
def test_a_where_value_fills_the_url_as_drill_asks(engine, api, sql, asked):
    api.clear()
    got = rows(engine, sql)
    assert [r["path"] for r in got] == [asked, asked]
    assert [r["n"] for r in got] == [1, 2]
    assert [r.split(" ")[1] for r in api.requests()] == [asked]


def test_the_parameter_leaves_the_filter_and_others_stay(engine):
    """The value went into the URL (the API does not echo an `org` column); a filter on
    another column is still applied to the rows."""
    got = rows(engine, "SELECT n FROM api.gh WHERE org = 'apache' AND n = 2")
    assert got == [{"n": 2}]


def test_a_value_is_one_path_segment(engine, api):
    api.clear()
    got = rows(engine, "SELECT path FROM api.gh WHERE org = 'x y/../z?#'")
    assert {r["path"] for r in got} == {"/orgs/x%20y%2F..%2Fz%3F%23/repos"}


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM api.gh",
        "SELECT * FROM api.gh WHERE org = 'a' OR org = 'b'",
        "SELECT * FROM api.gh WHERE org LIKE 'a%'",
    ],
)
def test_a_parameter_with_no_value_is_drills_error_at_its_place(engine, api, sql):
    api.clear()
    with pytest.raises(Error) as e:
        rows(engine, sql)
    said = str(e.value)
    assert DRILLS_ERROR in said and "'gh'" in said and "org" in said
    assert "line 1, column 15" in said  # the table's place in the statement
    assert api.requests() == []  # nothing asked


def test_a_default_fills_the_url_when_no_value_is_given(engine, api):
    """Drill's documented `{name=default}` (Drill 1.22 itself refuses `SELECT * FROM api.ghd`
    and sends `{org=apache}` unfilled when a value is given: docs/storage.md, differences)."""
    api.clear()
    assert {r["path"] for r in rows(engine, "SELECT * FROM api.ghd")} == {"/orgs/apache/repos"}
    assert {r["path"] for r in rows(engine, "SELECT * FROM api.ghd WHERE org = 'b'")} == {
        "/orgs/b/repos"
    }


def test_a_parameter_in_the_host_is_refused_by_the_config(api):
    with pytest.raises(PluginConfigError, match="only the configured host is contacted"):
        config_from_json(
            "api",
            {
                "type": "http",
                "connections": {"x": {"url": "http://{host}.example.com/", "requireTail": False}},
            },
        )


def test_spark_sql_fills_defaults_and_names_a_missing_value(spark, api):
    """Spark's own door pushes no WHERE value into the request (docs/storage.md): a URL
    parameter's default fills it there, and one with none is Drill's error naming it."""
    from tests.storage.conftest import forget_plugins

    import drillspark

    drillspark.sql("SELECT 1", spark=spark, storage={"apiq": plugin(api)}).collect()
    try:
        got = spark.sql("SELECT path FROM apiq.ghd").collect()
        assert {r.path for r in got} == {"/orgs/apache/repos"}
        with pytest.raises(Exception) as e:
            spark.sql("SELECT * FROM apiq.gh").collect()
        assert DRILLS_ERROR in str(e.value) and "org" in str(e.value)
    finally:
        forget_plugins(spark, "apiq")
