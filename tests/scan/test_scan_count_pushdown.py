"""COUNT(*) pushed into the drill scan: counts come from discovery's per-file record counts
(or a structural count of files it cannot vouch for), never from a full parse, and are the
same as counting the rows read."""

from __future__ import annotations

import json
import os

import pytest


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def write(path, n, start=0, extra=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps({"id": i, "v": {"x": i % 3}}) + "\n" for i in range(start, start + n))
        + extra
    )
    return path


def explain_text(df):
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        df.explain()
    return buf.getvalue()


def pushed(df):
    return "PushedAggregation: [COUNT(*)]" in explain_text(df)


def rows_read(df):
    """The count computed by reading every row (a column is read, so nothing is pushed)."""
    return len(df.select("id").collect())


def test_many_files_sql_and_df_count(spark, tmp_path):
    sizes = [0, 1, 7, 100, 2500, 3]
    for k, n in enumerate(sizes):
        write(tmp_path / f"f{k}.json", n, start=k * 10000)
    df = read(spark, tmp_path)
    agg = df.groupBy().count()
    assert pushed(agg)
    assert df.count() == sum(sizes) == rows_read(df)
    df.createOrReplaceTempView("cnt_many")
    q = spark.sql("SELECT count(*) AS c, count(1) AS d FROM cnt_many")
    assert pushed(spark.sql("SELECT count(*) FROM cnt_many"))
    assert q.collect()[0].asDict() == {"c": sum(sizes), "d": sum(sizes)}


def test_counts_without_discovery_cache(spark, tmp_path):
    # a schema given by the user: no discovery, so every file is counted by reading it
    write(tmp_path / "a.json", 40)
    write(tmp_path / "b.json", 2)
    df = spark.read.format("drill").schema("id BIGINT").load(str(tmp_path))
    text = explain_text(df.groupBy().count())
    assert "PushedAggregation" in text and "files counted by reading: 2 of 2" in text
    assert df.count() == 42


def test_changed_file_is_recounted(spark, tmp_path):
    f = write(tmp_path / "c.json", 10)
    df = read(spark, tmp_path)
    assert "files counted by reading: 0 of 1" in explain_text(df.groupBy().count())
    assert df.count() == 10
    write(f, 25, extra='{"id": 99, "v": {"x": 1}}\n')
    st = f.stat()
    os.utime(f, (st.st_atime, st.st_mtime + 5))
    # the old DataFrame planned again sees the file changed and counts it by reading
    assert df.count() == 26
    df2 = read(spark, tmp_path)
    assert df2.count() == 26 == rows_read(df2)


def test_skip_invalid_records_not_pushed(spark, tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"id": 1}\n{"id": }\n{"id": 3}\n')
    df = read(spark, p, skipInvalidRecords="true")
    assert not pushed(df.groupBy().count())
    assert df.count() == 2 == rows_read(df)


def test_count_scan_false_and_utf8_replace_not_pushed(spark, tmp_path):
    write(tmp_path / "a.json", 5)
    for opts in ({"countScan": "false"}, {"invalidUtf8": "replace"}):
        df = read(spark, tmp_path, **opts)
        assert not pushed(df.groupBy().count())
        assert df.count() == 5


def test_filters_not_pushed(spark, tmp_path):
    write(tmp_path / "dir0a" / "a.json", 30)
    write(tmp_path / "dir0b" / "b.json", 12, start=100)
    df = read(spark, tmp_path)
    f1 = df.filter("id >= 20")
    assert not pushed(f1.groupBy().count())
    assert f1.count() == 10 + 12
    f2 = df.filter("dir0 = 'dir0b'")
    assert not pushed(f2.groupBy().count())
    assert f2.count() == 12
    assert pushed(df.groupBy().count()) and df.count() == 42
    # GROUP BY is not pushed either
    got = {r.dir0: r["count"] for r in df.groupBy("dir0").count().collect()}
    assert got == {"dir0a": 30, "dir0b": 12}


def test_empty_files_and_split_files(spark, tmp_path):
    (tmp_path / "empty.json").write_text("")
    write(tmp_path / "big.json", 4000)
    df = read(spark, tmp_path, splitBytes="20k")
    assert pushed(df.groupBy().count())
    assert df.count() == 4000 == rows_read(df)
    only_empty = tmp_path / "e"
    only_empty.mkdir()
    (only_empty / "x.json").write_text("")
    assert read(spark, only_empty, schema="id BIGINT").count() == 0


def test_sample_records_counts_by_reading(spark, tmp_path):
    write(tmp_path / "s.json", 50)
    df = read(spark, tmp_path, sampleRecords="5")
    assert "files counted by reading: 1 of 1" in explain_text(df.groupBy().count())
    assert df.count() == 50


def test_a_sample_the_file_ended_within_counts_it(spark, tmp_path):
    # a sample larger than a file read every record, as a full discovery does: the count
    # comes from it; a file longer than the sample is still read
    write(tmp_path / "t" / "short.json", 50)
    write(tmp_path / "t" / "long.json", 1500, start=5000)
    df = read(spark, tmp_path / "t", sampleRecords="1000")
    assert "files counted by reading: 1 of 2" in explain_text(df.groupBy().count())
    assert df.count() == 1550 == rows_read(df)
    # the full discovery it equals: same columns and rows as a fresh one
    full = read(spark, tmp_path / "t")
    assert full.columns == df.columns
    assert sorted(map(tuple, full.collect())) == sorted(map(tuple, df.collect()))
    # a file in splits (of about 730 records): counted when the sample read each split whole
    write(tmp_path / "s" / "split.json", 3000)
    part = read(spark, tmp_path / "s", sampleRecords="500", splitBytes="20k")
    assert "files counted by reading: 1 of 1" in explain_text(part.groupBy().count())
    whole = read(spark, tmp_path / "s", sampleRecords="1000", splitBytes="20k")
    assert "files counted by reading: 0 of 1" in explain_text(whole.groupBy().count())
    assert whole.count() == 3000 == rows_read(whole)


def test_an_exact_sample_that_read_every_record_fails_where_discovery_does(spark, tmp_path):
    # the bad record is within the sample, which then fails as a full discovery would
    write(tmp_path / "a.json", 20, extra='{"id": 1,,}\n')
    with pytest.raises(Exception, match="a.json"):
        read(spark, tmp_path, sampleRecords="100", exactSample="true").count()


def test_a_count_that_read_the_files_is_remembered_for_the_next(spark, tmp_path):
    # a sample (no record counts from discovery but the empty file's, which it read whole); a
    # file in splits
    write(tmp_path / "big.json", 3000)
    (tmp_path / "empty.json").write_text("")
    df = read(spark, tmp_path, sampleRecords="5", splitBytes="20k")
    assert "files counted by reading: 1 of 2" in explain_text(df.groupBy().count())
    assert df.count() == 3000
    again = read(spark, tmp_path, sampleRecords="5", splitBytes="20k")
    assert "files counted by reading: 0 of 2" in explain_text(again.groupBy().count())
    assert again.count() == 3000 == rows_read(again)
    # a count holds for the file as it was: a rewrite is counted again
    write(tmp_path / "big.json", 10)
    changed = read(spark, tmp_path, sampleRecords="5")
    assert "files counted by reading: 1 of 2" in explain_text(changed.groupBy().count())
    assert changed.count() == 10


def test_an_exact_sample_count_is_a_full_discovery(spark, tmp_path):
    # under exactSample the count is the full discovery a read without the sample would make:
    # its planning discovers the files (nothing is left to count by reading), it fails on a
    # bad record past the sample, and it leaves the whole schema for a read without a sample
    write(tmp_path / "a.json", 3000, extra='{"id": 1, "late": {"k": 2}}\n')
    df = read(spark, tmp_path, sampleRecords="5", exactSample="true")
    assert "late" not in df.columns
    assert "files counted by reading: 0 of 1" in explain_text(df.groupBy().count())
    assert df.count() == 3001
    full = read(spark, tmp_path)
    assert "late" in full.columns
    assert "files counted by reading: 0 of 1" in explain_text(full.groupBy().count())
    write(tmp_path / "a.json", 3000, extra='{"id": 1,,}\n')
    with pytest.raises(Exception, match="a.json"):
        read(spark, tmp_path, sampleRecords="5", exactSample="true").count()


def test_dfs_table_name(spark, tmp_path):
    write(tmp_path / "t" / "a.json", 17)
    write(tmp_path / "t" / "b.json", 4)
    q = spark.sql(f"SELECT count(*) AS c FROM dfs.`{tmp_path / 't'}`")
    assert pushed(q)
    assert q.collect()[0].c == 21


@pytest.mark.parametrize("text", ['{"a": 1}{"a": 2}\n', '[{"a": 1}, {"a": 2}]'])
def test_concatenated_and_array_files(spark, tmp_path, text):
    p = tmp_path / "x.json"
    p.write_text(text)
    df = read(spark, p)
    assert df.count() == 2 == len(df.select("a").collect())
