"""The `ltsv` format through both doors against Drill 1.22's answers on the same files
(tests/formats/data/drill_ltsv.json): every label a VARCHAR column in Drill's order, a line
without entries skipped (Drill's lenient and strict modes alike), and the delimiter options."""

from __future__ import annotations

import pytest
from tests.formats.conftest import jdbc_rows
from tests.formats.pinned import assert_as_drill, cases, stage

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
