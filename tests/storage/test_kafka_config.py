"""The `kafka` storage plugin's configuration (no broker): Drill 1.22's JSON names and
the plugin it ships disabled, credentials among the consumer properties masked and kept, a bad
config naming plugin and property, and Drill's `store.kafka.*` options declared with what they
do here; the push-down rule (the JVM's KafkaPushDown, asked through the test session). The reads
against a real broker are tests/storage/test_kafka_plugin.py (long tier)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from drillspark.options import REGISTRY
from drillspark.options.kinds import PLAN
from drillspark.plugin_configs import PluginConfigError, config_from_json
from drillspark.plugin_configs.base import MASK
from drillspark.plugin_configs.kafka import KafkaConfig
from drillspark.plugin_configs.registry import drill_ships
from drillspark.spark.storage import kafka

JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="reader" password="hush-pw";'
)


def _config(**props: object) -> dict:
    return {
        "type": "kafka",
        "kafkaConsumerProps": {"bootstrap.servers": "127.0.0.1:9092", **props},
        "enabled": True,
    }


def test_drill_ships_a_disabled_kafka_plugin_of_this_type():
    shipped = drill_ships()["kafka"]
    assert shipped["enabled"] is False and shipped["type"] == "kafka"
    props = shipped["kafkaConsumerProps"]
    # Drill 1.22's bootstrap-storage-plugins.json for kafka, as its REST API showed it
    assert props["bootstrap.servers"] == "localhost:9092"
    assert props["group.id"] == "drill-query-consumer"
    assert props["auto.offset.reset"] == "earliest"
    assert isinstance(config_from_json("kafka", shipped), KafkaConfig)


def test_credentials_among_the_consumer_properties_are_masked_and_kept():
    config = config_from_json(
        "k",
        _config(
            **{"sasl.jaas.config": JAAS, "ssl.key.password": "pw2", "security.protocol": "SSL"}
        ),
    )
    shown = config.to_json(masked=True)
    props = shown["kafkaConsumerProps"]
    assert props["sasl.jaas.config"] == MASK and props["ssl.key.password"] == MASK
    assert props["security.protocol"] == "SSL" and props["bootstrap.servers"] == "127.0.0.1:9092"
    assert "hush-pw" not in str(shown) and "pw2" not in str(shown)
    # the JAAS line's password alone is a secret too (a client's message may quote just it)
    assert {"hush-pw", "pw2", JAAS} <= set(config.secrets())
    back = config_from_json("k", shown).keeping_secrets_of(config)
    assert back.raw["kafkaConsumerProps"]["sasl.jaas.config"] == JAAS
    assert back.raw["kafkaConsumerProps"]["ssl.key.password"] == "pw2"


def test_consumer_properties_reach_the_client_as_text():
    config = config_from_json("k", _config(**{"session.timeout.ms": 30000, "check.crcs": True}))
    assert isinstance(config, KafkaConfig)
    props = config.consumer_props()
    assert props["session.timeout.ms"] == "30000" and props["check.crcs"] == "true"


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"kafkaConsumerProps": "bootstrap.servers=x"}, "field 'kafkaConsumerProps' must be"),
        ({"kafkaConsumerProps": {"bootstrap.servers": {"a": 1}}}, "property 'bootstrap.servers'"),
    ],
)
def test_a_bad_config_names_plugin_and_field(raw, message):
    with pytest.raises(PluginConfigError) as e:
        config_from_json("k", {"type": "kafka", **raw})
    assert "storage plugin 'k'" in str(e.value) and message in str(e.value)


def test_a_config_without_brokers_is_refused_when_read():
    with pytest.raises(kafka.KafkaError, match="gives no 'bootstrap.servers'"):
        kafka.topics(None, "k", {"type": "kafka", "kafkaConsumerProps": {}})  # type: ignore[arg-type]


def test_drills_kafka_options_take_effect_here():
    for name in kafka.OPTIONS:
        option = REGISTRY[name]
        assert option.effect == PLAN, name
    # Drill 1.22's defaults (sys.options)
    assert REGISTRY["store.kafka.poll.timeout"].default == 200
    assert REGISTRY["store.kafka.record.reader"].default.endswith("." + kafka.JSON_READER)
    assert REGISTRY["store.kafka.reader.allow_nan_inf"].default is True


def test_the_session_options_travel_in_the_selection():
    values = {"store.kafka.all_text_mode": True, "store.kafka.poll.timeout": 5000}
    got = kafka.selection_options(lambda n: values.get(n, REGISTRY[n].default))
    assert got["allTextMode"] is True and got["pollTimeout"] == 5000
    assert got["readNumbersAsDouble"] is False and got["skipInvalidRecords"] is False


def _ranges(spark, place: str, pushed: Any) -> list[str]:
    """The ranges the JVM's rule (drillspark.records.KafkaPushDown, the one owner for
    drillspark.sql and spark.sql) makes of pushed items, as it describes them."""
    return list(spark._jvm.drillspark.records.KafkaPushDown.describe(place, json.dumps(pushed)))


def test_pushed_conjuncts_narrow_the_ranges(spark):
    """Each conjunct on kafkaPartitionId, kafkaMsgOffset and kafkaMsgTimestamp narrows the read
    (an AND of them: the tightest bound wins); an upper timestamp bound narrows nothing (a
    partition's timestamps need not rise with its offsets), as Drill's push-down."""
    assert _ranges(spark, "here", []) == ["all"]
    assert _ranges(
        spark,
        "here",
        [
            ["kafkaMsgOffset", ">=", 3],
            ["KAFKAMSGOFFSET", ">", 4],  # names in any case, as Drill's
            ["kafkaMsgOffset", "<=", 9],
            ["kafkaMsgOffset", "<", 20],
            ["kafkaPartitionId", "in", [0, 2, 5]],
            ["kafkaPartitionId", "<", 5],
            ["kafkaMsgTimestamp", ">=", 1000],
            ["kafkaMsgTimestamp", "<", 2000],
        ],
    ) == ["partitions [0, 2, 5], partition ids [, 5), offsets [5, 10), timestamps >= 1000"]
    pushed = [["kafkaMsgOffset", "=", 7], ["kafkaMsgTimestamp", ">", 5]]
    assert _ranges(spark, "here", pushed) == ["offsets [7, 8), timestamps >= 6"]
    pushed = [["kafkaPartitionId", "=", 1], ["kafkaPartitionId", "=", 2]]
    assert _ranges(spark, "here", pushed) == ["partition ids [2, 2)"]  # nothing left to read
    # the largest long: no overflow past it
    pushed = [["kafkaMsgOffset", ">", 2**63 - 1], ["kafkaMsgOffset", "<=", 2**63 - 1]]
    assert _ranges(spark, "here", pushed) == [f"offsets [{2**63 - 1}, )"]


def test_an_or_is_the_union_of_its_sides_each_narrowed_by_the_rest(spark):
    """["or", [[...], [...]]]: one range per side, each also bound by the AND's other conjuncts;
    two ORs multiply out (up to 64 ranges, past which an OR narrows nothing)."""
    assert _ranges(
        spark,
        "here",
        [
            ["or", [[["kafkaPartitionId", "=", 0]], [["kafkaMsgOffset", ">=", 5]]]],
            ["kafkaMsgOffset", "<", 9],
        ],
    ) == ["partition ids [0, 1), offsets [, 9)", "offsets [5, 9)"]
    two = ["or", [[["kafkaPartitionId", "=", 0]], [["kafkaPartitionId", "=", 1]]]]
    assert len(_ranges(spark, "here", [two, two])) == 4
    many = ["or", [[["kafkaMsgOffset", "=", i]] for i in range(9)]]
    assert len(_ranges(spark, "here", [many, many])) == 9  # 81 > 64: one OR kept


BAD_PUSHED = [
    "kafkaMsgOffset > 1",
    [["kafkaMsgKey", "=", 1]],
    [["kafkaMsgOffset", "!=", 1]],
    [["or", "kafkaMsgOffset = 1"]],
    [["or", [[["kafkaMsgKey", "=", 1]]]]],
    [["or", []]],  # an OR of nothing: a plan's slip, not "read every message"
    [["kafkaMsgOffset", ">", "1"]],
    [["kafkaMsgOffset", ">", True]],
    [["kafkaMsgOffset", ">", 1.5]],
    [["kafkaMsgOffset", ">", 2**64]],
    [["kafkaPartitionId", "in", []]],
    [["kafkaMsgOffset", ">"]],
]


@pytest.mark.parametrize("pushed", BAD_PUSHED)
def test_a_bad_pushed_conjunct_is_a_clear_error(spark, pushed):
    with pytest.raises(Exception) as e:
        _ranges(spark, "kafka plugin 'k', topic t", pushed)
    assert "DrillScanException: kafka plugin 'k', topic t: " in str(e.value)


@pytest.mark.parametrize("pushed", BAD_PUSHED)
def test_a_bad_pushed_conjunct_is_refused_on_connect_too(pushed):
    """On Spark Connect the items become DataFrame filters on the plugin's catalog table
    (kafka.pushed_condition): a malformed one is refused there as the JVM refuses it, before
    any Spark call."""
    with pytest.raises(kafka.KafkaError, match="^kafka plugin 'k', topic t: cannot push "):
        kafka.pushed_condition("kafka plugin 'k', topic t", pushed)
