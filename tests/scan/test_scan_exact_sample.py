"""The `drill` source's exactSample option: with sampleRecords, a read either gives what
reading every record gives (same schema, same rows), or fails with SAMPLE_MISFIT naming the
file and line of the first key or value the sample did not see. Never converted, never
skipped. drillspark's one pass (docs/scan.md, "One pass") relies on it."""

from __future__ import annotations

import json

import pytest
from pyspark.errors import PySparkException

MISFIT = "SAMPLE_MISFIT"


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def exact(spark, path, sample=1, **options):
    reader = spark.read.format("drill").option("sampleRecords", sample)
    return reader.option("exactSample", "true").options(**options).load(str(path))


def full(spark, path, **options):
    return spark.read.format("drill").options(**options).load(str(path))


def failure_of(df) -> str:
    """The text of the error reading `df` gives (it must give one)."""
    try:
        df.collect()
    except Exception as e:  # Spark's errors differ by where they are raised
        return str(e)
    raise AssertionError("the read did not fail")


def misfit_of(df) -> str:
    text = failure_of(df)
    assert MISFIT in text, text[:2000]
    return text[text.index(MISFIT) :].splitlines()[0]


# (records, where the sample of one record misses what the second holds)
MISFITS = {
    "integer then float": ([{"a": 1}, {"a": 2.5}], "'2.5' does not fit column type BIGINT"),
    "integer then string": ([{"a": 1}, {"a": "x"}], "'x' does not fit column type BIGINT"),
    "boolean then integer": ([{"a": True}, {"a": 1}], "'1' does not fit column type BOOLEAN"),
    "null then integer": ([{"a": None}, {"a": 1}], "'1' does not fit"),
    "string then map": ([{"a": "s"}, {"a": {"x": 1}}], "an object does not fit"),
    "late key": ([{"a": 1}, {"a": 2, "b": 3}], "key 'b' did not appear"),
    "late nested key": ([{"a": {"x": 1}}, {"a": {"x": 2, "y": 3}}], "key 'y' did not appear"),
    "array element kind": ([{"a": [1]}, {"a": [1.5]}], "'1.5' does not fit column type BIGINT"),
    "first array element": ([{"a": []}, {"a": [1]}], "'1' does not fit"),
}


@pytest.mark.parametrize("case", sorted(MISFITS))
def test_what_the_sample_did_not_see_fails_naming_file_and_line(spark, tmp_path, case):
    records, words = MISFITS[case]
    path = write_lines(tmp_path / "t.json", records)
    line = misfit_of(exact(spark, path))
    assert words in line
    # the reader's position: file and line of the record the sample did not see
    text = failure_of(exact(spark, path))
    assert "t.json" in text and "line 2" in text, text[:2000]


FITS = {
    "float then integer": [{"a": 1.5}, {"a": 2}],
    "string then integer": [{"a": "x"}, {"a": 1}],
    "string then boolean": [{"a": "x"}, {"a": False}],
    # a string after a map of the same file is {} in Drill (DRILL-7821), discovered or not
    "map then string": [{"a": {"x": 1}}, {"a": "s"}],
    "same kinds": [{"a": 1, "m": {"x": "y"}, "l": [1]}, {"a": 2, "m": {"x": "z"}, "l": [3, 4]}],
    "nulls everywhere": [{"a": 1, "m": {"x": 1}, "l": [1]}, {"a": None, "m": None, "l": None}],
}


@pytest.mark.parametrize("case", sorted(FITS))
def test_later_values_the_full_read_types_alike_are_read_as_the_full_read(spark, tmp_path, case):
    path = write_lines(tmp_path / "t.json", FITS[case])
    got, want = exact(spark, path), full(spark, path)
    assert got.schema == want.schema
    assert got.collect() == want.collect()


def test_every_value_is_text_in_all_text_mode(spark, tmp_path):
    path = write_lines(tmp_path / "t.json", [{"a": 1}, {"a": 2.5}, {"a": True}])
    got = exact(spark, path, allTextMode="true")
    assert [r.a for r in got.collect()] == ["1", "2.5", "true"]


def test_a_key_the_table_does_not_keep_is_no_misfit(spark, tmp_path):
    path = write_lines(tmp_path / "t.json", [{"a": 1}, {"a": 2, "b": {"deep": [1.5]}}])
    got = exact(spark, path, keepColumns='["a"]')
    assert [r.a for r in got.collect()] == [1, 2]
    # a kept name the sample did not see is one: the full read has a column for it
    assert "key 'b' did not appear" in misfit_of(exact(spark, path, keepColumns='["a", "B"]'))


def test_a_map_in_a_file_whose_sample_had_none_is_a_misfit(spark, tmp_path):
    # read in full, file 2's null maps are NULL only while the file never has a map there
    write_lines(tmp_path / "1.json", [{"m": {"x": 1}}])
    write_lines(tmp_path / "2.json", [{"m": None}, {"m": {"x": 2}}])
    assert "a map where the file's sample had none" in misfit_of(exact(spark, tmp_path))
    write_lines(tmp_path / "2.json", [{"m": None}, {"m": None}])
    got, want = exact(spark, tmp_path), full(spark, tmp_path)
    assert sorted(got.collect(), key=str) == sorted(want.collect(), key=str)
    assert sorted(str(r.m) for r in got.collect()) == ["None", "None", "Row(x=1)"]


def test_a_string_where_only_another_files_sample_had_a_map_is_a_misfit(spark, tmp_path):
    # read in full, file 2's string meets file 1's map: a conflict, read as JSON text
    write_lines(tmp_path / "1.json", [{"a": {"x": 1}}])
    write_lines(tmp_path / "2.json", [{"a": None}, {"a": "s"}])
    assert "a string where the file's sample saw no map" in misfit_of(exact(spark, tmp_path))
    assert sorted(str(r.a) for r in full(spark, tmp_path).collect()) == ["None", "s", '{"x":1}']


def test_a_string_where_a_large_files_other_split_had_a_map_is_a_misfit(spark, tmp_path):
    # each split of a file is sampled on its own: the reader of the second cannot tell
    path = write_lines(tmp_path / "t.json", [{"a": {"x": 1}}] * 50 + [{"a": None}, {"a": "s"}] * 50)
    got = exact(spark, path, splitBytes="300")
    assert "a string where the file's sample saw no map" in misfit_of(got)


@pytest.mark.parametrize("element", [{"m": None}, {"m": "s"}])
def test_an_element_where_the_files_sample_saw_only_empty_arrays_is_a_misfit(
    spark, tmp_path, element
):
    # read in full, file 1's `m` is its own (NULL, or JSON text against file 2's map)
    write_lines(tmp_path / "1.json", [{"r": []}, {"r": [element]}])
    write_lines(tmp_path / "2.json", [{"r": [{"m": {"x": 1}}]}])
    assert "the file's sample had none" in misfit_of(exact(spark, tmp_path))
    got, want = exact(spark, tmp_path, 2), full(spark, tmp_path)
    assert got.schema == want.schema
    assert sorted(map(str, got.collect())) == sorted(map(str, want.collect()))


def test_a_misfit_is_not_skipped_as_an_invalid_record(spark, tmp_path):
    path = write_lines(tmp_path / "t.json", [{"a": 1}, {"a": 2.5}, {"a": 3}])
    assert "'2.5'" in misfit_of(exact(spark, path, skipInvalidRecords="true"))


def test_a_pushed_filter_does_not_hide_a_rejected_rows_value(spark, tmp_path):
    # the rejected row's `b` would make the full read's column DOUBLE
    path = write_lines(tmp_path / "t.json", [{"a": 1, "b": 1}, {"a": 0, "b": 1.5}] * 3)
    assert "'1.5'" in misfit_of(exact(spark, path).where("a = 1").select("b"))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"exactSample": "true"}, "exactSample needs sampleRecords"),
        (
            {"exactSample": "true", "sampleRecords": "5", "extendedTypes": "true"},
            "exactSample cannot check extended types",
        ),
    ],
)
def test_options_it_cannot_honour_are_refused(spark, tmp_path, options, words):
    path = write_lines(tmp_path / "t.json", [{"a": 1}])
    with pytest.raises(PySparkException, match=words):
        spark.read.format("drill").options(**options).load(str(path)).collect()


REAL = ["github/octokit_webhook_examples.ndjson", "twitter/mongo_tweets.ndjson", "yelp"]


@pytest.mark.parametrize("name", REAL)
def test_on_real_data_a_sampled_read_is_the_full_read_or_a_misfit(spark, shared, name):
    """Other people's nested JSON, samples of 1 to 1,000 records: every read that does not
    fail is the full read, schema and rows; the small samples do fail."""
    path = shared / "data" / name
    want = full(spark, path)
    want_rows = sorted(map(str, want.collect()))
    outcomes = {}
    for sample in (1, 10, 1000, 10**9):
        got = exact(spark, path, sample)
        try:
            rows = got.collect()
        except Exception as e:
            assert MISFIT in str(e), str(e)[:2000]
            outcomes[sample] = "misfit"
            continue
        assert got.schema == want.schema, sample
        assert sorted(map(str, rows)) == want_rows, sample
        outcomes[sample] = "same"
    assert outcomes[1] == "misfit", outcomes
    assert outcomes[10**9] == "same", outcomes
