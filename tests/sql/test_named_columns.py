"""A JSON table keeps only the top-level columns a statement names (docs/scan.md, option
`columns`; docs/performance.md): the `drill` source's `columns` option, the SQL layer setting it
from every name a statement holds, and the cases where it must not (a `*`, a NATURAL join, a
table's name as a column). A wide discovered schema costs tens of milliseconds per statement to
send to Python and analyze; the answers must not change."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlSession


def _scans(compiled) -> list[dict]:
    return [op for op in compiled.plan["query"] if op["op"] == "scan"]


@pytest.fixture
def wide(tmp_path):
    """Records with an `attrs` object of 300 keys, like the benchmark's events."""
    rows = [
        {"id": i, "Kind": "ab"[i % 2], "m": {"score": i}, "attrs": {f"a{k}": k for k in range(300)}}
        for i in range(20)
    ]
    (tmp_path / "t.json").write_text("\n".join(json.dumps(r) for r in rows))
    return tmp_path


def test_the_source_keeps_the_named_columns_in_any_case(spark, wide):
    df = spark.read.format("drill").option("columns", '["KIND", "M", "nope"]').load(str(wide))
    # names the files lack are no columns (a statement's other names: aliases, tables)
    assert df.columns == ["Kind", "m"]
    assert sorted(r["Kind"] for r in df.collect()) == ["a"] * 10 + ["b"] * 10
    every = spark.read.format("drill").load(str(wide))
    assert every.columns == ["id", "Kind", "m", "attrs"]


def test_a_columns_option_that_is_no_list_of_names_is_refused(spark, wide):
    with pytest.raises(Exception, match="option columns must be a JSON array of column names"):
        spark.read.format("drill").option("columns", "Kind").load(str(wide)).columns  # noqa: B018


def test_a_conflict_in_a_column_nobody_reads_does_not_fail(spark, tmp_path):
    # `c` is a number in one record and an object in the other
    (tmp_path / "c.json").write_text('{"a": 1, "c": 2}\n{"a": 2, "c": {"x": 1}}\n')
    read = spark.read.format("drill").option("typeConflict", "error")
    assert [r["a"] for r in read.option("columns", '["a"]').load(str(tmp_path)).collect()] == [1, 2]
    with pytest.raises(Exception, match="type conflict"):
        read.option("columns", '["a", "c"]').load(str(tmp_path)).collect()


def test_sql_names_the_columns_of_a_json_scan(spark, wide):
    engine = SqlEngine(spark, SqlSession(workspaces={"w": str(wide)}))
    sql = "SELECT t.kind, sum(t.m.score) AS s FROM dfs.w.`t.json` t WHERE t.id > 3 GROUP BY t.kind"
    (scan,) = _scans(engine.compile(sql))
    assert {"kind", "m", "id"} <= set(scan["selection"]["columns"])
    assert "attrs" not in scan["selection"]["columns"]
    result = engine.execute(sql)[-1]
    # from the data: ids 4..19, kind a for even ids
    assert sorted((r["kind"], r["s"]) for r in result.rows()) == [
        ("a", sum(range(4, 20, 2))),
        ("b", sum(range(5, 20, 2))),
    ]
    # EXPLAIN shows the plan that runs, the scan's columns in it
    text = engine.execute(f"EXPLAIN PLAN FOR {sql}")[-1].rows()[0]["json"]
    assert '"columns"' in text


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM dfs.w.`t.json`",
        "SELECT t.* FROM dfs.w.`t.json` t",
        "SELECT s.id FROM (SELECT * FROM dfs.w.`t.json`) s",
        "SELECT t FROM dfs.w.`t.json` t",
    ],
)
def test_no_columns_where_a_statement_reads_what_it_does_not_name(spark, wide, sql):
    engine = SqlEngine(spark, SqlSession(workspaces={"w": str(wide)}))
    for scan in _scans(engine.compile(sql)):
        assert "columns" not in scan["selection"]


def test_count_star_alone_still_names_columns(spark, wide):
    engine = SqlEngine(spark, SqlSession(workspaces={"w": str(wide)}))
    (scan,) = _scans(engine.compile("SELECT count(*) AS n FROM dfs.w.`t.json`"))
    assert "attrs" not in scan["selection"]["columns"]
    assert engine.execute("SELECT count(*) AS n FROM dfs.w.`t.json`")[-1].rows() == [{"n": 20}]


def test_answers_on_real_data_are_those_of_the_whole_table(data_engine):
    # the same question over the Yelp sample, once with the scan's columns named and once
    # through a `*` subquery (every column kept): the rows must be the same
    src = "dfs.root.`yelp/yelp_business_small.ndjson`"
    named = (
        f"SELECT b.state, count(*) AS n, max(b.stars) AS top, min(b.attributes.WiFi) AS wifi "
        f"FROM {src} b WHERE b.review_count > 10 GROUP BY b.state ORDER BY b.state"
    )
    whole = named.replace(f"FROM {src} b", f"FROM (SELECT * FROM {src}) b")
    (scan,) = _scans(data_engine.compile(named))
    assert "columns" in scan["selection"]
    (every,) = _scans(data_engine.compile(whole))
    assert "columns" not in every["selection"]
    got = data_engine.execute(named)[-1].rows()
    assert got and got == data_engine.execute(whole)[-1].rows()
