"""A `kafka` plugin as a Spark catalog of its own name (#32), through Spark's own `spark.sql`:
``spark.sql("SELECT * FROM ks.`events`")`` reads the real broker of tests/storage/conftest.py
(the long tier, as every kafka test: the broker takes 16-20 s to start) through the same pages
and `drill` reader as drillspark.sql, with Drill's metadata columns; the topics are Spark's
tables; the consumer's credentials never show in SET or an error."""

from __future__ import annotations

import importlib

import pytest

pytestmark = pytest.mark.deploy

NAME = "ks"


def _forget(spark, *names: str) -> None:
    from drillspark.spark.storage import plugin_catalogs

    sql_module = importlib.import_module("drillspark.sql")
    engine = sql_module.default_engine(spark)
    for name in names:
        plugin_catalogs.unregister(spark, name)
        engine.session.plugins.pop(name, None)
    sql_module._storage_taken.pop(engine, None)


@pytest.fixture()
def ks(spark, kafka_broker):
    import drillspark

    config = {"type": "kafka", "kafkaConsumerProps": {"bootstrap.servers": kafka_broker.bootstrap}}
    drillspark.sql("SELECT 1", spark=spark, storage={NAME: config}).collect()
    yield config
    _forget(spark, NAME)


def _drill(spark, query: str) -> list[tuple]:
    import drillspark

    return sorted(tuple(r) for r in drillspark.sql(query, spark=spark).collect())


def test_spark_sql_reads_a_topic_by_the_plugins_name(spark, ks):
    assert spark.conf.get(f"spark.sql.catalog.{NAME}") == "drillspark.catalog.KafkaPluginCatalog"
    query = f"SELECT id, name, kafkaPartitionId, kafkaMsgOffset, kafkaMsgKey FROM {NAME}.`events`"
    ours = sorted(tuple(r) for r in spark.sql(query).collect())
    assert [r[0] for r in ours] == [1, 2, 3, 4]
    assert ours == _drill(spark, query)
    assert {r["tableName"] for r in spark.sql(f"SHOW TABLES IN {NAME}").collect()} >= {
        "events",
        "numbers",
    }
    assert spark.table(f"{NAME}.empty").count() == 0
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table(f"{NAME}.nosuch")


def test_a_broker_that_does_not_answer_is_named_without_the_credentials(spark):
    import drillspark

    jaas = 'x required username="u" password="hush-pw";'
    down = {
        "type": "kafka",
        "kafkaConsumerProps": {"bootstrap.servers": "127.0.0.1:1", "sasl.jaas.config": jaas},
    }
    drillspark.sql("SELECT 1", spark=spark, storage={"kdown": down}).collect()
    try:
        assert not any("hush-pw" in str(tuple(r)) for r in spark.sql("SET").collect())
        with pytest.raises(Exception) as e:
            spark.table("kdown.events")
        assert "storage plugin 'kdown'" in str(e.value) and "hush-pw" not in str(e.value)
    finally:
        _forget(spark, "kdown")
