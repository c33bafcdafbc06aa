"""A `file` plugin on HDFS (`connection: hdfs://127.0.0.1:PORT`): Hadoop's MiniDFSCluster, a
real NameNode and DataNode in a JVM of their own (tests/storage/hdfs_server.py), read and
written through pyspark's own Hadoop client. The long tier (`pytest -m deploy`): the cluster
takes up to a minute to start."""

from __future__ import annotations

import pytest

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

pytestmark = pytest.mark.deploy


@pytest.fixture(scope="module")
def engine(spark, hdfs, tmp_path_factory):
    local = tmp_path_factory.mktemp("hdfs-src")
    (local / "a.json").write_text('{"id": 1, "v": "x"}\n{"id": 2, "v": "y"}\n')
    (local / "people.csvh").write_text("id,name\n1,Ann\n")
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.Path(hdfs.uri).getFileSystem(conf)
    for name, key in (("a.json", "/data/logs/2024/a.json"), ("people.csvh", "/data/people.csvh")):
        fs.copyFromLocalFile(
            jvm.org.apache.hadoop.fs.Path(str(local / name)),
            jvm.org.apache.hadoop.fs.Path(hdfs.uri + key),
        )
    config = {
        "type": "file",
        "connection": hdfs.uri,
        "workspaces": {
            "data": {"location": "/data", "writable": False},
            "out": {"location": "/out", "writable": True},
        },
    }
    return SqlEngine(spark, SqlSession(plugins={"hd": config}))


def rows(engine, sql: str) -> list[dict]:
    return [dict(r) for r in engine.execute(sql)[-1].rows()]


def test_json_and_csv_with_implicit_columns(engine):
    got = rows(engine, "SELECT id, v, dir0, filename FROM hd.data.`logs` ORDER BY id")
    assert got == [
        {"id": 1, "v": "x", "dir0": "2024", "filename": "a.json"},
        {"id": 2, "v": "y", "dir0": "2024", "filename": "a.json"},
    ]
    assert rows(engine, "SELECT name FROM hd.data.`people.csvh`") == [{"name": "Ann"}]


def test_show_files_and_schemas(engine):
    assert {r["name"] for r in rows(engine, "SHOW FILES IN hd.data")} == {"logs", "people.csvh"}
    assert {"hd.data", "hd.out"} <= {r["SCHEMA_NAME"] for r in rows(engine, "SHOW SCHEMAS")}


def test_ctas_to_hdfs_and_back(engine):
    engine.execute("ALTER SESSION SET `store.format` = 'parquet'")
    written = rows(engine, "CREATE TABLE hd.out.`t` AS SELECT id, v FROM hd.data.`logs`")
    assert written[0]["Number of records written"] == 2
    assert rows(engine, "SELECT id FROM hd.out.`t` ORDER BY id") == [{"id": 1}, {"id": 2}]
    assert [r["name"] for r in rows(engine, "SHOW FILES IN hd.out.`t`")] == ["0_0_0.parquet"]


def test_names_stay_in_their_workspace(engine):
    with pytest.raises(SqlError, match="refused in workspace 'hd.data'"):
        engine.execute("SELECT * FROM hd.data.`../out/t`")


def test_two_plugins_naming_one_setting_otherwise_are_refused_not_mixed(spark, hdfs, engine):
    # other spellings of the one cluster's address (127.0.0.1 is the module's plugin `hd`) are
    # other connections to drillspark; an hdfs:// plugin's settings are the session's, so a
    # key two plugins set to different values would be shared: the second is refused, naming
    # both
    port = hdfs.uri.rsplit(":", 1)[1]
    data = {"data": {"location": "/data", "writable": False}}
    first = {"type": "file", "connection": f"hdfs://localhost:{port}", "workspaces": data}
    first["config"] = {"dfs.client.socket-timeout": "61000"}
    second = {**first, "connection": f"hdfs://Localhost:{port}"}
    second["config"] = {"dfs.client.socket-timeout": "62000"}
    same = {**second, "config": {"dfs.client.socket-timeout": "61000"}}
    plugins = {"hd1": first, "hd2": second, "hd3": same}
    engine = SqlEngine(spark, SqlSession(plugins=plugins))
    assert rows(engine, "SELECT name FROM hd1.data.`people.csvh`") == [{"name": "Ann"}]
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    assert conf.get("dfs.client.socket-timeout") == "61000"  # the plugin's config, applied
    with pytest.raises(SqlError) as e:
        engine.execute("SELECT name FROM hd2.data.`people.csvh`")
    text = str(e.value)
    assert "storage plugin 'hd2'" in text and "'hd1'" in text, text
    assert "dfs.client.socket-timeout" in text and "62000" not in text
    assert conf.get("dfs.client.socket-timeout") == "61000"
    # the same value is no clash
    assert rows(engine, "SELECT name FROM hd3.data.`people.csvh`") == [{"name": "Ann"}]


def test_a_file_deleted_after_planning_names_plugin_workspace_and_table(spark, hdfs, engine):
    """As on S3 (test_s3_vanish.py): HDFS's own not-found words, the same paragraph."""
    import drillspark

    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.Path(hdfs.uri).getFileSystem(conf)
    for name in ("a", "b"):
        out = fs.create(jvm.org.apache.hadoop.fs.Path(f"{hdfs.uri}/data/gone/{name}.json"), True)
        out.write(bytearray(b'{"x": 1}\n'))
        out.close()
    try:
        result = engine.execute("SELECT x FROM hd.data.`gone` WHERE x > 0")[-1]
        fs.delete(jvm.org.apache.hadoop.fs.Path(f"{hdfs.uri}/data/gone/b.json"), False)
        with pytest.raises(drillspark.Error) as e:
            result.rows()
    finally:  # the module's other tests list hd.data
        fs.delete(jvm.org.apache.hadoop.fs.Path(f"{hdfs.uri}/data/gone"), True)
    text = str(e.value)
    assert text.startswith(
        "storage plugin 'hd', workspace 'hd.data', table `gone`: the file `gone/b.json` was "
        "listed when the query was planned but it no longer exists"
    ), text
    assert "Job aborted" not in text and "\n" not in text


def test_temporary_tables_in_an_hdfs_workspace(spark, hdfs, engine):
    # drill.exec.default_temporary_workspace naming a workspace on HDFS (docs/storage.md,
    # "Temporary tables in another workspace"): the session's folder under it, gone at its end
    from drillspark.sql.temporary import temporary_tables

    temp = SqlEngine(
        spark, SqlSession(plugins=dict(engine.session.plugins), temporary_workspace="hd.out")
    )
    written = rows(temp, "CREATE TEMPORARY TABLE tt AS SELECT id FROM hd.data.`logs`")
    assert written[0]["Number of records written"] == 2
    assert rows(temp, "SELECT id FROM tt ORDER BY id") == [{"id": 1}, {"id": 2}]
    sid = temporary_tables(temp.session).session_id
    assert sid in {r["name"] for r in rows(temp, "SHOW FILES IN hd.out")}
    with pytest.raises(SqlError, match="another session's temporary tables"):
        engine.execute(f"SELECT * FROM hd.out.`{sid}/tt`")
    temp.close()
    assert sid not in {r["name"] for r in rows(engine, "SHOW FILES IN hd.out")}
