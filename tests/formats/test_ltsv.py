"""The `ltsv` format through both doors against Drill 1.22's answers on the same files
(tests/formats/data/drill_ltsv.json): every label a VARCHAR column in Drill's order, a line
without entries skipped (Drill's lenient and strict modes alike), and the delimiter options."""

from __future__ import annotations

import pytest
from tests.formats.conftest import jdbc_rows
from tests.formats.pinned import answer, assert_as_drill, cases, stage

DRILL = cases("ltsv")


@pytest.fixture
def data(tmp_path):
    return stage(tmp_path, "access.ltsv", "bad.ltsv")


@pytest.mark.parametrize("query", list(DRILL))
def test_as_drill(sql, data, query):
    assert_as_drill(sql, DRILL[query])


def test_spark_door_same_answer(spark, data):
    want = DRILL["SELECT * FROM dfs.data.`access.ltsv`"]
    df = spark.read.format("drill-ltsv").load(str(data / "access.ltsv"))
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]


def test_delimiters(sql, tmp_path):
    (tmp_path / "semi.ltsv").write_text("a=1;b=2\na=3;c=4\n", "utf-8")
    got = sql(
        "SELECT * FROM table(dfs.data.`semi.ltsv`(type => 'ltsv', kvDelimiter => '=', "
        "entryDelimiter => ';'))"
    )
    assert got.columns == ["a", "b", "c"]
    assert jdbc_rows(got.collect()) == [["1", "2", None], ["3", None, "4"]]


def test_unknown_option_refused(sql, data):
    with pytest.raises(Exception, match="unknown option 'nosuch'.*parseMode"):
        sql("SELECT * FROM table(dfs.data.`access.ltsv`(type => 'ltsv', nosuch => 'x'))")


def test_plain_spark_dfs_catalog_same_answer(spark, data):
    want = DRILL["SELECT * FROM dfs.data.`access.ltsv`"]
    df = spark.sql(f"SELECT * FROM dfs.`{data / 'access.ltsv'}`")
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]


# Edge cases asked of Drill 1.22 on tests/formats/data/edge.ltsv (drill_ltsv_more.json): a
# value holding ':', an empty value (NULL), a CRLF line, a repeated label (the last value), an
# entry without ':' joining the next label ('novalue\ta'), a trailing tab, a label with a
# space, a non-ASCII label, a line of a tab alone and an empty line (no row)
MORE = cases("ltsv_more")


@pytest.fixture
def edge(tmp_path):
    (tmp_path / "semi.ltsv").write_text("a=1;b=2\na=3;c=4\n", "utf-8")
    return stage(tmp_path, "edge.ltsv", "access.ltsv")


MISSING = "SELECT a, nosuch FROM dfs.data.`edge.ltsv` WHERE b IS NULL"


@pytest.mark.parametrize("query", [q for q in MORE if "'strict'" not in q and q != MISSING])
def test_edge_cases_as_drill(sql, edge, query):
    assert_as_drill(sql, MORE[query])


def test_a_column_no_line_has(sql, edge):
    """Drill's ltsv reader types a column no line has VARCHAR; drillspark gives it the type
    of every non-text reader's missing column: an untyped NULL (docs/formats.md, "Differences")."""
    want = MORE[MISSING]
    columns, types, rows = answer(sql, want)
    assert columns == want["columns"] and rows == want["rows"]
    assert want["types"][1] == "CHARACTER VARYING" and types[1] == "NullType"


def test_edge_cases_spark_door_same_answer(spark, edge):
    want = MORE["SELECT * FROM dfs.data.`edge.ltsv`"]
    df = spark.read.format("drill-ltsv").load(str(edge / "edge.ltsv"))
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]


def test_strict_mode_fails_on_an_entry_without_a_value(sql, edge):
    """Drill: `Key without a value at line [5] position [8]` (its line count starts at 0);
    drillspark names the file and the line from 1, and the column of the tab."""
    query = "SELECT * FROM table(dfs.data.`edge.ltsv`(type => 'ltsv', parseMode => 'strict'))"
    assert "Key without a value at line [5] position [8]" in MORE[query]["error"]
    with pytest.raises(Exception) as caught:
        sql(query).collect()
    message = str(caught.value)
    assert "edge.ltsv (line 6)" in message and "Key without a value" in message
    assert "column 8" in message and "\tat " not in message


def test_labels_and_values_trimmed(sql, tmp_path):
    (tmp_path / "sp.ltsv").write_bytes(
        b" k :  v1 \tn:x  \n k : v2\tn:  y\nk:   \tn:z\n  :w\tn:q\n\x01k\x01:\x01v\x01\tn:r\n"
    )
    got = sql("SELECT * FROM dfs.data.`sp.ltsv`")
    # Drill 1.22 (2026-12-07): columns k, n, "" and rows ["v1","x",null], ["v2","y",null],
    # ["","z",null], [null,"q","w"], ["v","r",null]: trimmed after the empty tests (a blank
    # value is '', a blank label the column ''), control characters trimmed too
    assert got.columns == ["k", "n", ""]
    assert [list(r) for r in got.collect()] == [
        ["v1", "x", None],
        ["v2", "y", None],
        ["", "z", None],
        [None, "q", "w"],
        ["v", "r", None],
    ]
    # Drill 1.22 (2026-12-07): [["x", 1], ["y", 1]] for the first two lines grouped by n
    grouped = sql(
        "SELECT n, count(*) c FROM dfs.data.`sp.ltsv` WHERE k LIKE 'v_' GROUP BY n ORDER BY n"
    )
    assert [tuple(r) for r in grouped.collect()] == [("x", 1), ("y", 1)]
