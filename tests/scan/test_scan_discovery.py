"""Schema discovery: Drill's type rules, merged across files in first-seen order, with
case-insensitive keys, last-wins duplicates, reported type conflicts and nullType."""

from __future__ import annotations

import json

import pytest
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    LongType,
    StringType,
    StructType,
    VariantType,
)


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def write_lines(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_types_and_first_seen_order(spark, tmp_path):
    write_lines(
        tmp_path / "a.json",
        [
            {
                "i": 1,
                "f": 1.5,
                "b": True,
                "s": "x",
                "m": {"k": 1},
                "arr": [{"q": 1}],
                "aa": [[1, 2], [3]],
            },
        ],
    )
    write_lines(tmp_path / "b.json", [{"late": 1, "i": 2.5}])
    df = read(spark, tmp_path)
    s = df.schema
    assert s.fieldNames() == ["i", "f", "b", "s", "m", "arr", "aa", "late"]
    assert s["i"].dataType == DoubleType()  # BIGINT with DOUBLE is DOUBLE
    assert s["f"].dataType == DoubleType()
    assert s["b"].dataType == BooleanType()
    assert s["s"].dataType == StringType()
    assert s["m"].dataType == StructType().add("k", LongType())
    assert s["arr"].dataType == ArrayType(StructType().add("q", LongType()))
    assert s["aa"].dataType == ArrayType(ArrayType(LongType()))
    assert s["late"].dataType == LongType()
    got = df.orderBy("i").collect()
    assert got[0].aa == [[1, 2], [3]] and got[0].arr[0].q == 1
    assert got[1].i == 2.5 and got[1].late == 1


def test_mixed_scalars_become_their_text(spark, tmp_path):
    p = write_lines(tmp_path / "m.json", ['{"v": 1}', '{"v": "two"}', '{"v": true}', '{"v": 2.50}'])
    df = read(spark, p)
    assert df.schema["v"].dataType == StringType()
    assert [r.v for r in df.collect()] == ["1", "two", "true", "2.50"]


def conflict_files(tmp_path):
    write_lines(tmp_path / "c1.json", [{"id": 1, "p": 5}])
    write_lines(tmp_path / "c2.json", [{"id": 2, "p": {"x": [1, 2]}}, {"id": 3, "p": None}])
    return tmp_path


def test_scalar_vs_struct_conflict_kept_as_json_text_and_reported(spark, tmp_path):
    df = read(spark, conflict_files(tmp_path))
    field = df.schema["p"]
    assert field.dataType == StringType()
    report = field.metadata["drill.typeConflict"]
    assert "`p`" in report and "BIGINT" in report and "STRUCT" in report
    assert "c1.json" in report and "c2.json" in report
    assert [r.p for r in df.orderBy("id").collect()] == ["5", '{"x":[1,2]}', None]


def test_conflict_as_variant(spark, tmp_path):
    df = read(spark, conflict_files(tmp_path), typeConflict="variant")
    assert df.schema["p"].dataType == VariantType()
    got = (
        df.selectExpr("id", "variant_get(p, '$.x[1]', 'int') AS x1", "to_json(p) AS j")
        .orderBy("id")
        .collect()
    )
    assert [(r.x1, r.j) for r in got] == [(None, "5"), (2, '{"x":[1,2]}'), (None, None)]


def test_conflict_error_fails_at_planning_with_path_types_and_files(spark, tmp_path):
    with pytest.raises(Exception) as e:
        read(spark, conflict_files(tmp_path), typeConflict="error").schema  # noqa: B018
    msg = str(e.value)
    assert "`p`" in msg and "BIGINT" in msg and "STRUCT" in msg
    assert "c1.json" in msg and "c2.json" in msg


def test_null_and_empty_array_columns_get_null_type(spark, tmp_path):
    p = write_lines(tmp_path / "n.json", [{"a": None, "e": []}, {"a": None, "e": []}])
    s = read(spark, p).schema
    assert s["a"].dataType == StringType() and s["e"].dataType == ArrayType(StringType())
    s2 = read(spark, p, nullType="bigint").schema
    assert s2["a"].dataType == LongType() and s2["e"].dataType == ArrayType(LongType())


def last_wins_case_insensitive(pairs):
    """Independent oracle for Drill's key rules: case-insensitive, last value wins."""
    out: dict = {}
    for k, v in pairs:
        match = next((e for e in out if e.lower() == k.lower()), None)
        out[match if match is not None else k] = v
    return out


def test_yelp_case_variant_keys_are_one_column_last_wins(spark, shared):
    path = shared / "data" / "yelp" / "yelp_business_small.ndjson"
    df = read(spark, path)
    attrs = df.schema["attributes"].dataType
    lower = [n.lower() for n in attrs.fieldNames()]
    assert len(lower) == len(set(lower))
    assert "Good for Kids" in attrs.fieldNames()  # the first spelling in the file names it
    expected = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line, object_pairs_hook=last_wins_case_insensitive)
            attrs_rec = rec.get("attributes", {})
            expected[rec["business_id"]] = next(
                (v for k, v in attrs_rec.items() if k.lower() == "good for kids"), None
            )
    got = {
        r.business_id: r.k
        for r in df.selectExpr("business_id", "attributes.`Good for Kids` AS k").collect()
    }
    assert got == expected
    assert got["LXBsdqhwSB0ebzBkZO4AXw"] is False and got["jnYK5m7KoEQ3tZ6ZPH8ACA"] is True


def test_real_files_read_without_losing_values(spark, shared):
    # mongo tweets (all doubles) and simdjson statuses (ints) merge: ids become DOUBLE
    tw = shared / "data" / "twitter"
    df = read(spark, tw)
    assert df.schema["retweet_count"].dataType == DoubleType()
    n = sum(len(p.read_text().splitlines()) for p in tw.iterdir())
    assert df.count() == n
    # webhooks: created_at is int in some payloads and string in others -> text of each
    hooks = shared / "data" / "github" / "octokit_webhook_examples.ndjson"
    wh = read(spark, hooks)
    assert wh.schema["repository"].dataType["created_at"].dataType == StringType()
    raw = [json.loads(line) for line in hooks.read_text().splitlines()]
    want = sorted(
        str(r["repository"]["created_at"])
        for r in raw
        if isinstance(r.get("repository"), dict) and r["repository"].get("created_at") is not None
    )
    got = sorted(
        r.c for r in wh.selectExpr("repository.created_at AS c").collect() if r.c is not None
    )
    assert got == want


def test_sample_records_bounds_discovery_and_later_values_are_not_dropped(spark, tmp_path):
    p = write_lines(tmp_path / "s.json", [{"a": 1}, {"a": 2}, {"a": 3, "late": "x"}])
    df = read(spark, p, sampleRecords="2")
    assert "late" not in df.schema.fieldNames()
    p2 = write_lines(tmp_path / "s2.json", [{"a": 1}, {"a": 2}, {"a": {"deep": 1}}])
    with pytest.raises(Exception) as e:
        read(spark, p2, sampleRecords="2").collect()
    assert "s2.json line 3" in str(e.value) and "sampleRecords" in str(e.value)


def test_schema_cache_reuses_discovery_until_the_file_changes(spark, tmp_path):
    import contextlib
    import io
    import os

    def counted_by_reading(df) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            df.groupBy().count().explain()
        return out.getvalue().split("files counted by reading: ")[1].split(" ")[0]

    p = tmp_path / "cache.json"
    p.write_text('{"a": 1}\n')
    st = os.stat(p)
    assert read(spark, p).schema.fieldNames() == ["a"]
    # the file untouched: the cache answers (its record count too: no file read to count)
    assert counted_by_reading(read(spark, p)) == "0"
    # same length, modification time set back: its change time and inode still tell (the key
    # held only length and mtime before, and answered the old schema)
    p.write_text('{"b": 1}\n')
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert read(spark, p).schema.fieldNames() == ["b"]
    # a changed file (new mtime) is discovered again
    p.write_text('{"c": 1}\n')
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert read(spark, p).schema.fieldNames() == ["c"]


def test_many_files_are_discovered_by_a_spark_job_with_the_same_result(spark, tmp_path):
    for d in ("job", "driver"):
        (tmp_path / d).mkdir()
        for i in range(12):
            write_lines(tmp_path / d / f"f{i:02}.json", [{"k": i, f"only{i}": i * 1.5}])
    by_job = read(spark, tmp_path / "job", discoveryParallelFiles="4")
    by_driver = read(spark, tmp_path / "driver", discoveryParallelFiles="1000")
    assert by_job.schema == by_driver.schema
    assert by_job.schema.fieldNames() == ["k"] + [f"only{i}" for i in range(12)]
    assert sorted(by_job.select("k").collect()) == sorted(by_driver.select("k").collect())


def test_duplicate_struct_key_last_whole_value_wins(spark, tmp_path):
    p = tmp_path / "dup.json"
    p.write_text('{"id": 1, "m": {"a": 1, "b": 2}, "M": {"a": 3}, "x": 1, "X": 5}\n')
    df = read(spark, p)
    assert df.columns == ["id", "m", "x"]
    r = df.first()
    assert r.m.asDict() == {"a": 3, "b": None} and r.x == 5


def test_conflict_inside_array_of_structs(spark, tmp_path):
    p = write_lines(tmp_path / "arr.json", [{"l": [{"v": 1}, {"v": [1, 2]}]}, {"l": [{"v": None}]}])
    df = read(spark, p)
    el = df.schema["l"].dataType.elementType
    assert el["v"].dataType == StringType() and "`l[].v`" in el["v"].metadata["drill.typeConflict"]
    assert [[e.v for e in r.l] for r in df.collect()] == [["1", "[1,2]"], [None]]


def test_names_spark_takes_for_one_are_one_column(spark, tmp_path):
    """Names equal to Spark's case-insensitive resolver (String.equalsIgnoreCase, char by char)
    are one column, though String.toLowerCase keeps them apart: 's' / 'ſ' (long s),
    'i' / 'İ' (dotted capital I), 'σ' / 'ς' (final sigma). As two columns, a query failed with
    Spark's INTERNAL_ERROR_ATTRIBUTE_NOT_FOUND."""
    p = tmp_path / "fold.json"
    rows = [{"s": 1, "i": "a", "σοφ": True}, {"ſ": 2, "İ": "b", "ςοφ": False}]
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    df = spark.read.format("drill").load(str(p))
    assert df.columns == ["s", "i", "σοφ"]  # the first spelling names each column
    assert [tuple(r) for r in df.select("s", "i", "σοφ").collect()] == [
        (1, "a", True),
        (2, "b", False),
    ]
    assert [r[0] for r in df.filter("s = 2").select("i").collect()] == ["b"]
