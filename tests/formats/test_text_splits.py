"""A large text file is read by several Spark tasks, as Drill's text format is block-splittable:
the file is cut into byte ranges of Spark's split size (spark.sql.files.maxPartitionBytes) and
each range reads the records on the lines that start in it (the first line past the first
newline at or after its start, through the first newline at or after its end); with a header
(csvh), every range takes the column names from the file's first line. The answers are those
of the same file read whole, through both doors (drillspark.sql and Spark's `dfs` catalog)."""

from __future__ import annotations

import contextlib
import random

import pytest

ROWS = 40_000


@contextlib.contextmanager
def split_size(spark, size: str | None):
    """Spark's split size for the block; None: one split per file (no minimum partition count
    lowers it, and the cap is above any test file)."""
    keys = ("spark.sql.files.maxPartitionBytes", "spark.sql.files.minPartitionNum")
    before = {k: spark.conf.get(k, None) for k in keys}
    if size is None:
        spark.conf.set(keys[0], "1g")
        spark.conf.set(keys[1], "1")
    else:
        spark.conf.set(keys[0], size)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


def _big_csv(path, header: bool) -> None:
    """Lines of varying length (so range boundaries fall anywhere in a line), quoted fields
    with delimiters and doubled quotes, comment and empty lines, a trailing delimiter."""
    rnd = random.Random(33)
    lines = ["id,name,note"] if header else []
    for i in range(ROWS):
        pad = "x" * rnd.randrange(0, 120)
        if i % 7 == 0:
            lines.append(f'{i},"a, ""quoted"" {pad}",n{i}')
        elif i % 11 == 0:
            lines.append(f"{i},{pad},")
        elif i % 997 == 0:
            lines.append("# a comment line")
            lines.append(f"{i},{pad},c")
        else:
            lines.append(f"{i},{pad},plain")
    if not header:
        lines.insert(ROWS // 2, "")  # an empty line: a record with no fields
    path.write_text("\n".join(lines) + "\n")


def _summary(df, id_column: str) -> tuple:
    """Rows, a hash of every row summed (order-free), and the distinct ids, computed in Spark:
    the same multiset of rows gives the same triple, a lost or doubled row another."""
    from pyspark.sql import functions as F

    cols = [F.col(f"`{c}`") for c in df.columns]
    row = df.select(*cols, F.xxhash64(*cols).alias("h"), F.expr(id_column).alias("_id"))
    counted = row.agg(F.count("*"), F.sum(F.col("h").cast("decimal(38,0)"))).first()
    # apart: Spark 4.3 answered 0 for this count beside the decimal sum on the 40,000 rows
    distinct = row.agg(F.count_distinct("_id")).first()
    return (counted[0], counted[1], distinct[0])


@pytest.mark.load  # 20-70 s on the shared machine; the small file's cuts run in make test
@pytest.mark.parametrize("name", ["big.csv", "big.csvh"])
def test_a_large_file_is_split_and_reads_the_same_rows(spark, sql, tmp_path, name):
    path = tmp_path / name
    _big_csv(path, header=name.endswith("csvh"))
    assert path.stat().st_size > 2_000_000
    header = name.endswith("csvh")
    id_column = "id" if header else "get(columns, 0)"
    spark_query = f"SELECT * FROM dfs.`{path}`"
    ours_query = f"SELECT * FROM dfs.data.`{name}`"
    with split_size(spark, None):
        whole = spark.sql(spark_query)
        assert whole.rdd.getNumPartitions() == 1
        expected = _summary(whole, id_column)
        columns = whole.columns
    # every id once; without a header the empty line is one more record (no id)
    assert expected[0] == ROWS + (0 if header else 1) and expected[2] == ROWS
    with split_size(spark, "256k"):
        plain = spark.sql(spark_query)
        ours = sql(ours_query)
        assert plain.rdd.getNumPartitions() >= 12  # several tasks read the file
        assert ours.rdd.getNumPartitions() >= 12
        # every split names its columns from the file's first line
        assert plain.columns == ours.columns == columns
        assert columns == (["id", "name", "note"] if header else ["columns"])
        # no row lost or doubled at a boundary
        assert _summary(plain, id_column) == expected
        assert _summary(ours, id_column) == expected


def test_every_cut_of_a_small_file_reads_its_records_once(spark, tmp_path):
    """Cuts at every kind of place: inside a line, just before and after a newline, on a
    comment line, on an empty line, on CRLF line ends, inside a quoted field."""
    text = (
        'h1,"a ""b"" c",x\n# comment\n\n1,2,3\r\n4,"5,6",7\n'
        + "8,9,10\n" * 5
        + 'z,"q",\n' * 3
        + "last"
    )
    path = tmp_path / "small.csv"
    path.write_bytes(text.encode())
    query = f"SELECT * FROM dfs.`{path}`"
    with split_size(spark, None):
        expected = [tuple(r) for r in spark.sql(query).collect()]
    for size in (2, 5, 13, 34):
        with split_size(spark, str(size)):
            df = spark.sql(query)
            assert df.rdd.getNumPartitions() > 1
            assert [tuple(r) for r in df.collect()] == expected, f"split size {size}"


def test_a_quoted_line_break_and_the_cuts(spark, tmp_path):
    """A quoted field holding a line break reads as in the whole file when no cut falls in
    its record. When the first newline a split looks for is the one inside the quotes, the
    record is read whole by the split it starts in (Drill cuts it short there), and the next
    split, which starts after that newline without knowing it is quoted, reads the rest of the
    field's line as a record, as Drill's does (docs/drill-differences.md)."""
    lines = [f"{i},row{i}" for i in range(2000)]
    lines[1000] = '1000,"two\nlines"'
    path = tmp_path / "multi.csv"
    path.write_text("\n".join(lines) + "\n")
    start = path.read_bytes().index(b'1000,"two')
    query = f"SELECT * FROM dfs.`{path}`"
    with split_size(spark, None):
        expected = [tuple(r) for r in spark.sql(query).collect()]
    assert (["1000", "two\nlines"],) in expected and len(expected) == 2000
    inside = 4096
    assert start // inside == (start + 20) // inside  # no cut near the record
    with split_size(spark, str(inside)):
        assert [tuple(r) for r in spark.sql(query).collect()] == expected
    with split_size(spark, str(start + 5)):  # the cut's newline is the quoted one
        got = [tuple(r) for r in spark.sql(query).collect()]
    at = expected.index((["1000", "two\nlines"],))
    assert got == [*expected[: at + 1], (['lines"'],), *expected[at + 1 :]]


def test_utf8_text_reads_as_decoded_whole_and_in_cuts(spark, tmp_path):
    """UTF-8 past ASCII (two-, three- and four-byte characters, in plain and quoted fields,
    doubled quotes) is split byte by byte and its fields are views of its bytes
    (docs/performance.md, "Other UTF-8 text split byte by byte"): the records are those
    Python's csv module reads from the decoded text, whole and with cuts that fall inside
    characters."""
    import csv
    import io

    rnd = random.Random(41)
    words = ["a", "é", "ß", "中文", "😀", "x y", "Ünïcödé", "", "1.5"]
    lines = []
    for i in range(400):
        fields = [str(i)]
        for _ in range(rnd.randrange(1, 4)):
            w = "".join(rnd.choice(words) for _ in range(rnd.randrange(0, 4)))
            fields.append(f'"{w}, ""{w}"""' if rnd.random() < 0.3 else w)
        lines.append(",".join(fields) + "\n")
    text = "".join(lines)
    path = tmp_path / "utf8.csv"
    path.write_bytes(text.encode("utf-8"))
    expected = [(row,) for row in csv.reader(io.StringIO(text, newline=""))]
    query = f"SELECT * FROM dfs.`{path}`"
    with split_size(spark, None):
        assert [tuple(r) for r in spark.sql(query).collect()] == expected
    for size in (7, 101, 1000):
        with split_size(spark, str(size)):
            df = spark.sql(query)
            assert df.rdd.getNumPartitions() > 1
            assert [tuple(r) for r in df.collect()] == expected, f"split size {size}"


def test_escaped_quotes_read_in_pieces_whole_and_in_cuts(sql, spark, tmp_path):
    """Quoted fields with a backslash before each quote inside them, under a format whose
    escape is `\\` (docs/performance.md, "A quoted field with doubled quotes read in runs"):
    such a field is read in pieces copied from the split's bytes, ASCII or past it; the records
    are those Python's csv module reads with the same escape, whole and cut anywhere."""
    import csv
    import io

    rnd = random.Random(43)
    formats = {
        "csv": {"type": "text", "extensions": ["csv"], "fieldDelimiter": ",", "escape": "\\"}
    }
    for name, words in (
        ("ascii", ["a", "b c", "", "1.5", ",", "x" * 40]),
        ("utf8", ["é", "中文", "😀", "a,b", ""]),
    ):
        lines = []
        for i in range(600):
            fields = [str(i)]
            for _ in range(rnd.randrange(1, 4)):
                w = [rnd.choice(words) for _ in range(rnd.randrange(0, 4))]
                fields.append(
                    '"' + '\\"'.join(w) + '"'
                    if rnd.random() < 0.5
                    else "".join(w).replace(",", ";")
                )
            lines.append(",".join(fields) + "\n")
        text = "".join(lines)
        (tmp_path / f"{name}.csv").write_bytes(text.encode("utf-8"))
        expected = [
            (row,)
            for row in csv.reader(io.StringIO(text, newline=""), escapechar="\\", doublequote=False)
        ]
        assert any('"' in cell for (row,) in expected for cell in row)  # escaped quotes are there
        query = f"SELECT * FROM dfs.data.`{name}.csv`"
        with split_size(spark, None):
            assert [tuple(r) for r in sql(query, formats).collect()] == expected, name
        for size in (13, 333):
            with split_size(spark, str(size)):
                df = sql(query, formats)
                assert df.rdd.getNumPartitions() > 1
                assert [tuple(r) for r in df.collect()] == expected, f"{name}, split size {size}"
