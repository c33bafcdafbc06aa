"""A `file` plugin whose file system does not answer (an S3 endpoint at a closed port) beside a
working one (#31), as Drill 1.22 answers it. Asked of the real Drill with an `hdfs://` plugin at
127.0.0.1:1 (Drill's embedded build has no S3A; the schema loading is the same for every file
system) beside a working local `file` plugin: every statement that lists the schemas fails,
naming the plugin -- SHOW SCHEMAS, INFORMATION_SCHEMA.SCHEMATA, TABLES, VIEWS, COLUMNS, FILES,
even with a WHERE naming another schema: `PLUGIN ERROR: Failed to load schema for schema
deadhdfs` then the cause (`java.net.ConnectException: Call From ... to localhost:1 failed on
connection exception: ... Connection refused`) --; SHOW FILES / SHOW TABLES IN it, USE it and a
query of its tables fail the same way; a query of the working plugin's tables is answered.
(Drill's `storage.plugin_auto_disable`, off by default, disables the plugin at the first
failure when on: test_plugin_auto_disable.py.) The failing schema is never silently left out."""

from __future__ import annotations

import pytest
from tests.storage.s3_server import SECRET_KEY

from drillspark.errors import Error
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

BUCKET = "drill-reach"


@pytest.fixture(scope="module")
def plugins(s3):
    s3.client().create_bucket(Bucket=BUCKET)
    s3.put(BUCKET, "w/a.json", '{"x": 1}\n')
    up = s3.plugin(BUCKET, {"w": {"location": "/w", "writable": False}})
    down = s3.plugin("drill-reach-down", {"w": {"location": "/data", "writable": True}})
    down["config"] = {**down["config"], "fs.s3a.endpoint": "http://127.0.0.1:1"}
    return {"up": up, "down": down}


@pytest.fixture
def engine(spark, plugins):
    return SqlEngine(spark, SqlSession(plugins=dict(plugins)))


def _failure(engine, sql: str) -> str:
    with pytest.raises(Error) as e:  # a SqlError, or the metadata engine's when rows are read
        engine.execute(sql)[-1].rows()
    message = getattr(e.value, "message", None) or getattr(e.value, "detail", None) or str(e.value)
    assert SECRET_KEY not in str(e.value) and "Traceback" not in message
    assert "\n\tat " not in message  # no Java stack trace
    return message


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW SCHEMAS",
        "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA",
        "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.`TABLES` WHERE TABLE_SCHEMA = 'up.w'",
        "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.VIEWS",
        "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.`COLUMNS` WHERE TABLE_SCHEMA LIKE 'down%'",
        "SELECT FILE_NAME FROM INFORMATION_SCHEMA.`FILES` WHERE SCHEMA_NAME = 'up.w'",
    ],
)
def test_listing_the_schemas_fails_naming_the_unreachable_plugin(engine, sql):
    message = _failure(engine, sql)
    assert message.startswith("Failed to load schema for schema down"), message
    assert "storage plugin 'down'" in message, message


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW FILES IN down.w",
        "SHOW TABLES IN down.w",
        "SELECT * FROM down.w.`a.json`",
    ],
)
def test_its_own_schema_fails_naming_it(engine, sql):
    message = _failure(engine, sql)
    # SHOW TABLES names the workspace's location (its views are listed there)
    assert "storage plugin 'down'" in message or "s3a://drill-reach-down/data" in message
    assert "Connection refused" in message, message


def test_the_working_plugin_still_answers(engine, spark, plugins):
    assert engine.execute("SELECT x FROM up.w.`a.json`")[-1].rows() == [{"x": 1}]
    # without the unreachable plugin the listings answer, with the working one's schemas
    alone = SqlEngine(spark, SqlSession(plugins={"up": plugins["up"]}))
    names = [r["SCHEMA_NAME"] for r in alone.execute("SHOW SCHEMAS")[-1].rows()]
    assert "up.w" in names and "up.default" in names
    files = alone.execute(
        "SELECT FILE_NAME FROM INFORMATION_SCHEMA.`FILES` WHERE SCHEMA_NAME = 'up.w'"
    )[-1].rows()
    assert files == [{"FILE_NAME": "a.json"}]
