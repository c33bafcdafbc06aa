"""Hostile JSON for the `drill` source (issue #15): nesting at any depth, invalid UTF-8, wide
objects and huge values either read correctly or fail with one error naming the file and line,
and the session answers the next query (docs/reliability.md, "JSON input")."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import Row

import drillspark
from drillspark.errors import Error

# Drill 1.22 (oracle): 300 and 1,000 levels answer count(*) and `SELECT b`; 1,001 and 20,000
# fail with "Document nesting depth (1001) exceeds the maximum allowed (1000 ...)", file name
# and line 1; `SELECT *` at 300 levels takes the Drillbit down.


def read(spark, path, **opts):
    r = spark.read.format("drill")
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load(str(path))


def deep_objects(levels: int) -> str:
    """One record nesting `levels` objects (the record is level 1), innermost {"a": 1}."""
    return '{"a":' * (levels - 1) + '{"a":1}' + "}" * (levels - 1)


def levels_of(value) -> int:
    """Levels below a record's member `a`, following Rows, then the JSON text past the limit."""
    n = 1
    while isinstance(value, Row):
        value, n = value["a"], n + 1
    if isinstance(value, str):
        value = json.loads(value)
        while isinstance(value, dict):
            value, n = value["a"], n + 1
    assert value == 1
    return n


def session_alive(spark):
    assert spark.range(3).count() == 3


@pytest.fixture(scope="module")
def deep_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("deep")
    for levels in (50, 300, 1000, 1001, 20_000):
        (d / f"deep_{levels}.json").write_text(deep_objects(levels) + '\n{"b": 2}\n')
    return d


@pytest.mark.parametrize("levels", [50, 300, 1000])
def test_nesting_up_to_max_depth_reads_every_level(spark, deep_dir, levels):
    # was: 300 levels shut the SparkContext down (StackOverflowError in a task thread)
    df = read(spark, deep_dir / f"deep_{levels}.json")
    assert df.count() == 2
    assert [r.b for r in df.select("b").collect()] == [None, 2]
    rows = df.collect()
    assert levels_of(rows[0]["a"]) == levels and rows[1]["b"] == 2
    session_alive(spark)


def test_maps_past_max_schema_depth_are_json_text(spark, tmp_path):
    p = tmp_path / "d.json"
    p.write_text('{"a": {"b": {"c": [1, {"d": 2}]}}, "k": 1}\n{"a": {"b": 7}, "k": 2}\n')
    df = read(spark, p, maxSchemaDepth="2")
    b = df.schema["a"].dataType["b"]
    assert b.dataType.simpleString() == "string"
    assert (
        "maxSchemaDepth" in b.metadata["drill.tooDeep"]
        and "d.json line 1" in b.metadata["drill.tooDeep"]
    )
    # a scalar at the same path is its text, like a type conflict read as JSON text
    assert [r.a.b for r in df.orderBy("k").collect()] == ['{"c":[1,{"d":2}]}', "7"]
    with pytest.raises(Exception, match="maxSchemaDepth must be between 1 and 200"):
        read(spark, p, maxSchemaDepth="201").schema  # noqa: B018


def test_deep_arrays_read_as_json_text_past_the_limit(spark, tmp_path):
    p = tmp_path / "arrays.json"
    p.write_text('{"a": ' + "[" * 400 + "1" + "]" * 400 + ', "k": 1}\n')
    value, typed = read(spark, p).collect()[0].a, 0
    while isinstance(value, list):
        value, typed = value[0], typed + 1
    inner, text = json.loads(value), 0
    while isinstance(inner, list):
        inner, text = inner[0], text + 1
    # levels 2..100 typed (the record is level 1; maxSchemaDepth defaults to 100), the rest text
    assert (typed, text, inner) == (99, 301, 1)


@pytest.mark.parametrize("levels", [1001, 20_000])
def test_nesting_past_max_depth_is_one_located_error(spark, deep_dir, levels):
    # was: 20,000 levels gave a StackOverflowError from schema discovery
    p = deep_dir / f"deep_{levels}.json"
    for query in (lambda: read(spark, p).count(), lambda: read(spark, p).collect()):
        with pytest.raises(Exception) as e:
            query()
        msg = str(e.value)
        assert f"{p.name} line 1, column 5002" in msg and "option maxDepth" in msg
        assert "StackOverflow" not in msg and "nesting depth (1001)" in msg
        session_alive(spark)
    # maxDepth raised: read, the levels past maxSchemaDepth as JSON text
    if levels == 1001:
        assert levels_of(read(spark, p, maxDepth="1001").collect()[0]["a"]) == levels


def test_deep_nesting_through_drill_sql(spark, deep_dir):
    with pytest.raises(Error) as e:
        drillspark.sql(f"SELECT * FROM dfs.`{deep_dir / 'deep_20000.json'}`").rows()
    assert "deep_20000.json line 1" in str(e.value) and "maxDepth" in str(e.value)
    assert "\tat " not in str(e.value)
    rows = drillspark.sql(f"SELECT count(*) AS c FROM dfs.`{deep_dir / 'deep_300.json'}`").rows()
    assert rows == [{"c": 2}]


# Invalid UTF-8: Drill 1.22 reads C0 AF as "/" and ED A0 80 (a surrogate) as "?", and fails on a
# lone continuation byte and on a sequence cut short at the end of the file. drillspark fails
# on all of them, naming the file, line and bytes; invalidUtf8=replace reads U+FFFD instead.
UTF8_CASES = {
    "overlong": (b'{"s": "a\xc0\xafb"}\n', "line 1", "overlong encoding: bytes c0"),
    "overlong_3": (b'{"s": "a\xe0\x80\xafb"}\n', "line 1", "overlong encoding: bytes e0 80"),
    "continuation": (b'{"s": "a\x80b"}\n', "line 1", "continuation byte without a lead byte"),
    "surrogate": (b'{"s": "ok"}\n{"s": "a\xed\xa0\x80b"}\n', "line 2", "UTF-16 surrogate"),
    "above_10ffff": (b'{"s": "a\xf4\x90\x80\x80b"}\n', "line 1", "above U+10FFFF"),
    "cut_at_end": (b'{"s": "ok"}\n{"s": "a\xe2\x82', "line 2", "cut short by the end of the input"),
    "in_a_name": (b'{"k\xc0\xaf": 1}\n', "line 1", "overlong encoding"),
}


@pytest.mark.parametrize("case", sorted(UTF8_CASES))
def test_invalid_utf8_is_a_located_error_never_another_character(spark, tmp_path, case):
    data, line, why = UTF8_CASES[case]
    p = tmp_path / f"{case}.json"
    p.write_bytes(data)
    with pytest.raises(Exception) as e:
        read(spark, p).collect()
    msg = str(e.value)
    assert f"{case}.json {line}" in msg and "invalid UTF-8" in msg and why in msg, msg
    assert "invalidUtf8=replace" in msg
    session_alive(spark)


def test_invalid_utf8_replaced_when_asked(spark, tmp_path):
    p = tmp_path / "u.json"
    p.write_bytes(
        b'{"s": "a\xc0\xafb"}\n{"s": "c\xed\xa0\x80d"}\n{"s": "\xc3\xa9\xf0\x9f\x98\x80"}\n'
    )
    got = [r.s for r in read(spark, p, invalidUtf8="replace").collect()]
    assert got[0] == "a\ufffd\ufffdb" and "/" not in got[0]
    assert got[1].startswith("c\ufffd") and got[1].endswith("d") and "?" not in got[1]
    assert got[2] == "é😀"


# UTF-16 and UTF-32 files (found by fuzzing the JVM reader: with skipInvalidRecords the Jackson
# path reopened the file "at byte -1" forever, and count(*) refused files the read path took).
# Drill 1.22 reads them as Jackson guesses from the first bytes (JSON's own rule), asked:
#   SELECT * FROM dfs.`u16.json`  (UTF-16LE, no byte order mark) -> a BIGINT: 1, 2
#   SELECT count(*) FROM dfs.`u16.json` -> 2;  SELECT * FROM dfs.`u16bom.json` (UTF-16) -> 1, 2
TEXT = '{"a": 1, "s": "\u00e9\U0001f600"}\n{"a": 2, "s": "x"}\n'


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-16", "utf-32-le", "utf-32"])
def test_utf16_and_utf32_files_read_as_drill_reads_them(spark, tmp_path, encoding):
    f = tmp_path / "t.json"
    f.write_bytes(TEXT.encode(encoding))
    df = read(spark, f)
    assert [tuple(r) for r in df.collect()] == [(1, "\u00e9\U0001f600"), (2, "x")]
    assert read(spark, f, countScan="false").count() == 2 == read(spark, f).count()
    assert df.filter("a = 2").select("s").collect() == [Row(s="x")]


def test_a_bad_record_in_a_utf16_file_is_skipped_or_named(spark, tmp_path):
    f = tmp_path / "t.json"
    f.write_bytes('{"a": 1}\n{"a": }\n{"a": 3}\n'.encode("utf-16-le"))
    assert [r.a for r in read(spark, f, skipInvalidRecords="true").collect()] == [1, 3]
    with pytest.raises(Exception) as e:
        read(spark, f).collect()
    assert f"{f} line 2, column 8" in str(e.value)  # the `}` where a value belongs


def test_a_file_taken_for_utf16_that_is_not_fails_once(spark, tmp_path):
    # a zero second byte makes Jackson (and Drill) take the file for UTF-16; an odd length
    # cannot be UTF-16: one error naming the file, never a loop (it hung with skipInvalidRecords)
    f = tmp_path / "t.json"
    f.write_bytes(b"\n\x00e")
    for skip in ("false", "true"):
        with pytest.raises(Exception) as e:
            read(spark, f, skipInvalidRecords=skip).collect()
        message = str(e.value)
        assert f"drill: file:{f} (byte 0): cannot read: the file is UTF-16 or UTF-32" in message
