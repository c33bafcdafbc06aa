"""Views, SHOW TABLES and INFORMATION_SCHEMA.FILES on a `file` plugin on HDFS (Hadoop's
MiniDFSCluster, the `hdfs` fixture): the view file is written beside its place and renamed over
it (HDFS's atomic rename), read by SELECT, replaced, dropped. The long tier (`-m deploy`): the
cluster takes up to a minute to start. Shapes as in test_s3_views.py (Drill 1.22's)."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

pytestmark = pytest.mark.deploy


@pytest.fixture(scope="module")
def engine(spark, hdfs):
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.Path(hdfs.uri).getFileSystem(conf)
    out = fs.create(jvm.org.apache.hadoop.fs.Path(hdfs.uri + "/vdata/people.json"), True)
    out.write(bytearray(b'{"id": 1, "name": "Ann"}\n{"id": 2, "name": "Bob"}\n'))
    out.close()
    config = {
        "type": "file",
        "connection": hdfs.uri,
        "workspaces": {
            "data": {"location": "/vdata", "writable": False},
            "tmp": {"location": "/vtmp", "writable": True},
        },
    }
    return SqlEngine(spark, SqlSession(plugins={"hd": config})), fs, jvm, hdfs.uri


def rows(engine, sql: str) -> list[dict]:
    return [dict(r) for r in engine.execute(sql)[-1].rows()]


def _names(fs, jvm, uri: str) -> list[str]:
    path = jvm.org.apache.hadoop.fs.Path(uri)
    if not fs.exists(path):
        return []
    return sorted(str(s.getPath().getName()) for s in fs.listStatus(path))


def test_a_view_on_hdfs(engine):
    sql, fs, jvm, uri = engine
    created = rows(sql, "CREATE VIEW hd.tmp.v AS SELECT id, name FROM hd.data.`people.json`")
    assert created == [{"ok": True, "summary": "View 'v' created successfully in 'hd.tmp' schema"}]
    assert _names(fs, jvm, uri + "/vtmp") == ["v.view.drill"]  # no temporary file left
    stream = fs.open(jvm.org.apache.hadoop.fs.Path(uri + "/vtmp/v.view.drill"))
    body = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    stream.close()
    assert json.loads(body)["sql"] == "SELECT id, name FROM hd.data.`people.json`"
    assert rows(sql, "SELECT name FROM hd.tmp.v ORDER BY id") == [{"name": "Ann"}, {"name": "Bob"}]
    assert rows(sql, "SHOW TABLES IN hd.tmp") == [{"TABLE_SCHEMA": "hd.tmp", "TABLE_NAME": "v"}]
    with pytest.raises(SqlError, match=r"A view with given name \[v\] already exists"):
        sql.execute("CREATE VIEW hd.tmp.v AS SELECT 1 AS a FROM (VALUES (1))")
    # OR REPLACE renames over the existing file
    replaced = rows(sql, "CREATE OR REPLACE VIEW hd.tmp.v AS SELECT id FROM hd.data.`people.json`")
    assert replaced[0]["summary"] == "View 'v' replaced successfully in 'hd.tmp' schema"
    assert rows(sql, "SELECT * FROM hd.tmp.v ORDER BY id") == [{"id": 1}, {"id": 2}]
    assert _names(fs, jvm, uri + "/vtmp") == ["v.view.drill"]
    dropped = rows(sql, "DROP VIEW hd.tmp.v")
    assert dropped == [
        {"ok": True, "summary": "View [v] deleted successfully from schema [hd.tmp]."}
    ]
    assert _names(fs, jvm, uri + "/vtmp") == []


def test_information_schema_files_on_hdfs(engine):
    sql, _fs, _jvm, _uri = engine
    got = rows(
        sql,
        "SELECT SCHEMA_NAME, WORKSPACE_NAME, FILE_NAME, IS_FILE, LENGTH "
        "FROM INFORMATION_SCHEMA.`FILES` WHERE SCHEMA_NAME = 'hd.data'",
    )
    assert got == [
        {
            "SCHEMA_NAME": "hd.data",
            "WORKSPACE_NAME": "data",
            "FILE_NAME": "people.json",
            "IS_FILE": True,
            "LENGTH": 50,
        }
    ]
    with pytest.raises(SqlError, match="refused in workspace 'hd.data'"):
        sql.execute("SHOW FILES IN hd.data.`../vtmp`")
