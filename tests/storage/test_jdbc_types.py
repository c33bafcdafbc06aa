"""Drill 1.22's `jdbc` plugin types and values, asked of real PostgreSQL and MariaDB servers
(tests/storage/conftest.py), against a plan's scan of the same tables in drillspark: the same
columns, the same Drill types (`typeof`), the same values. Where Drill 1.22 reads a column as a
VARCHAR of NULLs (PostgreSQL's bytea, uuid, json, jsonb, arrays, interval) drillspark keeps the
VARCHAR and gives the value as text; where Drill fails (MariaDB's unsigned integers) it reads
them (docs/storage.md)."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from tests.storage.conftest import drill, scan_plan

import drillspark
from drillspark.spark.drill_types import drill_name_of

ORDER_BY_ID = {"@id": 2, "op": "order", "input": 1, "orderings": [{"order": "ASC", "expr": "id"}]}
# Drill 1.22 reads these PostgreSQL types as a VARCHAR holding NULL; drillspark as their text
PG_TEXT_FOR_NULL = {
    "bytea_v": ["\\x0102ff", "\\x", None],
    "uuid_v": [
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "00000000-0000-0000-0000-000000000000",
        None,
    ],
    "json_v": ['{"a": 1}', "[]", None],
    "jsonb_v": ['{"b": [1, 2]}', "{}", None],
    "int_arr": ["[1,2,3]", "[]", None],
    "text_arr": ['["x","y"]', "[]", None],
    "interval_v": ["1 day 02:03:04", "-3 mons", None],
}


def as_drill_json(value: Any) -> Any:
    """A value as the Drill oracle writes it (its JDBC driver's values as JSON)."""
    if isinstance(value, dt.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        ms = value.microsecond // 1000
        return text + (f".{ms:03d}".rstrip("0") if ms else "")
    if isinstance(value, dt.time):
        return value.strftime("%H:%M:%S")  # java.sql.Time's text: no fraction
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return value


def rows_of(result) -> tuple[list[str], list[list[Any]]]:
    return result.columns, [[as_drill_json(v) for v in r.values()] for r in result.rows()]


def test_postgresql_select_star_is_drills(spark, pg):
    answer = drill("SELECT * FROM pg.public.all_types ORDER BY id")
    result = drillspark.run(scan_plan("pg", pg, "public", "all_types", ORDER_BY_ID), spark=spark)
    columns, rows = rows_of(result)
    assert columns == answer["columns"]
    for i, name in enumerate(columns):
        got = [r[i] for r in rows]
        drills = [r[i] for r in answer["rows"]]
        if name in PG_TEXT_FOR_NULL:
            assert drills == [None, None, None], name  # Drill 1.22 drops the value
            assert got == PG_TEXT_FOR_NULL[name], name
        else:
            assert got == drills, name


def test_postgresql_typeof_is_drills(spark, pg):
    answer = drill(
        "SELECT "
        + ", ".join(
            f"typeof({c}) t_{c}"
            for c in drill("SELECT * FROM pg.public.all_types ORDER BY id")["columns"]
        )
        + " FROM pg.public.all_types WHERE id = 1"
    )
    names = [c[2:] for c in answer["columns"]]
    project = {
        "@id": 2,
        "op": "project",
        "input": 1,
        "projections": [{"ref": f"t_{n}", "expr": f"typeof({n})"} for n in names],
    }
    where = {"@id": 2, "op": "filter", "input": 1, "expr": "id = 1"}
    project["input"] = 2
    project["@id"] = 3
    result = drillspark.run(scan_plan("pg", pg, "public", "all_types", where, project), spark=spark)
    assert result.rows() == [dict(zip(answer["columns"], answer["rows"][0], strict=True))]
    # and the frame's own types name the same (the REST API's metadata reads them)
    frame = drillspark.run(scan_plan("pg", pg, "public", "all_types"), spark=spark).df
    assert [drill_name_of(f.dataType) for f in frame.schema.fields] == answer["rows"][0]


MARIA_COLUMNS = [
    "id",
    "tiny_v",
    "small_v",
    "medium_v",
    "int_v",
    "big_v",
    "uint_v",
    "ubig_v",
    "dec_v",
    "float_v",
    "dbl_v",
    "bool_v",
    "bit_v",
    "char_v",
    "varchar_v",
    "text_v",
    "date_v",
    "time_v",
    "datetime_v",
    "ts_v",
    "year_v",
    "blob_v",
    "varbinary_v",
    "enum_v",
    "json_v",
]
# Drill 1.22 fails on MariaDB's unsigned integers (DATA_READ ERROR); drillspark reads them as
# BIGINT and DECIMAL(20, 0) (Spark's MySQL dialect)
MARIA_UNSIGNED = {
    "uint_v": ("BIGINT", [4000000000, 0, None]),
    "ubig_v": ("VARDECIMAL", [18000000000000000000.0, 0.0, None]),
}


@pytest.fixture(scope="module")
def maria_rows(spark, maria):
    result = drillspark.run(
        scan_plan("maria", maria, "drilltest", "all_types", ORDER_BY_ID), spark=spark
    )
    return result, rows_of(result)


@pytest.mark.parametrize("column", MARIA_COLUMNS[1:])
def test_mariadb_column_is_drills(maria_rows, column):
    result, (columns, rows) = maria_rows
    assert columns == MARIA_COLUMNS
    got = [r[columns.index(column)] for r in rows]
    answer = drill(f"SELECT id, {column} FROM maria.drilltest.all_types ORDER BY id")
    types = drill(
        f"SELECT typeof({column}) t, sqltypeof({column}) st, modeof({column}) m "
        "FROM maria.drilltest.all_types WHERE id = 1"
    )
    field = result.df.schema[column]
    if column in MARIA_UNSIGNED:
        assert "DATA_READ ERROR" in answer["error"] and "DATA_READ ERROR" in types["error"]
        assert (drill_name_of(field.dataType), got) == MARIA_UNSIGNED[column]
        return
    assert got == [r[1] for r in answer["rows"]]
    assert drill_name_of(field.dataType) == types["rows"][0][0]


def test_mariadb_typeof_through_a_plan(spark, maria):
    names = [c for c in MARIA_COLUMNS if c not in MARIA_UNSIGNED]
    where = {"@id": 2, "op": "filter", "input": 1, "expr": "id = 1"}
    project = {
        "@id": 3,
        "op": "project",
        "input": 2,
        "projections": [{"ref": n, "expr": f"typeof({n})"} for n in names],
    }
    result = drillspark.run(
        scan_plan("maria", maria, "drilltest", "all_types", where, project), spark=spark
    )
    expected = {
        n: drill(
            f"SELECT typeof({n}) t, sqltypeof({n}) st, modeof({n}) m "
            "FROM maria.drilltest.all_types WHERE id = 1"
        )["rows"][0][0]
        for n in names
    }
    assert result.rows() == [expected]


def test_time_keeps_milliseconds_as_drill_does(spark, pg):
    # Drill's CAST(time_v AS VARCHAR) shows 23:59:59.999 (its JDBC text drops the fraction)
    answer = drill(
        "SELECT id, time_v, CAST(time_v AS VARCHAR) tv, EXTRACT(SECOND FROM time_v) s, ts_v, "
        "CAST(ts_v AS VARCHAR) tsv FROM pg.public.all_types ORDER BY id"
    )
    result = drillspark.run(scan_plan("pg", pg, "public", "all_types", ORDER_BY_ID), spark=spark)
    times = [r["time_v"] for r in result.rows()]
    assert [t.isoformat(timespec="milliseconds") if t else None for t in times] == [
        "03:04:05.000",
        "23:59:59.999",
        None,
    ]
    assert [r[2] for r in answer["rows"]] == ["03:04:05", "23:59:59.999", None]


def test_view_reads_as_drill(spark, pg):
    answer = drill("SELECT * FROM pg.sales.big_orders ORDER BY id")
    result = drillspark.run(scan_plan("pg", pg, "sales", "big_orders", ORDER_BY_ID), spark=spark)
    assert rows_of(result) == (answer["columns"], answer["rows"])
