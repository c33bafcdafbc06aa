"""A server query's small answer and job properties, each in one py4j call into the jar
(spark/pickled_collect.py, spark/job_properties.py): the same rows as pyspark's collect, the
properties set on the asking thread and cleared after (every small answer of the server's
suites goes this way too)."""

from __future__ import annotations

import datetime as dt
import decimal
import threading

import pytest

from drillspark.spark import job_properties, jvm_methods, pickled_collect

VALUES = """
SELECT * FROM VALUES
  (1, 'a', CAST(1.5 AS DOUBLE), CAST(12.345 AS DECIMAL(10, 3)), DATE'2024-02-29',
   TIMESTAMP_NTZ'2024-02-29 12:34:56.789', X'00FF', true, array(1, NULL, 3),
   map('k', named_struct('x', 1, 'y', array('p'))), named_struct('a', 1, 'b', 'two'),
   INTERVAL '3' DAY),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (-7, 'ünï', double('NaN'), CAST(-0.001 AS DECIMAL(10, 3)), DATE'1900-01-01',
   TIMESTAMP_NTZ'1970-01-01 00:00:00', X'', false, array(), map(), named_struct('a', NULL,
   'b', NULL), INTERVAL '-1' DAY)
  AS t(i, s, d, dec, day, ts, bin, flag, arr, m, st, iv)
"""


def _same(a, b) -> bool:
    """Rows equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_the_rows_are_pysparks_collect(spark):
    df = spark.sql(VALUES)
    mine, theirs = pickled_collect.rows(df), df.collect()
    assert [r.__fields__ for r in mine] == [r.__fields__ for r in theirs]
    assert _same([tuple(r) for r in mine], [tuple(r) for r in theirs])
    first = mine[0]
    assert first.dec == decimal.Decimal("12.345") and first.day == dt.date(2024, 2, 29)
    assert first.bin == bytearray(b"\x00\xff") and first.m["k"].y == ["p"]
    assert first.iv == dt.timedelta(days=3)
    assert pickled_collect.rows(spark.sql("SELECT 1 AS x WHERE false")) == []


def test_many_rows_come_in_batches_and_in_order(spark):
    df = spark.range(0, 25_000, 1, 3).selectExpr("id", "repeat('x', CAST(id % 7 AS INT)) AS s")
    rows = pickled_collect.rows(df)
    assert [r.id for r in rows] == list(range(25_000))
    assert rows[6].s == "x" * 6


def test_an_answer_past_the_reply_limit_is_served_as_collect_serves_it(spark):
    # a row limit bounds the rows, not their width: past max_bytes the rows already collected
    # are served from a socket (collectToPython's port, secret and server), not one reply
    df = spark.sql(VALUES)
    reply = spark._jvm.org.apache.spark.sql.drillspark.compat.PickledCollect.rows(df._jdf, 64)
    assert not isinstance(reply, bytes)
    whole = spark._jvm.org.apache.spark.sql.drillspark.compat.PickledCollect.rows(df._jdf, 1 << 20)
    assert isinstance(whole, bytes)
    served, theirs = pickled_collect.rows(df, max_bytes=64), df.collect()
    assert [r.__fields__ for r in served] == [r.__fields__ for r in theirs]
    assert _same([tuple(r) for r in served], [tuple(r) for r in theirs])
    wide = spark.range(0, 3_000, 1, 2).selectExpr("id", "repeat('ab', 500) AS s")
    rows = pickled_collect.rows(wide, max_bytes=100_000)  # about 3 MB pickled
    assert [r.id for r in rows] == list(range(3_000)) and rows[-1].s == "ab" * 500


def test_a_jar_without_the_class_falls_back_and_is_not_asked_again(spark, monkeypatch):
    # an older jar: py4j's stand-in for the missing class is not callable; after the first
    # answer the method is known absent, so later answers make no lookup's round trips
    missing = "org.apache.spark.sql.drillspark.compat.NoSuchCollect.rows"
    monkeypatch.setattr(pickled_collect, "ROWS", missing)
    df = spark.sql("SELECT 1 AS x")
    assert [tuple(r) for r in pickled_collect.rows(df)] == [(1,)]
    assert jvm_methods.static(spark._jvm, missing) is jvm_methods._absent
    assert [tuple(r) for r in pickled_collect.rows(df)] == [(1,)]


def test_a_failing_answer_raises_as_collect_does(spark):
    df = spark.sql("SELECT assert_true(id < 3, 'id too big') FROM range(5)")
    with pytest.raises(Exception) as mine:
        pickled_collect.rows(df)
    with pytest.raises(Exception) as theirs:
        df.collect()
    assert type(mine.value) is type(theirs.value)
    assert "id too big" in str(mine.value)


def test_job_properties_set_on_the_asking_thread_and_cleared(spark):
    sc = spark.sparkContext
    keys = (*job_properties.KEYS, job_properties.POOL)
    seen: dict[str, list[str | None]] = {}

    def query() -> None:
        job_properties.enter(spark, "q-1", "SELECT 1", "drillspark-3")
        seen["in"] = [sc.getLocalProperty(k) for k in keys]
        job_properties.leave(spark)
        seen["after"] = [sc.getLocalProperty(k) for k in keys]

    t = threading.Thread(target=query)
    t.start()
    t.join(60)
    assert seen["in"] == ["q-1", "SELECT 1", "true", "drillspark-3"]
    assert seen["after"] == [None, None, None, None]
    assert sc.getLocalProperty("spark.jobGroup.id") != "q-1"  # another thread's, not this one's


def test_a_kept_chart_through_rest_takes_five_round_trips(server, http, monkeypatch):
    """A BI chart run again: its job properties in, its table's workspace rule, the kept
    statement's confs, its rows, its job properties out; no served socket, no property a call
    (fifteen before)."""
    from py4j import clientserver

    sql = (
        "SELECT n.N_REGIONKEY AS r, count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json` n "
        "GROUP BY n.N_REGIONKEY ORDER BY r"
    )
    first = http.query(sql)
    assert first["queryState"] == "COMPLETED", first
    sent: list[str] = []
    send = clientserver.ClientServerConnection.send_command

    def counting(self, command):
        # the handler's own calls: not the server's health check, not proxies released
        if "process_request" in threading.current_thread().name and not command.startswith("m\n"):
            sent.append(command)
        return send(self, command)

    monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
    again = http.query(sql)
    monkeypatch.undo()
    assert again["rows"] == first["rows"] and len(again["rows"]) == 5
    methods = [c.split("\n")[2] for c in sent if c.startswith("c\n")]
    assert methods == ["enter", "resolveLocal", "confs", "rows", "leave"], sent
