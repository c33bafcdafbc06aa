"""A local master's Spark settings (session.local_conf): Spark's defaults are a cluster's (200
shuffle partitions, sort-merge joins first); drillspark.session() on one machine uses twice the
cores as shuffle partitions and lets Spark pick a shuffled hash join, unless given."""

from __future__ import annotations

import os

import pytest

from drillspark.session import local_conf, local_cores


@pytest.mark.parametrize(
    ("master", "cores"),
    [("local", 1), ("local[2]", 2), ("local[ 3 ]", None), ("local[4,2]", 4), ("local[*]", None)],
)
def test_the_cores_of_a_local_master(master, cores):
    if master == "local[*]":
        cores = os.cpu_count() or 1
    assert local_cores(master) == cores


def test_a_cluster_keeps_sparks_defaults():
    for master in ("yarn", "spark://h:7077", "k8s://https://h", "sc://localhost", None):
        assert local_conf(master) == {}


def test_a_local_master_gets_twice_its_cores_as_shuffle_partitions():
    assert local_conf("local[2]") == {
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.join.preferSortMergeJoin": "false",
        "spark.sql.adaptive.autoBroadcastJoinThreshold": "32MB",
        "spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold": "16MB",
        "spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold": "20MB",
    }
    assert local_conf("local")["spark.sql.shuffle.partitions"] == "2"


def test_a_setting_given_wins_and_a_running_session_keeps_its_own(spark):
    import drillspark

    # the test session is built with local[2] and 2 shuffle partitions (conftest)
    assert spark.conf.get("spark.sql.join.preferSortMergeJoin") == "false"
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    try:
        # another session() call gets the running one: its defaults do not overwrite it
        assert drillspark.session(master="local[2]") is spark
        assert spark.conf.get("spark.sql.shuffle.partitions") == "3"
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)


def test_a_session_keeps_the_code_of_a_thousand_plans(spark):
    """Spark's 100 left a session that had answered more statement shapes compiling each one's
    code again when it came back (docs/performance.md, "Generated code kept"); a static conf,
    so it is read as the context starts."""
    assert spark.conf.get("spark.sql.codegen.cache.maxEntries") == "1000"


def test_a_session_keeps_65536_groups_a_task_in_an_object_hash_aggregate(spark):
    """MIN / MAX / ANY_VALUE of a VARCHAR run in Spark's object hash aggregate, which sorted its input past
    Spark's 128 groups a task (docs/performance.md, "MIN and MAX of a VARCHAR")."""
    key = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold"
    assert spark.conf.get(key) == "65536"
