"""A real `drillspark serve` on a free loopback port, in this process (it shares the test
session's SparkSession), for the REST, client and browser tests; one more with users for the
authentication tests."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from drillspark.server import DrillServer, Limits
from drillspark.server.auth import add_user, read_users

PASSWORDS = {"alice": "wonderland-42", "bob": "builder-7"}


@pytest.fixture(scope="session")
def server(spark, shared, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("server-tmp")
    srv = DrillServer(spark, port=0, workspaces={"data": str(shared / "data"), "tmp": str(tmp)},
                      limits=Limits(max_rows=5000, max_seconds=120))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def users_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("users") / "users"
    add_user(str(path), "alice", PASSWORDS["alice"], "admin")
    add_user(str(path), "bob", PASSWORDS["bob"], "user")
    return path


@pytest.fixture(scope="session")
def auth_server(spark, shared, users_file):
    srv = DrillServer(spark, port=0, workspaces={"data": str(shared / "data")},
                      users=read_users(str(users_file)))
    srv.start()
    yield srv
    srv.stop()


class Http:
    """A plain HTTP client (urllib) that keeps its own cookies when asked to."""

    def __init__(self, base: str, cookies: bool = False):
        self.base = base
        self.cookie: str | None = None
        self.keep = cookies

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        req = urllib.request.Request(self.base + path, data=body, method=method,
                                     headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                status, hdrs, data = r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            status, hdrs, data = e.code, dict(e.headers), e.read()
        cookie = hdrs.get("Set-Cookie")
        if self.keep and cookie:
            self.cookie = cookie.split(";")[0]
        return status, hdrs, data

    def get(self, path: str, **kw: Any) -> tuple[int, dict[str, str], bytes]:
        return self.request("GET", path, **kw)

    def get_json(self, path: str) -> Any:
        status, _, data = self.get(path)
        assert status == 200, data
        return json.loads(data)

    def query_raw(self, sql: str, **fields: Any) -> tuple[int, dict[str, str], bytes]:
        body = json.dumps({"queryType": "SQL", "query": sql, **fields}).encode()
        return self.request("POST", "/query.json", body, {"Content-Type": "application/json"})

    def query(self, sql: str, **fields: Any) -> dict[str, Any]:
        status, _, data = self.query_raw(sql, **fields)
        assert status == 200, data
        return json.loads(data)


@pytest.fixture
def http(server):
    return Http(server.url)
