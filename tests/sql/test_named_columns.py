"""A JSON table keeps only the top-level columns a statement names (docs/scan.md, option
`keepColumns`; docs/performance.md): the `drill` source's `keepColumns` option, the SQL layer setting it
from every name a statement holds, and the cases where it must not (a `*`, a NATURAL join, a
table's name as a column). A wide discovered schema costs tens of milliseconds per statement to
send to Python and analyze; the answers must not change."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlSession


def _scans(compiled) -> list[dict]:
    return [op for op in compiled.plan.to_json()["query"] if op["op"] == "scan"]


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
    df = spark.read.format("drill").option("keepColumns", '["KIND", "M", "nope"]').load(str(wide))
    # names the files lack are no columns (a statement's other names: aliases, tables)
    assert df.columns == ["Kind", "m"]
    assert sorted(r["Kind"] for r in df.collect()) == ["a"] * 10 + ["b"] * 10
    every = spark.read.format("drill").load(str(wide))
    assert every.columns == ["id", "Kind", "m", "attrs"]


def test_a_columns_option_that_is_no_list_of_names_is_refused(spark, wide):
    with pytest.raises(Exception, match="option keepColumns must be a JSON array of column names"):
        spark.read.format("drill").option("keepColumns", "Kind").load(str(wide)).columns  # noqa: B018


def test_a_conflict_in_a_column_nobody_reads_does_not_fail(spark, tmp_path):
    # `c` is a number in one record and an object in the other
    (tmp_path / "c.json").write_text('{"a": 1, "c": 2}\n{"a": 2, "c": {"x": 1}}\n')
    read = spark.read.format("drill").option("typeConflict", "error")
    assert [r["a"] for r in read.option("keepColumns", '["a"]').load(str(tmp_path)).collect()] == [
        1,
        2,
    ]
    with pytest.raises(Exception, match="type conflict"):
        read.option("keepColumns", '["a", "c"]').load(str(tmp_path)).collect()


def test_sql_names_the_columns_of_a_json_scan(spark, wide):
    engine = SqlEngine(spark, SqlSession(workspaces={"w": str(wide)}))
    sql = "SELECT t.kind, sum(t.m.score) AS s FROM dfs.w.`t.json` t WHERE t.id > 3 GROUP BY t.kind"
    (scan,) = _scans(engine.compile(sql))
    assert {"kind", "m", "id"} <= set(scan["selection"]["keepColumns"])
    assert "attrs" not in scan["selection"]["keepColumns"]
    result = engine.execute(sql)[-1]
    # from the data: ids 4..19, kind a for even ids
    assert sorted((r["kind"], r["s"]) for r in result.rows()) == [
        ("a", sum(range(4, 20, 2))),
        ("b", sum(range(5, 20, 2))),
    ]
    # EXPLAIN shows the plan that runs, the scan's columns in it
    text = engine.execute(f"EXPLAIN PLAN FOR {sql}")[-1].rows()[0]["json"]
    assert '"keepColumns"' in text


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
        assert "keepColumns" not in scan["selection"]


def test_count_star_alone_still_names_columns(spark, wide):
    engine = SqlEngine(spark, SqlSession(workspaces={"w": str(wide)}))
    (scan,) = _scans(engine.compile("SELECT count(*) AS n FROM dfs.w.`t.json`"))
    assert "attrs" not in scan["selection"]["keepColumns"]
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
    assert "keepColumns" in scan["selection"]
    (every,) = _scans(data_engine.compile(whole))
    assert "keepColumns" not in every["selection"]
    got = data_engine.execute(named)[-1].rows()
    assert got and got == data_engine.execute(whole)[-1].rows()


def test_a_plans_keep_list_and_its_columns_list_on_a_json_scan(spark, wide):
    import drillspark

    def run(selection: dict) -> list[dict]:
        plan = {
            "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "t"}},
            "storage": {"w": {"type": "file", "root": str(wide)}},
            "query": [
                {"@id": 1, "op": "scan", "storageengine": "w", "selection": selection},
                {"@id": 2, "op": "filter", "input": 1, "expr": "id == 4"},
                {
                    "@id": 3,
                    "op": "project",
                    "input": 2,
                    "projections": [{"ref": "id", "expr": "id"}, {"ref": "k", "expr": "Kind"}],
                },
            ],
        }
        return drillspark.run(plan, spark=spark).rows()

    base = {"path": "/t.json", "type": "json"}
    # a keep list names the columns the plan reads (any case)
    assert run({**base, "keepColumns": ["ID", "kind"]}) == [{"id": 4, "k": "a"}]
    # a column it leaves out is missing to the plan: NULL, as in Drill
    assert run({**base, "keepColumns": ["id"]}) == [{"id": 4, "k": None}]
    # `columns` (a Parquet projection list) is not read for JSON: a plan written with
    # Drill's backquoted names keeps every column
    assert run({**base, "columns": ["`id`", "`Kind`"]}) == [{"id": 4, "k": "a"}]
