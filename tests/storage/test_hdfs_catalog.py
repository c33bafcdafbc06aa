"""A `file` plugin on HDFS as a Spark catalog of its name (#31): plain `spark.sql` reads JSON and
a Parquet folder written by drillspark's CTAS from Hadoop's MiniDFSCluster (the `hdfs` fixture)
with the answers `drillspark.sql` gives, and a name leaving the workspace is refused. The long
tier (`pytest -m deploy`): the cluster takes up to a minute to start."""

from __future__ import annotations

import importlib

import pytest

pytestmark = pytest.mark.deploy

NAME = "hdcat"


@pytest.fixture(scope="module")
def plugin(spark, hdfs, tmp_path_factory):
    import drillspark

    local = tmp_path_factory.mktemp("hdfs-cat")
    (local / "a.json").write_text('{"id": 1, "v": "x"}\n{"id": 2, "v": "y"}\n')
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.Path(hdfs.uri).getFileSystem(conf)
    fs.copyFromLocalFile(
        jvm.org.apache.hadoop.fs.Path(str(local / "a.json")),
        jvm.org.apache.hadoop.fs.Path(hdfs.uri + "/cat/data/a.json"),
    )
    fs.copyFromLocalFile(
        jvm.org.apache.hadoop.fs.Path(str(local / "a.json")),
        jvm.org.apache.hadoop.fs.Path(hdfs.uri + "/cat/private/b.json"),
    )
    config = {
        "type": "file",
        "connection": hdfs.uri,
        "workspaces": {
            "data": {"location": "/cat/data", "writable": False},
            "out": {"location": "/cat/out", "writable": True},
        },
    }
    assert drillspark.session(storage={NAME: config}) is spark
    yield config
    importlib.import_module("drillspark.session")._STORAGE.pop(spark, None)
    sql_module = importlib.import_module("drillspark.sql")
    engine = sql_module.default_engine(spark)
    engine.session.plugins.pop(NAME, None)
    sql_module._storage_taken.pop(engine, None)


def _drill(spark, query: str) -> list[tuple]:
    import drillspark

    return sorted(tuple(r) for r in drillspark.sql(query, spark=spark).collect())


def test_json_and_a_ctas_parquet_folder_through_spark_sql(spark, plugin):
    import drillspark

    query = f"SELECT id, v FROM {NAME}.data.`a.json`"
    assert sorted(tuple(r) for r in spark.sql(query).collect()) == [(1, "x"), (2, "y")]
    assert _drill(spark, query) == [(1, "x"), (2, "y")]
    drillspark.sql("ALTER SESSION SET `store.format` = 'parquet'", spark=spark)
    drillspark.sql(
        f"CREATE TABLE {NAME}.out.`t` AS SELECT id, v FROM {NAME}.data.`a.json`", spark=spark
    ).collect()
    query = f"SELECT id, v FROM {NAME}.out.`t` WHERE id > 1"
    assert (
        sorted(tuple(r) for r in spark.sql(query).collect()) == [(2, "y")] == _drill(spark, query)
    )


def test_a_name_leaving_the_workspace_is_refused(spark, plugin):
    with pytest.raises(Exception, match="escapes the workspace root"):
        spark.sql(f"SELECT * FROM {NAME}.data.`../private/b.json`").collect()
