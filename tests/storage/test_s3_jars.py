"""The S3A jars (tools/fetch_hadoop_jars.py): pinned, fetched by `make setup` with their
checksums into the package, on every session's `spark.jars`; and the plugin config scoping
rule (filesystems.scoped_settings), which needs no Spark."""

from __future__ import annotations

import sys
from pathlib import Path

from drillspark.session import hadoop_jars, spark_jars
from drillspark.spark.storage import filesystems

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import fetch_hadoop_jars as fhj  # noqa: E402
import pinned_jars  # noqa: E402


def test_the_package_carries_hadoop_aws_and_the_sdk_parts():
    assert fhj.is_current(fhj.DEST), "run `make setup` (tools/fetch_hadoop_jars.py)"
    names = sorted(Path(j).name for j in hadoop_jars())
    assert names == sorted(j.name for j in fhj.JARS)
    assert "hadoop-aws-3.5.0.jar" in names and "s3-2.35.4.jar" in names
    assert not any(n.startswith("bundle-") for n in names)  # not the SDK's 600 MB bundle
    for jar in fhj.JARS:  # what is there is what was pinned
        assert pinned_jars.sha1_of(fhj.DEST / jar.name) == jar.sha1, jar.name
    assert set(hadoop_jars()) <= set(spark_jars())
    total = sum((fhj.DEST / j.name).stat().st_size for j in fhj.JARS)
    assert total < 20_000_000


def test_a_plugins_s3a_settings_are_scoped_to_its_bucket():
    config = {
        "fs.s3a.access.key": "AK",
        "fs.s3a.secret.key": "SK",
        "fs.s3a.bucket.other.endpoint": "http://x",  # already scoped: kept as given
        "dfs.replication": 2,
        "fs.s3a.path.style.access": True,
    }
    assert filesystems.scoped_settings("s3a://logs", config) == {
        "fs.s3a.bucket.logs.access.key": "AK",
        "fs.s3a.bucket.logs.secret.key": "SK",
        "fs.s3a.bucket.other.endpoint": "http://x",
        "dfs.replication": "2",
        "fs.s3a.bucket.logs.path.style.access": "true",
    }
    assert filesystems.scoped_settings("hdfs://nn:8020", {"dfs.replication": "1"}) == {
        "dfs.replication": "1"
    }
    assert filesystems.is_remote("s3a://b/x") and filesystems.is_remote("hdfs://h:1/x")
    assert not filesystems.is_remote("file:///x") and not filesystems.is_remote("/x")
    assert filesystems.join("s3a://b", "/logs/x") == "s3a://b/logs/x"
    assert filesystems.split("s3a://b/logs/x") == ("s3a://b", "/logs/x")
