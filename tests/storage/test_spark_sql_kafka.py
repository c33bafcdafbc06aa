"""A `kafka` plugin as a Spark catalog of its own name (#32), through Spark's own `spark.sql`:
``spark.sql("SELECT * FROM ks.`events`")`` reads the real broker of tests/storage/conftest.py
(the long tier, as every kafka test: the broker takes 16-20 s to start) through the same pages
and `drill` reader as drillspark.sql, with Drill's metadata columns; the topics are Spark's
tables; the consumer's credentials never show in SET or an error."""

from __future__ import annotations

import pytest
from tests.storage.conftest import forget_plugins

pytestmark = pytest.mark.deploy

NAME = "ks"


@pytest.fixture()
def ks(spark, kafka_broker):
    import drillspark

    config = {"type": "kafka", "kafkaConsumerProps": {"bootstrap.servers": kafka_broker.bootstrap}}
    drillspark.sql("SELECT 1", spark=spark, storage={NAME: config}).collect()
    yield config
    forget_plugins(spark, NAME)


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
        forget_plugins(spark, "kdown")


def _scan_node(df):
    """The executed plan's scan of the topic (after an action: its metrics are filled)."""
    plan = df._jdf.queryExecution().executedPlan()
    if plan.nodeName() == "AdaptiveSparkPlan":
        plan = plan.executedPlan()
    leaves = plan.collectLeaves()
    found = [leaves.apply(i) for i in range(leaves.size())]
    return next(n for n in found if n.nodeName().startswith("BatchScan"))


T0 = 1700000000000  # tests/storage/kafka_data.T0: events' ids 1-4 at T0, +1 s, +2 s, +3 s

# WHERE -> (the ids, the offsets the scan reads of the topic's 4); events has id 1 (partition
# 0, offset 0, T0), 2 (1, 0, T0+1s), 3 (0, 1, T0+2s), 4 (1, 1, T0+3s)
PUSHED_WHERE = [
    ("kafkaMsgOffset >= 1", [3, 4], 2),
    ("kafkaPartitionId = 1", [2, 4], 2),
    ("kafkaPartitionId IN (0, 7) AND kafkaMsgOffset <= 0", [1], 1),
    ("kafkaMsgOffset BETWEEN 1 AND 5", [3, 4], 2),
    (f"kafkaMsgTimestamp >= {T0 + 1500}", [3, 4], 2),  # the broker's time index: offset 1 each
    (f"kafkaMsgTimestamp > {T0 + 3000}", [], 0),  # no message that late: nothing read
    (f"kafkaMsgTimestamp < {T0 + 1500}", [1, 2], 4),  # an upper bound narrows nothing
    # an OR: the union of its sides' ranges, a message both allow read once
    ("kafkaPartitionId = 0 OR kafkaMsgOffset = 1", [1, 3, 4], 3),
    (
        "(kafkaPartitionId = 0 AND kafkaMsgOffset >= 1) OR "
        "(kafkaPartitionId = 1 AND kafkaMsgOffset < 1)",
        [2, 3],
        2,
    ),
    (
        f"kafkaMsgTimestamp >= {T0 + 3000} OR (kafkaPartitionId = 0 AND kafkaMsgOffset = 0)",
        [1, 4],
        2,
    ),
    # a side that pushes nothing: the OR narrows nothing, the other conjunct still does
    ("(kafkaPartitionId = 0 OR id = 4) AND kafkaMsgOffset >= 1", [3, 4], 2),
    ("id = 4", [4], 4),  # nothing to push
]


@pytest.mark.parametrize(("where", "want", "read"), PUSHED_WHERE)
def test_spark_sql_pushes_partition_offset_and_timestamp_bounds(spark, ks, where, want, read):
    """Spark's filters on kafkaPartitionId / kafkaMsgOffset / kafkaMsgTimestamp narrow the
    offsets the scan fetches by drillspark.sql's rule (the JVM's KafkaPushDown): its description
    shows what was pushed and how many of the snapshot's offsets its pages fetch, it returns no
    row from outside them, Spark still checks every row, and the answer is drillspark.sql's."""
    query = f"SELECT id, kafkaPartitionId, kafkaMsgOffset FROM {NAME}.`events` WHERE {where}"
    df = spark.sql(query)
    ours = sorted(tuple(r) for r in df.collect())
    assert [r[0] for r in ours] == want
    assert ours == _drill(spark, query)
    scan = _scan_node(df)
    described = scan.simpleString(1000)
    assert f"offsets: {read} of 4" in described, described
    assert ("pushed: nothing" in described) == (read == 4 and "Timestamp" not in where)
    # no row from outside its pages (fewer still where the `drill` reader checks the filter)
    assert len(want) <= scan.metrics().apply("numOutputRows").value() <= read
    # the filter stays above the scan: Spark checks every row
    assert "Filter" in df._jdf.queryExecution().executedPlan().toString()


def test_spark_sql_explain_names_the_pushed_items(spark, ks):
    query = (
        f"SELECT id FROM {NAME}.`events` WHERE kafkaPartitionId = 0 OR "
        f"(kafkaMsgOffset = 1 AND kafkaMsgTimestamp >= {T0})"
    )
    text = spark.sql(f"EXPLAIN {query}").collect()[0][0]
    pushed = (
        '[["or",[[["kafkaPartitionId","=",0]],[["kafkaMsgOffset","=",1],'
        f'["kafkaMsgTimestamp",">=",{T0}]]]]]'
    )
    assert f"pushed: {pushed}" in text, text
    assert "offsets: 3 of 4" in text and f"drill [{NAME}.events]" in text
