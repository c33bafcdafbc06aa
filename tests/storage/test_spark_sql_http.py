"""An `http` plugin as a Spark catalog of its own name (#32), through Spark's own `spark.sql`
and `spark.table`, against the tests' real HTTP API (tests/storage/http_api.py): the catalog
reads through the extension's one HTTP read (records/HttpPages, drillspark.sql's too), so both
doors answer alike for JSON, paginated, CSV and requireTail connections; connections that take
a table name are namespaces; only the configured host is contacted (a real listener checks
that nothing reached it); a failing API is one paragraph naming the plugin without its
secrets, and `SET` shows none of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.storage.conftest import forget_plugins
from tests.storage.http_proxy import Proxy
from tests.storage.test_http_paging import connections as more_connections
from tests.storage.test_http_plugin import PASSWORD, Api, plugin_config

NAME = "web"
PROXY_PASSWORD = "never-used-pr0xy-pw"


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[Api]:
    server = Api(tmp_path_factory.mktemp("spark-sql-http-api"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[Proxy]:
    """A real HTTP listener on another port: a host the plugin's config does not name, which
    records every request that reaches it."""
    server = Proxy()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def web(spark, api, elsewhere) -> Iterator[dict[str, Any]]:
    import drillspark

    config = plugin_config(api, timeout=5, proxyUsername="relay", proxyPassword=PROXY_PASSWORD)
    u = api.url
    config["connections"].update(
        {
            "csv": {"url": u, "requireTail": True, "inputType": "csv"},
            "away": {
                "url": u + f"redirect?to=http://127.0.0.1:{elsewhere.port}/x",
                "requireTail": False,
            },
            "failsecure": {
                "url": u + "fail",
                "requireTail": False,
                "authType": "basic",
                "credentialsProvider": {
                    "credentialsProviderType": "PlainCredentialsProvider",
                    "credentials": {"username": "reader", "password": PASSWORD},
                },
            },
        }
    )
    # the connections Drill 1.22 was asked with for CSV, XML, INDEX and HEADER_INDEX pages
    more = {"type": "http", "timeout": 5, "connections": more_connections(api)}
    drillspark.sql("SELECT 1", spark=spark, storage={NAME: config, "webmore": more}).collect()
    yield config
    forget_plugins(spark, NAME, "webmore")


def _rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _drill(spark, query: str) -> list[tuple]:
    import drillspark

    return sorted((tuple(r) for r in drillspark.sql(query, spark=spark).collect()), key=repr)


@pytest.mark.parametrize(
    "table, query",
    [
        # JSON at a nested dataPath, a connection that is the table (requireTail false)
        ("web.nested", "SELECT * FROM web.nested"),
        # requireTail: the table name appended to the URL
        ("web.local.`api.json`", "SELECT * FROM web.local.`api.json`"),
        # paginators: PAGE and OFFSET, every page asked
        ("web.pages", "SELECT * FROM web.pages"),
        ("web.offsets", "SELECT * FROM web.offsets"),
        # basic credentials and a header, from the confs Spark's SET redacts
        ("web.secure", "SELECT * FROM web.secure"),
        ("web.keyed", "SELECT * FROM web.keyed"),
        # CSV through the text format's reader: values trimmed, an empty one NULL
        ("web.csv.`data.csv`", "SELECT * FROM web.csv.`data.csv`"),
    ],
)
def test_spark_sql_answers_as_drillspark_sql(spark, web, table, query):
    assert spark.conf.get(f"spark.sql.catalog.{NAME}") == "drillspark.catalog.HttpPluginCatalog"
    ours = _rows(spark.table(table))
    assert ours, table
    assert ours == _rows(spark.sql(query)) == _drill(spark, query)
    assert spark.table(table).columns == list(
        __import__("drillspark").sql(query, spark=spark).columns
    )


@pytest.mark.parametrize(
    "table",
    [
        "webmore.csvpages",  # a PAGE paginator over CSV pages
        "webmore.semi",  # csvOptions.delimiter
        "webmore.xml.`books.xml`",  # XML at data level 1
        "webmore.xml2",  # xmlDataLevel 2
        "webmore.xmlopt",  # xmlOptions.dataLevel
        "webmore.keyfirst",  # INDEX: has-more and an index asked back
        "webmore.keyurlfirst",  # INDEX: the next page's URL
        "webmore.linked",  # HEADER_INDEX: a Link header
        "webmore.xnext",  # HEADER_INDEX: a header of its own
    ],
)
def test_more_connections_answer_as_drillspark_sql(spark, web, api, table):
    api.clear()
    ours = _rows(spark.table(table))
    spark_asked = api.requests()
    api.clear()
    query = f"SELECT * FROM {table}"
    assert ours and ours == _drill(spark, query)
    assert spark_asked == api.requests()


@pytest.mark.parametrize("table", ["webmore.evilindex", "webmore.evilheader"])
def test_a_next_page_on_another_host_is_refused(spark, web, table):
    with pytest.raises(Exception, match="leads to another host"):
        spark.table(table).collect()


def test_the_catalog_asks_what_drillspark_sql_asks(spark, web, api):
    api.clear()
    assert len(spark.table("web.pages").collect()) == 5
    spark_asked = api.requests()
    api.clear()
    _drill(spark, "SELECT * FROM web.pages")
    assert (
        spark_asked
        == api.requests()
        == [
            "GET /pages?page=1&per_page=2 key=",
            "GET /pages?page=2&per_page=2 key=",
            "GET /pages?page=3&per_page=2 key=",
        ]
    )
    # the CSV cleaned as drillspark.sql cleans it
    rows = {r["id"]: r.asDict() for r in spark.sql("SELECT * FROM web.csv.`data.csv`").collect()}
    assert rows and all(v is None or v == v.strip(" ") for r in rows.values() for v in r.values())
    # maxRecords cuts an API that serves more (JSON pages are cut in the extension)
    assert spark.sql("SELECT count(*) FROM web.endless").first()[0] == 7


def test_connections_are_namespaces_and_tables(spark, web):
    spaces = {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {NAME}").collect()}
    assert spaces == {"local", "plain", "bare", "csv"}
    tables = {r["tableName"] for r in spark.sql(f"SHOW TABLES IN {NAME}").collect()}
    assert {"nested", "search", "pages", "offsets", "secure", "fail"} <= tables
    assert not tables & spaces
    # a connection's own tables are whatever its API serves: none listed, as in Drill
    assert spark.sql(f"SHOW TABLES IN {NAME}.local").collect() == []
    # Drill's rule for schema names: another case is the same connection
    assert len(spark.table("web.LOCAL.`api.json`").collect()) == 2
    # Spark's analyzer words a table not found itself
    for missing in ("web.nosuch", "web.local", "web.nested.`x.json`", "web.nosuch.`x.json`"):
        with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
            spark.table(missing)


@pytest.mark.parametrize("tail", ["@127.0.0.1:{port}/x", ":{port}/x", ".evil.example/x"])
def test_a_table_name_never_leads_to_another_host(spark, web, api, elsewhere, tail):
    api.clear()
    elsewhere.seen.clear()
    name = tail.format(port=elsewhere.port)
    with pytest.raises(Exception, match="only the configured host is contacted"):
        spark.table(f"web.bare.`{name}`").collect()
    assert elsewhere.seen == [] and api.requests() == []


def test_a_redirect_to_another_host_is_not_followed(spark, web, api, elsewhere):
    elsewhere.seen.clear()
    with pytest.raises(Exception, match="redirect to another host"):
        spark.table("web.away").collect()
    assert elsewhere.seen == []
    assert api.requests()[-1].startswith("GET /redirect?to=")


def test_a_failing_api_is_one_paragraph_naming_the_plugin_without_its_password(spark, web):
    with pytest.raises(Exception) as e:
        spark.table("web.failsecure")
    java = getattr(e.value, "java_exception", None)
    message = java.getMessage() if java is not None else str(e.value)
    assert "\n" not in message.strip()
    assert message.startswith("storage plugin 'web': cannot read web.failsecure: ")
    assert "HTTP request failed: response code 500" in message
    assert "connection 'failsecure'" in message and "/fail" in message
    assert PASSWORD not in str(e.value)


def test_a_url_password_never_shows(spark):
    import drillspark

    down = {
        "type": "http",
        "connections": {"c": {"url": "http://u:url-secret@127.0.0.1:1/x", "requireTail": False}},
    }
    drillspark.sql("SELECT 1", spark=spark, storage={"webdown": down}).collect()
    try:
        with pytest.raises(Exception) as e:
            spark.table("webdown.c")
        assert "storage plugin 'webdown'" in str(e.value) and "refused" in str(e.value)
        assert "url-secret" not in str(e.value) and "u:*****@127.0.0.1:1" in str(e.value)
        shown = [tuple(r) for r in spark.sql("SET").collect()]
        assert not any("url-secret" in str(v) for _, v in shown)
    finally:
        forget_plugins(spark, "webdown")


def test_secrets_are_not_in_set(spark, web):
    shown = {k: v for k, v in (tuple(r) for r in spark.sql("SET").collect())}
    ours = {k: v for k, v in shown.items() if k.startswith(f"spark.sql.catalog.{NAME}.")}
    assert any(".secret.password" in k for k in ours)
    assert any(k.endswith(".secret.header.X-Api-Key") for k in ours)
    assert f"spark.sql.catalog.{NAME}.secret.proxyPassword" in ours
    text = repr(shown)
    for secret in (PASSWORD, PROXY_PASSWORD, "k-123"):
        assert secret not in text


def test_a_post_body_and_usernames_are_not_in_set(spark, api):
    """A postBody often holds an API key: its conf is one SET redacts, and the read still
    sends it."""
    import drillspark

    conn = {
        "url": api.url + "postecho",
        "dataPath": "results",
        "requireTail": False,
        "method": "POST",
        "postBody": "apikey=pb-s3cret-1",
        "authType": "basic",
        "credentialsProvider": {
            "credentialsProviderType": "PlainCredentialsProvider",
            "credentials": {"username": "user-s3cret-2", "password": "pw-s3cret-3"},
        },
    }
    plugin = {"type": "http", "timeout": 5, "connections": {"post": conn}}
    drillspark.sql("SELECT 1", spark=spark, storage={"webpost": plugin}).collect()
    try:
        shown = repr([tuple(r) for r in spark.sql("SET").collect()])
        assert "spark.sql.catalog.webpost.c0.secret.postBody" in shown
        for secret in ("pb-s3cret-1", "user-s3cret-2", "pw-s3cret-3"):
            assert secret not in shown
        rows = spark.table("webpost.post").select("body").collect()
        assert [r[0] for r in rows] == ["apikey=pb-s3cret-1"]
    finally:
        forget_plugins(spark, "webpost")
