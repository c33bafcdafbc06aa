"""The count path (structural record scan), filters checked while a record is parsed, split
safety for files that are not JSON lines after all, and the skippedInvalidRecords metric."""

from __future__ import annotations

import json

import pytest

REAL = [
    "github/github_api_events.ndjson",
    "github/octokit_webhook_examples.ndjson",
    "twitter/mongo_tweets.ndjson",
    "twitter/simdjson_twitter_statuses.ndjson",
    "yelp/yelp_business_small.ndjson",
    "citibike",
]


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def read_given(spark, path, schema, **opts):
    """A user schema is used as is: no discovery pass, so errors come from the read itself."""
    return spark.read.format("drill").schema(schema).options(**opts).load(str(path))


def lines_in(path) -> int:
    files = sorted(path.glob("*")) if path.is_dir() else [path]
    return sum(1 for f in files for line in f.read_text().splitlines() if line.strip())


@pytest.mark.parametrize("rel", REAL)
def test_count_scan_equals_full_parse_on_real_data(spark, shared, rel):
    path = shared / "data" / rel
    fast = read(spark, path).count()
    full = read(spark, path, countScan="false").count()
    assert fast == full == lines_in(path)
    # split into many line-aligned ranges, counted per range
    assert read(spark, path, splitBytes="65536").count() == full


TRICKY = [
    '{"s": "a } b { c ] [", "e": "quote \\" and \\\\", "n": {"x": [1, {"y": "}"}]}}',
    '{"a": 1}{"a": 2} {"a": 3}',  # concatenated objects on one line
    '// a comment with { and "',
    '/* block { comment\n over lines } */ {"a": 4, "u": "\\u007b"}',
    '{b: 5, "m": {}, "l": []}',  # unquoted name
    '{"f": NaN, "g": -Infinity}',
    '  {"multi":',
    '   {"line": "record"}}',
]


def test_count_scan_respects_strings_escapes_comments_and_layouts(spark, tmp_path):
    p = tmp_path / "tricky.json"
    p.write_text("\ufeff" + "\n".join(TRICKY) + "\n")
    assert read(spark, p).count() == read(spark, p, countScan="false").count() == 8
    arr = tmp_path / "arr.json"
    arr.write_text('[ {"a": [1, 2]}, {"a": "]"},\n {"b": {"c": "}"}} ]\n{"after": 1}\n')
    assert read(spark, arr).count() == read(spark, arr, countScan="false").count() == 4
    empty = tmp_path / "d"
    empty.mkdir()
    (empty / "e.json").write_text("")
    (empty / "f.json").write_text('{"a": 1}\n')
    assert read(spark, empty).count() == 1
    # implicit file columns on the count path: one value per record
    got = read(spark, empty).select("filename").collect()
    assert [r.filename for r in got] == ["f.json"]
    by_file = read(spark, tmp_path, countScan="true").groupBy("filename").count().collect()
    assert {r.filename: r["count"] for r in by_file} == {
        "tricky.json": 8,
        "arr.json": 4,
        "f.json": 1,
    }


@pytest.mark.parametrize(
    ("text", "what", "line"),
    [
        ('{"a": 1}\n{"a": {"b": 2}\n', "end of input inside a record", "line 3"),
        ('{"a": 1}\n}\n', "unexpected close marker '}'", "line 2"),
        ('{"a": [1, 2}\n', "unexpected close marker '}' (expected ']')", "line 1"),
        ('{"a": 1}\n42\n', "expected a JSON object at the top level, found '4'", "line 2"),
        ('{"a": 1}\n"s"\n', "found a string", "line 2"),
        ('{"a": 1},\n{"a": 2}\n', "unexpected ','", "line 1"),
        ('{"a": "open string}\n', "end of input inside a string", "line 2"),
    ],
)
def test_count_scan_reports_broken_structure_with_the_place(spark, tmp_path, text, what, line):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(Exception, match="bad.json") as e:
        read_given(spark, p, "a BIGINT").count()
    msg = str(e.value)
    assert what in msg and f"bad.json {line}" in msg, msg
    with pytest.raises(Exception, match="bad.json"):  # the full parser rejects it as well
        read_given(spark, p, "a BIGINT", countScan="false").count()


def test_count_scan_depth_limit(spark, tmp_path):
    p = tmp_path / "deep.json"
    p.write_text('{"a": ' + "[" * 50 + "]" * 50 + "}\n")
    with pytest.raises(Exception, match="maxDepth"):
        read_given(spark, p, "a STRING", maxDepth="20").count()
    assert read_given(spark, p, "a STRING", maxDepth="60").count() == 1


def pretty_later(path, n_lines=3000):
    """JSON lines for the first 64 KiB and more, then records pretty-printed over many lines."""
    with open(path, "w") as f:
        for i in range(n_lines):
            f.write(json.dumps({"id": i, "pad": "x" * 40}) + "\n")
        for i in range(n_lines, n_lines + 400):
            f.write(json.dumps({"id": i, "nest": {"v": i, "w": [i, {"k": "}"}]}}, indent=2) + "\n")
    return n_lines + 400


@pytest.mark.parametrize("count_scan", ["true", "false"])
def test_split_crossing_a_multi_line_record_is_an_error_naming_file_and_byte(
    spark, tmp_path, count_scan
):
    p = tmp_path / "late_pretty.json"
    n = pretty_later(p)
    assert p.stat().st_size > 200_000
    schema = "id BIGINT, pad STRING, nest STRUCT<v: BIGINT, w: STRING>"
    # whichever split fails first: the one whose record crosses its end, or the next one,
    # which starts inside that record; both name the file, a byte, and the way out
    with pytest.raises(Exception, match=r"late_pretty.json.*byte \d+.*splitFiles=false"):
        df = read_given(spark, p, schema, splitBytes="65536", countScan=count_scan)
        df.count() if count_scan == "true" else df.select("id").collect()
    whole = read_given(spark, p, schema, splitFiles="false", countScan=count_scan)
    assert whole.count() == n
    assert sorted(r.id for r in whole.select("id").collect()) == list(range(n))


def same_rows(a, b):
    key = lambda r: json.dumps(r.asDict(recursive=True), sort_keys=True, default=str)  # noqa: E731
    return sorted(map(key, a)) == sorted(map(key, b))


FILTERS = [
    (
        "github/github_api_events.ndjson",
        "type = 'PushEvent' AND actor.id > 100000",
        ["id", "actor.login"],
    ),
    ("github/github_api_events.ndjson", "public = true AND repo.name >= 'm'", ["*"]),
    (
        "twitter/simdjson_twitter_statuses.ndjson",
        "user.followers_count > 500 OR retweet_count IS NULL",
        ["id", "user.screen_name", "text"],
    ),
    (
        "yelp/yelp_business_small.ndjson",
        "stars >= 4.5 AND review_count > 20 AND city IN ('Phoenix', 'Tempe')",
        ["business_id", "name", "attributes"],
    ),
    ("yelp/yelp_business_small.ndjson", "NOT (open = true) AND state = 'AZ'", ["*"]),
]


@pytest.mark.parametrize(("rel", "pred", "cols"), FILTERS)
def test_filters_checked_while_parsing_give_the_same_rows(spark, shared, rel, pred, cols):
    path = shared / "data" / rel
    pushed = read(spark, path).filter(pred).select(*cols).collect()
    plain = read(spark, path, pushFilters="false").filter(pred).select(*cols).collect()
    assert same_rows(pushed, plain)
    assert 0 < len(pushed) < read(spark, path).count()


def test_early_rejected_record_revived_by_a_later_duplicate_key(spark, tmp_path):
    # a is decided false at its first spelling; the later "A" (same column, last wins) makes
    # the record pass, so it is read again in full, members skipped in between included
    p = tmp_path / "dup.json"
    p.write_text(
        '{"a": 1, "b": "kept", "m": {"x": [1, 2]}, "A": 9}\n'
        '{"a": 9, "b": "also", "m": {"x": [3]}, "A": 2}\n'
        '{"a": 1, "b": "gone", "m": {"x": []}}\n'
        '{"b": "first", "a": 7, "m": {"x": [4]}}\n'
    )
    df = read(spark, p).filter("a > 5").select("a", "b", "m.x")
    got = sorted(tuple(r) for r in df.collect())
    assert got == [(7, "first", [4]), (9, "kept", [1, 2])]
    assert (
        sorted(
            tuple(r)
            for r in read(spark, p, pushFilters="false")
            .filter("a > 5")
            .select("a", "b", "m.x")
            .collect()
        )
        == got
    )
