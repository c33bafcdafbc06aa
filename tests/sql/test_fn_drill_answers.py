"""Function, cast and type answers checked against real Apache Drill 1.22 (embedded, asked
through ../shared/tools/drill with the same queries over the same shared data): each test
states the query Drill ran and what it answered, or the error it gave."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from drillspark.sql.output import columns_and_rows

V = "(VALUES(1))"
EVENTS = "dfs.`breadth/own/json/events.json`"
NUMS = "dfs.`breadth/own/json/nums.json`"
REGION = "dfs.`breadth/tpch/region.parquet`"
NUMERICAL = "dfs.`breadth/tf/numerical/data.parquet`"
BASIC = "dfs.`breadth/tf/datetime/basic.parquet`"
DATETIME_DATA = "dfs.`breadth/tf/datetime/data.parquet`"


def rows(engine, sql):
    return [list(r) for r in columns_and_rows(engine.execute(sql)[-1])[1]]


def one(engine, select):
    return rows(engine, f"SELECT {select} FROM {V}")[0]


def fails(engine, sql, phrase):
    with pytest.raises(Exception) as err:
        rows(engine, sql)
    assert phrase in str(err.value), str(err.value)


# ------------------------------------------------------------------------------------ casts


def test_text_casts_drill_refuses(data_engine):
    # Drill 1.22: NumberFormatException for ' 5', '+5', '1.5' and '' to INT;
    # DateTimeParseException for ISO's T, a TIMESTAMP without seconds and '10:20' as TIME;
    # NumberFormatException for ' 12.5 ' to DECIMAL; and (2026-12-06) for '-' and for '12' or
    # '1.5' with a line break after it (a regex's `$` let those through: drill_integer_text,
    # drill_decimal_text)
    for sql, phrase in [
        ("CAST(' 5' AS INT)", "NumberFormatException"),
        ("CAST('+5' AS INT)", "NumberFormatException"),
        ("CAST('1.5' AS INT)", "NumberFormatException"),
        ("CAST('' AS INT)", "NumberFormatException"),
        ("CAST('-' AS INT)", "NumberFormatException"),
        ("CAST(concat('12', chr(10)) AS INT)", "NumberFormatException: 12"),
        ("CAST(concat('-3', chr(13), chr(10)) AS BIGINT)", "NumberFormatException: -3"),
        ("CAST(concat('1.5', chr(10)) AS DECIMAL(5,2))", "NumberFormatException"),
        ("CAST('2023-05-06T07:08:09' AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('2023-05-06 07:08' AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('10:20' AS TIME)", "DateTimeParseException"),
        ("CAST(' 12.5 ' AS DECIMAL(5,2))", "NumberFormatException"),
    ]:
        fails(data_engine, f"SELECT {sql} FROM {V}", phrase)


def test_text_timestamps_and_times_as_drill_reads_them(data_engine):
    # Drill 1.22 (asked 2026-12-07): a TIMESTAMP is y-m-d, optionally one space and h:m:s,
    # optionally a point and up to nine digits, each field one or more digits, nothing else;
    # the fraction is cut to milliseconds (not rounded); a TIME is h:m:s[.f] alike
    assert one(
        data_engine,
        "CAST('2024-001-01 001:2:3' AS TIMESTAMP), CAST('2024-1-1 1:2:3.1239999' AS TIMESTAMP), "
        "CAST('2024-1-1 1:2:59.9999996' AS TIMESTAMP), "
        "CAST('2024-01-01 1:2:3.123456789' AS TIMESTAMP), CAST('2024-1-1' AS TIMESTAMP), "
        "CAST(CAST('1:2:3.9999996' AS TIME) AS VARCHAR), CAST(CAST('1:2:3.' AS TIME) AS VARCHAR), "
        "CAST(CAST('001:2:03' AS TIME) AS VARCHAR), modeof(CAST('1:2:3' AS TIME)), "
        "modeof(CAST('2024-01-01 1:2:3' AS TIMESTAMP))",
    ) == [
        dt.datetime(2024, 1, 1, 1, 2, 3),
        dt.datetime(2024, 1, 1, 1, 2, 3, 123000),
        dt.datetime(2024, 1, 1, 1, 2, 59, 999000),
        dt.datetime(2024, 1, 1, 1, 2, 3, 123000),
        dt.datetime(2024, 1, 1),
        "01:02:03.999",
        "01:02:03.000",
        "01:02:03.000",
        "NOT NULL",
        "NOT NULL",
    ]
    # Drill: DateTimeParseException ("unparsed text found") for a line break after the text, a
    # second space, a `/` in a TIMESTAMP's date, ten digits of a second; DateTimeException
    # "Invalid value for SecondOfMinute (valid values 0 - 59): 60" for a second of 60
    for sql, phrase in [
        ("CAST(concat('10:20:30', chr(10)) AS TIME)", "DateTimeParseException"),
        ("CAST(concat('2024-01-01 10:20:30', chr(10)) AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST(concat('2024-01-01', chr(10)) AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('2024-01-01  10:20:30' AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('2024-01-01 ' AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('2024/01/01 1:2:3' AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('2024-01-01 1:2:3.1234567891' AS TIMESTAMP)", "DateTimeParseException"),
        ("CAST('1:2:3.1234567891' AS TIME)", "DateTimeParseException"),
        ("CAST('1:2:60' AS TIME)", "Invalid value for SecondOfMinute (valid values 0 - 59): 60"),
        (
            "CAST('2024-01-01 1:2:60' AS TIMESTAMP)",
            "Invalid value for SecondOfMinute (valid values 0 - 59): 60",
        ),
        ("CAST('2024-01-01 25:00:00' AS TIMESTAMP)", "Invalid value for HourOfDay"),
        ("CAST('1:60:00' AS TIME)", "Invalid value for MinuteOfHour"),
    ]:
        fails(data_engine, f"SELECT {sql} FROM {V}", phrase)


def test_boolean_to_number_is_refused_when_planned(data_engine):
    # Drill 1.22: CAST(TRUE AS INT) -> PLAN ERROR "Failure while materializing expression
    # ... CAST(true):INTEGER"; CAST(active AS INT) over JSON fails too
    fails(data_engine, f"SELECT CAST(TRUE AS INT) FROM {V}", "cannot cast BOOLEAN to INTEGER")
    fails(data_engine, f"SELECT CAST(FALSE AS BIGINT) FROM {V}", "cannot cast BOOLEAN to BIGINT")


def test_text_casts_drill_reads(data_engine):
    # Drill 1.22: CAST('42' AS INT) 42, '-7' -7, '2023/05/06' and '2023.05.06' 2023-05-06,
    # DATE '900-2-3' 0900-02-03, '7:8:9' as TIME 07:08:09, a DATE ignores a time after it
    assert one(
        data_engine,
        "CAST('42' AS INT), CAST('-7' AS BIGINT), CAST('2023/05/06' AS DATE), "
        "CAST('2023.05.06' AS DATE), DATE '900-2-3', CAST('7:8:9' AS TIME), "
        "CAST('2015-01-01 12:13:14' AS DATE), CAST('2023-05-06' AS TIMESTAMP), "
        "CAST('0012' AS INT), CAST('-0' AS BIGINT), CAST('-0042' AS INT), "
        "CAST('+.5' AS DECIMAL(5,2)), CAST('5.' AS DECIMAL(5,2)), CAST('1e2' AS DECIMAL(5,2))",
    ) == [
        42,
        -7,
        dt.date(2023, 5, 6),
        dt.date(2023, 5, 6),
        dt.date(900, 2, 3),
        dt.time(7, 8, 9),
        dt.date(2015, 1, 1),
        dt.datetime(2023, 5, 6),
        12,  # Drill 1.22: leading zeros and a minus zero read (2026-12-06)
        0,
        -42,
        Decimal("0.50"),  # Drill 1.22 (2026-12-06)
        Decimal("5.00"),
        Decimal("100.00"),
    ]


def test_a_date_cast_reads_every_digit_of_each_field(data_engine):
    # Drill 1.22 (2026-12-07): '02023-05-06' and '2023-005-06' are 2023-05-06, '2023-05-06x'
    # too (what follows the day is not read); '2023-05-061' is day 61 and fails
    # ("Value 61 for dayOfMonth"), where reading two digits of it made it the 6th
    assert (
        one(
            data_engine,
            "CAST('02023-05-06' AS DATE), CAST('2023-005-06' AS DATE), CAST('2023-05-06x' AS DATE)",
        )
        == [dt.date(2023, 5, 6)] * 3
    )
    fails(data_engine, f"SELECT CAST('2023-05-061' AS DATE) FROM {V}", "DayOfMonth")


def test_a_year_past_a_types_range_is_refused_naming_it(data_engine):
    # Drill 1.22 (2026-12-07): CAST('10000-01-01' AS DATE) and '9999999-01-01' fail "Year out
    # of range: [10000]"; a TIMESTAMP keeps year 12345. Spark's make_date had overflowed on the
    # second and made the first a DATE no client could read
    assert one(data_engine, "CAST('9999-12-31' AS DATE)") == [dt.date(9999, 12, 31)]
    for year in ("10000", "9999999"):
        fails(
            data_engine,
            f"SELECT CAST('{year}-01-01' AS DATE) FROM {V}",
            f"Year out of range: [{year}]",
        )
    assert one(data_engine, "EXTRACT(YEAR FROM CAST('12345-01-01 00:00:00' AS TIMESTAMP))") == [
        12345
    ]
    fails(
        data_engine,
        f"SELECT CAST('9999999-01-01 00:00:00' AS TIMESTAMP) FROM {V}",
        "Year out of range: [9999999]",
    )


def test_a_year_below_100_is_the_nearest_one_as_a_date_not_as_a_timestamp(data_engine):
    # Drill 1.22 over the test framework's datetime data: cast(c_timestamp as varchar(20)),
    # cast(c_timestamp as date) gives '0097-02-16 17:32:01' | 1997-02-16 and '0597-...' |
    # 0597-02-16; CAST('99-1-3' AS DATE) is 1999-01-03
    got = rows(
        data_engine,
        f"SELECT c_row, CAST(c_timestamp AS VARCHAR(20)), CAST(c_timestamp AS DATE), "
        f"CAST(c_timestamp AS TIMESTAMP) FROM {DATETIME_DATA} WHERE c_row IN (13, 14) "
        "ORDER BY c_row",
    )
    assert got == [
        [13, "0097-02-16 17:32:01", dt.date(1997, 2, 16), dt.datetime(97, 2, 16, 17, 32, 1)],
        [14, "0597-02-16 17:32:01", dt.date(597, 2, 16), dt.datetime(597, 2, 16, 17, 32, 1)],
    ]
    assert one(data_engine, "CAST('99-1-3' AS DATE)") == [dt.date(1999, 1, 3)]


def test_timestamps_keep_milliseconds(data_engine):
    # Drill 1.22: TIMESTAMP '2023-05-06 07:08:09.123456' and the same text cast are
    # 2023-05-06 07:08:09.123
    assert (
        one(
            data_engine,
            "TIMESTAMP '2023-05-06 07:08:09.123456', "
            "CAST('2023-05-06 07:08:09.123456' AS TIMESTAMP)",
        )
        == [dt.datetime(2023, 5, 6, 7, 8, 9, 123000)] * 2
    )


def test_numbers_cast_to_dates_and_times_are_milliseconds(data_engine):
    # Drill 1.22: CAST(1 AS TIMESTAMP) 1970-01-01 00:00:00.001, CAST(86400000 AS DATE)
    # 1970-01-02, CAST(1000 AS TIME) 00:00:01; over a column: CAST(id * 1000 AS TIMESTAMP)
    assert one(data_engine, "CAST(1 AS TIMESTAMP), CAST(86400000 AS DATE), CAST(1000 AS TIME)") == [
        dt.datetime(1970, 1, 1, 0, 0, 0, 1000),
        dt.date(1970, 1, 2),
        dt.time(0, 0, 1),
    ]
    assert rows(data_engine, f"SELECT CAST(id * 1000 AS TIMESTAMP) FROM {EVENTS} WHERE id = 2") == [
        [dt.datetime(1970, 1, 1, 0, 0, 2)]
    ]


def test_doubles_cast_to_integers_round_and_saturate(data_engine):
    # Drill 1.22: CAST(1e10 AS INT) 2147483647, CAST(-1e10 AS INT) -2147483648,
    # CAST(1e30 AS BIGINT) 9223372036854775807, NaN 0, CAST(2.5e0 AS INT) 3
    assert one(
        data_engine,
        "CAST(1e10 AS INT), CAST(-1e10 AS INT), CAST(1e30 AS BIGINT), "
        "CAST(CAST('NaN' AS DOUBLE) AS INT), CAST(2.5e0 AS INT), CAST(-2.5e0 AS BIGINT)",
    ) == [2147483647, -2147483648, 9223372036854775807, 0, 3, -3]


def test_decimal_casts_check_integer_digits_before_rounding(data_engine):
    # Drill 1.22: CAST(9.999 AS DECIMAL(3,2)) is 10.00, CAST(1.005 AS DECIMAL(3,2)) 1.01,
    # CAST('12.345' AS DECIMAL(4,2)) 12.35; CAST(12345 AS DECIMAL(3,0)) fails ("Value 12345
    # overflows specified precision 3 with scale 0")
    assert one(
        data_engine,
        "CAST(9.999 AS DECIMAL(3,2)), CAST(1.005 AS DECIMAL(3,2)), CAST(-1.005 AS DECIMAL(3,2)), "
        "CAST('12.345' AS DECIMAL(4,2)), sqltypeof(CAST(1 AS DECIMAL(3,2)))",
    ) == [Decimal("10.00"), Decimal("1.01"), Decimal("-1.01"), Decimal("12.35"), "DECIMAL(3, 2)"]
    fails(
        data_engine,
        f"SELECT CAST(12345 AS DECIMAL(3,0)) FROM {V}",
        "Value 12345 overflows specified precision 3 with scale 0",
    )


def test_decimals_cast_to_integers_keep_the_low_bits(data_engine):
    # Drill 1.22 (TestVarDecimalFunctions): CAST(i AS INT) of 999999999999999999999999999.92...
    # is -402653184, of -1234567891234567891234567891234567.89 -108048136, of 0.7877 1; as
    # BIGINT -6930898827444486144 and -5953166075019439880
    sub = (
        "(SELECT CAST('999999999999999999999999999.92345678912' AS DECIMAL(38, 11)) AS i1, "
        "CAST('-1234567891234567891234567891234567.89' AS DECIMAL(36, 2)) AS i2, "
        "CAST('0.7877' AS DECIMAL(4, 4)) AS i3)"
    )
    assert rows(
        data_engine,
        f"SELECT CAST(i1 AS INT), CAST(i2 AS INT), CAST(i3 AS INT), CAST(i1 AS BIGINT), "
        f"CAST(i2 AS BIGINT) FROM {sub}",
    ) == [[-402653184, -108048136, 1, -6930898827444486144, -5953166075019439880]]


def test_a_float_is_read_from_its_own_text(data_engine):
    # Drill 1.22 over numerical/data: cast(c_float4 as decimal(28,10)) of 100.06 (the float
    # 100.05999755859375) is 100.06; CAST(c_float4 AS VARCHAR) '100.06'; as DOUBLE widened
    got = rows(
        data_engine,
        f"SELECT CAST(c_float4 AS DECIMAL(28,10)), CAST(c_float4 AS VARCHAR), "
        f"CAST(c_float4 AS DOUBLE) FROM {NUMERICAL} WHERE c_row = 2",
    )
    assert got == [[Decimal("100.0600000000"), "100.06", 100.05999755859375]]


def test_binary_parquet_columns_cast_from_their_text(data_engine):
    # Drill 1.22: typeof(c_date) over the test framework's basic.parquet is VARBINARY, and
    # CAST(c_date AS DATE), CAST(c_time AS TIME), CAST(c_timestamp AS TIMESTAMP) read its text
    got = rows(
        data_engine,
        f"SELECT CAST(c_date AS DATE), CAST(c_time AS TIME), CAST(c_timestamp AS TIMESTAMP), "
        f"typeof(c_date) FROM {BASIC} WHERE c_row = 3",
    )
    assert got == [
        [dt.date(1996, 2, 28), dt.time(2, 3), dt.datetime(2001, 9, 22, 18, 19, 20), "VARBINARY"]
    ]


# ------------------------------------------------------------------------------------- math


def test_round_of_a_double_starts_from_its_binary_value(data_engine):
    # Drill 1.22: ROUND(x, 2) over 1.005e0, 2.675e0, 1.115e0, -1.005e0, 0.125e0 is 1.0, 2.67,
    # 1.11, -1.0, 0.13; TO_NUMBER('1.005', '#.##') 1.0, TO_NUMBER('0.125', '#.##') 0.13
    got = rows(
        data_engine,
        "SELECT ROUND(x, 2) FROM (VALUES(1.005e0), (2.675e0), (1.115e0), (-1.005e0), "
        "(0.125e0)) t(x)",
    )
    assert sorted(r[0] for r in got) == sorted([1.0, 2.67, 1.11, -1.0, 0.13])
    assert one(data_engine, "TO_NUMBER('1.005', '#.##'), TO_NUMBER('0.125', '#.##')") == [
        1.0,
        0.13,
    ]
    # a FLOAT column rounds from the float's value, as a DOUBLE: 100.06 -> 100.1 and 100.06
    assert rows(
        data_engine,
        f"SELECT ROUND(c_float4, 1), ROUND(c_float4, 2) FROM {NUMERICAL} WHERE c_row = 2",
    ) == [[100.1, 100.06]]


def test_int_arithmetic_wraps_around(data_engine):
    # Drill 1.22: CAST(2147483647 AS INT) + CAST(1 AS INT) -2147483648,
    # CAST(-2147483648 AS INT) - 1 2147483647, 65536 * 65536 0, -CAST(-2147483648 AS INT) and
    # ABS(CAST(-2147483648 AS INT)) -2147483648
    assert one(
        data_engine,
        "CAST(2147483647 AS INT) + CAST(1 AS INT), CAST(-2147483648 AS INT) - 1, "
        "65536 * 65536, -CAST(-2147483648 AS INT), ABS(CAST(-2147483648 AS INT))",
    ) == [-2147483648, 2147483647, 0, -2147483648, -2147483648]


def test_not_a_number_and_infinities(data_engine):
    # Drill 1.22: SIGN(NaN) 0, CEIL(NaN) NaN, FLOOR(-Infinity) -Infinity, TRUNC(NaN) NaN,
    # TRUNC(-Infinity, 2) NaN, COT(0) Infinity
    a, b, c, d, e, f = one(
        data_engine,
        "SIGN(CAST('NaN' AS DOUBLE)), CEIL(CAST('NaN' AS DOUBLE)), "
        "FLOOR(CAST('-Infinity' AS DOUBLE)), TRUNC(CAST('NaN' AS DOUBLE)), "
        "TRUNC(CAST('-Infinity' AS DOUBLE), 2), COT(0)",
    )
    assert a == 0 and b != b and c == float("-inf") and d != d and e != e and f == float("inf")


def test_result_types_of_division_rounding_and_positions(data_engine):
    # Drill 1.22 (2026-12-07): INT / INT is an INT (7 / 2 = 3, -7 / 2 = -3), INT / BIGINT a
    # BIGINT; ROUND and TRUNC of a FLOAT without a scale are FLOATs (with one DOUBLEs);
    # STRPOS and POSITION are BIGINTs. Had been BIGINT, DOUBLE, DOUBLE, INT, INT.
    assert one(
        data_engine,
        "sqltypeof(CAST(7 AS INT) / CAST(2 AS INT)), CAST(-7 AS INT) / 2, "
        "sqltypeof(CAST(7 AS INT) / CAST(2 AS BIGINT)), sqltypeof(round(CAST(1.75 AS FLOAT))), "
        "sqltypeof(trunc(CAST(1.75 AS FLOAT))), sqltypeof(trunc(CAST(1.75 AS FLOAT), 1)), "
        "sqltypeof(strpos('abc', 'b')), sqltypeof(position('b' IN 'abc'))",
    ) == ["INTEGER", -3, "BIGINT", "FLOAT", "FLOAT", "DOUBLE", "BIGINT", "BIGINT"]
    # ROUND(FLOAT) -2.5 is -3.0, its +-Infinity Integer.MAX/MIN as a FLOAT, NaN 0.0; TRUNC of
    # an infinity is NaN with a scale and without, of a FLOAT and of a DOUBLE
    a, b, c, d, e, f = one(
        data_engine,
        "round(CAST(-2.5 AS FLOAT)), round(CAST('Infinity' AS FLOAT)), "
        "round(CAST('NaN' AS FLOAT)), trunc(CAST('Infinity' AS FLOAT)), "
        "trunc(CAST('-Infinity' AS DOUBLE)), trunc(CAST(-2.5 AS FLOAT))",
    )
    assert (a, b, c, e, f) == (-3.0, 2147483648.0, 0.0, e, -2.0) and d != d and e != e


# ---------------------------------------------------------------------------------- strings


def test_left_and_right_with_a_negative_length(data_engine):
    # Drill 1.22: LEFT('abcdef', -2) 'abcd', RIGHT('abcdef', -2) 'cdef', LEFT('abc', -5) '',
    # RIGHT('abc', -5) '', LEFT('abc', 5) 'abc'
    assert one(
        data_engine,
        "LEFT('abcdef', -2), RIGHT('abcdef', -2), LEFT('abc', -5), RIGHT('abc', -5), "
        "LEFT('abc', 5)",
    ) == ["abcd", "cdef", "", "", "abc"]


def test_substr_with_a_pattern_and_to_number_of_an_interval(data_engine):
    # Drill 1.22: substr(n_name, 'UN.TE.') ... where ilike(n_name, 'united%') is 'UNITED'
    # twice; count(to_number(date_diff(now(), cast(birth_date AS date)), '####')) over
    # employee.json counts all 1155 rows (the interval's text starts with its days)
    assert rows(
        data_engine,
        "SELECT substr(n_name, 'UN.TE.') FROM dfs.`breadth/tpch/nation.parquet` "
        "WHERE ilike(n_name, 'united%')",
    ) == [["UNITED"], ["UNITED"]]
    assert rows(
        data_engine,
        "SELECT count(to_number(date_diff(now(), cast(birth_date AS date)), '####')) "
        "FROM dfs.`breadth/foodmart/employee.json`",
    ) == [[1155]]


def test_isnumeric(data_engine):
    # Drill 1.22: ISNUMERIC is an INT: 1 for '3.14', '+5', '-3', '007'; 0 for 'abc', '-1e5',
    # '', ' 5', '1,000', '5.', '.5', 'NaN'
    got = rows(
        data_engine,
        "SELECT x, ISNUMERIC(x) FROM (VALUES('3.14'), ('+5'), ('-3'), ('007'), ('abc'), "
        "('-1e5'), (''), (' 5'), ('1,000'), ('5.'), ('.5'), ('NaN')) t(x)",
    )
    assert {x: n for x, n in got} == {
        "3.14": 1,
        "+5": 1,
        "-3": 1,
        "007": 1,
        "abc": 0,
        "-1e5": 0,
        "": 0,
        " 5": 0,
        "1,000": 0,
        "5.": 0,
        ".5": 0,
        "NaN": 0,
    }


def test_ilike_folds_ascii_letters_only(data_engine):
    # Drill 1.22: ILIKE('ÄBC', 'äbc') false, ILIKE('ABC', 'abc') true, ILIKE('straße',
    # 'STRASSE') false, ILIKE('A_C', 'a\\_c', '\\') true
    assert one(
        data_engine,
        "ILIKE('ÄBC', 'äbc'), ILIKE('ABC', 'abc'), ILIKE('straße', 'STRASSE'), "
        "ILIKE('A_C', 'a\\_c', '\\')",
    ) == [False, True, False, True]


# ------------------------------------------------------------------------------- aggregates


def test_collect_list(data_engine):
    # Drill 1.22: SELECT grp, COLLECT_LIST('i', i, 'd', d) FROM nums.json GROUP BY grp gives
    # for grp 'b' [{"i": 7}, {"i": 7, "d": 10.0}] (a NULL value is no key); no rows give NULL
    got = {
        g: lst
        for g, lst in rows(
            data_engine, f"SELECT grp, COLLECT_LIST('i', i, 'd', d) FROM {NUMS} GROUP BY grp"
        )
    }
    assert [{k: v for k, v in m.items() if v is not None} for m in got["b"]] == [
        {"i": 7},
        {"i": 7, "d": 10.0},
    ]
    assert rows(data_engine, f"SELECT COLLECT_LIST('x', i) FROM {NUMS} WHERE id > 100") == [[None]]


def test_covariances_and_duplicates(data_engine):
    # Drill 1.22: CORR(i, d), COVAR_POP(i, d), COVAR_SAMP(i, d) over nums.json are
    # 0.24057170331458222, 3.370000000000001, 4.212500000000001; per group, one pair or no
    # spread is NaN; APPROX_COUNT_DUPS(grp) 3, APPROX_COUNT_DUPS(i) 1
    c, cp, cs = rows(
        data_engine, f"SELECT CORR(i, d), COVAR_POP(i, d), COVAR_SAMP(i, d) FROM {NUMS}"
    )[0]
    assert c == pytest.approx(0.24057170331458222) and cp == pytest.approx(3.37)
    assert cs == pytest.approx(4.2125)
    groups = {
        g: (a, b)
        for g, a, b in rows(
            data_engine, f"SELECT grp, CORR(i, id), COVAR_SAMP(i, id) FROM {NUMS} GROUP BY grp"
        )
    }
    assert groups["a"] == (-1.0, -6.5)
    assert groups["b"][0] != groups["b"][0] and groups["b"][1] == 0.0
    assert all(x != x for x in groups["c"])
    assert rows(
        data_engine, f"SELECT APPROX_COUNT_DUPS(grp), APPROX_COUNT_DUPS(i) FROM {NUMS}"
    ) == [[3, 1]]


def test_sum_of_text_is_a_bigint(data_engine):
    # Drill 1.22: SUM(CAST(i AS VARCHAR)) over nums.json is the BIGINT 25
    assert rows(data_engine, f"SELECT SUM(CAST(i AS VARCHAR)) FROM {NUMS}") == [[25]]


# -------------------------------------------------------------------------------- date-time


def test_timestampadd_of_a_date_is_a_timestamp_unless_folded(data_engine):
    # Drill 1.22: TIMESTAMPADD(DAY, 1, CAST(d AS DATE)) is the TIMESTAMP 2023-01-16 00:00:00
    # for id 1; TIMESTAMPADD(DAY, 1, DATE '2023-01-01') the DATE 2023-01-02
    assert rows(
        data_engine,
        f"SELECT TIMESTAMPADD(DAY, 1, CAST(d AS DATE)), TIMESTAMPADD(DAY, id, DATE '2023-01-01'),"
        f" TIMESTAMPADD(DAY, 1, DATE '2023-01-01') FROM {EVENTS} WHERE id = 1",
    ) == [[dt.datetime(2023, 1, 16), dt.datetime(2023, 1, 2), dt.date(2023, 1, 2)]]


def test_mixed_intervals_come_back_as_drills_period_text(data_engine):
    # Drill 1.22 (JDBC's text of the INTERVAL): AGE(2010-01-01 10:10:10, 2001-01-01 11:10:10)
    # P107M30DT82800S; INTERVAL '5' MONTH / 2 P2M15D; INTERVAL '1' YEAR / 5
    # P2M11DT86399.999S; INTERVAL '7' MONTH * 1.5 P10M15D
    assert one(
        data_engine,
        "AGE(CAST('2010-01-01 10:10:10' AS TIMESTAMP), CAST('2001-01-01 11:10:10' AS TIMESTAMP)),"
        " INTERVAL '5' MONTH / 2, INTERVAL '1' YEAR / 5, INTERVAL '7' MONTH * 1.5",
    ) == ["P107M30DT82800S", "P2M15D", "P2M11DT86399.999S", "P10M15D"]


def test_sql_patterns(data_engine):
    # Drill 1.22 (the test framework's sql_to_date suites): all these are 2016-12-05,
    # 2017-03-30 or as shown
    assert one(
        data_engine,
        "sql_to_date('05Dec2016', 'ddmonyyyy'), sql_to_date('05Dec2016', 'DDMONYYY'), "
        "sql_to_date('December 5, 2016', 'Month DD, YYYY'), sql_to_date('5/12/2016', "
        "'DD/MM/YYYY'), sql_to_date('Thursday March 30, 2017', 'DAY Month dd, YY'), "
        "sql_to_date('99-291', 'yy-ddd'), sql_to_date('68-01-01', 'yy-mm-dd'), "
        "sql_to_date('2017-03-31 10:13:00.44', 'yyyy-mm-dd hh:mi:ss.ms'), "
        "sql_to_timestamp('197825July01:12am', 'YYYYDDFMMonthHH12:MIam')",
    ) == [
        dt.date(2016, 12, 5),
        dt.date(2016, 12, 5),
        dt.date(2016, 12, 5),
        dt.date(2016, 12, 5),
        dt.date(2017, 3, 30),
        dt.date(1999, 10, 18),
        dt.date(1968, 1, 1),
        dt.date(2017, 3, 31),
        dt.datetime(1978, 7, 25, 1, 12),
    ]


def test_joda_patterns(data_engine):
    # Drill 1.22: TO_TIMESTAMP('2008-2-3 1:2:3', 'yyyy-MM-dd HH:mm:ss') 2008-02-03 01:02:03,
    # TO_DATE('2008-02-03', 'YYYY-MM-dd') 2008-02-03, TO_DATE('20080203', 'yyyyMMdd'),
    # UNIX_TIMESTAMP('2008-2-3', 'yyyy-MM-dd') 1201996800; TO_CHAR(TIMESTAMP '2008-02-03
    # 01:02:03.456', 'YYYY') '2008', ... 'SS' '45'; to_char(sql_to_timestamp(...),
    # 'YYYY/MMM/dd hh:MM:ss:SS a') '2017/Mar/31 10:03:00:44 AM'
    assert one(
        data_engine,
        "TO_TIMESTAMP('2008-2-3 1:2:3', 'yyyy-MM-dd HH:mm:ss'), TO_DATE('2008-02-03', "
        "'YYYY-MM-dd'), TO_DATE('20080203', 'yyyyMMdd'), UNIX_TIMESTAMP('2008-2-3', "
        "'yyyy-MM-dd'), TO_CHAR(TIMESTAMP '2008-02-03 01:02:03.456', 'YYYY'), "
        "TO_CHAR(TIMESTAMP '2008-02-03 01:02:03.456', 'SS'), "
        "to_char(sql_to_timestamp('2017-03-31 10:13:00.44', 'yyyy-mm-dd HH:MI:SS.MS'), "
        "'YYYY/MMM/dd hh:MM:ss:SS a')",
    ) == [
        dt.datetime(2008, 2, 3, 1, 2, 3),
        dt.date(2008, 2, 3),
        dt.date(2008, 2, 3),
        1201996800,
        "2008",
        "45",
        "2017/Mar/31 10:03:00:44 AM",
    ]


# ----------------------------------------------------------------------------- CONVERT_FROM


def test_convert_from_json_of_a_constant_is_typed(data_engine):
    # Drill 1.22: CONVERT_FROM('{x:100, y:215.6}', 'JSON') {"x":100,"y":215.6};
    # CONVERT_FROM('[ [1, 2], [3, 4], [5]]', 'JSON') [[1,2],[3,4],[5]];
    # CONVERT_FROM('[{a : 100, b: 200}, {a:300, b: 400}]', 'JSON') as maps
    got = one(
        data_engine,
        "CONVERT_FROM('{x:100, y:215.6}', 'JSON'), CONVERT_FROM('[ [1, 2], [3, 4], [5]]', "
        "'JSON'), CONVERT_FROM('[{a : 100, b: 200}, {a:300, b: 400}]', 'JSON')",
    )
    assert got == [
        {"x": 100, "y": 215.6},
        [[1, 2], [3, 4], [5]],
        [{"a": 100, "b": 200}, {"a": 300, "b": 400}],
    ]


def test_convert_from_json_of_text_reads_unquoted_keys(data_engine):
    # Drill 1.22: SELECT CONVERT_FROM(s, 'JSON') FROM (VALUES('{"a": 1}'), ('{a: 2}')) t(s)
    # gives the maps {"a": 1} and {"a": 2}; here each row is a VARIANT holding that map
    got = rows(
        data_engine, "SELECT CONVERT_FROM(s, 'JSON') FROM (VALUES('{\"a\": 1}'), ('{a: 2}')) t(s)"
    )
    assert [r[0].toPython() for r in got] == [{"a": 1}, {"a": 2}]


# ---------------------------------------------------------------------- MODEOF, both doors


def test_modeof_of_a_required_parquet_column_through_both_doors(spark, data_engine, shared):
    # Drill 1.22: SELECT modeof(r_name), modeof(r_regionkey), modeof(r_regionkey + 1) FROM
    # region.parquet (REQUIRED columns) is NOT NULL x3; an OPTIONAL column is NULLABLE (Drill
    # 1.22 for alltypes' c_integer; here voter.parquet's voter_id, which Spark's reader reads)
    assert rows(
        data_engine,
        f"SELECT modeof(r_name), modeof(r_regionkey), modeof(r_regionkey + 1) FROM {REGION} "
        "WHERE r_regionkey = 1",
    ) == [["NOT NULL", "NOT NULL", "NOT NULL"]]
    region = shared / "data" / "breadth" / "tpch" / "region.parquet"
    voter = shared / "data" / "breadth" / "tf" / "p1tests" / "voter.parquet"
    got = spark.sql(
        f"SELECT drill_modeof(r_name), drill_modeof(r_regionkey), drill_modeof(r_regionkey + 1) "
        f"FROM parquet.`{region}` WHERE r_regionkey = 1"
    ).collect()
    assert [tuple(r) for r in got] == [("NOT NULL", "NOT NULL", "NOT NULL")]
    spark.read.parquet(str(region)).createOrReplaceTempView("fn_region")
    assert spark.sql("SELECT drill_modeof(r_name) FROM fn_region LIMIT 1").first()[0] == (
        "NOT NULL"
    )
    assert (
        spark.sql(f"SELECT drill_modeof(voter_id) FROM parquet.`{voter}` LIMIT 1").first()[0]
        == "NULLABLE"
    )
    assert rows(
        data_engine, "SELECT modeof(voter_id) FROM dfs.`breadth/tf/p1tests/voter.parquet` LIMIT 1"
    ) == [["NULLABLE"]]


def test_an_aggregate_of_random_is_computed_per_row_ahead_of_it(data_engine):
    # Drill 1.22 (2026-12-07) answers MAX(RANDOM()) (Spark refuses a nondeterministic
    # aggregate argument): the lowering computes the argument in a transform ahead of the
    # aggregate, so each row draws its own number and every group's MAX is above its MIN
    got = rows(
        data_engine,
        "SELECT state, COUNT(*), COUNT(RANDOM()), MAX(RANDOM()) > MIN(RANDOM()), "
        "MAX(RANDOM()) < 1, CHAR_LENGTH(ANY_VALUE(CAST(RANDOM() AS VARCHAR))) > 0 "
        "FROM dfs.root.`yelp/yelp_business_small.ndjson` GROUP BY state HAVING COUNT(*) > 1",
    )
    assert len(got) > 1
    assert all(n == m and above and below and text for _, n, m, above, below, text in got), got
    plan = rows(data_engine, "EXPLAIN PLAN FOR SELECT MAX(RANDOM()) FROM (VALUES(1))")[0][0]
    assert "transform" in plan and "groupingaggregate" in plan, plan


def test_text_beside_an_interval_is_read_as_a_timestamp(data_engine, tmp_path):
    # Drill 1.22 (2026-12-07): '2024-01-31' + INTERVAL '1' MONTH is 2024-02-29 00:00:00, a
    # TIMESTAMP (Spark's analyzer had refused the month's sum with its whole expression, and
    # taken the day's as text); text that is no timestamp fails as Drill's cast fails
    (tmp_path / "dt.json").write_text('{"d": "2024-01-31"}\n{"d": "2024-02-29 10:00:00"}\n')
    got = rows(
        data_engine,
        "SELECT d + INTERVAL '1' MONTH, d - INTERVAL '1' DAY, typeof(d + INTERVAL '1' HOUR) "
        "FROM dfs.tmp.`dt.json`",
    )
    assert got == [
        [dt.datetime(2024, 2, 29), dt.datetime(2024, 1, 30), "TIMESTAMP"],
        [dt.datetime(2024, 3, 29, 10), dt.datetime(2024, 2, 28, 10), "TIMESTAMP"],
    ]
    fails(data_engine, f"SELECT 'abc' + INTERVAL '1' DAY FROM {V}", "could not parse the TIMESTAMP")


def test_case_and_coalesce_of_text_and_other_constants_are_text(data_engine, tmp_path):
    # Drill 1.22 (2026-12-07): constants of text and of another type side by side are VARCHAR
    # (Spark cast 'a' to a number and failed); beside a column's value the text is cast to
    # the column's type, in both (CASE WHEN id > 2 THEN id ELSE '7' END is a BIGINT)
    assert one(
        data_engine,
        "CASE WHEN 1 = 1 THEN 'a' ELSE 2 END, COALESCE('a', 1), COALESCE(1, 'a'), "
        "typeof(COALESCE(1, 'a')), CASE WHEN 1 = 0 THEN 'a' ELSE 2.5 END, "
        "COALESCE(DATE '2024-01-01', 'x')",
    ) == ["a", "a", "1", "VARCHAR", "2.5", "2024-01-01"]
    (tmp_path / "ids.json").write_text('{"id": 1}\n{"id": 3}\n')
    assert rows(
        data_engine,
        "SELECT CASE WHEN id > 1 THEN 'a' ELSE 2 END, CASE WHEN id > 2 THEN id ELSE '7' END "
        "FROM dfs.tmp.`ids.json`",
    ) == [["2", 7], ["a", 3]]


def test_octet_and_bit_lengths_are_bigint(data_engine):
    # Drill 1.22 (2026-12-07): 6 and 48, both BIGINT
    assert one(
        data_engine,
        "octet_length('h\u00e9llo'), bit_length('h\u00e9llo'), "
        "typeof(octet_length('h\u00e9llo')), typeof(bit_length('h\u00e9llo'))",
    ) == [6, 48, "BIGINT", "BIGINT"]


def test_to_timestamp_reads_a_zone_offset_as_the_utc_instant(data_engine):
    # Drill 1.22 (2026-12-07): Joda's Z reads 'Z' and '+0100', ZZ '+01:00', and the TIMESTAMP
    # is the instant in UTC: 14:07:09.5, 13:07:09.5, 13:07:09 (Spark's Z had refused 'Z')
    assert one(
        data_engine,
        "to_timestamp('2024-03-05T14:07:09.5Z', 'yyyy-MM-dd''T''HH:mm:ss.SZ'), "
        "to_timestamp('2024-03-05T14:07:09.5+0100', 'yyyy-MM-dd''T''HH:mm:ss.SZ'), "
        "to_timestamp('2024-03-05T14:07:09+01:00', 'yyyy-MM-dd''T''HH:mm:ssZZ')",
    ) == [
        dt.datetime(2024, 3, 5, 14, 7, 9, 500000),
        dt.datetime(2024, 3, 5, 13, 7, 9, 500000),
        dt.datetime(2024, 3, 5, 13, 7, 9),
    ]


def test_times_fractions_and_zero_divisors_as_drill(data_engine):
    # Drill 1.22 (2026-12-07): a TIME cast to TIMESTAMP is on 1970-01-01 (it had been on the
    # day the query ran); a fractional length or position is rounded half up (SUBSTRING FROM
    # 1.5 FOR 2 'bc', SUBSTR(.., 2, 3.7) 'bcde', LEFT(.., 2.5) 'abc'; they had been cut
    # down); BYTE_SUBSTR from 0 is no bytes
    assert one(
        data_engine,
        "CAST(CAST(TIME '13:14:15' AS TIMESTAMP) AS VARCHAR), "
        "SUBSTRING('abcdef' FROM 1.5 FOR 2), SUBSTR('abcdef', 2, 3.7), LEFT('abcdef', 2.5), "
        "RIGHT('abcdef', 2.5), BYTE_SUBSTR('abc', 0, 2), BYTE_SUBSTR('abc', 1, 2)",
    ) == ["1970-01-01 13:14:15.000", "bc", "bcde", "abc", "def", b"", b"ab"]
    # Drill fails these rows where drillspark had answered: NaN as a DECIMAL (NULL), a
    # DECIMAL's MOD by 0 (the dividend), a DOUBLE other than 0 or 1 as a BOOLEAN (true)
    fails(
        data_engine,
        f"SELECT CAST(CAST('NaN' AS DOUBLE) AS DECIMAL(5,2)) FROM {V}",
        "Character N is neither a decimal digit number",
    )
    fails(
        data_engine,
        f"SELECT CAST(CAST('-Infinity' AS DOUBLE) AS DECIMAL(5,2)) FROM {V}",
        "Character I is neither a decimal digit number",
    )
    fails(
        data_engine,
        f"SELECT MOD(CAST(7.5 AS DECIMAL(5,2)), 0) FROM {V}",
        "ArithmeticException: Division by zero",
    )
    fails(
        data_engine,
        f"SELECT CAST(1.5e0 AS BOOLEAN) FROM {V}",
        "Invalid value for boolean: 1.5",
    )
    assert one(data_engine, "CAST(1.0e0 AS BOOLEAN), MOD(CAST(7.5 AS DECIMAL(5,2)), 2)") == [
        True,
        Decimal("1.50"),
    ]


def test_regexp_extract_of_a_group_and_long_joda_letters(data_engine):
    # Drill 1.22 (2026-12-07): REGEXP_EXTRACT(s, p, n) is group n of the first match ('123';
    # 0 the whole match), a VARCHAR (it had been refused: "takes 2 arguments"); TO_CHAR's
    # MMMMM and EEEEE the full names (Spark had refused five letters), ZZ '+00:00', ZZZ 'UTC'
    # (they had been '+0000')
    assert one(
        data_engine,
        "REGEXP_EXTRACT('abc123', '([a-z]+)([0-9]+)', 2), "
        "REGEXP_EXTRACT('abc123', '([a-z]+)([0-9]+)', 0), "
        "sqltypeof(REGEXP_EXTRACT('abc123', '([a-z]+)([0-9]+)', 2)), "
        "TO_CHAR(DATE '2024-02-29', 'MMMMM EEEEE'), "
        "TO_CHAR(TIMESTAMP '2024-02-29 13:14:15', 'Z ZZ ZZZ')",
    ) == ["123", "abc123", "CHARACTER VARYING", "February Thursday", "+0000 +00:00 UTC"]


def test_a_decimal_below_a_millionth_is_written_as_java_writes_it(data_engine):
    # Drill 1.22 (2026-12-07) writes a DECIMAL as text (CAST, ||, CONCAT) with Java's
    # BigDecimal.toString: below 10^-6 in scientific notation with every digit of the scale
    # (1.000E-7, x1.00E-8, v5.0E-8, 0E-10, -1.23450E-7), else plainly (0.0000010000); the
    # scientific ones had been written plainly here
    assert one(
        data_engine,
        "CAST(CAST(0.0000001 AS DECIMAL(20,10)) AS VARCHAR), "
        "'x' || CAST(0.00000001 AS DECIMAL(20,10)), CONCAT('v', CAST(0.00000005 AS DECIMAL(10,9))), "
        "CAST(CAST(0 AS DECIMAL(20,10)) AS VARCHAR), "
        "CAST(CAST(-0.00000012345 AS DECIMAL(20,12)) AS VARCHAR), "
        "CAST(CAST(0.000001 AS DECIMAL(20,10)) AS VARCHAR), CAST(CAST(12.5 AS DECIMAL(20,10)) AS VARCHAR)",
    ) == [
        "1.000E-7",
        "x1.00E-8",
        "v5.0E-8",
        "0E-10",
        "-1.23450E-7",
        "0.0000010000",
        "12.5000000000",
    ]


def test_avg_of_a_subquerys_cast_decimal_keeps_six_places(data_engine):
    # Drill 1.22 (2026-12-07): AVG over a subquery's CAST(x AS DECIMAL(12, 2)) is planned as a
    # DECIMAL: 3.125000, DECIMAL(38, 6) (it had been 3.13, the column's scale, as for a
    # column only the run time types)
    assert rows(
        data_engine,
        "SELECT avg(a), sqltypeof(avg(a)) FROM (SELECT CAST(x AS DECIMAL(12,2)) a "
        "FROM (VALUES(1.25),(2.50),(3.75),(5.00)) v(x))",
    ) == [[Decimal("3.125000"), "DECIMAL(38, 6)"]]


def test_a_date_with_a_time(data_engine):
    # Drill 1.22 (2026-12-07): CAST(DATE AS TIME) is midnight, DATE + TIME (either order) the
    # TIMESTAMP of that day at that time; Spark had refused all three (DATATYPE_MISMATCH)
    assert one(
        data_engine,
        "CAST(CAST(DATE '2024-02-29' AS TIME) AS VARCHAR), "
        "CAST(DATE '2024-01-01' + TIME '10:00:00' AS VARCHAR), "
        "CAST(TIME '10:00:00' + DATE '2024-01-01' AS VARCHAR), "
        "sqltypeof(DATE '2024-01-01' + TIME '10:00:00')",
    ) == ["00:00:00.000", "2024-01-01 10:00:00.000", "2024-01-01 10:00:00.000", "TIMESTAMP"]


def test_rounding_a_decimal_keeps_its_precision(data_engine):
    # Drill 1.22 (2026-12-07) over alltypes' d9 DECIMAL(8, 2), d18 (18, 4), d38 (38, 6):
    # CEIL(d9) DECIMAL(8, 0), ROUND(d18, 2) (18, 2), FLOOR(d38) (38, 0), TRUNC(d38, 2)
    # (38, 2); Spark's narrower (7, 0), (17, 2), (33, 0), (35, 2) had been given; the values
    # agree
    table = "dfs.`breadth/tf/aggregation/alltypes/0_0_0.parquet`"
    assert rows(
        data_engine,
        "SELECT sqltypeof(CEIL(d9)), sqltypeof(ROUND(d18, 2)), sqltypeof(FLOOR(d38)), "
        f"sqltypeof(TRUNC(d38, 2)), ROUND(CAST(99.99 AS DECIMAL(4,2)), 0) FROM {table} LIMIT 1",
    ) == [["DECIMAL(8, 0)", "DECIMAL(18, 2)", "DECIMAL(38, 0)", "DECIMAL(38, 2)", Decimal("100")]]


def test_an_interval_qualifier_with_a_leading_precision(data_engine):
    # Drill 1.22 (2026-12-07): INTERVAL '100' DAY(3) is 100 days, '1000' HOUR(4) 41 days 16
    # hours, '100 2' DAY(3) TO HOUR 100 days 2 hours (it had been refused: "INTERVAL 3 TO 3
    # is not an interval qualifier"); a value past the precision is Drill's error
    assert one(
        data_engine,
        "CAST(INTERVAL '100' DAY(3) AS VARCHAR), CAST(INTERVAL '1000' HOUR(4) AS VARCHAR), "
        "CAST(INTERVAL '100 2' DAY(3) TO HOUR AS VARCHAR)",
    ) == ["100 days 0:0:0.0", "41 days 16:0:0.0", "100 days 2:0:0.0"]
    fails(
        data_engine,
        f"SELECT INTERVAL '1000' DAY(3) FROM {V}",
        "Interval field value 1000 exceeds precision of DAY(3) field",
    )
