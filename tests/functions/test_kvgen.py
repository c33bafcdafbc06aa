"""drill_kvgen / drill_mappify: Drill's KVGEN on Drill's cases and real data."""

from __future__ import annotations

import pyspark.sql.functions as F
import pytest
from pyspark.errors import PySparkException
from tests.functions.helpers import assert_case, case, conformance_table, rows


# kvgen1..kvgen17 and drill1653 also run as written over the dfs catalog
# (test_drill_source_cases.py); here they read through Spark's own JSON reader.
@pytest.mark.parametrize(
    "case_id, query",
    [
        ("tf.json.json_kvgenflatten.kvgen.kvgen1", "select drill_kvgen(varcharcol) from t"),
        (
            "tf.json.json_kvgenflatten.kvgen.kvgen2",
            "select drill_kvgen(bigintegercol), drill_kvgen(float8col) from t",
        ),
    ],
)
def test_test_framework_cases(spark, shared, case_id, query):
    c = conformance_table(spark, shared, case_id)
    assert_case(spark.sql(query), c)


def test_drill1653_flatten_of_kvgen_over_missing_map(spark, shared):
    c = conformance_table(spark, shared, "drill.flatten.drill1653_kvgen_missing_map")
    q = (
        "select * from (select sum(t.flat.`value`) as sm from "
        "(select id, drill_flatten(drill_kvgen(m)) as flat from t) t) where sm = 10"
    )
    assert spark.sql(q).count() == c["expected_row_count"]


def test_null_members_skipped_and_null_map_is_empty(spark, yelp):
    # Yelp `hours`: a struct of weekdays; businesses lack some days (null members).
    df = yelp.select("business_id", "hours", F.call_function("drill_kvgen", "hours").alias("kv"))
    for r in df.collect():
        present = {k: v for k, v in r.hours.asDict().items() if v is not None} if r.hours else {}
        assert (
            [e.key for e in r.kv] == [k for k in r.hours.asDict() if k in present]
            if r.hours
            else r.kv == []
        )
        assert {e.key: e.value for e in r.kv} == present
    assert rows(spark.sql("select drill_kvgen(cast(null as struct<a:int>))")) == [[[]]]


def test_map_input_in_map_order(spark):
    df = spark.sql("select drill_kvgen(map('b', 2, 'a', 1, 'c', null)) kv")
    assert rows(df) == [[[{"key": "b", "value": 2}, {"key": "a", "value": 1}]]]


def test_heterogeneous_values_name_field_and_types(spark):
    with pytest.raises(PySparkException) as e:
        spark.sql("select drill_kvgen(named_struct('a', 1L, 'b', 'x'))").collect()
    message = str(e.value)
    assert "does not support heterogeneous value types" in message
    assert "[b]" in message and "[VARCHAR]" in message and "[BIGINT]" in message


@pytest.mark.parametrize("codegen", ["CODEGEN_ONLY", "NO_CODEGEN"])
def test_a_text_member_beside_other_types_is_read_for_its_nulls(spark, codegen):
    # the scan types a member null in every record VARCHAR; Drill 1.22 (2026-12-07) answers
    # KVGEN of {"a": 1, "b": null} as [{a, 1}]: such a member is checked per row, and a value
    # there fails the row with Drill's error
    spark.conf.set("spark.sql.codegen.factoryMode", codegen)
    try:
        df = spark.sql(
            "select drill_kvgen(named_struct('a', 1L, 'b', CAST(NULL AS STRING), 'c', 3L)) kv"
        )
        assert rows(df) == [[[{"key": "a", "value": 1}, {"key": "c", "value": 3}]]]
        with pytest.raises(PySparkException) as e:
            spark.sql(
                "select drill_kvgen(named_struct('a', 1L, 'b', s)) "
                "from values (CAST(NULL AS STRING)), ('x') as v(s)"
            ).collect()
        message = str(e.value)
        assert "heterogeneous value types" in message and "[b]" in message, message
    finally:
        spark.conf.unset("spark.sql.codegen.factoryMode")


@pytest.mark.parametrize("codegen", ["CODEGEN_ONLY", "NO_CODEGEN"])
def test_maps_of_different_members_are_read_as_their_union(spark, codegen):
    # Drill 1.22 (2026-12-07) answers KVGEN over {"a": {"x": 1}}, {"b": {"x": 2, "y": "q"}}:
    # each value is the column's one map type, the members' union; through Spark's own door
    # too (drill_kvgen had refused two map types), nested maps merged by name
    spark.conf.set("spark.sql.codegen.factoryMode", codegen)
    try:
        df = spark.sql(
            "select drill_kvgen(named_struct("
            "'a', named_struct('x', 1L, 'n', named_struct('p', 1L)), "
            "'b', named_struct('y', 'q', 'x', 2L, 'n', named_struct('r', 'z')), "
            "'c', CAST(NULL AS STRUCT<x: BIGINT>), "
            "'d', named_struct('n', CAST(NULL AS STRUCT<p: BIGINT>)))) kv"
        )
        value = df.schema["kv"].dataType.elementType["value"].dataType
        assert value.simpleString() == "struct<x:bigint,n:struct<p:bigint,r:string>,y:string>"
        # (rows() shows a map's null members as Drill's JSON does: left out)
        assert rows(df) == [
            [
                [
                    {"key": "a", "value": {"x": 1, "n": {"p": 1}}},
                    {"key": "b", "value": {"x": 2, "n": {"r": "z"}, "y": "q"}},
                    {"key": "d", "value": {}},
                ]
            ]
        ]
        # a member of another kind beside the maps is still Drill's error
        with pytest.raises(PySparkException, match="heterogeneous value types"):
            spark.sql(
                "select drill_kvgen(named_struct('a', named_struct('x', 1L), 'b', 2L))"
            ).collect()
    finally:
        spark.conf.unset("spark.sql.codegen.factoryMode")


def test_variant_values_may_differ(spark):
    df = spark.sql("""select drill_kvgen(parse_json('{"n": 1, "s": "x", "z": null}')) kv""")
    kv = df.selectExpr(
        "transform(kv, e -> e.key) keys", "transform(kv, e -> drill_typeof(e.value)) types"
    ).first()
    assert (kv["keys"], kv["types"]) == (["n", "s"], ["BIGINT", "VARCHAR"])
    with pytest.raises(
        PySparkException, match=r"only supports Simple maps.*drill_kvgen\(parse_json"
    ):
        spark.sql("select drill_kvgen(parse_json('[1]'))").collect()


def test_non_map_input_is_drills_error(spark):
    with pytest.raises(PySparkException, match="kvgen function only supports Simple maps as input"):
        spark.sql("select drill_kvgen(1)").collect()


def test_mappify_is_kvgen(spark, shared):
    conformance_table(spark, shared, "tf.json.json_kvgenflatten.kvgen.kvgen1")
    a = rows(spark.sql("select drill_kvgen(varcharcol) from t"))
    b = rows(spark.sql("select drill_mappify(varcharcol) from t"))
    assert a == b and len(a) == len(
        case(shared, "tf.json.json_kvgenflatten.kvgen.kvgen1")["expected"]
    )
