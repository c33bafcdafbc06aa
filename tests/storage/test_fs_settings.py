"""A `file` plugin's Hadoop settings in the session (spark/storage/filesystems.py): S3A's are
scoped to the plugin's bucket; other schemes' (hdfs://) are the session's, so a key two plugins
set to different values is refused for the second, never shared. Checked on the session's real
Hadoop configuration (setting a key connects to nothing; the HDFS reads are in
test_hdfs_sql.py, the long tier)."""

from __future__ import annotations

import pytest

from drillspark.spark.storage import filesystems

KEY = "drillspark.test.fs-settings"


def test_s3a_settings_go_to_their_bucket(spark):
    filesystems.configure(spark, "b1", "s3a://drill-fs-1", {"fs.s3a.endpoint": "http://a"})
    filesystems.configure(spark, "b2", "s3a://drill-fs-2", {"fs.s3a.endpoint": "http://b"})
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    assert conf.get("fs.s3a.bucket.drill-fs-1.endpoint") == "http://a"
    assert conf.get("fs.s3a.bucket.drill-fs-2.endpoint") == "http://b"


def test_a_session_wide_key_set_otherwise_by_a_second_plugin_is_refused(spark):
    filesystems.configure(spark, "h1", "hdfs://127.0.0.1:1", {KEY: "value-1", KEY + ".a": "x"})
    with pytest.raises(filesystems.FileSystemError) as e:
        filesystems.configure(spark, "h2", "hdfs://127.0.0.1:2", {KEY: "value-2"})
    text = str(e.value)
    assert "storage plugin 'h2'" in text and "'h1'" in text and KEY in text
    assert "value-" not in text  # a setting's value may be a secret: never shown
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    assert conf.get(KEY) == "value-1"
    # the same value, or other keys, are no clash; the plugin itself may change its own
    filesystems.configure(spark, "h3", "hdfs://127.0.0.1:3", {KEY: "value-1", KEY + ".b": "y"})
    assert conf.get(KEY + ".b") == "y"
