"""Values the column writers produce: JSON text of type-conflict columns, NOT NULL defaults,
narrow integer and map columns, extended-type range errors; the provided schema's DDL; option
validation; late keys under sampleRecords; partition-column clashes; one listing per load."""

from __future__ import annotations

import json
import math
import os
import threading
import time

import pytest
from pyspark.sql.types import BooleanType, ByteType, LongType, ShortType


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def write_text(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- type-conflict columns read as JSON text -------------------------------------------------


def test_conflict_json_text_has_no_root_separator_and_keeps_nan(spark, tmp_path):
    p = write_text(
        tmp_path / "c.json",
        '{"c": 1}\n{"c": {"x": 2}}\n{"c": [1, 2]}\n{"c": {"z": 3}}\n{"c": [NaN, 1.5]}\n{"c": 4}\n',
    )
    got = [r.c for r in read(spark, p).collect()]
    assert got == ["1", '{"x":2}', "[1,2]", '{"z":3}', "[NaN,1.5]", "4"]


def test_conflict_json_text_recovers_after_a_malformed_record(spark, tmp_path):
    p = write_text(
        tmp_path / "g.json",
        '{"c": 1}\n{"c": {"x": 1, "y": }}\n{"c": {"x": 2}}\n'
        '{"c": [1, 2]}\n{"c": {"z": 3}}\n{"c": 4}\n',
    )
    got = [r.c for r in read(spark, p, skipInvalidRecords="true").collect()]
    assert got == ["1", '{"x":2}', "[1,2]", '{"z":3}', "4"]


# --- NOT NULL provided columns and their defaults --------------------------------------------


def test_not_null_column_gets_its_default_for_null_like_values(spark, tmp_path):
    p = write_text(tmp_path / "n.json", '{"a": ""}\n{"a": null}\n{}\n{"a": 3}\n{"a": " "}\n')
    df = read(spark, p, schema="a BIGINT NOT NULL DEFAULT '7'")
    assert [r.a for r in df.collect()] == [7, 7, 7, 3, 7]
    assert df.selectExpr("count_if(a is null)").first()[0] == 0


def test_bad_default_is_refused_on_the_driver_naming_the_column(spark, tmp_path):
    p = write_text(tmp_path / "d.json", '{"a": 1}\n')
    with pytest.raises(Exception, match=r"default 'abc' of column a does not fit BIGINT") as e:
        read(spark, p, schema="a BIGINT NOT NULL DEFAULT 'abc'").schema  # noqa: B018
    assert "sampleRecords" not in str(e.value)  # not the discovery hint of a late value
    with pytest.raises(Exception, match=r"default '' of column b .*null"):
        read(spark, p, schema="b INT NOT NULL DEFAULT ''").schema  # noqa: B018


def test_not_null_columns_without_default_get_the_zero_value(spark, tmp_path):
    p = write_text(tmp_path / "z.json", '{"x": 1}\n')
    df = read(
        spark,
        p,
        schema="d DATE NOT NULL, t TIMESTAMP NOT NULL, m DECIMAL(5,2) NOT NULL, b BINARY NOT NULL",
    )
    r = df.select("d", "t", "m", "b").first()
    assert str(r.d) == "1970-01-01" and r.t.year == 1970 and float(r.m) == 0.0 and bytes(r.b) == b""


# --- narrow integers and maps ----------------------------------------------------------------


def test_smallint_and_tinyint_columns(spark, tmp_path):
    p = write_text(
        tmp_path / "s.json", '{"a": 1, "b": -2}\n{"a": "300", "b": 127}\n{"a": null, "b": true}\n'
    )
    df = read(spark, p, schema="a SMALLINT, b TINYINT")
    assert df.schema["a"].dataType == ShortType() and df.schema["b"].dataType == ByteType()
    assert [tuple(r) for r in df.collect()] == [(1, -2), (300, 127), (None, 1)]
    bad = write_text(tmp_path / "big.json", '{"b": 1}\n{"b": 128}\n')
    with pytest.raises(Exception, match=r"big.json line 2.*128 does not fit column type TINYINT"):
        read(spark, bad, schema="b TINYINT").collect()
    assert [
        r.b for r in read(spark, bad, schema="b TINYINT", skipInvalidRecords="true").collect()
    ] == [1]


def test_map_duplicate_keys_last_wins(spark, tmp_path):
    p = write_text(tmp_path / "m.json", '{"m": {"k": 1, "j": 5, "k": 2}}\n')
    got = (
        read(spark, p, schema="m MAP<STRING, BIGINT>")
        .selectExpr("size(m)", "m['k']", "m['j']")
        .first()
    )
    assert tuple(got) == (2, 2, 5)
    q = write_text(tmp_path / "a.json", '{"m": {"a": [1], "b": [7], "a": [2, 3]}}\n')
    got = (
        read(spark, q, schema="m MAP<STRING, ARRAY<BIGINT>>")
        .selectExpr("m['a']", "m['b']", "size(m)")
        .first()
    )
    assert tuple(got) == ([2, 3], [7], 2)


# --- extended types: range errors are value errors -------------------------------------------


def test_extended_type_values_out_of_range_are_value_errors(spark, tmp_path):
    big_day = write_text(
        tmp_path / "d.json", '{"d": {"$dateDay": 1}}\n{"d": {"$dateDay": 99999999999}}\n'
    )
    with pytest.raises(Exception, match=r"d.json line 2.*does not fit column type DATE") as e:
        read(spark, big_day, extendedTypes="true").collect()
    assert "malformed JSON" not in str(e.value)
    ms = write_text(
        tmp_path / "t.json", '{"t": {"$date": 0}}\n{"t": {"$date": 9223372036854776}}\n'
    )
    with pytest.raises(Exception, match=r"t.json line 2.*does not fit column type TIMESTAMP"):
        read(spark, ms, extendedTypes="true").collect()
    nl = write_text(
        tmp_path / "nl.json",
        '{"t": {"$date": {"$numberLong": "12"}}}\n{"t": {"$date": {"$numberLong": "soon"}}}\n',
    )
    with pytest.raises(
        Exception, match=r"nl.json line 2.*'soon' does not fit column type TIMESTAMP"
    ):
        read(spark, nl, extendedTypes="true").collect()
    first = read(spark, nl, extendedTypes="true", skipInvalidRecords="true").collect()
    assert len(first) == 1 and first[0].t.microsecond == 12000


def test_bad_base64_is_a_value_error_skippable(spark, tmp_path):
    p = write_text(tmp_path / "b.json", '{"b": {"$binary": "aGk="}}\n{"b": {"$binary": "!!"}}\n')
    with pytest.raises(Exception, match=r"b.json line 2.*VARBINARY"):
        read(spark, p, extendedTypes="true").collect()
    got = read(spark, p, extendedTypes="true", skipInvalidRecords="true").collect()
    assert [bytes(r.b) for r in got] == [b"hi"]


# --- provided schema DDL ---------------------------------------------------------------------


def test_ddl_whose_last_column_ends_in_a_parenthesis(spark, tmp_path):
    p = write_text(tmp_path / "p.json", '{"id": 1, "price": 2.5}\n')
    for ddl in [
        "id BIGINT, price DECIMAL(10,2)",
        "(id BIGINT, price DECIMAL(10,2))",
        "price DECIMAL(10,2)",
    ]:
        r = read(spark, p, schema=ddl).select("id", "price").first()
        assert (r.id, float(r.price)) == (1, 2.5), ddl


def test_drill_type_names_rewrite_types_not_column_names(spark, tmp_path):
    p = write_text(tmp_path / "b.json", '{"bit": true, "varchar": "v", "s": {"bit": false}}\n')
    df = read(spark, p, schema="`bit` BIT, varchar VARCHAR, s STRUCT<bit: BIT>")
    assert df.schema.fieldNames() == ["bit", "varchar", "s"]
    assert df.schema["bit"].dataType == BooleanType()
    assert df.schema["s"].dataType.fieldNames() == ["bit"]
    r = df.first()
    assert (r.bit, r.varchar, r.s.bit) == (True, "v", False)


def test_type_conflict_error_ignores_columns_the_schema_types(spark, tmp_path):
    p = write_text(tmp_path / "c.json", '{"c": 1, "d": 1}\n{"c": {"x": 1}, "d": 2}\n')
    df = read(spark, p, typeConflict="error", schema="c STRING")
    assert [tuple(r) for r in df.collect()] == [("1", 1), ('{"x":1}', 2)]
    q = write_text(tmp_path / "q.json", '{"c": 1, "d": 1}\n{"c": 2, "d": [1]}\n')
    with pytest.raises(Exception, match=r"type conflict.*`d`"):
        read(spark, q, typeConflict="error", schema="c STRING").schema  # noqa: B018


# --- sampleRecords: late keys are never dropped silently --------------------------------------


def test_late_key_after_the_sample_is_an_error_not_a_silent_drop(spark, tmp_path):
    p = write_text(tmp_path / "late.json", '{"a": 1}\n{"a": 2, "b": 3}\n{"a": 4}\n')
    with pytest.raises(Exception, match=r"late.json line 2.*'b'.*sampleRecords"):
        read(spark, p, sampleRecords="1").collect()
    assert [
        r.a for r in read(spark, p, sampleRecords="1", skipInvalidRecords="true").collect()
    ] == [1, 4]
    # a provided schema naming the column covers it; no sampling: every key is discovered
    assert [
        tuple(r)
        for r in read(spark, p, sampleRecords="1", schema="b BIGINT").select("a", "b").collect()
    ] == [(1, None), (2, 3), (4, None)]
    assert read(spark, p).columns == ["a", "b"]


def test_late_nested_key_is_an_error_but_provided_structs_are_not_checked(spark, tmp_path):
    p = write_text(tmp_path / "n.json", '{"s": {"x": 1}}\n{"s": {"x": 2, "y": 3}}\n')
    with pytest.raises(Exception, match=r"n.json line 2.*'y'"):
        read(spark, p, sampleRecords="1").select("s.x").collect()
    got = read(spark, p, sampleRecords="1", schema="s STRUCT<x: BIGINT>").select("s.x").collect()
    assert [r.x for r in got] == [1, 2]


# --- partition columns -----------------------------------------------------------------------


def test_data_column_differing_from_dir_n_only_in_case(spark, tmp_path):
    write_text(tmp_path / "x" / "f.json", '{"DIR0": 1, "v": 2}\n')
    df = read(spark, tmp_path)
    assert df.columns == ["DIR0", "v"]  # the data column wins, as for file columns
    assert [tuple(r) for r in df.collect()] == [(1, 2)]


# --- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "opt,value,msg",
    [
        ("maxDepth", "0", "maxDepth must be"),
        ("maxDepth", "-5", "maxDepth must be"),
        ("maxDepth", "4294967297", "maxDepth must be"),
        ("batchRows", "4294967297", "batchRows must be"),
        ("batchRows", "4k", "batchRows must be a whole number"),
        ("sampleRecords", "0", "sampleRecords must be"),
        ("discoveryParallelFiles", "0", "discoveryParallelFiles must be"),
        ("splitBytes", "0", "splitBytes must be"),
        ("batchBytes", "lots", "batchBytes must be a size"),
    ],
)
def test_bad_numeric_options_are_clear_errors(spark, tmp_path, opt, value, msg):
    p = write_text(tmp_path / "o.json", '{"a": 1}\n')
    with pytest.raises(Exception, match=msg):
        read(spark, p, **{opt: value}).schema  # noqa: B018


def test_size_options_take_suffixes(spark, tmp_path):
    p = write_text(tmp_path / "o.json", "".join(json.dumps({"a": i}) + "\n" for i in range(5)))
    assert read(spark, p, batchBytes="1MiB", splitBytes="4k").count() == 5


# --- one listing per load --------------------------------------------------------------------


def test_one_listing_per_load(spark, tmp_path):
    # Spark asks the source for the schema, then for the table: both must come from one
    # listing. The table root's .drill.schema is a FIFO here, so reading it is seen by the
    # writer thread, which adds a data file right then (before the reader sees the schema's
    # end): a second listing for the table would pick that file up and read it with a schema
    # that never saw it.
    d = tmp_path / "t"
    write_text(d / "1.json", '{"a": 1}\n')
    fifo = d / ".drill.schema"
    os.mkfifo(fifo)
    opened, stop = [], threading.Event()

    def reader_gone():  # the last reader closed the FIFO (opening it to write would fail)
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            return False
        except OSError:
            return True

    def serve():
        while True:
            fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens the FIFO
            if not stop.is_set() and not opened:
                write_text(d / "2.json", '{"a": 2, "late": 3}\n')
            os.write(fd, b"a BIGINT NOT NULL")
            os.close(fd)
            if stop.is_set():
                return
            opened.append(1)
            while not reader_gone():
                time.sleep(0.01)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        df = read(spark, d)
        assert df.columns == ["a"]
        assert [tuple(r) for r in df.collect()] == [(1,)]
        assert len(opened) == 1
    finally:
        stop.set()
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # release the writer
        t.join(5)
        os.close(fd)


def test_nan_in_a_double_column_still_reads(spark, tmp_path):
    p = write_text(tmp_path / "nan.json", '{"x": NaN}\n{"x": 1.5}\n')
    got = [r.x for r in read(spark, p).collect()]
    assert math.isnan(got[0]) and got[1] == 1.5
    assert read(spark, p, schema="x DOUBLE").schema["x"].dataType != LongType()
