"""The `kafka` storage plugin against a real Kafka 4.4.0 broker in KRaft mode (Maven Central's
jars, tests/storage/kafka_server.py, on free loopback ports, stopped by its process id; 16-20 s
to start on 2 busy cores, so the long tier: `deploy`), loaded with tests/storage/kafka_data.py's
messages by the broker's own Java producer; answers checked against what Drill 1.22's own kafka
plugin answered over the same broker (tests/storage/data/drill_kafka_answers.json): topics as
tables, JSON messages read schema-free with Drill's metadata columns (names, order, types), the
`store.kafka.*` options, a malformed message named by topic, partition and offset (or skipped),
a missing topic, a broker that is down, credentials kept out of messages, plans and REST."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.storage import kafka_data, kafka_server

from drillspark.errors import Error
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

pytestmark = pytest.mark.deploy

HERE = Path(__file__).resolve().parent
DRILL = json.loads((HERE / "data" / "drill_kafka_answers.json").read_text("utf-8"))
ANSWERS = {a["sql"]: a for a in DRILL["answers"]}
JAAS = 'x required username="u" password="hush-pw";'


@pytest.fixture()
def broker(kafka_broker) -> kafka_server.KafkaBroker:
    return kafka_broker  # the session's one broker (tests/storage/conftest.py)


def _config(bootstrap: str) -> dict[str, Any]:
    return {"type": "kafka", "kafkaConsumerProps": {"bootstrap.servers": bootstrap}}


@pytest.fixture()
def engine(spark, broker) -> SqlEngine:
    return SqlEngine(spark, SqlSession(workspaces={}, plugins={"kafka": _config(broker.bootstrap)}))


def run(engine: SqlEngine, *sqls: str) -> tuple[list[str], list[list[Any]]]:
    result = engine.execute(";\n".join(sqls))[-1]
    return list(result.columns), [list(r.values()) for r in result.rows()]


def test_show_tables_lists_the_topics_as_drill(engine):
    want = ANSWERS["SHOW TABLES IN kafka"]
    columns, rows = run(engine, "SHOW TABLES IN kafka")
    assert columns == want["columns"]
    # Drill's order is its set's; its consumer (group.id, auto commit) had made the cluster's
    # __consumer_offsets, which a drillspark read (assigned partitions, no commit) never makes
    drills = {tuple(r) for r in want["rows"]} - {("kafka", "__consumer_offsets")}
    # the topics other tests of the session's broker add (the snapshot tests' `late`, and
    # test_connect_records' growing topic) are not Drill's
    added = {("kafka", "late"), ("kafka", "connect_grow")}
    assert {tuple(r) for r in rows} - added == drills


def test_messages_read_schema_free_in_drills_column_order(engine):
    columns, rows = run(engine, "SELECT * FROM kafka.`events` ORDER BY id")
    # Drill's columns (it failed later in that query, on its 200 ms default poll timeout at
    # first; its column order is what it sent); `price` is in partition 1's second batch
    assert (
        columns[: len(ANSWERS["SELECT * FROM kafka.`events` ORDER BY id"]["columns"])]
        == (ANSWERS["SELECT * FROM kafka.`events` ORDER BY id"]["columns"])
    )
    assert columns[-1] == "price"
    t0 = kafka_data.T0
    assert rows == [
        [1, "a", ["x", "y"], {"k": 1, "j": None}, "events", 0, 0, t0, "k1", None, None],
        [2, "b", [], None, "events", 1, 0, t0 + 1000, None, None, 2.5],
        [3, None, [], {"k": 3, "j": "z"}, "events", 0, 1, t0 + 2000, "k3", True, None],
        [4, "d", [], None, "events", 1, 1, t0 + 3000, "k4", None, None],
    ]
    _, rows = run(engine, "SELECT e.m.j AS j, FLATTEN(e.tags) AS tag FROM kafka.`events` e")
    assert sorted(r[1] for r in rows) == ["x", "y"]


def test_the_kafka_options_change_the_read(engine):
    _, rows = run(engine, "SELECT n, x FROM kafka.`numbers` ORDER BY kafkaMsgOffset")
    assert rows == [[1, 1.5], [2, 2.0]]
    _, rows = run(
        engine,
        "ALTER SESSION SET `store.kafka.all_text_mode` = true",
        "SELECT n, x, kafkaMsgOffset FROM kafka.`numbers` ORDER BY kafkaMsgOffset",
    )
    assert rows == [["1", "1.5", 0], ["2", "2", 1]]
    _, rows = run(
        engine,
        "ALTER SESSION SET `store.kafka.all_text_mode` = false",
        "ALTER SESSION SET `store.kafka.read_numbers_as_double` = true",
        "SELECT typeof(n) t, n FROM kafka.`numbers` ORDER BY kafkaMsgOffset",
    )
    assert rows == [["FLOAT8", 1.0], ["FLOAT8", 2.0]]
    _, rows = run(
        engine,
        "ALTER SESSION SET `store.kafka.reader.skip_invalid_records` = true",
        "SELECT id, kafkaMsgOffset FROM kafka.`bad` ORDER BY id",
    )
    assert rows == [[1, 0], [3, 2]]


def test_metadata_columns_have_drills_types(engine):
    sql = (
        "SELECT typeof(kafkaTopic) a, typeof(kafkaPartitionId) b, typeof(kafkaMsgOffset) c, "
        "typeof(kafkaMsgTimestamp) d, typeof(kafkaMsgKey) e FROM kafka.`events` WHERE id = 1"
    )
    want = ANSWERS[sql]
    assert want["rows"] == [["VARCHAR", "BIGINT", "BIGINT", "BIGINT", "VARCHAR"]]
    assert run(engine, sql)[1] == want["rows"]
    # with all_text_mode the message's numbers are text, the metadata keeps its types
    _, rows = run(
        engine,
        "ALTER SESSION SET `store.kafka.all_text_mode` = true",
        "SELECT typeof(n) a, typeof(kafkaPartitionId) b, typeof(kafkaMsgOffset) c "
        "FROM kafka.`numbers` LIMIT 1",
    )
    assert rows == [["VARCHAR", "BIGINT", "BIGINT"]]


def test_a_malformed_message_names_topic_partition_and_offset(engine):
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM kafka.`bad`")
    message = str(e.value)
    assert "kafka plugin 'kafka'" in message and "topic bad, partition 0, offset 1" in message
    assert "malformed JSON" in message and "\n\tat " not in message


def test_an_empty_topic_is_no_rows(engine):
    assert run(engine, "SELECT * FROM kafka.`empty`")[1] == []


def test_a_missing_topic_is_an_error_at_its_place(engine):
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM kafka.`nosuch`")
    assert "Table 'nosuch' does not exist" in str(e.value)
    assert "line 1, column 15" in str(e.value)
    # topic names are case-sensitive, as in Drill
    assert "Table 'EVENTS' does not exist" in ANSWERS["SELECT * FROM kafka.`EVENTS`"]["error"]
    with pytest.raises(Error, match="Table 'EVENTS' does not exist"):
        run(engine, "SELECT * FROM kafka.`EVENTS`")


def test_the_read_is_a_snapshot_of_the_plan(spark, broker, engine):
    """Messages sent after the offsets were fixed are not read by that query; the next
    query sees them."""
    from drillspark.spark.storage.kafka import KafkaEngine

    before = KafkaEngine("kafka", _config(broker.bootstrap)).read(spark, {"topic": "events"})
    assert before.count() == 4
    broker.produce({"late": (1, [kafka_data._m({"id": 9})])})
    late = KafkaEngine("kafka", _config(broker.bootstrap)).read(spark, {"topic": "late"})
    assert [r["id"] for r in late.collect()] == [9]
    assert before.count() == 4  # the pages are held: the same snapshot on every action


def test_a_broker_that_is_down_is_one_clear_error_without_secrets(spark):
    config = {
        "type": "kafka",
        "kafkaConsumerProps": {"bootstrap.servers": "127.0.0.1:1", "sasl.jaas.config": JAAS},
    }
    engine = SqlEngine(spark, SqlSession(workspaces={}, plugins={"down": config}))
    started = time.monotonic()
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM down.`events`")
    assert time.monotonic() - started < 40
    message = str(e.value)
    assert "kafka plugin 'down'" in message and "cannot look up topic events" in message
    assert "hush-pw" not in message and "\n\tat " not in message


def test_a_plan_scans_a_topic(spark, broker):
    import drillspark

    plan = {
        "head": {"version": 1, "type": "APACHE_DRILL_LOGICAL"},
        "storage": {"k": _config(broker.bootstrap)},
        "query": [
            {"op": "scan", "@id": 1, "storageengine": "k", "selection": {"topic": "events"}},
            {"op": "store", "@id": 2, "input": 1, "target": None, "storageEngine": "--SCREEN--"},
        ],
    }
    rows = drillspark.run(plan, spark=spark).to_pandas()
    assert sorted(rows["id"]) == [1, 2, 3, 4]
    assert sorted(rows["kafkaMsgKey"].dropna()) == ["k1", "k3", "k4"]


def test_the_server_reads_a_kafka_plugin_created_over_rest(spark, broker):
    from tests.server.helpers import Http

    from drillspark.server import DrillServer

    srv = DrillServer(spark, port=0, workspaces={}).start()
    try:
        http = Http(srv.url)
        config = {
            "type": "kafka",
            "kafkaConsumerProps": {"bootstrap.servers": broker.bootstrap, "sasl.jaas.config": ""},
            "enabled": True,
        }
        config["kafkaConsumerProps"]["ssl.key.password"] = "hush-pw"
        body = json.dumps({"name": "kf", "config": config}).encode()
        status, _, data = http.request(
            "POST", "/storage/kf.json", body, {"Content-Type": "application/json"}
        )
        assert status == 200, data
        shown = http.get_json("/storage/kf.json")["config"]["kafkaConsumerProps"]
        assert shown["ssl.key.password"] == "*****" and shown["bootstrap.servers"]
        answer = http.query("SELECT id FROM kf.`events` ORDER BY id")
        assert [r["id"] for r in answer["rows"]] == [1, 2, 3, 4], answer
    finally:
        srv.stop()
