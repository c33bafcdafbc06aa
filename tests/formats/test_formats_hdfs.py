"""Formats on HDFS: every format's files, one folder down, in Hadoop's MiniDFSCluster (a real
NameNode and DataNode, tests/storage/hdfs_server.py) read through a `file` plugin on hdfs:// by
drillspark.sql, with the rows, dir0 and implicit file columns a local folder of the same files
gives (the layout and queries of test_formats_s3.py). The long tier (`pytest -m deploy`): the
cluster takes up to a minute to start."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.formats.test_formats_s3 import QUERIES, write_everything

pytestmark = pytest.mark.deploy


@pytest.fixture(scope="module")
def hdfs() -> Iterator[Any]:
    from tests.storage import hdfs_server

    reason = hdfs_server.missing()
    if reason:
        pytest.fail(f"{reason}: the hdfs:// tests run against a real HDFS")
    server = hdfs_server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def engine(spark, hdfs, tmp_path_factory):
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    local = write_everything(tmp_path_factory.mktemp("formats-hdfs"))
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.Path(hdfs.uri).getFileSystem(conf)
    fs.copyFromLocalFile(
        jvm.org.apache.hadoop.fs.Path(str(local)), jvm.org.apache.hadoop.fs.Path(hdfs.uri + "/f")
    )
    config = {"type": "file", "connection": hdfs.uri, "workspaces": {"f": {"location": "/f"}}}
    return SqlEngine(spark, SqlSession(workspaces={"loc": str(local)}, plugins={"hd": config}))


@pytest.mark.parametrize("kind", sorted(QUERIES))
def test_every_format_on_hdfs_as_from_a_local_folder(engine, kind):
    on_hdfs = engine.execute(QUERIES[kind].format(t="hd.f"))[-1].collect()
    local = engine.execute(QUERIES[kind].format(t="dfs.loc"))[-1].collect()
    assert [r.asDict() for r in on_hdfs] == [r.asDict() for r in local]
    assert on_hdfs and all(r["dir0"] == "2024" for r in on_hdfs)
