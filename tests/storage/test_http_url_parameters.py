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
from drillspark.sql.errors import ValidationError
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
            "ghdots": {
                "url": u + "orgs/{org=..}/repos",
                "requireTail": False,
                "dataPath": "results",
            },
            "ghs": {"url": u + "orgs/{ org }/x?q={q}", "requireTail": False, "dataPath": "results"},
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
    assert "give org in the WHERE clause of a drillspark.sql query (org = '...')" in said
    assert "or a default in the connection's url ({org=...})" in said
    assert "line 1, column 15" in said  # the table's place in the statement
    assert isinstance(e.value, ValidationError) and "Table not found" not in said
    assert api.requests() == []  # nothing asked


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM api.gh WHERE 'a' = org",
        "SELECT * FROM api.gh g WHERE g.org = 'a'",
        "SELECT * FROM api.gh WHERE (org = 'a')",
        "SELECT * FROM api.gh WHERE (org = 'a' AND (n > 0)) AND n < 9",
        "SELECT * FROM api.gh WHERE org = 'a' AND (n = 1 OR n = 2)",
        "WITH t AS (SELECT * FROM api.gh WHERE org = 'a') SELECT * FROM t",
        "SELECT * FROM (SELECT * FROM api.gh WHERE org = 'a') s",
    ],
)
def test_the_where_forms_pushed(engine, api, sql):
    """`name = literal` ANDed at the top of the WHERE of the SELECT that reads the connection
    alone (either side, qualified, in parentheses; that SELECT may be a WITH's or a
    subquery's); the other conditions stay filters (docs/storage.md)."""
    api.clear()
    assert {r["path"] for r in rows(engine, sql)} == {"/orgs/a/repos"}
    assert [r.split(" ")[1] for r in api.requests()] == ["/orgs/a/repos"]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM api.ghd WHERE org = 'a' OR org = 'b'",
        "SELECT * FROM api.ghd WHERE org LIKE 'a%'",
        "SELECT * FROM api.ghd WHERE org = -5",
        "SELECT * FROM api.ghd WHERE org = true",
        "SELECT * FROM api.ghd WHERE org IN ('a')",
        "SELECT * FROM api.ghd g JOIN api.ghd h ON g.n = h.n AND g.org = 'a'",
        "SELECT * FROM api.ghd g JOIN api.ghd h ON g.n = h.n WHERE g.org = 'a'",
        "WITH t AS (SELECT * FROM api.ghd) SELECT * FROM t WHERE org = 'a'",
        "SELECT * FROM (SELECT * FROM api.ghd) s WHERE org = 'a'",
    ],
)
def test_a_where_form_not_pushed_leaves_the_default_and_filters(engine, api, sql):
    """An OR, a LIKE, a negative number, a boolean, IN, a join, a WITH's or a subquery's outer
    WHERE: not pushed (docs/storage.md); the url's default is asked and the condition filters
    the rows (the API has no `org` column: none left), never a request made of a guessed
    value. Without a default: Drill's error (test_a_parameter_with_no_value_...)."""
    api.clear()
    assert rows(engine, sql) == []
    assert {r.split(" ")[1] for r in api.requests()} == {"/orgs/apache/repos"}


def test_a_views_outer_where_is_not_pushed(spark, api, tmp_path):
    engine = SqlEngine(
        spark, SqlSession(workspaces={"tmp": str(tmp_path)}, plugins={"api": plugin(api)})
    )
    engine.execute("CREATE VIEW dfs.tmp.gh_all AS SELECT * FROM api.ghd")
    engine.execute("CREATE VIEW dfs.tmp.gh_a AS SELECT * FROM api.ghd WHERE org = 'a'")
    api.clear()
    assert rows(engine, "SELECT * FROM dfs.tmp.gh_all WHERE org = 'a'") == []
    assert {r["path"] for r in rows(engine, "SELECT * FROM dfs.tmp.gh_a")} == {"/orgs/a/repos"}
    assert [r.split(" ")[1] for r in api.requests()] == ["/orgs/apache/repos", "/orgs/a/repos"]


@pytest.mark.parametrize(
    "sql, place",
    [
        ("SELECT * FROM api.gh WHERE org = ''", "''"),
        ("SELECT * FROM api.gh WHERE org = '.'", "'.'"),
        ("SELECT * FROM api.gh WHERE org = '..'", "'..'"),
        ("SELECT * FROM api.ghdots", "'..'"),  # a default alike
    ],
)
def test_a_value_that_would_change_the_path_is_refused(engine, api, sql, place):
    """'' / '.' / '..' as a path segment would ask another path (`/orgs//repos`,
    `/orgs/../repos`): refused naming plugin, connection and parameter, nothing asked."""
    api.clear()
    with pytest.raises(Error) as e:
        rows(engine, sql)
    said = str(e.value)
    assert "http plugin 'api', connection '" in said
    assert f"URL parameter org cannot be {place}" in said and "nothing was requested" in said
    assert api.requests() == []


def test_an_empty_value_in_the_query_is_sent(engine, api):
    """In the query string an empty value changes no path: `?q=` is asked (and a name may
    have spaces around it in its braces: `{ org }`)."""
    api.clear()
    got = rows(engine, "SELECT path FROM api.ghs WHERE org = 'a' AND q = ''")
    assert {r["path"] for r in got} == {"/orgs/a/x?q="}


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


def test_the_parameter_regex_is_the_extensions():
    """One rule for both owners: plugin_configs/http.py's pattern text is the extension's
    records.HttpRequest.UrlParameter text, character for character."""
    import re
    from pathlib import Path

    from drillspark.plugin_configs.http import _URL_PARAMETER

    scala = Path(__file__).parents[2] / "jvm/src/main/scala/drillspark/records/HttpRequest.scala"
    found = re.findall(r'val UrlParameter = """(.*?)"""\.r', scala.read_text())
    assert found == [_URL_PARAMETER.pattern]


def test_parameter_names_are_ascii_words():
    from drillspark.plugin_configs.http import url_parameters

    assert url_parameters("http://h/a/{org}/{ b_2 =x y}?q={Q}") == {
        "org": None,
        "b_2": "x y",
        "Q": None,
    }
    assert url_parameters("http://h/{a-b}/{é}/{}") == {}


@pytest.mark.parametrize("path", ["orgs/{a-b}/repos", "orgs/{é}/repos", "orgs/{}/x", "a}b"])
def test_a_brace_that_is_no_parameter_is_refused_by_the_config(path):
    """Drill 1.22's parameter is `{\\w+}` (ASCII); anything else in braces is no parameter.
    Drill leaves it in the URL; here a brace is no URL character, so the config names it."""
    with pytest.raises(PluginConfigError) as e:
        config_from_json(
            "api",
            {"type": "http", "connections": {"x": {"url": "http://h/" + path}}},
        )
    said = str(e.value)
    assert "storage plugin 'api' (http), connection 'x'" in said
    assert "is not a URL parameter" in said and "%7B" in said


@pytest.mark.parametrize(
    "url, why",
    [
        ("http://[::1/orgs/{org}", "Invalid IPv6 URL"),
        ("http://h:port/orgs/{org}", "Port could not be cast"),
        ("http://h:99999/", "Port out of range"),
        ("http:///orgs/{org}", "names no host"),
    ],
)
def test_a_url_that_is_not_a_url_is_refused_by_the_config(url, why):
    with pytest.raises(PluginConfigError) as e:
        config_from_json("api", {"type": "http", "connections": {"x": {"url": url}}})
    said = str(e.value)
    assert "storage plugin 'api' (http), connection 'x'" in said
    assert "'url' is not a valid URL" in said and why in said


def test_a_url_parameter_refusal_masks_the_secrets(spark, api):
    """An API key in the url's path and in a header: a refusal quoting the url masks it."""
    key = "k3y-in-path-and-header"
    conn = {
        "url": api.url + f"keys/{key}/a|b/{{org}}",
        "requireTail": False,
        "headers": {"X-Api-Key": key},
    }
    engine = SqlEngine(
        spark,
        SqlSession(workspaces={}, plugins={"kapi": {"type": "http", "connections": {"k": conn}}}),
    )
    api.clear()
    with pytest.raises(ValidationError) as e:
        rows(engine, "SELECT * FROM kapi.k WHERE org = 'a'")
    said = str(e.value)
    assert "not a well-formed URL" in said and "line 1, column 15" in said
    assert key not in said and "/keys/*****/" in said
    assert api.requests() == []


def test_set_shows_no_url_parameter_default_outside_the_url(spark, api):
    """A default sits in the url's text alone, which Spark's SET redacts: the catalog's spec
    conf carries the parameters' names only."""
    from tests.storage.conftest import forget_plugins

    import drillspark

    default = "hidden-default-77"
    conn = {
        "url": api.url + f"orgs/{{org={default}}}/repos",
        "requireTail": False,
        "dataPath": "results",
    }
    plugin = {"type": "http", "connections": {"d": conn}}
    drillspark.sql("SELECT 1", spark=spark, storage={"apiset": plugin}).collect()
    try:
        shown = [tuple(r) for r in spark.sql("SET").collect()]
        assert "spark.sql.catalog.apiset.c0.url" in dict(shown)
        assert default not in repr(shown)
        # SET redacts the spec conf too today (its text holds `urlParams`, and Spark's
        # spark.sql.redaction.options.regex `url` matches values as well): its own text
        # carries the names alone, whatever SET shows of it
        spec = spark.conf.get("spark.sql.catalog.apiset.c0.spec")
        assert '"urlParams": ["org"]' in spec and default not in spec
        got = spark.sql("SELECT path FROM apiset.d").collect()
        assert {r.path for r in got} == {f"/orgs/{default}/repos"}
    finally:
        forget_plugins(spark, "apiset")
