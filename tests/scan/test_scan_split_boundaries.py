"""Line-aligned splits own the records of the lines that start in them (no row read twice or
lost at a boundary), bad records are skipped one at a time, unreadable input names the file,
and error positions stay right after a record is re-read."""

from __future__ import annotations

import gzip
import json

import pytest


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def read_given(spark, path, schema, **opts):
    return spark.read.format("drill").schema(schema).options(**opts).load(str(path))


# Each layout passes the "first 64 KiB look like JSON lines" test (every line, trimmed, starts
# with '{' and ends with '}'), yet has records that start on a line after other bytes of it.
N = 40
LAYOUTS = {
    "indented": (lambda i: " " * 20 + f'{{"a":{i}}}', "\n", lambda i: [i]),
    "two_per_line": (lambda i: f'{{"a":{i}}}{{"a":{1000 + i}}}', "\n", lambda i: [i, 1000 + i]),
    "comment_between": (
        lambda i: f'{{"a":{i}}} /* {{"a":-1}} */ {{"a":{2000 + i}}}',
        "\n",
        lambda i: [i, 2000 + i],
    ),
    "line_comment_after": (
        lambda i: f'  {{"a":{i}}} {{"a":{3000 + i}}} // {{"a":-1}}',
        "\n",
        lambda i: [i, 3000 + i],
    ),
    "crlf_indented": (
        lambda i: f'\t {{"a":{i}}} {{"a":{4000 + i}}}',
        "\r\n",
        lambda i: [i, 4000 + i],
    ),
}


def write_layout(path, name):
    line, eol, values = LAYOUTS[name]
    path.write_bytes("".join(line(i) + eol for i in range(N)).encode())
    return [v for i in range(N) for v in values(i)]


# split sizes that cut the lines at varied places
SPLITS = {
    "indented": "23",
    "two_per_line": "41",
    "comment_between": "23",
    "line_comment_after": "64",
    "crlf_indented": "41",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_record_is_read_once_whatever_the_split_size(spark, tmp_path, layout):
    split = SPLITS[layout]
    p = tmp_path / f"{layout}.json"
    expected = write_layout(p, layout)
    df = read(spark, p, splitBytes=split)
    assert df.rdd.getNumPartitions() > 10  # really split
    # the count path (structural scan) and the parsing path, against the file read whole
    assert df.count() == len(expected)
    assert read(spark, p, splitBytes=split, countScan="false").count() == len(expected)
    got = df.selectExpr("count(a)", "sum(a)").first()
    assert tuple(got) == (len(expected), sum(expected))
    whole = read(spark, p, splitFiles="false").selectExpr("count(a)", "sum(a)").first()
    assert tuple(whole) == tuple(got)


@pytest.mark.parametrize("split", ["15", "16", "17", "48"])
def test_records_at_and_around_the_exact_split_end(spark, tmp_path, split):
    # 16-byte lines: with splitBytes 16 and 48 every split ends just after a newline, so the
    # record starting exactly at `end` is the next split's; 15 and 17 cut lines elsewhere
    p = tmp_path / "fixed.json"
    p.write_text("".join(f'{{"a":{i:>9}}}\n' for i in range(N)))
    assert len(p.read_bytes()) == 16 * N
    df = read(spark, p, splitBytes=split)
    assert df.count() == N
    assert sorted(r.a for r in df.select("a").collect()) == list(range(N))


def test_discovery_sees_members_of_records_late_on_boundary_lines(spark, tmp_path):
    # discovery runs split by split too: each line's second record brings its own column
    p = tmp_path / "members.json"
    p.write_text("".join(f'    {{"a":{i}}} {{"b{i}":{i}}}\n' for i in range(N)))
    cols = read(spark, p, splitBytes="23").columns
    assert cols == ["a"] + [f"b{i}" for i in range(N)]
    assert read(spark, p, splitFiles="false").columns == cols


def test_top_level_scalars_and_arrays_are_skipped_one_record_each(spark, tmp_path):
    p = tmp_path / "scalars.json"
    p.write_text(
        '{"a":1}\n5\n{"a":2}\n"s"\n{"a":3}\ntrue\n{"a":4}\n[1, [2, {"x": 3}]]\n'
        '{"a":5}\n{"a":6} 7 {"a":8}\nnull\n{"a":9}'
    )
    df = read(spark, p, skipInvalidRecords="true")
    assert sorted(r.a for r in df.select("a").collect()) == [1, 2, 3, 4, 5, 6, 8, 9]
    assert df.count() == 8
    with pytest.raises(
        Exception, match=r"scalars.json line 2, column \d+ \(byte \d+\): expected a JSON object"
    ):
        read(spark, p, schema="a BIGINT").collect()


def test_skipping_with_replaced_utf8_keeps_the_records_after_a_scalar(spark, tmp_path):
    p = tmp_path / "replace.json"
    p.write_bytes(b'{"a":1, "s": "bad \xff"}\n5\n{"a":2}\n"s"\n{"a":3}\n')
    got = (
        read(spark, p, skipInvalidRecords="true", invalidUtf8="replace").select("a", "s").collect()
    )
    assert [tuple(r) for r in got] == [(1, "bad \ufffd"), (2, None), (3, None)]


@pytest.mark.parametrize("split", [None, "5", "9", "13"])
def test_truncated_line_and_bad_token_at_a_line_end_cost_one_record_each(spark, tmp_path, split):
    # read whole and cut in splits: a record cut short at a split's last line is still skipped
    p = tmp_path / "cut.json"
    p.write_text('{"a":1}\n{"a":2, "b"\n{"a":3}\ntru\n{"a":4}\n{"a":5, }\n{"a":6}\n')
    opts = {"splitBytes": split} if split else {}
    df = read(spark, p, skipInvalidRecords="true", **opts)
    assert sorted(r.a for r in df.select("a").collect()) == [1, 3, 4, 6]


def test_a_skipped_record_running_into_the_next_split_fails_the_split_read(spark, tmp_path):
    # line 3 opens a block comment that never closes: read whole, the record and every line
    # after it are one bad record (JSON's rule: the comment runs to the end of the file); the
    # lines after it, read by later splits, would be rows the whole file does not have
    p = tmp_path / "open-comment.json"
    p.write_text(
        '{"a":1}\n{"a":2}\n{"a":3, /* "b":1}\n' + "".join(f'{{"a":{i}}}\n' for i in range(4, 9))
    )
    whole = read(spark, p, skipInvalidRecords="true", splitFiles="false").select("a").collect()
    assert sorted(r.a for r in whole) == [1, 2]
    message = error_of(read(spark, p, skipInvalidRecords="true", splitBytes="16").select("a"))
    assert "spans several lines and runs into the next split" in message, message
    assert "Set option splitFiles=false" in message


def test_skipping_inside_an_outer_array_resumes_in_the_array(spark, tmp_path):
    p = tmp_path / "arr.json"
    p.write_text('[{"a": 1},\n {"a": 2, "b": },\n {"a": 3},\n {"a": 4}\n]\n')
    df = read(spark, p, skipInvalidRecords="true")
    assert sorted(r.a for r in df.select("a").collect()) == [1, 3, 4]


def truncated_gzip(path, n=2000):
    data = gzip.compress(
        "".join(json.dumps({"a": i, "s": "x" * 20}) + "\n" for i in range(n)).encode()
    )
    path.write_bytes(data[: len(data) // 2])


CANNOT_READ = r"drill: \S*{}\.json\.gz \(byte \d+\): cannot read: {}"


def test_truncated_gzip_is_an_error_naming_the_file_in_discovery_and_reading(spark, tmp_path):
    p = tmp_path / "trunc.json.gz"
    truncated_gzip(p)
    msg = CANNOT_READ.format("trunc", "Unexpected end of ZLIB input stream")
    with pytest.raises(Exception, match=msg):
        read(spark, p).schema  # noqa: B018  (discovery)
    with pytest.raises(Exception, match=msg):
        read_given(spark, p, "a BIGINT, s STRING").collect()
    with pytest.raises(Exception, match=msg):
        read_given(spark, p, "a BIGINT").count()  # the count path


def test_file_that_is_not_gzip_is_an_error_naming_the_file(spark, tmp_path):
    p = tmp_path / "plain.json.gz"
    p.write_text('{"a": 1}\n')
    msg = CANNOT_READ.format("plain", "Not in GZIP format")
    with pytest.raises(Exception, match=msg):
        read(spark, p).schema  # noqa: B018
    with pytest.raises(Exception, match=msg):
        read_given(spark, p, "a BIGINT").count()


def error_of(df):
    with pytest.raises(Exception) as e:
        df.collect()
    line = next(s for s in str(e.value).splitlines() if "drill: " in s)
    return line[line.index("drill: ") :]


def position(text, line):
    """Where the parser stands after the '{' of the value {"x": 1} on `line` (1-based)."""
    lines = text.split("\n")
    col = lines[line - 1].index('{"x"') + 2
    byte = sum(len(x) + 1 for x in lines[: line - 1]) + col - 1
    return f"line {line}, column {col} (byte {byte})"


def test_error_after_a_re_read_record_names_the_file_line_and_column(spark, tmp_path):
    # line 2's record is rejected by the pushed filter at "a", revived by "A" (same column, last
    # wins) and re-read from its start; the value that does not fit comes later: its position
    # must count from the file's start, as without filter push-down (no re-read)
    p = tmp_path / "reread.json"
    p.write_text(
        '{"a": 9}\n   {"a": 1, "b": "x", "A": 5} {"a": 7}\n{"a": 8}\n'
        '{"a": 8}\n   {"a": 6} {"a": {"x": 1}}\n'
    )

    def query(**opts):
        return read(spark, p, sampleRecords="3", **opts).filter("a > 3").select("a", "b")

    pushed = error_of(query())
    assert f"reread.json {position(p.read_text(), 5)}: " in pushed
    assert "split" not in pushed
    assert pushed == error_of(query(pushFilters="false"))
    # the same record re-read on its line, the error on that line after it
    q = tmp_path / "sameline.json"
    q.write_text('{"a": 9}\n{"a": 8}\n{"a": 7}\n   {"a": 1, "A": 5}  {"a": {"x": 1}}\n')
    df = read(spark, q, sampleRecords="3").filter("a > 3").select("a")
    assert f"sameline.json {position(q.read_text(), 4)}: " in error_of(df)
