"""Catalog answers (INFORMATION_SCHEMA, sys) over REST are fetched whole from a table kept in
the query's plan (no Spark job, no Python worker): each statement still sees the catalog as
it is then, and large catalog tables come back complete."""

from __future__ import annotations

VIEWS = "SELECT `TABLE_NAME` FROM INFORMATION_SCHEMA.views WHERE table_schema='dfs.tmp'"


def test_a_catalog_answer_follows_the_catalog(http):
    assert "bi_view" not in [r["TABLE_NAME"] for r in http.query(VIEWS)["rows"]]
    http.query("CREATE VIEW dfs.tmp.bi_view AS SELECT 1 AS x FROM (VALUES(1))")
    try:
        assert "bi_view" in [r["TABLE_NAME"] for r in http.query(VIEWS)["rows"]]
    finally:
        http.query("DROP VIEW IF EXISTS dfs.tmp.bi_view")
    assert "bi_view" not in [r["TABLE_NAME"] for r in http.query(VIEWS)["rows"]]


def test_a_whole_catalog_table(http):
    # sys.options: hundreds of rows, every one sent (no limit)
    every = http.query("SELECT name, val FROM sys.options")
    counted = http.query("SELECT count(*) AS n FROM sys.options")
    assert len(every["rows"]) == counted["rows"][0]["n"] > 100
    assert every["metadata"][0] == "VARCHAR"
    assert len({r["name"] for r in every["rows"]}) == len(every["rows"])
