"""Drill type names have one owner, the table python/drillspark/rules/drill_types.tsv: the
`drill` source's provided schema (the JVM's source/ProvidedSchema) and CAST targets, mock scans
and text tables' inline schemas (spark/drill_types.drill_type) both read it. This holds the two
sides to each other for every name in the table, and to Drill 1.22 for the types and values
where they used to disagree (TIMESTAMP, TIME, DECIMAL without digits)."""

from __future__ import annotations

import datetime
import json

import pytest
from pyspark.sql import types as T

from drillspark import rules
from drillspark.spark.drill_types import UnknownTypeError, drill_type
from drillspark.sql import SqlEngine, SqlSession


def provided(spark, path, ddl):
    return spark.read.format("drill").option("schema", ddl).load(str(path))


@pytest.fixture
def null_file(tmp_path):
    p = tmp_path / "n.json"
    p.write_text('{"c": null}\n')
    return p


def test_the_source_and_drill_type_agree_on_every_name_in_the_table(spark, null_file):
    checked = 0
    for name, row in rules.drill_types().items():
        if row.schema == "refused":
            # both refuse it, with Drill's error
            with pytest.raises(Exception, match="not taken by a provided schema") as err:
                provided(spark, null_file, f"c {name}").schema  # noqa: B018
            assert row.note in str(err.value)
            with pytest.raises(UnknownTypeError, match="not taken by a provided schema"):
                drill_type(name, schema=True)
            continue
        want = drill_type(name, schema=True)
        if isinstance(want, (T.DayTimeIntervalType, T.YearMonthIntervalType)):
            # the JSON reader has no interval writer: refused naming the column, on the driver
            with pytest.raises(Exception, match="provided schema column c: the JSON reader"):
                provided(spark, null_file, f"c {name}").schema  # noqa: B018
            continue
        got = provided(spark, null_file, f"c {name}").schema["c"].dataType
        assert got == want, name
        checked += 1
    assert checked >= 20  # the rest are refused or intervals, checked above
    # digits count for decimals only (Drill's TIME and TIMESTAMP hold milliseconds)
    for ddl in ("DECIMAL(10,2)", "dec(5)", "NUMERIC(7, 3)", "VARCHAR(10)", "TIME(6)", "char(3)"):
        got = provided(spark, null_file, f"c {ddl}").schema["c"].dataType
        assert got == drill_type(ddl, schema=True), ddl
    # Drill's names inside Spark's nested types; a struct member's name is not a type
    s = provided(spark, null_file, "c STRUCT<bit: BIT, t: TIMESTAMP, d: ARRAY<DEC>>").schema
    assert s["c"].dataType == T.StructType(
        [
            T.StructField("bit", T.BooleanType()),
            T.StructField("t", T.TimestampNTZType()),
            T.StructField("d", T.ArrayType(T.DecimalType(38, 0))),
        ]
    )


def test_drill_names_of_the_differences_that_were():
    # Drill 1.22: `select sqltypeof(c) from table(dfs.`n.json`(type => 'json', schema =>
    # 'inline=(c DEC)'))` -> DECIMAL(38, 0) (also NUMERIC, DECIMAL); `sqltypeof(cast('1.5' as
    # dec(5)))` -> DECIMAL(5, 0); `typeof` of a provided TIMESTAMP is TIMESTAMP (no zone), of
    # TIME is TIME and `cast(c as varchar)` of '03:04:05.123456' is '03:04:05.123' (milliseconds)
    assert drill_type("DEC") == drill_type("NUMERIC") == T.DecimalType(38, 0)
    assert drill_type("decimal") == T.DecimalType(38, 0)
    assert drill_type("dec(5)") == T.DecimalType(5, 0)
    assert drill_type("TIMESTAMP") == T.TimestampNTZType()
    assert drill_type("TIME") == drill_type("time(6)") == T.TimeType(3)
    # Drill: `inline=(c CHAR)` and `(c VARBINARY)` are VARCHAR and VARBINARY; `(c FLOAT8)` is
    # "no viable alternative at input 'cFLOAT8'" (drillspark takes it: a Spark-side name)
    assert rules.drill_types()["CHAR"].schema == rules.drill_types()["VARBINARY"].schema == "drill"
    assert rules.drill_types()["FLOAT8"].schema == "spark"


@pytest.fixture
def files(spark, tmp_path):
    (tmp_path / "ws").mkdir()
    engine = SqlEngine(
        spark, SqlSession(workspaces={"root": str(tmp_path), "tmp": str(tmp_path / "ws")})
    )
    return engine, tmp_path


def rows(engine, sql):
    return [tuple(r) for r in engine.execute(sql)[-1].df.collect()]


def write_lines(path, values):
    path.write_text("".join(json.dumps({"c": v}) + "\n" for v in values))


TS = datetime.datetime(2024, 1, 2, 3, 4, 5)


def test_provided_timestamp_reads_as_drill_does_from_json_and_csv(spark, files):
    engine, root = files
    # Drill 1.22: select c, cast(c as varchar) from table(dfs.`ts.json`(type => 'json', schema
    # => 'inline=(c timestamp)')) -> '2024-01-02 03:04:05.123', '2024-01-02 03:04:05.000',
    # '2024-01-02 03:04:05.123' (epoch milliseconds 1704164645123), null; typeof TIMESTAMP
    write_lines(
        root / "ts.json", ["2024-01-02T03:04:05.123", "2024-01-02T03:04:05", 1704164645123, None]
    )
    want = [(TS.replace(microsecond=123000),), (TS,), (TS.replace(microsecond=123000),), (None,)]
    sql = "SELECT c FROM TABLE(dfs.`ts.json`(type => 'json', schema => 'inline=(c timestamp)'))"
    assert rows(engine, sql) == want
    # the same through the source, Jackson and byte path alike, whatever the session's zone:
    # TIMESTAMP_NTZ holds UTC wall-clock time, Drill's TIMESTAMP has no zone
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        for scanner in ("jackson", "bytes"):  # "bytes" alone fails rather than hand back
            spark.conf.set("spark.drillspark.readScanner", scanner)
            df = provided(spark, root / "ts.json", "c TIMESTAMP")
            assert df.schema["c"].dataType == T.TimestampNTZType()
            assert [tuple(r) for r in df.collect()] == want, scanner
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
        spark.conf.unset("spark.drillspark.readScanner")
    # Drill 1.22, the same over a CSV file with a header: '2024-01-02 03:04:05.123'
    (root / "ts.csvh").write_text("c\n2024-01-02T03:04:05.123\n")
    sql = (
        "SELECT c, typeof(c) FROM TABLE(dfs.`ts.csvh`(type => 'text', extractHeader => true, "
        "schema => 'inline=(c timestamp)'))"
    )
    assert rows(engine, sql) == [(TS.replace(microsecond=123000), "TIMESTAMP")]


def test_provided_time_holds_milliseconds_from_json_and_csv(files):
    engine, root = files
    # Drill 1.22: select cast(c as varchar) from table(dfs.`tm.json`(type => 'json', schema =>
    # 'inline=(c time)')) -> '03:04:05.123', '03:04:05.000', '03:04:05.123' (from
    # '03:04:05.123456'), null; typeof TIME (also of the null); the same from a CSV file
    write_lines(root / "tm.json", ["03:04:05.123", "03:04:05", "03:04:05.123456", None])
    t = datetime.time(3, 4, 5)
    ms = t.replace(microsecond=123000)
    sql = (
        "SELECT c, typeof(c) FROM TABLE(dfs.`tm.json`(type => 'json', schema => 'inline=(c time)'))"
    )
    assert rows(engine, sql) == [(ms, "TIME"), (t, "TIME"), (ms, "TIME"), (None, "TIME")]
    (root / "tm.csvh").write_text("c\n03:04:05.123\n03:04:05\n")
    sql = (
        "SELECT c FROM TABLE(dfs.`tm.csvh`(type => 'text', extractHeader => true, "
        "schema => 'inline=(c time)'))"
    )
    assert rows(engine, sql) == [(ms,), (t,)]


def test_provided_decimal_without_digits_has_scale_zero(files):
    engine, root = files
    # Drill 1.22: select c, sqltypeof(c) from table(dfs.`dec.json`(type => 'json', schema =>
    # 'inline=(c dec)')) over "1.5", 2.25, 12345678.123456789 -> 2, 2, 12345678, DECIMAL(38, 0);
    # over a CSV file 1.5, 2.25, -7.5 with (c numeric) -> 2, 2, -8
    (root / "dec.json").write_text('{"c": "1.5"}\n{"c": 2.25}\n{"c": 12345678.123456789}\n')
    sql = "SELECT c, sqltypeof(c) FROM TABLE(dfs.`dec.json`(type => 'json', schema => 'inline=(c dec)'))"
    assert [(int(c), s) for c, s in rows(engine, sql)] == [
        (2, "DECIMAL(38, 0)"),
        (2, "DECIMAL(38, 0)"),
        (12345678, "DECIMAL(38, 0)"),
    ]
    (root / "dec.csvh").write_text("c\n1.5\n2.25\n-7.5\n")
    sql = (
        "SELECT c FROM TABLE(dfs.`dec.csvh`(type => 'text', extractHeader => true, "
        "schema => 'inline=(c numeric)'))"
    )
    assert [int(c) for (c,) in rows(engine, sql)] == [2, 2, -8]
