"""The `syslog` format (RFC 5424) through both doors against Drill 1.22's answers on the same
files (tests/formats/data/drill_syslog.json): Drill's columns and types, structured data as a
map or flattened, and a line that is no syslog message failing with the file and line."""

from __future__ import annotations

import pytest
from tests.formats.conftest import jdbc_rows
from tests.formats.pinned import assert_as_drill, cases, file_of, stage

DRILL = cases("syslog")
ANSWERED = [q for q in DRILL if "rows" in DRILL[q]]


@pytest.fixture
def data(tmp_path):
    return stage(tmp_path, "messages.syslog", "bad.syslog", "nofraction.syslog", "codes.syslog")


@pytest.mark.parametrize("query", ANSWERED)
def test_as_drill(sql, data, query):
    assert_as_drill(sql, DRILL[query])


def test_spark_door_same_answer(spark, data):
    for query, options in [
        ("SELECT * FROM dfs.data.`messages.syslog`", {}),
        (
            "SELECT * FROM table(dfs.data.`messages.syslog`(type => 'syslog', "
            "flattenStructuredData => true))",
            {"flattenStructuredData": "true"},
        ),
    ]:
        want = DRILL[query]
        df = (
            spark.read.format("drill-syslog").options(**options).load(str(data / "messages.syslog"))
        )
        assert df.columns == want["columns"]
        assert jdbc_rows(df.collect()) == want["rows"]


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM dfs.data.`bad.syslog`",
        "SELECT * FROM table(dfs.data.`bad.syslog`(type => 'syslog', maxErrors => 0))",
    ],
)
def test_bad_line_fails_naming_file_and_line(sql, data, query):
    assert "Missing < to start PRI" in DRILL[query]["error"]
    with pytest.raises(Exception) as caught:
        sql(query).collect()
    message = str(caught.value)
    assert file_of(query) in message and "line 2" in message
    assert "Missing < to start PRI: garbage line" in message and "\tat " not in message


def test_timestamp_without_fraction(sql, data):
    # Drill 1.22 refuses RFC 5424's `...:03Z` (no fraction of a second) with "Invalid format:
    # ... is malformed at "Z"" (pinned); RFC 5424 allows it: drillspark reads it
    # (docs/formats.md, "Differences")
    assert "malformed" in DRILL["SELECT * FROM dfs.data.`nofraction.syslog`"]["error"]
    rows = jdbc_rows(sql("SELECT event_date, message FROM dfs.data.`nofraction.syslog`").collect())
    assert rows == [["2024-10-12 01:02:03", "no fraction"]]


def test_plain_spark_dfs_catalog_same_answer(spark, data):
    want = DRILL["SELECT * FROM dfs.data.`messages.syslog`"]
    df = spark.sql(f"SELECT * FROM dfs.`{data / 'messages.syslog'}`")
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]
