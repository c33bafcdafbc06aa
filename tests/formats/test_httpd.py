"""The `httpd` format through both doors against Drill 1.22's answers on the same log
(tests/formats/data/drill_httpd.json): the 118 columns Drill's parser gives for Apache's
combined format (names, types, values, order), `logFormat` as names or format strings,
`flattenWildcards`, and a line no format fits failing with the file and line."""

from __future__ import annotations

import pytest
from tests.formats.conftest import jdbc_rows
from tests.formats.pinned import assert_as_drill, cases, stage

DRILL = cases("httpd")
STAR = "SELECT * FROM dfs.data.`access.httpd`"
# Drill reads every time as 1970-01-01 00:00:00 when timestampFormat does not fit the %t text
# (pinned); drillspark fails naming the line instead (docs/formats.md, "Differences")
DIFFERENT = {q for q in DRILL if "timestampFormat" in q}
SAME = [q for q in DRILL if "rows" in DRILL[q] and q not in DIFFERENT]


@pytest.fixture
def data(tmp_path):
    return stage(tmp_path, "access.httpd")


@pytest.mark.parametrize("query", SAME)
def test_as_drill(sql, data, query):
    assert_as_drill(sql, DRILL[query])


def test_spark_door_same_answer(spark, data):
    want = DRILL[STAR]
    df = spark.read.format("drill-httpd").load(str(data / "access.httpd"))
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]


def test_line_no_format_fits(sql, data):
    query = next(q for q in DRILL if "%>s %b', flattenWildcards" in q)
    assert "does not match the specified log format" in DRILL[query]["error"]
    with pytest.raises(Exception) as caught:
        sql(query).collect()
    message = str(caught.value)
    assert "access.httpd" in message and "line 1" in message
    assert "fits no logFormat" in message and "\tat " not in message


def test_max_errors_gives_lines_no_format_fits_as_null_rows(sql, tmp_path):
    stage(tmp_path, "access.httpd")
    with (tmp_path / "access.httpd").open("a", encoding="utf-8") as f:
        f.write("not a log line\n")
    got = sql(
        "SELECT connection_client_host FROM table(dfs.data.`access.httpd`(type => 'httpd', "
        "maxErrors => 1))"
    )
    # as Drill (drill_httpd_more.json, maxErrors 5): a line within maxErrors is a row of nulls
    assert jdbc_rows(got.collect()) == [["192.168.1.10"], ["10.0.0.5"], ["10.0.0.6"], [None]]


def test_timestamp_format_that_does_not_fit_names_the_line(sql, data):
    query = next(iter(DIFFERENT))
    assert DRILL[query]["rows"][0] == ["1970-01-01 00:00:00"]
    with pytest.raises(Exception, match="line 1.*timestampFormat"):
        sql(query).collect()


def test_unknown_token_refused(sql, data):
    # Drill reads '%Z' as no field and then fails on the line ("does not match the specified
    # log format"); drillspark refuses the token itself, naming it
    with pytest.raises(Exception, match="token '%Z'"):
        sql("SELECT * FROM table(dfs.data.`access.httpd`(type => 'httpd', logFormat => '%h %Z'))")


def test_plain_spark_dfs_catalog_same_answer(spark, data):
    want = DRILL[STAR]
    df = spark.sql(f"SELECT * FROM dfs.`{data / 'access.httpd'}`")
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]
