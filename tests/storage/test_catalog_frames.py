"""The DataFrames of catalog answers kept per Spark session (spark/storage/metadata.py, #37)
go with their session: each frame holds its session, so a table of them outside the session
kept every session alive. A real session of the tests' Spark (newSession: its own
SparkSession object over the same SparkContext), dropped and collected."""

from __future__ import annotations

import gc
import weakref

from pyspark.sql.session import _monkey_patch_RDD

from drillspark.spark.storage import metadata

COLUMNS = [("SCHEMA_NAME", "VARCHAR", False), ("TYPE", "VARCHAR", False)]
ROWS = [("dfs.tmp", "file"), ("sys", "system-tables")]


def test_a_kept_frame_is_reused_within_its_session(spark):
    other = spark.newSession()
    first = metadata._frame(other, COLUMNS, ROWS)
    assert metadata._frame(other, COLUMNS, list(ROWS)) is first
    assert [tuple(r) for r in first.collect()] == ROWS


def test_a_dropped_session_and_its_frames_are_collected(spark):
    other = spark.newSession()
    df = metadata._frame(other, COLUMNS, ROWS)
    assert [tuple(r) for r in df.collect()] == ROWS
    # PySpark holds the newest session made (RDD.toDF) and the last one that made a frame
    # (the active session): give both back to the tests' session
    _monkey_patch_RDD(spark)
    spark.createDataFrame([(1,)], "a int")
    gone = weakref.ref(other)
    del other, df
    gc.collect()
    assert gone() is None
