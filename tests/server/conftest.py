"""A real `drillspark serve` on a free loopback port, in this process (it shares the test
session's SparkSession), for the REST, client and browser tests; one more with users for the
authentication tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.server.helpers import Http, write_users

from drillspark.server import DrillServer, Limits
from drillspark.server.auth import read_users


@pytest.fixture(scope="session")
def server(spark, shared, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("server-tmp")
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(shared / "data"), "tmp": str(tmp)},
        limits=Limits(max_rows=5000, max_seconds=120),
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def users_file(tmp_path_factory):
    return Path(write_users(tmp_path_factory.mktemp("users")))


@pytest.fixture(scope="session")
def auth_server(spark, shared, users_file):
    srv = DrillServer(
        spark, port=0, workspaces={"data": str(shared / "data")}, users=read_users(str(users_file))
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def http(server):
    return Http(server.url)
