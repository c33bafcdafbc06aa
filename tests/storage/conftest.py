"""Real PostgreSQL and MariaDB servers for the `jdbc` storage plugin's tests (no mocks): one of
each per test session, started when a test first asks for it, on a free loopback port with its
data in a temporary folder, loaded with tests/storage/data/<kind>.sql, and stopped by its
process id at the end (tools/db_servers.py). `make databases` (a step of `make test`) installs
the Debian packages; without them these tests fail saying so."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(ROOT / "tools"))
import db_servers  # noqa: E402

# Drill 1.22's answers over the same tables (tests/storage/data/drill_jdbc_answers.json):
# Drill's `jdbc` plugin configured as `pg` (PostgreSQL, caseInsensitiveTableNames false),
# `pgci` (the same, true), `pgw` (writable), `maria`, `mariaci`, `mariaw` (MariaDB), `pgbad`
# (a wrong password) and `pgdown` (port 1); how they were asked is in docs/storage.md.
ANSWERS: dict[str, dict[str, Any]] = {
    a["sql"]: a for a in json.loads((DATA / "drill_jdbc_answers.json").read_text("utf-8"))
}


def forget_plugins(spark, *names: str) -> None:
    """The test's plugins leave the shared session (its catalogs' confs, the stored configs):
    the spark.sql tests of the plugins' catalogs (test_spark_sql_*.py) share it."""
    import importlib

    from drillspark.spark.storage import plugin_catalogs

    session_module = importlib.import_module("drillspark.session")
    sql_module = importlib.import_module("drillspark.sql")
    engine = sql_module.default_engine(spark)
    for name in names:
        plugin_catalogs.unregister(spark, name)
        engine.session.plugins.pop(name, None)
        (session_module._STORAGE.get(spark) or {}).pop(name, None)
    sql_module._storage_taken.pop(engine, None)


def drill(sql: str) -> dict[str, Any]:
    """Drill 1.22's answer to `sql` (columns, JDBC type names, rows; or its error)."""
    return ANSWERS[sql]


def _start(kind: str) -> db_servers.Server:
    reason = db_servers.missing(kind)
    if reason:
        pytest.fail(f"{reason}: the jdbc plugin's tests run against a real server")
    server = db_servers.STARTERS[kind]()
    try:
        server.sql((DATA / f"{kind}.sql").read_text("utf-8"))
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def postgresql() -> Iterator[db_servers.Server]:
    server = _start("postgresql")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mariadb() -> Iterator[db_servers.Server]:
    server = _start("mariadb")
    yield server
    server.stop()


def jdbc_config(server: db_servers.Server, **extra: Any) -> dict[str, Any]:
    """Drill's `jdbc` config of `server`'s test database, as a Drill user writes it."""
    driver = "org.postgresql.Driver" if server.kind == "postgresql" else "org.mariadb.jdbc.Driver"
    config = {
        "type": "jdbc",
        "driver": driver,
        "url": server.url(),
        "username": server.user,
        "password": server.password,
    }
    config.update(extra)
    return config


@pytest.fixture(scope="session")
def pg(postgresql) -> dict[str, Any]:
    return jdbc_config(postgresql)


@pytest.fixture(scope="session")
def maria(mariadb) -> dict[str, Any]:
    return jdbc_config(mariadb)


def plan(storage: dict[str, Any], *ops: dict[str, Any]) -> dict[str, Any]:
    """A logical plan: `ops` (each with its @id) over the named storage engines."""
    return {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "tests"}},
        "storage": storage,
        "query": list(ops),
    }


def scan_plan(
    engine: str, config: dict[str, Any], schema: Any, table: str, *after: dict[str, Any]
) -> dict[str, Any]:
    """scan (@1) of `table`, then `after` (ids from 2), then the screen."""
    ops: list[dict[str, Any]] = [
        {
            "@id": 1,
            "op": "scan",
            "storageengine": engine,
            "selection": {"schema": schema, "table": table},
        }
    ]
    ops += after
    ops.append({"@id": 99, "op": "store", "input": len(ops), "storageEngine": "--SCREEN--"})
    return plan({engine: config}, *ops)


@pytest.fixture(scope="session")
def s3() -> Iterator[Any]:
    """moto's S3 server (tests/storage/s3_server.py), one per test session."""
    from tests.storage import s3_server

    server = s3_server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def hdfs() -> Iterator[Any]:
    """Hadoop's MiniDFSCluster (tests/storage/hdfs_server.py), one per test session."""
    from tests.storage import hdfs_server

    reason = hdfs_server.missing()
    if reason:
        pytest.fail(f"{reason}: the hdfs:// tests run against a real HDFS")
    server = hdfs_server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory) -> Iterator[Any]:
    """One real Kafka broker (KRaft, tests/storage/kafka_server.py) per test session, loaded
    with tests/storage/kafka_data.py's topics: 16-20 s to start on 2 busy cores, so every
    kafka test module shares it."""
    from tests.storage import kafka_data, kafka_server

    reason = kafka_server.missing()
    if reason:
        pytest.fail(f"{reason}: the kafka plugin's tests run against a real broker")
    server = kafka_server.KafkaBroker(tmp_path_factory.mktemp("kafka"))
    try:
        kafka_data.load(server)
        yield server
    finally:
        server.stop()
