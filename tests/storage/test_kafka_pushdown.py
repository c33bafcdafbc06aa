"""The `kafka` plugin's reads in Spark tasks and its push-down, against the real KRaft broker
(tests/storage/conftest.py's `kafka_broker`, loaded with tests/storage/kafka_data.py): one task
per page of a partition's range, the ranges narrowed by the filter's conjuncts on
kafkaPartitionId / kafkaMsgOffset / kafkaMsgTimestamp with the answer of the read without
push-down (and Drill 1.22's over the same broker, tests/storage/data/drill_kafka_answers.json),
EXPLAIN showing what was pushed, and DESCRIBE / INFORMATION_SCHEMA of a topic as Drill answered.
Long tier (`deploy`): the broker takes 16-20 s to start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.storage import kafka_data

from drillspark.errors import Error
from drillspark.spark.storage import kafka
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

pytestmark = pytest.mark.deploy

HERE = Path(__file__).resolve().parent
ANSWERS = {
    a["sql"]: a
    for a in json.loads((HERE / "data" / "drill_kafka_answers.json").read_text("utf-8"))["answers"]
}
T0 = kafka_data.T0


def _config(bootstrap: str) -> dict[str, Any]:
    return {"type": "kafka", "kafkaConsumerProps": {"bootstrap.servers": bootstrap}}


@pytest.fixture()
def engine(spark, kafka_broker) -> SqlEngine:
    plugins = {"kafka": _config(kafka_broker.bootstrap)}
    return SqlEngine(spark, SqlSession(workspaces={}, plugins=plugins))


def run(engine: SqlEngine, *sqls: str) -> tuple[list[str], list[list[Any]]]:
    result = engine.execute(";\n".join(sqls))[-1]
    return list(result.columns), [list(r.values()) for r in result.rows()]


def scan(spark, broker, selection: dict[str, Any]) -> Any:
    return kafka.KafkaEngine("kafka", _config(broker.bootstrap)).read(spark, selection)


def ids(df: Any) -> list[int]:
    return sorted(r["id"] for r in df.collect()) if df.columns else []


def test_each_page_of_a_partition_is_read_in_its_own_task(spark, kafka_broker, monkeypatch):
    """A partition's range is one page (one task) up to PAGE_MESSAGES messages, several beyond:
    the same messages either way (a page is read as a file is: a list that no message of a page
    holds is NULL there, not the empty list a later message of the same page would give)."""
    whole = scan(spark, kafka_broker, {"topic": "events"})
    assert whole.rdd.getNumPartitions() == 2  # the topic's two partitions
    monkeypatch.setattr(kafka, "PAGE_MESSAGES", 1)
    split = scan(spark, kafka_broker, {"topic": "events"})
    assert split.rdd.getNumPartitions() == 4  # a page per message now
    meta = ["id", "name", "kafkaPartitionId", "kafkaMsgOffset", "kafkaMsgTimestamp", "kafkaMsgKey"]
    assert sorted(map(tuple, split.select(*meta).collect())) == sorted(
        map(tuple, whole.select(*meta).collect())
    )
    assert split.columns == whole.columns


@pytest.mark.parametrize(
    ("pushed", "want"),
    [
        ([["kafkaMsgOffset", ">=", 1]], [3, 4]),
        ([["kafkaMsgOffset", "<", 1]], [1, 2]),
        ([["kafkaPartitionId", "=", 1]], [2, 4]),
        ([["kafkaPartitionId", "in", [0, 7]], ["kafkaMsgOffset", "<=", 0]], [1]),
        ([["kafkaMsgTimestamp", ">=", T0 + 1500]], [3, 4]),
        ([["kafkaMsgTimestamp", ">", T0 + 1000]], [3, 4]),
        ([["kafkaMsgTimestamp", "=", T0 + 1000]], [2, 3, 4]),  # p1 from offset 0, p0 from 1
        ([["kafkaMsgTimestamp", ">", T0 + 3000]], []),  # no message that late: nothing read
        ([["kafkaMsgTimestamp", "<", T0]], [1, 2, 3, 4]),  # an upper bound narrows nothing
        ([["kafkaPartitionId", "=", 0], ["kafkaPartitionId", "=", 1]], []),
        # an OR of ANDs: the union of their ranges, a message two of them allow read once
        (
            [
                [
                    "or",
                    [
                        [["kafkaPartitionId", "=", 0], ["kafkaMsgOffset", ">=", 1]],
                        [["kafkaPartitionId", "=", 1], ["kafkaMsgOffset", "<", 1]],
                    ],
                ]
            ],
            [2, 3],
        ),
        ([["or", [[["kafkaMsgOffset", "=", 0]], [["kafkaMsgOffset", "<=", 0]]]]], [1, 2]),
        ([["or", [[["kafkaMsgOffset", "=", 0]], [["kafkaMsgOffset", "=", 1]]]]], [1, 2, 3, 4]),
        (
            [
                [
                    "or",
                    [
                        [["kafkaMsgTimestamp", ">=", T0 + 3000]],
                        [["kafkaPartitionId", "=", 0], ["kafkaMsgOffset", "=", 0]],
                    ],
                ]
            ],
            [1, 4],
        ),
        # an AND of an OR and a bound: each alternative narrowed by the bound
        (
            [
                ["or", [[["kafkaPartitionId", "=", 0]], [["kafkaPartitionId", "=", 1]]]],
                ["kafkaMsgOffset", "=", 1],
            ],
            [3, 4],
        ),
    ],
)
def test_pushed_conjuncts_narrow_what_the_scan_reads(spark, kafka_broker, pushed, want):
    """The scan alone (no filter above it) returns only the narrowed ranges' messages: events
    has id 1 (partition 0, offset 0, T0), 2 (1, 0, T0+1s), 3 (0, 1, T0+2s), 4 (1, 1, T0+3s)."""
    assert ids(scan(spark, kafka_broker, {"topic": "events", "pushed": pushed})) == want


PUSHED_SQL = [
    "SELECT id, kafkaPartitionId, kafkaMsgOffset FROM kafka.`events` WHERE kafkaMsgOffset >= 1 "
    "ORDER BY id",
    "SELECT id, kafkaPartitionId, kafkaMsgOffset FROM kafka.`events` WHERE kafkaPartitionId = 1 "
    "ORDER BY id",
    "SELECT id, kafkaPartitionId, kafkaMsgOffset FROM kafka.`events` WHERE kafkaMsgOffset < 1 "
    "AND kafkaPartitionId = 0 ORDER BY id",
    "SELECT id, kafkaPartitionId, kafkaMsgOffset FROM kafka.`events` WHERE kafkaMsgTimestamp >= "
    f"{T0 + 1500} ORDER BY id",
    f"SELECT id, kafkaMsgTimestamp FROM kafka.`events` WHERE kafkaMsgTimestamp > {T0 + 1000} "
    f"AND kafkaMsgTimestamp < {T0 + 3000} ORDER BY id",
    f"SELECT id FROM kafka.`events` WHERE kafkaMsgTimestamp > {T0 + 3000}",
    "SELECT id, kafkaPartitionId, kafkaMsgOffset FROM kafka.`events` WHERE kafkaPartitionId = 0 "
    "OR kafkaMsgOffset = 1 ORDER BY id",
    "SELECT id FROM kafka.`events` WHERE kafkaMsgOffset BETWEEN 1 AND 5 ORDER BY id",
]


@pytest.mark.parametrize("sql", PUSHED_SQL)
def test_pushed_queries_answer_as_drill_and_as_without_push_down(engine, sql):
    columns, rows = run(engine, sql)
    want = ANSWERS[sql]
    assert want["ok"] and columns == want["columns"] and rows == want["rows"]
    # the same filter over the whole topic read first (no push-down: a sub-select's columns)
    unpushed = sql.replace("FROM kafka.`events`", "FROM (SELECT * FROM kafka.`events`)")
    assert run(engine, unpushed)[1] == rows


def test_explain_shows_what_was_pushed(engine):
    """The plan's scan carries the pushed conjuncts, the filter stays above it (Drill's
    EXPLAIN keeps the filter too; its scan does not print the ranges)."""
    sql = (
        "EXPLAIN PLAN FOR SELECT id FROM kafka.`events` WHERE kafkaMsgOffset >= 1 AND "
        "kafkaPartitionId = 1"
    )
    drill = ANSWERS[sql]
    assert "Filter(condition=[AND(>=($0, 1), =($1, 1))])" in drill["text"]
    _, rows = run(engine, sql)
    plan = json.loads(rows[0][1])
    scans = [op for op in plan["query"] if op["op"] == "scan"]
    assert scans[0]["selection"]["pushed"] == [
        ["kafkaMsgOffset", ">=", 1],
        ["kafkaPartitionId", "=", 1],
    ]
    assert any(op["op"] == "filter" for op in plan["query"])


def test_describe_and_information_schema_list_a_topic_as_drill(engine):
    for sql in (
        "DESCRIBE kafka.`events`",
        "SELECT COLUMN_NAME, DATA_TYPE, IS_NULLABLE FROM INFORMATION_SCHEMA.`COLUMNS` WHERE "
        "TABLE_SCHEMA = 'kafka' AND TABLE_NAME = 'events'",
        "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM INFORMATION_SCHEMA.`TABLES` WHERE "
        "TABLE_SCHEMA = 'kafka' AND TABLE_NAME = 'events'",
    ):
        want = ANSWERS[sql]
        assert run(engine, sql) == (want["columns"], want["rows"]), sql
    with pytest.raises(Error, match="Table 'nosuch' does not exist"):
        run(engine, "DESCRIBE kafka.`nosuch`")


def test_a_bad_pushed_selection_in_a_plan_names_the_topic(spark, kafka_broker):
    with pytest.raises(Error, match="kafka plugin 'kafka', topic events: cannot push"):
        scan(spark, kafka_broker, {"topic": "events", "pushed": [["kafkaMsgKey", "=", 1]]})


def test_an_or_of_pushable_comparisons_is_pushed_as_a_union(engine):
    """`kafkaPartitionId = 0 OR kafkaMsgOffset = 1` (Drill 1.22 answered it over the same
    broker: PUSHED_SQL) goes into the scan as an OR of its two ranges; an OR with a side that
    compares something else narrows nothing and is not pushed."""
    sql = (
        "EXPLAIN PLAN FOR SELECT id FROM kafka.`events` WHERE kafkaPartitionId = 0 OR "
        "(kafkaMsgOffset = 1 AND kafkaMsgTimestamp >= 5)"
    )
    plan = json.loads(run(engine, sql)[1][0][1])
    scan = next(op for op in plan["query"] if op["op"] == "scan")
    assert scan["selection"]["pushed"] == [
        [
            "or",
            [
                [["kafkaPartitionId", "=", 0]],
                [["kafkaMsgOffset", "=", 1], ["kafkaMsgTimestamp", ">=", 5]],
            ],
        ]
    ]
    sql = "EXPLAIN PLAN FOR SELECT id FROM kafka.`events` WHERE kafkaPartitionId = 0 OR id = 4"
    plan = json.loads(run(engine, sql)[1][0][1])
    scan = next(op for op in plan["query"] if op["op"] == "scan")
    assert "pushed" not in scan["selection"]
    # the answer is the unpushed one (the filter checks every row)
    sql = (
        "SELECT id FROM kafka.`events` WHERE kafkaPartitionId = 0 OR kafkaMsgOffset = 1 ORDER BY id"
    )
    assert run(engine, sql)[1] == [[1], [3], [4]]
