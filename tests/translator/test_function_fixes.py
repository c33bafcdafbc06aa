"""Drill function semantics the catalog once got wrong: whole-string regex matching, SIMILAR TO
patterns, literal-only arguments, division and modulo by zero, EXTRACT units, date arithmetic
and numeric to_char. Expected values follow Drill's function implementations."""

from __future__ import annotations

import datetime
import math

import pytest
from pyspark.sql import functions as F

from drillspark.spark.function_catalog import Arg, FunctionArgumentError
from drillspark.spark.functions import CATALOG
from drillspark.spark.scope import Scope


def _eval(spark, rows, schema, name, *args):
    """`name(args)` over `rows`; an argument "$c" is column c, anything else a literal."""
    df = spark.createDataFrame(rows, schema)
    built = [
        Arg(F.col(a[1:])) if isinstance(a, str) and a.startswith("$") else Arg(F.lit(a), a)
        for a in args
    ]
    return [r[0] for r in df.select(CATALOG.call(name, built, Scope(df))).collect()]


def _project(run_plan, rows, **exprs):
    query = [
        {"@id": 1, "op": "values", "content": rows},
        {
            "@id": 2,
            "op": "project",
            "input": 1,
            "projections": [{"ref": k, "expr": v} for k, v in exprs.items()],
        },
    ]
    return run_plan(query).rows()


# --- regexp_matches / similar_to: Matcher.matches(), the whole string -----------------------


def test_regexp_matches_needs_the_whole_string_to_match(spark):
    rows, schema = [("abc",), ("b",), (None,)], "s string"
    assert _eval(spark, rows, schema, "regexp_matches", "$s", "b") == [False, True, None]
    assert _eval(spark, rows, schema, "regexp_matches", "$s", "a.c|b") == [True, True, None]
    # alternation must not let one branch match a prefix only
    assert _eval(spark, [("ab",)], schema, "regexp_matches", "$s", "a|ab") == [True]
    # a pattern held in a column is anchored as well
    got = _eval(
        spark, [("abc", "b"), ("abc", "a.*")], "s string, p string", "regexp_matches", "$s", "$p"
    )
    assert got == [False, True]


def test_similar_to_translates_the_sql_pattern(spark):
    rows, schema = [("abc",), ("a",), ("xabc",)], "s string"
    assert _eval(spark, rows, schema, "similar_to", "$s", "a%") == [True, True, False]
    assert _eval(spark, rows, schema, "similar_to", "$s", "a__") == [True, False, False]
    assert _eval(spark, rows, schema, "similar_to", "$s", "(a|x)(b|a)%") == [True, False, True]
    assert _eval(spark, rows, schema, "similar_to", "$s", "[a-c]+") == [True, True, False]
    # '$' and '\' are ordinary characters in a SIMILAR pattern
    assert _eval(spark, [("a$",), ("a\\b",)], schema, "similar_to", "$s", "a$") == [True, False]
    assert _eval(spark, [("a\\b",)], schema, "similar", "$s", "a\\b") == [True]
    # an escape character makes % literal
    esc = [("a%c",), ("abc",)]
    assert _eval(spark, esc, schema, "similar_to", "$s", "a#%c", "#") == [True, False]


def test_similar_to_through_sql(spark):
    from drillspark.sql import SqlEngine

    # an engine of its own: drillspark.sql's default engine is cached per session
    result = SqlEngine(spark).execute(
        "SELECT 'abc' SIMILAR TO 'a%' AS a, regexp_matches('abc', 'b') AS b FROM (VALUES(1)) t(x)"
    )
    assert result[-1].rows() == [{"a": True, "b": False}]


def test_similar_to_pattern_must_be_a_literal(spark):
    df = spark.createDataFrame([("a", "a")], "s string, p string")
    with pytest.raises(FunctionArgumentError, match=r"similar_to\(\): argument 2"):
        CATALOG.call("similar_to", [Arg(F.col("s")), Arg(F.col("p"))], Scope(df))


def test_invalid_similar_pattern_is_an_argument_error(spark):
    df = spark.createDataFrame([("a",)], "s string")
    with pytest.raises(FunctionArgumentError, match="invalid SIMILAR TO pattern"):
        CATALOG.call("similar_to", [Arg(F.col("s")), Arg(F.lit("a]"), "a]")], Scope(df))


# --- literal-only arguments ---------------------------------------------------------------


def test_round_and_trunc_keep_a_literal_scale(spark):
    rows, schema = [(1.235,), (-1.239,)], "x double"
    assert _eval(spark, rows, schema, "round", "$x", 2) == [1.24, -1.24]
    assert _eval(spark, rows, schema, "trunc", "$x", 2) == [1.23, -1.23]


def test_round_with_a_column_scale_names_the_argument_and_operator(run_plan):
    with pytest.raises(Exception, match=r"@2.*round\(\): argument 2 \(the scale\)"):
        _project(run_plan, [{"x": 1.234, "s": 2}], r="round(x, s)")
    with pytest.raises(Exception, match=r"@2.*trunc\(\): argument 2 \(the scale\)"):
        _project(run_plan, [{"x": 1.234, "s": 2}], r="trunc(x, s)")


def test_split_takes_one_literal_character(spark, run_plan):
    rows, schema = [("a,b,,c",), ("",), (None,)], "s string"
    assert _eval(spark, rows, schema, "split", "$s", ",") == [["a", "b", "", "c"], [""], []]
    assert _eval(spark, [("a.b",)], schema, "split", "$s", ".") == [["a", "b"]]
    with pytest.raises(FunctionArgumentError, match="single character"):
        _eval(spark, rows, schema, "split", "$s", ",,")
    with pytest.raises(Exception, match=r"@2.*split\(\): argument 2 \(the delimiter\)"):
        _project(run_plan, [{"s": "a,b", "d": ","}], r="split(s, d)")


# --- arithmetic by zero: Java semantics ------------------------------------------------------


def test_floating_division_by_zero_is_infinity_or_nan(spark):
    rows = [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, -0.0), (6.0, 4.0), (None, 0.0)]
    got = _eval(spark, rows, "a double, b double", "divide", "$a", "$b")
    assert got[:2] == [math.inf, -math.inf] and math.isnan(got[2])
    assert got[3:] == [-math.inf, 1.5, None]
    # an integer over a floating zero is floating point too
    assert _eval(spark, [(3, 0.0)], "a bigint, b double", "divide", "$a", "$b") == [math.inf]


def test_integer_division_by_zero_fails_like_java(spark):
    with pytest.raises(Exception, match="(?i)divi.*zero"):
        _eval(spark, [(1, 0)], "a bigint, b bigint", "divide", "$a", "$b")


def test_mod_by_zero_returns_the_dividend(spark):
    rows = [(7, 0), (-7, 2), (7, -2), (None, 0)]
    assert _eval(spark, rows, "a bigint, b bigint", "mod", "$a", "$b") == [7, -1, 1, None]
    assert _eval(spark, [(7.5, 0.0), (7.5, 2.0)], "a double, b double", "modulo", "$a", "$b") == [
        7.5,
        1.5,
    ]


# --- EXTRACT / date_part ----------------------------------------------------------------------

TS = datetime.datetime(2020, 7, 5, 13, 4, 5, 123456)  # a Sunday


def test_extract_second_is_float8_with_milliseconds(spark):
    got = _eval(spark, [(TS,)], "t timestamp", "extractSecond", "$t")
    assert got == [5.123]
    assert _eval(spark, [(TS.date(),)], "d date", "extractSecond", "$d") == [0.0]


def test_extract_units_beyond_the_basic_six(spark):
    rows = [(TS,), (datetime.datetime(2021, 1, 1),), (datetime.datetime(2020, 11, 30),)]
    schema = "t timestamp"

    def ex(unit):
        return _eval(spark, rows, schema, f"extract{unit}", "$t")

    assert ex("Dow") == [7, 5, 1]  # ISO: Monday = 1 ... Sunday = 7
    assert ex("DayOfWeek") == [7, 5, 1]
    assert ex("Doy") == [187, 1, 335]
    assert ex("Week") == [27, 53, 49]  # ISO week of the week-based year
    # Drill computes the quarter as month / 4 + 1 (July and November give 2 and 3)
    assert ex("Quarter") == [2, 1, 3]
    assert ex("Epoch") == [1593954245123, 1609459200000, 1606694400000]  # milliseconds
    assert ex("Year") == [2020, 2021, 2020]


def test_date_part_uses_the_same_units(spark):
    rows, schema = [(TS,)], "t timestamp"
    assert _eval(spark, rows, schema, "date_part", "second", "$t") == [5.123]
    assert _eval(spark, rows, schema, "date_part", "dow", "$t") == [7]
    with pytest.raises(FunctionArgumentError, match="date_part.*'fortnight'"):
        _eval(spark, rows, schema, "date_part", "fortnight", "$t")


# --- date arithmetic ----------------------------------------------------------------------------


def test_date_diff_is_an_interval(spark):
    d1, d2 = datetime.date(2020, 3, 1), datetime.date(2020, 1, 1)
    assert _eval(spark, [(d1, d2)], "a date, b date", "date_diff", "$a", "$b") == [
        datetime.timedelta(days=60)
    ]
    t1, t2 = datetime.datetime(2020, 1, 2, 3), datetime.datetime(2020, 1, 1)
    assert _eval(spark, [(t1, t2)], "a timestamp, b timestamp", "date_diff", "$a", "$b") == [
        datetime.timedelta(days=1, hours=3)
    ]
    # date_diff(date, n) subtracts days, as date_sub
    assert _eval(spark, [(d1,)], "a date", "date_diff", "$a", 1) == [datetime.date(2020, 2, 29)]


def test_date_add_with_days_and_intervals(spark):
    d = datetime.date(2020, 1, 31)
    assert _eval(spark, [(d,)], "a date", "date_add", "$a", 1) == [datetime.date(2020, 2, 1)]
    df = spark.createDataFrame([(d, datetime.datetime(2020, 1, 31, 10))], "a date, t timestamp")
    scope = Scope(df)
    day = Arg(F.expr("INTERVAL '1 02' DAY TO HOUR"))
    month = Arg(F.expr("INTERVAL '1' MONTH"))
    row = df.select(
        CATALOG.call("date_add", [Arg(F.col("a")), day], scope),
        CATALOG.call("date_add", [Arg(F.col("t")), month], scope),
        CATALOG.call("date_add", [month, Arg(F.col("a"))], scope),
        CATALOG.call("date_sub", [Arg(F.col("t")), day], scope),
    ).first()
    # a date plus an interval is a TIMESTAMP (Drill); months clamp to the month's end
    assert tuple(row) == (
        datetime.datetime(2020, 2, 1, 2),
        datetime.datetime(2020, 2, 29, 10),
        datetime.datetime(2020, 2, 29),
        datetime.datetime(2020, 1, 30, 8),
    )


def test_date_add_and_sub_take_a_bigint_of_days(spark):
    """Drill adds a BIGINT of days (a JSON file's integers) as an INT: over REST
    `DATE_ADD(DATE '1969-12-25', N_NATIONKEY)` of nation.json answers -604800000 for key 0
    (Drill 1.22); Spark's date_add takes only an INT."""
    d = datetime.date(2020, 1, 31)
    rows, schema = [(d, 2), (d, None)], "a date, n bigint"
    assert _eval(spark, rows, schema, "date_add", "$a", "$n") == [datetime.date(2020, 2, 2), None]
    assert _eval(spark, rows, schema, "date_sub", "$a", "$n") == [datetime.date(2020, 1, 29), None]
    with pytest.raises(Exception, match="CAST_OVERFLOW"):
        _eval(spark, [(d, 1 << 40)], schema, "date_add", "$a", "$n")


def test_date_add_of_an_integer_to_a_timestamp_is_refused(spark):
    df = spark.createDataFrame([(datetime.datetime(2020, 1, 1),)], "t timestamp")
    with pytest.raises(FunctionArgumentError, match="cannot add an integer to a TIMESTAMP"):
        CATALOG.call("date_add", [Arg(F.col("t")), Arg(F.lit(1), 1)], Scope(df))


# --- to_char ----------------------------------------------------------------------------------


def test_to_char_of_numbers_uses_decimal_format_patterns(spark):
    rows, schema = [(1234567.891,), (-0.5,), (2.5,)], "x double"
    assert _eval(spark, rows, schema, "to_char", "$x", "#,###.##") == [
        "1,234,567.89",
        "-0.5",
        "2.5",
    ]
    assert _eval(spark, rows, schema, "to_char", "$x", "000.00") == [
        "1234567.89",
        "-000.50",
        "002.50",
    ]
    assert _eval(spark, rows, schema, "to_char", "$x", "#") == ["1234568", "-0", "2"]  # HALF_EVEN
    assert _eval(spark, [(42,)], "i bigint", "to_char", "$i", "0000") == ["0042"]


def test_to_char_of_dates_uses_the_pattern(spark):
    assert _eval(spark, [(TS,)], "t timestamp", "to_char", "$t", "yyyy-MM-dd HH:mm") == [
        "2020-07-05 13:04"
    ]


def test_extract_from_a_time_value(run_plan):
    got = _project(
        run_plan,
        [{"s": "01:02:20.123"}],
        h="extractHour(cast(s as TIME))",
        sec="extractSecond(cast(s as TIME))",
    )
    assert got == [{"h": 1, "sec": 20.123}]
    with pytest.raises(Exception, match=r"@2.*a TIME has no year"):
        _project(run_plan, [{"s": "01:02:20.123"}], y="extractYear(cast(s as TIME))")


def test_apply_takes_a_function_already_looked_up(spark):
    df = spark.createDataFrame([(-2,)], "x bigint")
    fn = CATALOG.lookup("abs")
    assert df.select(CATALOG.apply(fn, [Arg(F.col("x"))], Scope(df))).first()[0] == 2
    with pytest.raises(FunctionArgumentError, match=r"@9: abs\(\) takes 1 arguments, got 0"):
        CATALOG.apply(fn, [], Scope(df), "@9: ")


def test_like_has_no_escape_character_unless_given(spark):
    # Drill's LIKE without ESCAPE treats a backslash as an ordinary character
    rows, schema = [("a\\b",), ("a%",), ("a\\x",)], "s string"
    assert _eval(spark, rows, schema, "like", "$s", "a\\b") == [True, False, False]
    assert _eval(spark, rows, schema, "like", "$s", "a\\%") == [True, False, True]
    assert _eval(spark, rows, schema, "like", "$s", "a#%", "#") == [False, True, False]
    assert _eval(spark, [("A\\B",)], schema, "ilike", "$s", "a\\b") == [True]
