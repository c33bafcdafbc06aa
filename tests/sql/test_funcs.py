"""Scalar functions, literals and types, with the answers real Drill 1.22 gave for the same
queries (asked through shared/tools/drill): LIKE negation and ESCAPE, niladic PI, CAST
rounding, INTERVAL literals and date-time arithmetic with Drill's result types,
TIMESTAMPADD/TIMESTAMPDIFF, DATE_TRUNC, TO_TIME / SQL_TO_*, SPLIT_PART, INITCAP, SUBSTR,
hash32 and the result types of SIGN / CEIL / FLOOR."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest

from drillspark.result import DrillRuntimeError
from drillspark.sql import SqlError
from drillspark.sql.output import columns_and_rows

NATION = "dfs.`breadth/tpch/nation.parquet`"


@pytest.fixture
def breadth(spark, shared, tmp_path):
    from drillspark.sql import SqlEngine, SqlSession

    return SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path)})
    )


def row(engine, select):
    _, rows = columns_and_rows(engine.execute(f"SELECT {select} FROM (VALUES(1))")[-1])
    return rows[0]


def test_not_like_keeps_its_negation(breadth):
    _, rows = columns_and_rows(
        breadth.execute(f"SELECT n_name FROM {NATION} WHERE n_name NOT LIKE '%A%' ORDER BY 1")[-1]
    )
    assert rows == [["EGYPT"], ["MOROCCO"], ["PERU"], ["UNITED KINGDOM"]]


def test_like_escape_and_distinct_from(engine):
    assert row(
        engine,
        "'a%c' LIKE 'a!%c' ESCAPE '!', 'abc' LIKE 'a!%c' ESCAPE '!', "
        "'ABC' NOT LIKE 'a%', 1 IS DISTINCT FROM 2, NULL IS DISTINCT FROM NULL, "
        "1 IS NOT DISTINCT FROM NULL",
    ) == [True, False, True, True, False, False]


def test_pi_without_parentheses_is_the_function(engine):
    assert row(engine, "PI, PI()") == [3.141592653589793, 3.141592653589793]


def test_cast_to_integer_rounds_half_away_from_zero(engine):
    assert row(
        engine,
        "CAST(3.99 AS BIGINT), CAST(-3.99 AS BIGINT), CAST(2.5 AS INT), "
        "CAST(2.5e0 AS INT), CAST(-2.5e0 AS BIGINT), CAST(-3.5e0 AS INT)",
    ) == [4, -4, 3, 3, -3, -4]


def test_cast_text_to_integer_is_strict(engine):
    # Drill 1.22 refuses '1.5' (and ' 5', '+5') with "NumberFormatException: 1.5"
    for text in ("1.5", " 5", "+5"):
        with pytest.raises(
            (DrillRuntimeError, SqlError), match=re.escape(f"NumberFormatException: {text}")
        ):
            row(engine, f"CAST('{text}' AS INT)")


def test_cast_to_varchar_cuts_and_keeps_millis(engine):
    assert row(
        engine,
        "CAST('abcdef' AS VARCHAR(3)), CAST(123 AS VARCHAR(2)), "
        "CAST(TIMESTAMP '2023-01-02 03:04:05' AS VARCHAR)",
    ) == ["abc", "12", "2023-01-02 03:04:05.000"]


def test_interval_literals(engine):
    assert row(
        engine,
        "INTERVAL '1' DAY, INTERVAL '1 02:03:04' DAY TO SECOND, "
        "INTERVAL '90' MINUTE, INTERVAL '1-2' YEAR TO MONTH, "
        "INTERVAL '1.5' SECOND, -INTERVAL '1' DAY",
    ) == [
        dt.timedelta(days=1),
        dt.timedelta(days=1, seconds=7384),
        dt.timedelta(seconds=5400),
        14,
        dt.timedelta(seconds=1.5),
        dt.timedelta(days=-1),
    ]
    with pytest.raises(SqlError, match="exceeds precision of DAY"):
        row(engine, "INTERVAL '100' DAY")


def test_date_time_arithmetic_types_as_drill(engine):
    # Drill: DATE + interval is a TIMESTAMP, DATE - interval a DATE; month ends clamp;
    # TIME + interval wraps at midnight and ignores months
    assert row(
        engine,
        "DATE '2023-01-31' + INTERVAL '1' MONTH, "
        "DATE '2024-02-29' - INTERVAL '1' YEAR, "
        "DATE '2023-01-31' - INTERVAL '1-2' YEAR TO MONTH, "
        "TIME '23:30:00' + INTERVAL '1' HOUR, TIME '10:00:00' + INTERVAL '1' MONTH, "
        "TIMESTAMP '2023-01-01 10:00:00' - INTERVAL '1 02:00:00' DAY TO SECOND, "
        "DATE '2023-03-01' - DATE '2023-01-01'",
    ) == [
        dt.datetime(2023, 2, 28),
        dt.date(2023, 2, 28),
        dt.date(2021, 11, 30),
        dt.time(0, 30),
        dt.time(10, 0),
        dt.datetime(2022, 12, 31, 8, 0),
        dt.timedelta(days=59),
    ]


def test_timestampadd_and_timestampdiff(engine):
    assert row(
        engine,
        "TIMESTAMPADD(MONTH, 1, DATE '2023-01-31'), "
        "TIMESTAMPADD(MINUTE, 5, DATE '2023-01-01'), "
        "TIMESTAMPADD(HOUR, 5, TIME '22:00:00'), "
        "TIMESTAMPADD(QUARTER, 1, TIMESTAMP '2023-11-30 10:00:00')",
    ) == [
        dt.date(2023, 2, 28),
        dt.datetime(2023, 1, 1, 0, 5),
        dt.time(3, 0),
        dt.datetime(2024, 2, 29, 10, 0),
    ]
    assert row(
        engine,
        "TIMESTAMPDIFF(YEAR, DATE '2020-02-29', DATE '2021-02-28'), "
        "TIMESTAMPDIFF(MONTH, DATE '2023-01-31', DATE '2023-02-28'), "
        "TIMESTAMPDIFF(MINUTE, TIME '10:00:00', TIME '11:30:30'), "
        "TIMESTAMPDIFF(DAY, DATE '2023-03-01', DATE '2023-01-01'), "
        "TIMESTAMPDIFF(QUARTER, DATE '1996-03-09', DATE '1998-03-09')",
    ) == [0, 0, 90, -59, 8]


def test_date_trunc_keeps_the_type(engine):
    assert row(
        engine,
        "date_trunc('MONTH', DATE '2011-02-02'), date_trunc('WEEK', DATE '2023-07-14'), "
        "date_trunc('CENTURY', DATE '2023-07-14'), date_trunc('HOUR', TIME '10:11:12'), "
        "date_trunc('MINUTE', TIMESTAMP '2023-07-14 10:11:12')",
    ) == [
        dt.date(2011, 2, 1),
        dt.date(2023, 7, 10),
        dt.date(2001, 1, 1),
        dt.time(10, 0),
        dt.datetime(2023, 7, 14, 10, 11),
    ]


def test_parsing_functions(engine):
    assert row(
        engine,
        "TO_TIME('18:30:15', 'HH:mm:ss'), "
        "sql_to_timestamp('2017-03-31 10:13:00.44 am', 'yyyy-mm-dd HH12:MI:SS.MS am'), "
        "sql_to_date('Jul 04 2023', 'Mon dd yyyy'), "
        "to_timestamp(cast('800120400.12312' as decimal(38, 5))), "
        "to_char(DATE '2023-07-04', 'EEEE MMMM d')",
    ) == [
        dt.time(18, 30, 15),
        dt.datetime(2017, 3, 31, 10, 13, 0, 440000),
        dt.date(2023, 7, 4),
        dt.datetime(1995, 5, 10, 15, 40, 0, 123000),
        "Tuesday July 4",
    ]


def test_string_functions(engine):
    assert row(
        engine,
        "split_part('a~@~b~@~c', '~@~', 2), split_part('a~@~b~@~c', '~@~', 1, 2), "
        "split_part('a,b', ',', 5), initcap('hello wORLD foo-bar'), "
        "substr('hello', 0, 2), substr('hello', -3, 2), substr('hello', 2, 2)",
    ) == ["b", "a~@~b", "", "Hello World Foo-Bar", "", "", "el"]


def test_math_result_types(engine):
    assert row(
        engine,
        "SIGN(-2.5e0), CEIL(2.5e0), FLOOR(-2.5e0), FLOOR(7), trunc(7), "
        "trunc(3.789, 2), cot(radians(30))",
    ) == [-1, 3.0, -3.0, 7, 7, Decimal("3.78"), pytest.approx(1.7320508075688774)]


def test_hash32_matches_drill(engine):
    assert row(
        engine,
        "hash32(1), hash32(CAST(1 AS BIGINT)), hash32(1.5e0), hash32(1, 5), "
        "hash32(1.5e0, 5), hash32AsDouble(cast('Infinity' as float))",
    ) == [-142385009, -142385009, -260406309, 1721140790, 1045462898, 420913893]


def test_collect_to_list_and_row(engine):
    assert row(engine, "collect_to_list(1, 2, 3), ROW(1, 2)") == [
        [1, 2, 3],
        {"EXPR$0": 1, "EXPR$1": 2},
    ]


def test_round_trunc_scales_as_drill(engine):
    # Drill 1.22: a DECIMAL rounds at scale 0 for a negative scale; an integer with a scale is
    # a DOUBLE (round and trunc alike)
    assert row(
        engine,
        "ROUND(1234.5678, -2), ROUND(cast(155 as decimal(5,0)), -1), "
        "TRUNC(cast(987.654 as decimal(10,3)), -2), ROUND(7, 1), "
        "ROUND(cast(15 as bigint), -1), ROUND(cast(-15 as int), -1), "
        "TRUNC(cast(15 as int), -1), TRUNC(cast(17 as bigint), 1), ROUND(7)",
    ) == [Decimal("1235"), Decimal("155"), Decimal("987"), 7.0, 20.0, -20.0, 10.0, 17.0, 7]


def test_strpos_of_empty_text_and_log10(engine):
    assert row(
        engine,
        "STRPOS('hello', ''), STRPOS('', ''), POSITION('' IN 'hello'), "
        "STRPOS(cast(null as varchar), ''), LOG10(100), LOG10(ABS(-100) + 1)",
    ) == [0, 0, 0, None, 2.0, pytest.approx(2.0043213737826426)]


def test_decimal_results_wider_than_38_digits_take_drills_scale(engine):
    # Drill 1.22: DECIMAL(38, 0) 31, DECIMAL(38, 0) 31, 30.75, DECIMAL(38, 9) 2.5, 2
    assert row(
        engine,
        "CAST(10.25 AS DECIMAL(38,2)) * 3, CAST(10.25 AS DECIMAL(30,2)) * 3, "
        "CAST(10.25 AS DECIMAL(30,2)) * CAST(3 AS DECIMAL(10,2)), "
        "CAST(1.5 AS DECIMAL(38,10)) + 1, "
        "CAST(1.5 AS DECIMAL(38,10)) * CAST(1.5 AS DECIMAL(38,10))",
    ) == [Decimal("31"), Decimal("31"), Decimal("30.75"), Decimal("2.500000000"), Decimal("2")]


def test_day_interval_division_splits_days_and_millis(engine):
    # Drill 1.22: P1D, PT12600S, PT21600S, PT0S, P-1D, PT3.333S (and P1DT43200S for * 1.5)
    assert row(
        engine,
        "INTERVAL '3' DAY / 2, INTERVAL '7' HOUR / 2, "
        "INTERVAL '1 12:00:00' DAY TO SECOND / 2, INTERVAL '3' DAY / 4, "
        "INTERVAL '-3' DAY / 2, INTERVAL '10' SECOND / 3, INTERVAL '1' DAY * 1.5",
    ) == [
        dt.timedelta(days=1),
        dt.timedelta(hours=3.5),
        dt.timedelta(hours=6),
        dt.timedelta(0),
        dt.timedelta(days=-1),
        dt.timedelta(seconds=3, milliseconds=333),
        dt.timedelta(days=1.5),
    ]


def test_split_part_negative_index_counts_from_the_end(engine):
    # Drill 1.22: 'c', '', 'c'
    assert row(
        engine,
        "SPLIT_PART('a,b,c', ',', 3), SPLIT_PART('a,b,c', ',', 4), SPLIT_PART('a,b,c', ',', -1)",
    ) == ["c", "", "c"]
