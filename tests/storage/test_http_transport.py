"""The `http` plugin's way out (#32): Drill's proxy settings (`proxyType` http, `proxyHost`,
`proxyPort`, `proxyUsername`, `proxyPassword`) through a real forwarding proxy started here on
a free loopback port (tests/storage/http_proxy.py), and Drill's `cacheResults`, against the
tests' real HTTP API (tests/storage/http_api.py) answering with HTTP caching headers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.storage.http_proxy import Proxy
from tests.storage.test_http_plugin import Api

from drillspark.errors import Error
from drillspark.plugin_configs import config_from_json
from drillspark.plugin_configs.base import MASK
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

PROXY_USER, PROXY_PASSWORD = "relay", "pr0xy-s3cret"


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[Api]:
    server = Api(tmp_path_factory.mktemp("http-transport-api"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy() -> Iterator[Proxy]:
    server = Proxy(PROXY_USER, PROXY_PASSWORD)
    yield server
    server.stop()


def _plugin(api: Api, **plugin: Any) -> dict[str, Any]:
    conn = {"requireTail": True, "dataPath": "results"}
    return {
        "type": "http",
        "timeout": 5,
        **plugin,
        "connections": {"api": {"url": api.url, **conn}},
    }


def _engine(spark, plugin: dict[str, Any]) -> SqlEngine:
    return SqlEngine(spark, SqlSession(workspaces={}, plugins={"web": plugin}))


def _rows(engine: SqlEngine, sql: str) -> list[dict[str, Any]]:
    return engine.execute(sql)[-1].rows()


def test_requests_go_through_the_configured_proxy_with_its_credentials(spark, api, proxy):
    plugin = _plugin(
        api,
        proxyType="http",
        proxyHost="127.0.0.1",
        proxyPort=proxy.port,
        proxyUsername=PROXY_USER,
        proxyPassword=PROXY_PASSWORD,
    )
    proxy.seen.clear()
    api.clear()
    rows = _rows(_engine(spark, plugin), "SELECT id, name FROM web.api.`api.json` ORDER BY id")
    assert rows == [{"id": 1, "name": "alpha"}, {"id": 2, "name": "beta"}]
    # the proxy was asked for the API's absolute URL, with the right credentials, and the API
    # saw the request it forwarded
    assert proxy.seen == [("GET", f"{api.url}api.json", True)]
    assert [r.split()[:2] for r in api.requests()] == [["GET", "/api.json"]]


def test_the_proxys_credentials_may_come_from_the_credentials_provider(spark, api, proxy):
    creds = {"proxyUsername": PROXY_USER, "proxyPassword": PROXY_PASSWORD}
    plugin = _plugin(
        api,
        proxyType="HTTP",
        proxyHost="127.0.0.1",
        proxyPort=proxy.port,
        credentialsProvider={
            "credentialsProviderType": "PlainCredentialsProvider",
            "credentials": creds,
        },
    )
    proxy.seen.clear()
    assert _rows(_engine(spark, plugin), "SELECT count(*) AS n FROM web.api.`api.json`") == [
        {"n": 2}
    ]
    assert proxy.seen and all(ok for _, _, ok in proxy.seen)


def test_a_refused_proxy_password_is_an_error_that_never_shows_it(spark, api, proxy):
    plugin = _plugin(
        api,
        proxyType="http",
        proxyHost="127.0.0.1",
        proxyPort=proxy.port,
        proxyUsername=PROXY_USER,
        proxyPassword="wrong-pr0xy-pw",
    )
    with pytest.raises(Error) as err:
        _rows(_engine(spark, plugin), "SELECT * FROM web.api.`api.json`")
    message = str(err.value)
    assert "407" in message and "http plugin 'web', connection 'api'" in message
    assert "wrong-pr0xy-pw" not in message and PROXY_PASSWORD not in message


def test_the_proxy_password_is_a_secret_of_the_config(spark, api, proxy):
    plugin = _plugin(
        api,
        proxyType="http",
        proxyHost="127.0.0.1",
        proxyPort=proxy.port,
        proxyUsername=PROXY_USER,
        proxyPassword=PROXY_PASSWORD,
    )
    shown = config_from_json("web", plugin).to_json(masked=True)
    assert shown["proxyPassword"] == MASK and PROXY_PASSWORD not in json.dumps(shown)
    plan = _rows(_engine(spark, plugin), "EXPLAIN PLAN FOR SELECT * FROM web.api.`api.json`")
    assert PROXY_PASSWORD not in json.dumps(plan)


def test_without_a_proxy_type_the_proxy_is_not_used(spark, api, proxy):
    """Drill's default proxyType is `direct`: a proxyHost alone changes nothing."""
    plugin = _plugin(api, proxyHost="127.0.0.1", proxyPort=proxy.port)
    proxy.seen.clear()
    assert _rows(_engine(spark, plugin), "SELECT count(*) AS n FROM web.api.`api.json`") == [
        {"n": 2}
    ]
    assert proxy.seen == []


def test_a_socks_proxy_is_refused_by_name(spark, api):
    plugin = _plugin(api, proxyType="socks", proxyHost="127.0.0.1", proxyPort=1)
    with pytest.raises(Error, match="proxyType 'socks' is not supported here"):
        _rows(_engine(spark, plugin), "SELECT * FROM web.api.`api.json`")


def _served(engine: SqlEngine, table: str) -> int:
    return int(_rows(engine, f"SELECT served FROM web.api.`{table}`")[0]["served"])


def test_cache_results_serves_a_fresh_answer_without_asking_again(spark, api):
    from drillspark.spark.storage import http

    http.CACHE.clear()
    cached = _engine(spark, _plugin(api, cacheResults=True))
    plain = _engine(spark, _plugin(api))
    api.clear()
    first = _served(cached, "cached.json")
    assert _served(cached, "cached.json") == first  # max-age=300: from the cache
    assert [r.split()[1] for r in api.requests()] == ["/cached.json"]
    assert _served(plain, "cached.json") > first  # cacheResults off: asked every time
    # no-store is never kept
    api.clear()
    a, b = _served(cached, "nostore.json"), _served(cached, "nostore.json")
    assert b > a and len(api.requests()) == 2


def test_cache_results_revalidates_a_no_cache_answer_with_its_etag(spark, api):
    from drillspark.spark.storage import http

    http.CACHE.clear()
    cached = _engine(spark, _plugin(api, cacheResults=True))
    api.clear()
    for _ in range(2):
        assert _rows(cached, "SELECT version FROM web.api.`etag.json`") == [{"version": 1}]
    asked = api.requests()
    # asked twice; the second time with If-None-Match, answered 304 (the body kept here)
    assert [r.split()[1] for r in asked if r.startswith("GET")] == ["/etag.json", "/etag.json"]
    assert "304 /etag.json" in asked


def test_a_304s_lower_case_cache_control_makes_the_kept_answer_fresh(spark, api):
    from drillspark.spark.storage import http

    http.CACHE.clear()
    cached = _engine(spark, _plugin(api, cacheResults=True))
    api.clear()
    before = http.CACHE.requests
    for _ in range(3):
        assert _rows(cached, "SELECT version FROM web.api.`revalidated.json`") == [{"version": 2}]
    asked = api.requests()
    # the second read revalidates (304, `cache-control: max-age=300`); the third is fresh
    gets = [r.split()[1] for r in asked if r.startswith("GET")]
    assert gets == ["/revalidated.json", "/revalidated.json"], asked
    assert "304 /revalidated.json" in asked
    assert http.CACHE.requests - before == 2


def test_an_https_url_through_a_proxy_with_credentials_is_refused_unsent(spark, proxy):
    """The JDK's CONNECT carries no Proxy-Authorization (unless a JVM-wide setting changes), and
    one set on the request would reach the API inside the tunnel: refused before any request."""
    plugin = {
        "type": "http",
        "timeout": 5,
        "proxyType": "http",
        "proxyHost": "127.0.0.1",
        "proxyPort": proxy.port,
        "proxyUsername": PROXY_USER,
        "proxyPassword": PROXY_PASSWORD,
        "connections": {"api": {"url": "https://127.0.0.1:9/", "requireTail": True}},
    }
    proxy.seen.clear()
    with pytest.raises(Error) as err:
        _rows(_engine(spark, plugin), "SELECT * FROM web.api.`api.json`")
    message = str(err.value)
    assert "http plugin 'web', connection 'api'" in message
    assert "https connection through a proxy with credentials" in message
    assert PROXY_PASSWORD not in message
    assert proxy.seen == []


def test_a_table_name_making_a_malformed_url_is_refused_without_the_password(spark, api):
    url = api.url.replace("http://", "http://bob:S3cretPw@") + "v1/"
    plugin = {
        "type": "http",
        "timeout": 5,
        "connections": {"api": {"url": url, "requireTail": True}},
    }
    api.clear()
    for tail in ("a b", "a|b", "{x}", "%zz"):
        with pytest.raises(Error) as err:
            _rows(_engine(spark, plugin), f"SELECT * FROM web.api.`{tail}`")
        message = str(err.value)
        assert f"the table name `{tail}`" in message and "connection 'api'" in message, message
        assert "S3cretPw" not in message
    assert api.requests() == []


def test_a_header_value_with_a_line_break_is_refused_without_its_value(spark, api):
    conn = {"url": api.url, "requireTail": True, "headers": {"X-Api-Key": "k-s3cret\r\nX-Evil: 1"}}
    plugin = {"type": "http", "timeout": 5, "connections": {"api": conn}}
    with pytest.raises(Error) as err:
        _rows(_engine(spark, plugin), "SELECT * FROM web.api.`api.json`")
    message = str(err.value)
    assert "header 'X-Api-Key'" in message and "line break" in message
    assert "k-s3cret" not in message


def test_no_client_default_accept_or_no_cache_headers_go_out(spark, api):
    rows = _rows(_engine(spark, _plugin(api)), "SELECT * FROM web.api.`sent.json`")
    assert rows == [{"Accept": "*/*", "Cache-Control": None, "Pragma": None}]
    conn = {"url": api.url, "requireTail": True, "dataPath": "results"}
    conn["headers"] = {"Accept": "application/json"}
    plugin = {"type": "http", "timeout": 5, "connections": {"api": conn}}
    rows = _rows(_engine(spark, plugin), "SELECT Accept FROM web.api.`sent.json`")
    assert rows == [{"Accept": "application/json"}]


def test_an_answer_over_the_size_limit_is_an_error_not_cut(spark, api):
    from drillspark.spark.storage.record_pages import classic_jvm

    jvm = classic_jvm(spark, "test", RuntimeError)
    spec = {
        "plugin": "web",
        "connection": "api",
        "url": api.url + "api.json",
        "requireTail": False,
        "dataPath": "results",
        "maxBodyBytes": 10,
    }
    with pytest.raises(Exception) as err:
        jvm.drillspark.records.HttpPages.fetch(
            jvm.drillspark.records.RecordBatch(), json.dumps(spec), None
        )
    message = str(err.value)
    assert "HTTP response too large: more than 10 bytes" in message
    assert "connection 'api'" in message and "api.json" in message
    spec["maxBodyBytes"] = 1 << 20
    batch = jvm.drillspark.records.RecordBatch()
    assert jvm.drillspark.records.HttpPages.fetch(batch, json.dumps(spec), None) > 0
