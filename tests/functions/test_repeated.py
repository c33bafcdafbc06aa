"""drill_repeated_count / drill_repeated_contains on Drill's cases and real data."""

from __future__ import annotations

import re

import pyspark.sql.functions as F
import pytest
from pyspark.errors import PySparkException
from tests.functions.helpers import assert_case, conformance_table


@pytest.mark.parametrize(
    "case_id, query",
    [
        ("drill.fn.repeated_count_repeated_list", "select drill_repeated_count(array) from t"),
        ("drill.fn.repeated_count_repeated_map", "select drill_repeated_count(mapArray) from t"),
        ("drill.fn.repeated_count_varchar", "select drill_repeated_count(str_list) from t"),
        (
            "drill.fn.repeated_contains_regex_pow",
            "select drill_repeated_contains(topping, 'Pow*') from t",
        ),
    ],
)
def test_drill_cases(spark, shared, case_id, query):
    c = conformance_table(spark, shared, case_id)
    df = spark.sql(query)
    assert df.schema[0].dataType.typeName() == {"INT": "integer", "BIT": "boolean"}[c["types"][0]]
    assert_case(df, c)


def test_count_matches_array_size_and_missing_counts_zero(spark, yelp):
    df = yelp.select(
        F.size("categories").alias("n"),
        F.call_function("drill_repeated_count", "categories").alias("c"),
    )
    assert all(r.n == r.c for r in df.collect())
    assert spark.sql("select drill_repeated_count(cast(null as array<int>))").first()[0] == 0


def test_contains_is_a_regex_search_for_strings(spark, yelp):
    df = yelp.select(
        "categories",
        F.call_function("drill_repeated_contains", "categories", F.lit("Rest.*")).alias("c"),
    )
    got = [(r.c, any(re.search("Rest.*", x) for x in r.categories)) for r in df.collect()]
    assert all(a == b for a, b in got) and any(a for a, _ in got)
    assert (
        spark.sql("select drill_repeated_contains(array('Chocolate'), 'Choc*')").first()[0] is True
    )


def test_contains_is_equality_otherwise(spark, citibike):
    ids = citibike.select(F.col("stationBeanList.id").alias("ids"))
    first = citibike.first().stationBeanList[0].id
    got = ids.select(
        F.call_function("drill_repeated_contains", "ids", F.lit(first)).alias("c"),
        F.call_function("drill_repeated_contains", "ids", F.lit(-1)).alias("no"),
    ).collect()
    assert [(r.c, r.no) for r in got] == [(True, False), (True, False)]
    assert spark.sql("select drill_repeated_contains(array(1.5D, 2D), 2)").first()[0] is True
    assert (
        spark.sql("select drill_repeated_contains(array(1, 2), cast(null as int))").first()[0]
        is None
    )


def test_bad_regex_names_the_pattern(spark):
    with pytest.raises(
        PySparkException,
        match=r"Invalid regular expression '\(' in drill_repeated_contains\(array\('a'\), '\('\)",
    ):
        spark.sql("select drill_repeated_contains(array('a'), '(')").collect()


CONTAINS = {
    # column: (array written to Parquet, so it reads back as Spark's unsafe arrays/rows;
    #          the value searched for, a literal (generic rows); Drill's answer)
    "nan": ("array(double('NaN'), 1D)", "double('NaN')", True),
    "bin": ("array(X'0102', X'03')", "X'0102'", True),
    "st": (
        "array(named_struct('a', 1L, 's', 'x'), named_struct('a', 2L, 's', 'y'))",
        "named_struct('a', 2L, 's', 'y')",
        True,
    ),
    # 2^53 + 1 vs 2^53: equal as doubles, not as numbers
    "big_no": ("array(9007199254740993L)", "9007199254740992BD", False),
    "big_yes": ("array(9007199254740993L)", "9007199254740993BD", True),
    "dec_dbl": ("array(0.5D, 1.5D)", "1.5BD", True),
}


def test_contains_same_answers_interpreted_and_generated(spark, tmp_path):
    path = str(tmp_path / "arrays")
    spark.range(1).selectExpr(*[f"{a} {c}" for c, (a, _, _) in CONTAINS.items()]).write.parquet(
        path
    )
    # The arrays come from Parquet, so nothing folds to a constant and generated code really runs.
    exprs = [f"drill_repeated_contains({c}, {v}) {c}" for c, (_, v, _) in CONTAINS.items()]
    query = lambda: spark.read.parquet(path).selectExpr(*exprs).first().asDict()  # noqa: E731
    generated = query()
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    spark.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    try:
        interpreted = query()
    finally:
        spark.conf.unset("spark.sql.codegen.wholeStage")
        spark.conf.unset("spark.sql.codegen.factoryMode")
    want = {c: expected for c, (_, _, expected) in CONTAINS.items()}
    assert (generated, interpreted) == (want, want)
