"""Splitting and recognising Drill statements (no Spark needed)."""

from __future__ import annotations

import pytest

from drillspark.sql import statements as st
from drillspark.sql.errors import SqlSyntaxError


def test_split_ignores_semicolons_in_quotes_and_comments():
    text = "select ';' from t; -- a ; comment\nselect `a;b` from u /* ; */;\n  select 3"
    parts = [s for _, s in st.split(text)]
    assert parts == ["select ';' from t", "-- a ; comment\nselect `a;b` from u /* ; */", "select 3"]


def test_split_offsets_point_at_statement_start():
    text = "select 1;\n  select 2;"
    assert [off for off, _ in st.split(text)] == [0, 12]


@pytest.mark.parametrize(
    "text,complete",
    [
        ("select 1", False),
        ("select 1;", True),
        ("select ';'", False),
        ("select 1; -- x", True),
        ("select `a;", False),
        ("!quit", True),
        ("", True),
        ("select 1 /* ; */", False),
    ],
)
def test_is_complete(text, complete):
    assert st.is_complete(text) is complete


def test_classify_non_queries():
    assert st.classify("USE dfs.tmp") == st.Use("USE dfs.tmp", schema=("dfs", "tmp"))
    s = st.classify("ALTER SESSION SET `store.json.all_text_mode` = true")
    assert (s.name, s.value, s.scope) == ("store.json.all_text_mode", True, "session")
    s = st.classify("alter system set `planner.slice_target` = 10")
    assert (s.name, s.value, s.scope) == ("planner.slice_target", 10, "system")
    assert st.classify("ALTER SESSION RESET ALL").name == ""
    assert st.classify("alter session reset `store.format`").value is None
    assert st.classify("show files in dfs.`my ws`").schema == ("dfs", "my ws")
    assert st.classify("SHOW FILES").schema is None
    assert st.classify("show schemas like 'dfs%'").like == "dfs%"
    assert st.classify("describe dfs.`a.json`").table == ("dfs", "a.json")
    e = st.classify("EXPLAIN PLAN FOR\nselect 1")
    assert isinstance(e, st.Explain) and e.query == "select 1"
    assert isinstance(st.classify("select * from t"), st.Query)
    ctas = st.classify("create table dfs.tmp.x (a) as select 1")
    assert isinstance(ctas, st.CreateTable) and ctas.columns == ("a",)
    assert ctas.query == "select 1" and ctas.query_offset == 30
    view = st.classify("CREATE OR REPLACE VIEW v AS select 1")
    assert isinstance(view, st.CreateView) and view.replace and view.name == ("v",)
    drop = st.classify("drop view if exists dfs.tmp.`x y`")
    assert (drop.kind, drop.name, drop.if_exists) == ("VIEW", ("dfs", "tmp", "x y"), True)


def test_bad_option_value_names_the_position():
    with pytest.raises(SqlSyntaxError) as e:
        st.classify("ALTER SESSION SET `a.b` = maybe")
    assert (e.value.line, e.value.column) == (1, 27)


def test_unknown_show_is_a_syntax_error():
    with pytest.raises(SqlSyntaxError, match="SHOW"):
        st.classify("SHOW FUNCTIONS LIKE x")
