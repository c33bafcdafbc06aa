"""The drill source reads files, directories, globs, every JSON layout Drill accepts, and
compressed files, with Drill's relaxed syntax."""

from __future__ import annotations

import bz2
import gzip
import json

import pyspark.sql.functions as F
import pytest


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def partitions(df):
    return df.select(F.spark_partition_id().alias("p")).distinct().count()


def rows(df, *cols):
    return [tuple(r) for r in df.select(*cols).collect()]


def test_json_lines_concatenated_and_outer_array_files(spark, tmp_path):
    (tmp_path / "lines.json").write_text('{"a": 1}\n{"a": 2}\n')
    (tmp_path / "concat.json").write_text('{"a": 3}{"a": 4} {"a":5}')
    (tmp_path / "array.json").write_text('[{"a": 6},\n {"a": 7}]')
    (tmp_path / "empty.json").write_text("")
    got = sorted(r.a for r in read(spark, tmp_path).collect())
    assert got == [1, 2, 3, 4, 5, 6, 7]


def test_empty_file_alone_gives_no_rows(spark, tmp_path):
    (tmp_path / "empty.json").write_text("")
    assert read(spark, tmp_path / "empty.json").count() == 0


def test_directories_recurse_and_globs_match(spark, tmp_path):
    (tmp_path / "x" / "y").mkdir(parents=True)
    (tmp_path / "x" / "one.json").write_text('{"n": 1}\n')
    (tmp_path / "x" / "y" / "two.json").write_text('{"n": 2}\n')
    (tmp_path / "x" / ".hidden.json").write_text('{"n": 99}\n')
    (tmp_path / "x" / "_skip.json").write_text('{"n": 98}\n')
    assert sorted(r.n for r in read(spark, tmp_path / "x").collect()) == [1, 2]
    glob = read(spark, str(tmp_path / "x" / "*.json"))
    assert [r.n for r in glob.select("n").collect()] == [1]
    both = spark.read.format("drill").load(
        [str(tmp_path / "x" / "one.json"), str(tmp_path / "x" / "y" / "two.json")]
    )
    assert sorted(r.n for r in both.select("n").collect()) == [1, 2]


def test_compressed_files_by_extension(spark, tmp_path):
    import zstandard

    payload = "".join(json.dumps({"k": i, "s": f"v{i}"}) + "\n" for i in range(50))
    with gzip.open(tmp_path / "a.json.gz", "wt") as f:
        f.write(payload)
    with bz2.open(tmp_path / "b.json.bz2", "wt") as f:
        f.write(payload)
    (tmp_path / "c.json.zst").write_bytes(zstandard.ZstdCompressor().compress(payload.encode()))
    for name in ("a.json.gz", "b.json.bz2", "c.json.zst"):
        df = read(spark, tmp_path / name)
        assert sorted(rows(df, "k", "s")) == [(i, f"v{i}") for i in range(50)], name


def test_relaxed_syntax_comments_unquoted_names_nan(spark, tmp_path):
    p = tmp_path / "relaxed.json"
    p.write_text('// a comment\n{bi: 123, /* inline */ "f": NaN}\n{bi: 5, "f": -Infinity}\n')
    got = rows(read(spark, p), "bi", "f")
    assert got[0][0] == 123 and got[0][1] != got[0][1]  # NaN
    assert got[1] == (5, float("-inf"))


def test_nan_inf_disallowed_is_an_error_naming_the_place(spark, tmp_path):
    p = tmp_path / "nan.json"
    p.write_text('{"f": 1.5}\n{"f": NaN}\n')
    with pytest.raises(Exception) as e:
        read(spark, p, nanInf="false").collect()
    msg = str(e.value)
    assert "nan.json line 2" in msg and "nanInf" in msg


def test_missing_path_is_a_clear_error(spark, tmp_path):
    with pytest.raises(Exception, match="path does not exist"):
        read(spark, tmp_path / "nope.json").schema  # noqa: B018


def test_large_json_lines_file_is_split_at_line_boundaries(spark, tmp_path):
    p = tmp_path / "big.json"
    with open(p, "w") as f:
        for i in range(20000):
            f.write(json.dumps({"id": i, "pad": "x" * (i % 37), "nest": {"v": i * 2}}) + "\n")
        f.write(json.dumps({"id": 20000, "nest": {"v": 40000, "late": [1.5]}}) + "\n")
    # discovery runs split by split too: the member that only the last split has is found
    df = read(spark, p, splitBytes="65536").filter("id < 20000")
    assert df.schema["nest"].dataType.fieldNames() == ["v", "late"]
    assert partitions(df) > 5
    got = df.select("id", "nest.v").collect()
    assert len(got) == 20000
    assert sorted(r.id for r in got) == list(range(20000))
    assert all(r.v == r.id * 2 for r in got)


def test_pretty_printed_file_is_not_split(spark, tmp_path):
    p = tmp_path / "pretty.json"
    p.write_text(
        "\n".join(json.dumps({"id": i, "m": {"a": [i, i]}}, indent=2) for i in range(3000))
    )
    df = read(spark, p, splitBytes="65536")
    assert partitions(df) == 1
    assert sorted(r.id for r in df.select("id").collect()) == list(range(3000))
