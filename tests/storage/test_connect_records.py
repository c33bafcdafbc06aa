"""drillspark.sql reads `kafka` topics and `mongo` collections on Spark Connect (#32) through
each plugin's Spark catalog of its own name (spark/storage/record_pages.py: the catalog's
confs set over Connect, the table read by name, a topic's pushed conjuncts as DataFrame filters
the catalog's scan builder pushes by the JVM's one rule). A local Connect server in its own
process (tests/storage/connect_records.py, with drillspark's jars and the clients' jars) reads
the real KRaft broker and FerretDB; every answer is checked against this process's classic
session. The long tier (`deploy`): a Connect server and a broker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.storage import connect_records, kafka_data, kafka_server, mongo_data, mongo_server

pytestmark = pytest.mark.deploy

HERE = Path(__file__).resolve().parent
T0 = kafka_data.T0

# key -> Drill SQL; each answered alike by a classic and a Connect session
QUERIES = {
    "topic": "SELECT * FROM kc.`events`",
    "topic_columns": "SELECT e.id, e.name, e.m.k AS k, kafkaTopic, kafkaPartitionId, "
    "kafkaMsgOffset, kafkaMsgTimestamp, kafkaMsgKey FROM kc.`events` e",
    "offset": "SELECT id, name, kafkaPartitionId, kafkaMsgOffset FROM kc.`events` "
    "WHERE kafkaMsgOffset >= 1",
    "or": "SELECT id, kafkaMsgOffset FROM kc.`events` "
    "WHERE kafkaPartitionId = 0 OR kafkaMsgOffset = 1",
    "timestamp": f"SELECT id FROM kc.`events` WHERE kafkaMsgTimestamp >= {T0 + 1500}",
    "empty_topic": "SELECT * FROM kc.`empty`",
    "topics": "SHOW TABLES IN kc",
    "collection": "SELECT * FROM mc.shop.people",
    "orders": "SELECT o.name, o.customer.id AS cid, o.tags, o.price FROM mc.shop.orders o",
    "other_case": "SELECT name FROM mc.SHOP.People WHERE `_id` > 1",
    "filtered": "SELECT sku, qty FROM mc.crm.contacts WHERE qty > 3",
    "aggregate": "SELECT kind, count(*) AS n FROM mc.crm.contacts GROUP BY kind",
    "databases": "SHOW DATABASES LIKE 'mc.%'",
}
# key -> (Drill SQL, the offsets the scan fetches of the topic's 4)
PUSHED = {
    "offset": (QUERIES["offset"], 2),
    "or": (QUERIES["or"], 3),  # the union of the sides' ranges
    "timestamp": (QUERIES["timestamp"], 2),  # the broker's time index: offset 1 of each
    "in": (
        "SELECT id FROM kc.`events` WHERE kafkaPartitionId IN (0, 7) AND kafkaMsgOffset <= 0",
        1,
    ),
    "nothing": ("SELECT id FROM kc.`events` WHERE id = 4", 4),
}
EXPLAINS = {
    **{key: sql for key, (sql, _) in PUSHED.items()},
    "mongo": "SELECT sku FROM mc.crm.contacts WHERE qty > 3",
}
ERRORS = {
    "topic": "SELECT * FROM kc.`nosuch`",
    "topic_case": "SELECT * FROM kc.`EVENTS`",
    "collection": "SELECT * FROM mc.shop.nope",
    "database": "SELECT * FROM mc.nodb.orders",
    "option": "ALTER SESSION SET `store.kafka.all_text_mode` = true; SELECT id FROM kc.`events`",
}


@pytest.fixture(scope="module")
def ferretdb(tmp_path_factory) -> Iterator[mongo_server.FerretDB]:
    reason = mongo_server.missing()
    if reason:
        pytest.fail(f"{reason}: the mongo plugin's tests run against a real server")
    server = mongo_server.FerretDB(tmp_path_factory.mktemp("ferretdb"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def storage(spark, kafka_broker, ferretdb) -> Iterator[dict[str, Any]]:
    import drillspark

    mongo_data.load(spark._jvm, ferretdb.uri)
    plugins = {
        "kc": {
            "type": "kafka",
            "kafkaConsumerProps": {"bootstrap.servers": kafka_broker.bootstrap},
        },
        "mc": {"type": "mongo", "connection": ferretdb.uri, "batchSize": 100},
    }
    drillspark.sql("SELECT 1", spark=spark, storage=plugins).collect()
    yield plugins
    _forget(spark, *plugins)


def _forget(spark, *names: str) -> None:
    import importlib

    from drillspark.spark.storage import plugin_catalogs

    sql_module = importlib.import_module("drillspark.sql")
    engine = sql_module.default_engine(spark)
    for name in names:
        plugin_catalogs.unregister(spark, name)
        engine.session.plugins.pop(name, None)
    sql_module._storage_taken.pop(engine, None)


@pytest.fixture(scope="module")
def on_connect(storage, kafka_broker, tmp_path_factory) -> dict[str, Any]:
    """The Connect session's answers (one server for the module: it takes about a minute)."""
    job = {"storage": storage, "queries": QUERIES, "explains": EXPLAINS, "errors": ERRORS}
    job["grow"] = _growing(kafka_broker)
    out = connect_records.run(job, tmp_path_factory.mktemp("connect"))
    assert out["connect"] is True  # a Connect client: no JVM in its process
    return out


GROW = "connect_grow"  # a topic of this module's own: messages are added to it


def _growing(broker) -> dict[str, Any]:
    """A two-partition topic with ids 1 and 2, and the broker's producer command and lines
    that add ids 3 and 4 (one a partition) while the Connect session holds a result."""
    broker.produce({GROW: (2, [kafka_data._m({"id": 1}, 0), kafka_data._m({"id": 2}, 1)])})
    command = ["java", "-Xmx256m", "-cp", kafka_server._classpath(), str(kafka_server.PRODUCER)]
    lines = "".join(
        json.dumps({"topic": GROW, **kafka_data._m({"id": i}, i % 2)}) + "\n" for i in (3, 4)
    )
    return {"topic": GROW, "command": [*command, broker.bootstrap], "lines": lines}


def test_connect_reads_one_snapshot_per_query(on_connect):
    """Each action of a Connect result plans the table again (a new snapshot in the server);
    the read is pinned to the snapshot of its query, so messages sent since are read by the
    next query only, as on a classic session (test_kafka_plugin's snapshot test)."""
    grow = on_connect["grow"]
    assert grow["first"] == [1, 2]
    assert grow["again"] == [1, 2] and grow["count"] == 2
    assert grow["next_query"] == [1, 2, 3, 4]


def _classic(spark, sql: str) -> dict[str, Any]:
    import drillspark

    return connect_records.answer(drillspark.sql(sql, spark=spark))


@pytest.mark.parametrize("key", list(QUERIES))
def test_connect_answers_as_a_classic_session(spark, on_connect, key):
    assert on_connect["answers"][key] == _classic(spark, QUERIES[key])


def test_the_connect_answers_are_the_data(on_connect):
    """Not only alike: the Connect answers hold the messages and documents sent."""
    answers = on_connect["answers"]
    assert [r[0] for r in answers["offset"]["rows"]] == [3, 4]
    assert [r[0] for r in answers["timestamp"]["rows"]] == [3, 4]
    assert sorted(r[0] for r in answers["or"]["rows"]) == [1, 3, 4]
    assert answers["empty_topic"] == {"columns": [], "rows": []}
    assert {"events", "numbers", "empty"} <= {r[1] for r in answers["topics"]["rows"]}
    assert [r[0] for r in answers["other_case"]["rows"]] == ["bob", "cy"]
    assert {r[0] for r in answers["collection"]["rows"]} == {1, 2, 3}
    assert {"mc.shop", "mc.crm"} <= {r[0] for r in answers["databases"]["rows"]}
    # the server's JVM loaded the client libraries from drillspark's jars/clients/
    jars = " ".join(on_connect["client_jars"])
    assert "kafka-clients" in jars and "mongodb-driver-sync" in jars


@pytest.mark.parametrize("key", list(PUSHED))
def test_connect_pushes_the_offsets_through_the_plugins_catalog(on_connect, key):
    """The WHERE's pushed conjuncts reach the catalog's scan builder as Spark filters, which
    narrows the offsets by the JVM's rule (EXPLAIN's scan says what it fetches)."""
    plan, read = on_connect["explains"][key], PUSHED[key][1]
    assert "kafka [kc.events] pushed: " in plan, plan
    assert f"offsets: {read} of 4" in plan, plan
    if key == "offset":
        assert '["kafkaMsgOffset",">=",1]' in plan
    # every read is pinned to its snapshot's end offsets (a partition's `<` end)
    assert '["kafkaMsgOffset","<",2]' in plan, plan


def test_connect_pushes_into_the_mongo_find(on_connect):
    mongo = on_connect["explains"]["mongo"]
    assert "mongo [mc.crm.contacts]" in mongo and '"qty": {"$gt"' in mongo, mongo


def test_connect_names_a_missing_topic_or_collection(spark, on_connect):
    import drillspark

    errors = on_connect["errors"]
    want = {
        "topic": "Table 'nosuch' does not exist in kafka plugin 'kc'",
        # topics are case-sensitive, as in Drill
        "topic_case": "Table 'EVENTS' does not exist in kafka plugin 'kc'",
        "collection": "Object 'nope' not found within 'mc.shop'",
        "database": "Schema [mc.nodb] is not valid",
    }
    for key, text in want.items():
        assert errors[key] is not None, key
        assert text in errors[key]["message"], errors[key]
        with pytest.raises(Exception) as classic:  # the same words as a classic session's
            drillspark.sql(ERRORS[key], spark=spark).collect()
        assert text in str(classic.value)
        assert errors[key]["class"] == type(classic.value).__name__


def test_connect_refuses_kafka_options_its_catalog_cannot_take(on_connect):
    error = on_connect["errors"]["option"]
    assert error is not None
    assert "kafka plugin 'kc', topic events" in error["message"]
    assert "store.kafka.all_text_mode" in error["message"]
