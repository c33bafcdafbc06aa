"""drillspark.sql reads `http` connections on Spark Connect (#32) through the plugin's Spark
catalog of its own name (HttpPluginCatalog, spark/storage/http.py's `_catalog_read`), against
the tests' real HTTP API (tests/storage/http_api.py): a local Connect server in its own process
(tests/storage/connect_records.py) answers JSON, paginated, CSV and requireTail connections as
this process's classic session does; a read the catalog cannot send as asked (a WHERE
parameter, a URL parameter's value from the WHERE clause, a LIMIT into `limitQueryParam`) is
refused naming the plugin, the connection and the classic session it needs (a URL parameter's
default is read); a failing API names the plugin without the password. The long tier
(`deploy`): a Connect server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.storage import connect_records
from tests.storage.conftest import forget_plugins
from tests.storage.test_http_paging import connections as more_connections
from tests.storage.test_http_plugin import PASSWORD, Api, plugin_config

pytestmark = pytest.mark.deploy

# key -> Drill SQL; each answered alike by a classic and a Connect session
QUERIES = {
    "json": "SELECT * FROM cweb.nested",  # a nested dataPath, requireTail false
    "tail": "SELECT * FROM cweb.local.`api.json`",  # requireTail: the name appended
    "tail_case": "SELECT id, name FROM cweb.LOCAL.`api.json` WHERE id > 1",
    "pages": "SELECT * FROM cweb.pages",  # PAGE paginator
    "offsets": "SELECT * FROM cweb.offsets",  # OFFSET paginator
    "paged_limit": "SELECT n, word FROM cweb.pages LIMIT 3",  # a paginator's LIMIT: Spark's
    "endless": "SELECT count(*) AS n FROM cweb.endless",  # maxRecords
    "secure": "SELECT * FROM cweb.secure",  # basic credentials
    "keyed": "SELECT * FROM cweb.keyed",  # a header
    "csv": "SELECT * FROM cweb.csv.`data.csv`",
    "search": "SELECT * FROM cweb.search",  # a connection with params, none given
    "xml": "SELECT * FROM cwebmore.xml2",
    "limited_all": "SELECT * FROM cwebmore.limited",  # limitQueryParam, no LIMIT
    "schemas": "SHOW DATABASES LIKE 'cweb.%'",
    "url_default": "SELECT path, n FROM cweb.ghdefault",  # a URL parameter's default
}
ERRORS = {
    "param": "SELECT * FROM cweb.search WHERE q = 'x'",
    "limit": "SELECT * FROM cwebmore.limited LIMIT 2",
    "fail": "SELECT * FROM cweb.failsecure",
    "host": "SELECT * FROM cweb.bare.`@127.0.0.1:1/x`",
    "url_param": "SELECT * FROM cweb.ghparam WHERE org = 'connectorg'",
    # a default the catalog would ask instead of the WHERE's value (another request's rows)
    "url_param_default": "SELECT * FROM cweb.ghdefault WHERE org = 'connectorg'",
}


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[Api]:
    server = Api(tmp_path_factory.mktemp("connect-http-api"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def storage(spark, api) -> Iterator[dict[str, Any]]:
    import drillspark

    web = plugin_config(api, timeout=5)
    web["connections"].update(
        {
            "csv": {"url": api.url, "requireTail": True, "inputType": "csv"},
            "ghparam": {"url": api.url + "orgs/{org}/repos", "requireTail": False},
            "ghdefault": {
                "url": api.url + "orgs/{org=apache}/repos",
                "requireTail": False,
                "dataPath": "results",
            },
            "failsecure": {
                "url": api.url + "fail",
                "requireTail": False,
                "authType": "basic",
                "credentialsProvider": {
                    "credentialsProviderType": "PlainCredentialsProvider",
                    "credentials": {"username": "reader", "password": PASSWORD},
                },
            },
        }
    )
    more = {"type": "http", "timeout": 5, "connections": more_connections(api)}
    plugins = {"cweb": web, "cwebmore": more}
    drillspark.sql("SELECT 1", spark=spark, storage=plugins).collect()
    yield plugins
    forget_plugins(spark, *plugins)


@pytest.fixture(scope="module")
def on_connect(storage, api, tmp_path_factory) -> dict[str, Any]:
    """The Connect session's answers (one server for the module: it takes about a minute),
    and the requests the API saw meanwhile (`asked`)."""
    job = {"storage": storage, "queries": QUERIES, "errors": ERRORS}
    api.clear()
    out = connect_records.run(job, tmp_path_factory.mktemp("connect-http"))
    out["asked"] = api.requests()
    assert out["connect"] is True  # a Connect client: no JVM in its process
    return out


def _classic(spark, sql: str) -> dict[str, Any]:
    import drillspark

    return connect_records.answer(drillspark.sql(sql, spark=spark))


@pytest.mark.parametrize("key", list(QUERIES))
def test_connect_answers_as_a_classic_session(spark, on_connect, key):
    assert on_connect["answers"][key] == _classic(spark, QUERIES[key])


def test_the_connect_answers_are_the_data(on_connect):
    answers = on_connect["answers"]
    assert len(answers["pages"]["rows"]) == len(answers["offsets"]["rows"]) == 5
    assert [r[0] for r in answers["paged_limit"]["rows"]] == [1, 2, 3]
    assert answers["endless"]["rows"] == [[7]]
    assert [r[1] for r in answers["tail_case"]["rows"]] == ["beta"]
    assert len(answers["csv"]["rows"]) == 3 and len(answers["tail"]["rows"]) == 2
    assert {"cweb.local", "cweb.csv"} <= {r[0] for r in answers["schemas"]["rows"]}


def test_connect_refuses_what_the_catalog_cannot_send(on_connect):
    """A WHERE parameter changes the request and leaves the filter (Drill's push): the
    catalog's table is the configured request, so the read is refused, not answered
    unfiltered; so is a LIMIT that would go into the request as `limitQueryParam`."""
    errors = on_connect["errors"]
    param, limit = errors["param"], errors["limit"]
    assert param is not None and limit is not None
    assert param["class"] == limit["class"] == "HttpPluginError"
    assert "http plugin 'cweb', connection 'search'" in param["message"]
    assert "WHERE parameters" in param["message"] and "(q)" in param["message"]
    assert "http plugin 'cwebmore', connection 'limited'" in limit["message"]
    assert "limitQueryParam max" in limit["message"]
    for error in (param, limit):
        assert "classic Spark session" in error["message"]


def test_connect_names_a_failing_api_without_its_password(spark, on_connect):
    import drillspark

    error = on_connect["errors"]["fail"]
    assert error is not None and error["class"] == "HttpPluginError"
    message = error["message"]
    assert "\n" not in message.strip()
    assert "http plugin 'cweb', connection 'failsecure'" in message and "/fail" in message
    assert "500" in message and PASSWORD not in message
    with pytest.raises(Exception) as classic:  # the same words as a classic session's
        drillspark.sql(ERRORS["fail"], spark=spark).collect()
    assert str(classic.value) == message


def test_connect_keeps_a_table_name_on_the_configured_host(on_connect):
    error = on_connect["errors"]["host"]
    assert error is not None and "http plugin 'cweb'" in error["message"]
    assert "only the configured host is contacted" in error["message"]


def test_what_a_connect_read_asks(on_connect):
    """The refused reads asked nothing. A read asks the API each time Spark loads the table:
    for the read's columns, then at the action's analysis (a classic read asks once per
    statement): `SELECT * FROM cweb.offsets` asked its three pages twice."""
    asked = on_connect["asked"]
    assert not [r for r in asked if r.startswith(("GET /search?", "GET /limited?max"))]
    offsets = [r for r in asked if r.startswith("GET /offsets")]
    assert (
        sorted(set(offsets)) == [f"GET /offsets?offset={o}&limit=2 key=" for o in (0, 2, 4)]
        and len(offsets) == 6
    )


def test_connect_refuses_a_url_parameter_from_the_where_clause(on_connect):
    """The catalog's table is the connection's request as configured: a URL parameter the
    WHERE clause would fill is refused by name, nothing asked of the API; a url whose
    parameters all have defaults reads (`url_default`, answered as a classic session)."""
    for key, conn in (("url_param", "ghparam"), ("url_param_default", "ghdefault")):
        error = on_connect["errors"][key]
        assert error is not None and error["class"] == "HttpPluginError"
        message = error["message"]
        assert f"http plugin 'cweb', connection '{conn}'" in message
        assert "URL parameters filled from the WHERE clause (org)" in message
        assert "classic Spark session" in message
    assert not [r for r in on_connect["asked"] if "/orgs/connectorg/" in r]
    assert {r[0] for r in on_connect["answers"]["url_default"]["rows"]} == {"/orgs/apache/repos"}
