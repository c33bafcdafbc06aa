"""Aggregates and date parts with the answers real Drill 1.22 gave for the same queries (asked
through shared/tools/drill, `query.sh --root shared/data`): AVG of DECIMALs, BIGINT sums that
overflow, BIT_XOR, SPLIT_PART of NULL and the one-argument date-part functions."""

from __future__ import annotations

from decimal import Decimal

import pytest

from drillspark.sql.output import columns_and_rows

ALLTYPES = "dfs.`breadth/tf/aggregation/alltypes`"
NUMS = "dfs.`breadth/own/json/nums.json`"
EVENTS = "dfs.`breadth/own/json/events.json`"
STRINGS = "dfs.`breadth/own/json/strings.json`"


def rows_of(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])[1]


def test_avg_of_parquet_decimals_keeps_their_scale(data_engine):
    # Drill: sqltypeof DECIMAL(38, 2) / (38, 4) / (38, 4) / (38, 6)
    got = rows_of(
        data_engine,
        f"SELECT AVG(d9) e, AVG(d18) f, AVG(d28) g, AVG(d38) h, "
        f"sqltypeof(AVG(d9)) t FROM {ALLTYPES}",
    )
    assert got == [
        [
            Decimal("2293.60"),
            Decimal("2293.6045"),
            Decimal("2293.6045"),
            Decimal("2293.604513"),
            "DECIMAL(38, 2)",
        ]
    ]


def test_avg_of_cast_decimals_has_at_least_six_digits(data_engine):
    # Drill: DECIMAL(38, 6) for a CAST
    got = rows_of(
        data_engine,
        f"SELECT sqltypeof(AVG(CAST(d9 AS DECIMAL(8,2)))) a, "
        f"sqltypeof(AVG(CAST(c_integer AS DECIMAL(18,3)))) c FROM {ALLTYPES}",
    )
    assert got == [["DECIMAL(38, 6)", "DECIMAL(38, 6)"]]
    got = rows_of(
        data_engine,
        "SELECT sqltypeof(AVG(CAST(n_nationkey AS DECIMAL(5,1)))) a, "
        "AVG(CAST(n_nationkey AS DECIMAL(5,1))) b "
        "FROM dfs.`breadth/tpch/nation.parquet`",
    )
    assert got == [["DECIMAL(38, 6)", Decimal("12.000000")]]


@pytest.mark.parametrize(
    "arg, typ, value",
    [
        # what Drill's planner types (a CAST, a literal, arithmetic or functions of those):
        # DECIMAL(38, max(s, 6))
        ("CAST(d9 AS DECIMAL(9,2))", "DECIMAL(38, 6)", "2293.604500"),
        ("CAST(d38 AS DECIMAL(30,8))", "DECIMAL(38, 8)", "2293.60451340"),
        ("CAST(d9 AS DECIMAL(9,2)) * 2", "DECIMAL(38, 6)", "4587.209000"),
        ("ABS(CAST(d9 AS DECIMAL(9,2)))", "DECIMAL(38, 6)", "2293.604500"),
        ("1.5", "DECIMAL(38, 6)", "1.500000"),
        (
            "CASE WHEN c_integer > 0 THEN CAST(d9 AS DECIMAL(9,2)) ELSE 1.5 END",
            "DECIMAL(38, 6)",
            None,
        ),
        # what only the run time types (a Parquet column read in the value): DECIMAL(38, s)
        ("d9", "DECIMAL(38, 2)", "2293.60"),
        ("d9 * 1", "DECIMAL(38, 2)", "2293.60"),
        ("d9 + d9", "DECIMAL(38, 2)", "4587.21"),
        ("d9 * CAST(1 AS DECIMAL(3,1))", "DECIMAL(38, 3)", "2293.605"),
        ("ABS(d9)", "DECIMAL(38, 2)", "2293.60"),
        ("COALESCE(d9, CAST(0 AS DECIMAL(9,2)))", "DECIMAL(38, 2)", "2293.60"),
        ("CASE WHEN c_integer > 0 THEN d9 ELSE 1.5 END", "DECIMAL(38, 2)", None),
    ],
)
def test_avg_decimal_scale_follows_what_the_planner_knows(data_engine, arg, typ, value):
    # Drill 1.22's answers (sqltypeof, AVG); the CASE rows' values are not compared: Drill's
    # sum 99091.75 counts its `ELSE 1.5` as 0.15 a row (drillspark: 99166.00 / 100)
    got = rows_of(data_engine, f"SELECT sqltypeof(AVG({arg})) t, AVG({arg}) v FROM {ALLTYPES}")
    assert got[0][0] == typ
    if value is not None:
        assert got[0][1] == Decimal(value) and str(got[0][1]) == value


def test_bigint_sums_near_the_limit(data_engine):
    # Drill: 82, 83, 9104545337209782272 (a partial sum past 2^63 must not fail the query)
    got = rows_of(
        data_engine,
        f"SELECT COUNT(DISTINCT c_integer) a, COUNT(DISTINCT c_varchar) b, "
        f"SUM(DISTINCT c_bigint) c FROM {ALLTYPES}",
    )
    assert got == [[82, 83, 9104545337209782272]]
    assert rows_of(data_engine, f"SELECT SUM(c_bigint) s, SUM(c_integer) i FROM {ALLTYPES}") == [
        [3127449564905472000, -14901164818]
    ]


def test_bigint_avg_divides_the_wrapped_sum(data_engine):
    # the exact average is -1.87e18; Drill divides its wrapped BIGINT sum by the count (87)
    got = rows_of(
        data_engine, f"SELECT COUNT(*) c, AVG(c_bigint) a, SUM(c_smalldecimal) s FROM {ALLTYPES}"
    )
    assert got == [[100, 3.594769614833876e16, 461731171705.7597]]


def test_bigint_sum_wraps_like_java_longs(data_engine):
    got = rows_of(data_engine, "SELECT SUM(x) s FROM (VALUES (9223372036854775807), (1)) v(x)")
    assert got == [[-9223372036854775808]]


def test_bit_xor(data_engine):
    assert rows_of(data_engine, f"SELECT BIT_XOR(i) bx FROM {NUMS} WHERE i > 0") == [[14]]
    assert rows_of(data_engine, f"SELECT BIT_XOR(i) a, typeof(BIT_XOR(i)) t FROM {NUMS}") == [
        [-13, "BIGINT"]
    ]


def test_split_part_of_null_is_null(data_engine):
    got = rows_of(
        data_engine,
        f"SELECT id, SPLIT_PART(csv, ',', 1) p1, SPLIT_PART(csv, ',', 3) p3 "
        f"FROM {STRINGS} ORDER BY id",
    )
    assert got == [
        [1, "a", "c"],
        [2, "one", ""],
        [3, "", ""],
        [4, "1", "3"],
        [5, None, None],
        [6, "x", ""],
    ]
    assert rows_of(
        data_engine, "SELECT SPLIT_PART(CAST(NULL AS VARCHAR), ',', 1, 2) b FROM (VALUES(1))"
    ) == [[None]]


def test_one_argument_date_part_functions(data_engine):
    got = rows_of(
        data_engine,
        f"SELECT id, DAYOFWEEK(CAST(d AS DATE)) dw, "
        f"DAYOFYEAR(CAST(d AS DATE)) dy FROM {EVENTS} ORDER BY id",
    )
    assert got == [[1, 7, 15], [2, 2, 59], [3, 4, 60], [4, 7, 365], [5, 5, 161]]
    got = rows_of(
        data_engine,
        "SELECT DAYOFMONTH(DATE '2023-07-16') c, WEEK(DATE '2023-07-14') w, "
        "QUARTER(DATE '2023-07-14') q, QUARTER(DATE '2023-12-31') q4, "
        "YEAR(DATE '2023-07-14') y, MONTH(DATE '2023-07-14') m, "
        "typeof(DAYOFWEEK(DATE '2023-07-16')) t FROM (VALUES(1))",
    )
    # Drill's QUARTER is month / 4 + 1 (July is 2)
    assert got == [[16, 28, 2, 4, 2023, 7, "BIGINT"]]
    assert rows_of(
        data_engine,
        "SELECT HOUR(TIME '10:20:30') h, "
        "MINUTE(TIMESTAMP '2023-01-01 10:20:30') mi, "
        "SECOND(TIME '10:20:30') s FROM (VALUES(1))",
    ) == [[10, 20, 30.0]]


def test_length_with_a_charset(data_engine):
    got = rows_of(data_engine, f"SELECT id, LENGTH(s, 'UTF8') l FROM {STRINGS} ORDER BY id")
    assert got == [[1, 12], [2, 11], [3, 10], [4, 10], [5, None], [6, 12]]


def test_avg_of_a_decimal_cast_rounds_from_enough_digits(data_engine):
    got = rows_of(
        data_engine,
        "SELECT avg(cast(employee_id as decimal(28, 20))) as colDec20, "
        "avg(cast(employee_id as decimal(28, 0))) as colDec6, "
        "avg(cast(employee_id as integer)) as colInt "
        "FROM dfs.`breadth/foodmart/employee.json`",
    )
    # Drill (JDBC): 578.9982683982684, 578.998268, 578.9982683982684
    assert got[0][1] == Decimal("578.998268")
    assert abs(got[0][0] - Decimal("578.9982683982684")) < Decimal("1e-12")
    assert got[0][2] == 578.9982683982684


def test_split_part_counts_a_negative_range_from_the_end(data_engine):
    # TestStringFunctions (Drill 1.22 answers)
    assert rows_of(
        data_engine,
        "SELECT split_part('a~@~b~@~c', '~@~', -2, -1), "
        "split_part('a,b,c', ',', -5, -4), "
        "split_part('a,b,c', ',', -10, -1), "
        "split_part('a,b,c', ' ', -2, -1), "
        "split_part('a,b,c', ',', -2, -2) FROM (VALUES(1))",
    ) == [["b~@~c", "", "a,b,c", "a,b,c", "b"]]
