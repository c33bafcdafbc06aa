"""drill_convert_from / drill_convert_to with JSON: text to a VARIANT tree and back."""

from __future__ import annotations

import json

import pyspark.sql.functions as F
import pytest
from pyspark.errors import AnalysisException


def test_convert_from_json_feeds_flatten_and_kvgen(spark, shared):
    lines = (shared / "data" / "github" / "github_api_events.ndjson").read_text().splitlines()
    df = spark.read.text(str(shared / "data" / "github" / "github_api_events.ndjson"))
    tree = df.select(F.call_function("drill_convert_from", "value", F.lit("JSON")).alias("e"))
    assert {r[0] for r in tree.selectExpr("drill_typeof(e)").collect()} == {"MAP"}
    commits = tree.selectExpr("drill_flatten(variant_get(e, '$.payload.commits')) c")
    want = sum(len(json.loads(x).get("payload", {}).get("commits") or []) for x in lines)
    assert commits.count() == want > 0
    keys = tree.selectExpr("drill_flatten(drill_kvgen(e)) kv").selectExpr("kv.key")
    assert {r.key for r in keys.collect()} == set().union(*(json.loads(x).keys() for x in lines))


def test_convert_to_json_round_trips(spark, citibike):
    df = citibike.select(
        F.call_function("drill_convert_to", F.col("stationBeanList")[0], F.lit("json")).alias("b")
    )
    assert df.schema["b"].dataType.typeName() == "binary"
    text = bytes(df.first().b).decode()
    assert json.loads(text)["id"] == citibike.first().stationBeanList[0].id
    assert spark.sql("select cast(drill_convert_to(5, 'JSON') as string)").first()[0] == "5"


def test_utf8(spark):
    assert (
        spark.sql("select drill_convert_from(drill_convert_to('héllo', 'UTF8'), 'UTF8')").first()[0]
        == "héllo"
    )


@pytest.mark.parametrize(
    "call, condition, message",
    [
        (
            "drill_convert_from('x', 'BSON')",
            "INVALID_PARAMETER_VALUE.CHARSET",
            "`encoding` in `drill_convert_from` is invalid: expects one of the JSON, SIMPLEJSON, EXTENDEDJSON, UTF8, but got 'BSON'",
        ),
        (
            "drill_convert_to('x', cast(null as string))",
            "INVALID_PARAMETER_VALUE.NULL",
            "`encoding` in `drill_convert_to` is invalid: expects a non-NULL value",
        ),
        (
            "drill_convert_from('x', s)",
            "NON_FOLDABLE_ARGUMENT",
            "`drill_convert_from` requires the parameter `encoding` to be a foldable expression",
        ),
    ],
)
def test_bad_encoding_is_sparks_error_with_the_calls_position(spark, call, condition, message):
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"select {call} from values ('JSON') as v(s)").collect()
    assert e.value.getCondition() == condition and message in str(e.value)
    (ctx,) = e.value.getQueryContext()
    assert (ctx.fragment(), ctx.startIndex()) == (call, 7)
