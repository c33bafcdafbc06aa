"""Missing columns of Drill tables resolve to typed NULLs; Spark's behaviour stays elsewhere."""

from __future__ import annotations

import re

import pyspark.sql.functions as F
import pytest
from pyspark.errors import AnalysisException
from tests.functions.helpers import DRILL_ROOT, assert_case, case, read_json

ALL_TYPES = "data/drill/jsoninput/allTypes.json"


@pytest.fixture
def all_types(shared):
    return str(shared / DRILL_ROOT / ALL_TYPES)


@pytest.fixture
def missing_type(spark):
    yield lambda t: spark.conf.set("spark.drillspark.missingColumns.type", t)
    spark.conf.unset("spark.drillspark.missingColumns.type")


def test_typeof_case_over_the_dfs_catalog(spark, shared):
    c = case(shared, "drill.typeof.json_file_v2")
    root = shared / DRILL_ROOT
    # Drill SQL's typeof is drill_typeof; `x` is not in the file: nullable VARCHAR like Drill V2.
    q = re.sub(r"\btypeof\(", "drill_typeof(", c["sql"])
    q = re.sub(r"dfs\.`([^`]+)`", lambda m: f"dfs.`{root / m.group(1)}`", q)
    assert_case(spark.sql(q), c)


def test_missing_column_is_a_nullable_varchar_with_a_warning(spark, all_types):
    df = spark.sql(f"select x, bi from dfs.`{all_types}`")
    assert df.schema["x"].dataType.simpleString() == "string" and df.schema["x"].nullable
    assert df.schema["x"].metadata == {"drill.missing": "x"}
    assert [tuple(r) for r in df.collect()] == [(None, 123)]


def test_missing_nested_field_in_sql_and_dataframes(spark, all_types):
    df = spark.sql(f"select t.mp.nope, t.mp.a, t.mp.b.c.d from dfs.`{all_types}` t")
    assert [tuple(r) for r in df.collect()] == [(None, 10, None)]
    assert df.schema["nope"].metadata == {"drill.missing": "t.mp.nope"}
    drill = spark.read.format("drill").load(all_types)
    row = drill.select("mp.nope", "bi", "nothere", F.col("mp")["zz"].alias("zz")).first()
    assert tuple(row) == (None, 123, None, None)


def test_missing_column_inside_functions_and_filters(spark, all_types):
    q = (
        f"select drill_typeof(x) t, coalesce(x, 'dflt') c, drill_repeated_count(ar) n "
        f"from dfs.`{all_types}` where x is null and y is null"
    )
    assert [tuple(r) for r in spark.sql(q).collect()] == [("VARCHAR", "dflt", 2)]


def test_classic_nullable_int_by_option(spark, all_types, missing_type):
    missing_type("int")
    df = spark.sql(f"select x, drill_typeof(x) t from dfs.`{all_types}`")
    assert df.schema["x"].dataType.simpleString() == "int" and df.first().t == "INT"


def test_existing_columns_order_by_and_aliases_unchanged(spark, all_types):
    q = f"select bi as b2, st from dfs.`{all_types}` t order by fl, b2"
    assert [tuple(r) for r in spark.sql(q).collect()] == [(123, "foo")]


def test_option_turns_the_rule_off(spark, all_types):
    spark.conf.set("spark.drillspark.missingColumns.enabled", "false")
    try:
        with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
            spark.sql(f"select x from dfs.`{all_types}`").collect()
    finally:
        spark.conf.unset("spark.drillspark.missingColumns.enabled")


def test_other_sources_keep_sparks_errors(spark, shared, all_types):
    read_json(spark, shared / DRILL_ROOT / ALL_TYPES).createOrReplaceTempView("plain")
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
        spark.sql("select x from plain").collect()
    with pytest.raises(AnalysisException, match="FIELD_NOT_FOUND"):
        spark.sql("select plain.mp.nope from plain").collect()
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
        spark.read.json(all_types, multiLine=True, allowUnquotedFieldNames=True).select(
            "x"
        ).collect()


def test_sparks_own_resolution_still_comes_first(spark, all_types):
    # Correlated references, ORDER BY a column not selected, GROUP BY a select alias: all
    # resolved by Spark, not turned into NULLs.
    t = f"dfs.`{all_types}`"
    correlated = f"select bi from {t} o where exists (select 1 from {t} i where i.bi = o.bi)"
    assert [tuple(r) for r in spark.sql(correlated).collect()] == [(123,)]
    assert [tuple(r) for r in spark.sql(f"select st from {t} order by bi").collect()] == [("foo",)]
    grouped = f"select bi % 10 as k, count(*) c from {t} group by k"
    assert [tuple(r) for r in spark.sql(grouped).collect()] == [(3, 1)]
    scalar = f"select (select max(i.nope) from {t} i where i.bi = o.bi) m from {t} o"
    assert [tuple(r) for r in spark.sql(scalar).collect()] == [(None,)]


def test_only_operators_over_drill_data_get_nulls(spark, shared, all_types):
    # The rule looks at each operator's own input: a UNION branch, CTE or subquery over
    # another source keeps Spark's error though the query also reads a Drill table.
    read_json(spark, shared / DRILL_ROOT / ALL_TYPES).createOrReplaceTempView("plain")
    t = f"dfs.`{all_types}`"
    for q in [
        f"select nope from plain union all select bi from {t}",
        f"select bi from {t} union all select nope from plain",
        f"select bi, (select max(nope) from plain) m from {t}",
        f"select bi from {t} where bi in (select nope from plain)",
        f"with c as (select nope from plain) select * from c cross join {t}",
    ]:
        with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
            spark.sql(q).collect()
    with pytest.raises(AnalysisException, match="FIELD_NOT_FOUND"):
        spark.sql(f"select plain.mp.nope from plain union all select bi from {t}").collect()
    # The Drill parts of the same shapes still read missing columns as NULLs.
    drill_parts = [
        f"select nope from {t} union all select st from plain",
        f"with c as (select * from {t}) select nope, bi from c",
        f"select st, (select max(nope) from {t}) m from plain",
    ]
    assert [[tuple(r) for r in spark.sql(q).collect()] for q in drill_parts] == [
        [(None,), ("foo",)],
        [(None, 123)],
        [("foo", None)],
    ]


def test_the_query_carries_a_warning_naming_what_was_missing(spark, all_types):
    # Observable from any client (Spark Connect too): EXPLAIN EXTENDED's analyzed plan names
    # every missing path, in the select list, inside functions and in filters.
    q = f"select coalesce(x, 'dflt'), t.mp.nope, bi from dfs.`{all_types}` t where y is null"
    text = "\n".join(r[0] for r in spark.sql(f"EXPLAIN EXTENDED {q}").collect())
    analyzed = text.split("== Analyzed Logical Plan ==")[1].split("== Optimized Logical Plan ==")[0]
    assert set(re.findall(r"drill_missing\(([^)]*)\)", analyzed)) == {"x", "t.mp.nope", "y"}
    df = spark.sql(q)
    # Column names are the ones the query has when the columns exist.
    assert df.columns == ["coalesce(x, dflt)", "nope", "bi"]
    assert df.schema["nope"].metadata == {"drill.missing": "t.mp.nope"}
    assert [tuple(r) for r in df.collect()] == [("dflt", None, 123)]
    present = "\n".join(
        r[0] for r in spark.sql(f"EXPLAIN EXTENDED select bi from dfs.`{all_types}`").collect()
    )
    assert "drill_missing" not in present
