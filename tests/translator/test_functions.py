"""The Drill function catalog: Drill semantics checked on small data computed by hand."""

from __future__ import annotations

import math

import pytest
from pyspark.sql import functions as F

from drillspark.spark.function_catalog import Arg, UnknownFunctionError
from drillspark.spark.functions import CATALOG
from drillspark.spark.scope import Scope


def _eval(spark, rows, schema, name, *args):
    df = spark.createDataFrame(rows, schema)
    scope = Scope(df)
    built = [
        Arg(F.lit(a), a) if not isinstance(a, str) or not a.startswith("$") else Arg(F.col(a[1:]))
        for a in args
    ]
    return [r[0] for r in df.select(CATALOG.call(name, built, scope)).collect()]


def test_integer_division_truncates_like_java(spark):
    got = _eval(spark, [(7, 2), (-7, 2), (7, None)], "a bigint, b bigint", "divide", "$a", "$b")
    assert got == [3, -3, None]


def test_float_division(spark):
    got = _eval(spark, [(7.0, 2)], "a double, b bigint", "divide", "$a", "$b")
    assert got == [3.5]


def test_concat_skips_nulls_but_concat_operator_does_not(spark):
    rows, schema = [("a", None), ("x", "y")], "s string, t string"
    assert _eval(spark, rows, schema, "concat", "$s", "$t") == ["a", "xy"]
    assert _eval(spark, rows, schema, "concatOperator", "$s", "$t") == [None, "xy"]


def test_round_nan_and_infinity(spark):
    rows = [(float("nan"),), (float("inf"),), (float("-inf"),), (2.5,), (None,)]
    got = _eval(spark, rows, "x double", "round", "$x")
    assert got == [0.0, 9.223372036854776e18, -9.223372036854776e18, 3.0, None]


def test_substr_is_one_based(spark):
    rows = [("Chocolate",)]
    assert _eval(spark, rows, "s string", "substr", "$s", 2, 3) == ["hoc"]
    assert _eval(spark, rows, "s string", "substring", "$s", 4) == ["colate"]


def test_repeated_count_and_contains(spark):
    rows = [(["Chocolate", "Glazed"],), ([],), (None,)]
    assert _eval(spark, rows, "a array<string>", "repeated_count", "$a") == [2, 0, 0]
    # the string variant is a regex search (find), not equality
    assert _eval(spark, rows, "a array<string>", "repeated_contains", "$a", "Choc*") == [
        True,
        False,
        False,
    ]
    nums = [([1, 2],), ([3],)]
    assert _eval(spark, nums, "a array<bigint>", "repeated_contains", "$a", 2) == [True, False]


def test_typeof_uses_drill_type_names(spark):
    rows = [(1, 1.5, "x", True, [1])]
    schema = "i bigint, d double, s string, b boolean, a array<bigint>"
    got = [_eval(spark, rows, schema, "typeof", f"${c}")[0] for c in "idsba"]
    assert got == ["BIGINT", "FLOAT8", "VARCHAR", "BIT", "BIGINT"]


def test_convert_round_trips_big_and_little_endian(spark):
    df = spark.createDataFrame([(-2, 300, 7)], "i int, s smallint, b bigint")
    scope = Scope(df)
    out = []
    for col, enc in (("i", "INT"), ("i", "INT_BE"), ("s", "SMALLINT_BE"), ("b", "BIGINT")):
        to = CATALOG.call("convert_to", [Arg(F.col(col)), Arg(F.lit(enc), enc)], scope)
        back = CATALOG.call("convert_from", [Arg(to), Arg(F.lit(enc), enc)], scope)
        out.append(df.select(back, to).first())
    assert [r[0] for r in out] == [-2, -2, 300, 7]
    assert bytes(out[1][1]) == (-2).to_bytes(4, "big", signed=True)  # INT_BE
    assert bytes(out[3][1]) == (7).to_bytes(8, "little")  # BIGINT is little-endian


def test_aggregates(spark):
    df = spark.createDataFrame([(1,), (2,), (None,), (2,)], "x bigint")
    scope = Scope(df)
    x = [Arg(F.col("x"))]
    row = df.select(
        CATALOG.call("count", [], scope),
        CATALOG.call("count", x, scope),
        CATALOG.call("sum", x, scope),
        CATALOG.call("avg", x, scope),
        CATALOG.call("min", x, scope),
        CATALOG.call("max", x, scope),
        CATALOG.call("count_distinct", x, scope),
    ).first()
    assert tuple(row) == (4, 3, 5, pytest.approx(5 / 3), 1, 2, 2)


def test_math_and_strings(spark):
    rows = [(-2.7, "  Hi  ")]
    schema = "x double, s string"
    assert _eval(spark, rows, schema, "abs", "$x") == [2.7]
    assert _eval(spark, rows, schema, "trunc", "$x") == [-2.0]
    assert _eval(spark, rows, schema, "btrim", "$s") == ["Hi"]
    assert _eval(spark, rows, schema, "upper", "$s") == ["  HI  "]
    assert math.isclose(_eval(spark, rows, schema, "log", 2, 8)[0], 3.0)
    assert _eval(spark, rows, schema, "length", "$s") == [6]


def test_unknown_function_names_the_closest(spark):
    with pytest.raises(UnknownFunctionError) as e:
        CATALOG.lookup("sbustr", "operator @3 (project): ")
    msg = str(e.value)
    assert "operator @3" in msg and "substr" in msg


def test_wrong_arity(spark):
    df = spark.createDataFrame([(1,)], "x bigint")
    with pytest.raises(ValueError, match=r"abs\(\) takes 1 arguments, got 2"):
        CATALOG.call("abs", [Arg(F.col("x")), Arg(F.col("x"))], Scope(df))


def test_cast_with_drill_type_names(spark):
    from drillspark.spark.drill_types import UnknownTypeError, drill_type

    assert drill_type("varchar(10)").simpleString() == "string"
    assert drill_type("FLOAT8").simpleString() == "double"
    assert drill_type("decimal18", 9, 2).simpleString() == "decimal(9,2)"
    with pytest.raises(UnknownTypeError):
        drill_type("blob")


def _plan(query, options=None):
    head = {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "test", "info": ""}}
    if options is not None:
        head["options"] = options
    return {"head": head, "storage": {}, "query": query}


def test_typeof_of_a_missing_column_is_the_readers_null_type(spark):
    import drillspark

    query = [
        {"@id": 1, "op": "values", "content": [{"a": 1}]},
        {
            "@id": 2,
            "op": "project",
            "input": 1,
            "projections": [
                {"ref": "t", "expr": "typeof(nope)"},
                {"ref": "s", "expr": "sqltypeof(nope)"},
                {"ref": "m", "expr": "typeof(a.b)"},
                {"ref": "v", "expr": "nope"},
            ],
        },
    ]
    # V2 JSON reader (the default): missing columns are nullable VARCHAR; the value is NULL
    got = drillspark.run(_plan(query), spark=spark).rows()
    assert got == [{"t": "VARCHAR", "s": "CHARACTER VARYING", "m": "VARCHAR", "v": None}]
    v1 = drillspark.run(_plan(query, {"store.json.enable_v2_reader": False}), spark=spark)
    assert v1.rows()[0]["t"] == "INT"


def test_cast_to_time_is_a_time_value(spark):
    import datetime

    import drillspark

    query = [
        {"@id": 1, "op": "values", "content": [{"s": "01:00:20.123"}, {"s": None}]},
        {
            "@id": 2,
            "op": "project",
            "input": 1,
            "projections": [
                {"ref": "t", "expr": "cast(s as TIME)"},
                {"ref": "ty", "expr": "typeof(cast(s as TIME))"},
                {"ref": "sq", "expr": "sqltypeof(cast(s as TIME))"},
            ],
        },
    ]
    result = drillspark.run(_plan(query), spark=spark)
    assert result.rows() == [
        {"t": datetime.time(1, 0, 20, 123000), "ty": "TIME", "sq": "TIME"},
        {"t": None, "ty": "TIME", "sq": "TIME"},
    ]
    assert str(result.to_arrow().schema.field("t").type).startswith("time64")
