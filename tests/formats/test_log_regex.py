"""The `logRegex` format through both doors against Drill 1.22's answers on the same files
(tests/formats/data/drill_log.json): a configured format (the `applog`, `typedlog`, `badlog`
configs of data/drill_plugins.json, given as session(storage={"dfs": {"formats": ...}})
gives them) and table functions; typed fields, the special columns, maxErrors as Drill counts
it, and bad input failing with the file and line."""

from __future__ import annotations

import json

import pytest
from tests.formats.conftest import DATA, jdbc_rows
from tests.formats.pinned import PLUGIN_FORMATS, assert_as_drill, cases, file_of, stage

DRILL = cases("log")
LOG_FILES = ("app.log", "typed.tlog", "typedok.tlog", "bad.blog", "bad2.log")
APPLOG = PLUGIN_FORMATS["applog"]

CONFIGURED = [q for q in DRILL if "table(" not in q and "rows" in DRILL[q]]
TABLE_FUNCTIONS = [q for q in DRILL if "table(" in q and "rows" in DRILL[q]]


@pytest.fixture
def data(tmp_path):
    return stage(tmp_path, *LOG_FILES)


@pytest.mark.parametrize("query", CONFIGURED)
def test_configured_format_as_drill(sql, data, query):
    assert_as_drill(sql, DRILL[query], PLUGIN_FORMATS)


@pytest.mark.parametrize("query", TABLE_FUNCTIONS)
def test_table_function_as_drill(sql, data, query):
    # Drill answered these with no logRegex config in dfs (a table function's options go over
    # the plugin's config of the same type when there is one)
    assert_as_drill(sql, DRILL[query])


def test_spark_door_same_answer(spark, sql, data):
    want = DRILL["SELECT * FROM dfs.data.`app.log`"]
    df = (
        spark.read.format("drill-logregex")
        .option("regex", APPLOG["regex"])
        .option("schema", json.dumps(APPLOG["schema"]))
        .load(str(data / "app.log"))
    )
    assert df.columns == want["columns"]
    assert jdbc_rows(df.collect()) == want["rows"]
    # the special columns when asked for: `_unmatched_rows` makes the missed line a row
    special = (
        spark.read.format("drill-logregex")
        .option("regex", APPLOG["regex"])
        .option("metadataColumns", "_raw,_unmatched_rows")
        .load(str(data / "app.log"))
        .select("_raw", "_unmatched_rows")
    )
    assert (
        jdbc_rows(special.collect())
        == DRILL["SELECT _raw, _unmatched_rows FROM dfs.data.`app.log`"]["rows"]
    )


def test_star_leaves_special_columns_out(sql, data):
    got = sql("SELECT * FROM dfs.data.`app.log`", PLUGIN_FORMATS)
    assert "_raw" not in got.columns and "_unmatched_rows" not in got.columns
    assert got.count() == 3  # the line the regex misses is no row


@pytest.mark.parametrize(
    ("query", "line", "words"),
    [
        ("SELECT * FROM dfs.data.`bad.blog`", 2, "Too many errors. Max error threshold exceeded"),
        (
            "SELECT * FROM table(dfs.data.`bad2.log`(type => 'logRegex', regex => "
            "'(\\\\d{4}-\\\\d\\\\d-\\\\d\\\\d) .*', maxErrors => 3))",
            3,
            "Too many errors. Max error threshold exceeded",
        ),
        (
            "SELECT * FROM dfs.data.`typed.tlog`",
            3,
            "Illegal conversion: Column `n` of type INT, Illegal value `x`",
        ),
    ],
)
def test_bad_lines_fail_naming_file_and_line(sql, data, query, line, words):
    drill = DRILL[query]
    assert "error" in drill and words.split(":")[0] in drill["error"]
    formats = None if "table(" in query else PLUGIN_FORMATS
    with pytest.raises(Exception) as caught:
        sql(query, formats).collect()
    message = str(caught.value)
    assert file_of(query) in message and f"line {line}" in message
    assert words in message
    assert "\tat " not in message  # one paragraph, no JVM trace


def test_regex_missing_or_invalid_is_a_config_error(sql, data):
    with pytest.raises(Exception, match="needs 'regex'"):
        sql("SELECT * FROM dfs.data.`app.log`", {"x": {"type": "logRegex", "extension": "log"}})
    with pytest.raises(Exception, match="not a valid Java regular expression"):
        sql("SELECT * FROM table(dfs.data.`app.log`(type => 'logRegex', regex => '(a'))").collect()


def test_unknown_field_type_names_drills_types(sql, data):
    bad = dict(APPLOG, schema=[{"fieldName": "ts", "fieldType": "DOUBLE"}])
    with pytest.raises(Exception, match="fieldType 'DOUBLE'.*FLOAT8"):
        sql("SELECT * FROM dfs.data.`app.log`", {"applog": bad})


def test_compressed_log(sql, tmp_path):
    import gzip

    (tmp_path / "app.log.gz").write_bytes(gzip.compress((DATA / "app.log").read_bytes()))
    got = sql(
        "SELECT * FROM table(dfs.data.`app.log.gz`(type => 'logRegex', regex => "
        "'(\\\\d{4}-\\\\d\\\\d-\\\\d\\\\d) \\\\S+ (\\\\w+) .*'))"
    )
    want = DRILL[next(q for q in TABLE_FUNCTIONS if "app.log" in q)]
    assert jdbc_rows(got.collect()) == want["rows"]
