"""drill_flatten: Drill's FLATTEN semantics as a Spark generator, on Drill's cases and real data."""

from __future__ import annotations

import re

import pyspark.sql.functions as F
import pytest
from pyspark.errors import PySparkException
from tests.functions.helpers import DRILL_ROOT, assert_case, conformance_table, rows


def test_one_row_per_element_other_columns_copied(spark, citibike):
    per_record = citibike.select("executionTime", F.size("stationBeanList").alias("n")).collect()
    flat = citibike.select(
        "executionTime", F.call_function("drill_flatten", "stationBeanList").alias("s")
    )
    counts = {r.executionTime: r.n for r in per_record}
    got = {r.executionTime: r["count"] for r in flat.groupBy("executionTime").count().collect()}
    assert got == counts and sum(got.values()) == 664


def test_array_of_structs_gives_struct_rows(spark, citibike):
    flat = citibike.select(F.call_function("drill_flatten", "stationBeanList").alias("s"))
    assert flat.schema["s"].dataType == citibike.schema["stationBeanList"].dataType.elementType
    first = citibike.first().stationBeanList[0]
    assert flat.select("s.id", "s.stationName").first() == (first.id, first.stationName)


def test_same_rows_as_explode(spark, citibike):
    ours = citibike.select(
        "executionTime", F.call_function("drill_flatten", "stationBeanList").alias("s")
    )
    spark_s = citibike.select("executionTime", F.explode("stationBeanList").alias("s"))
    assert ours.exceptAll(spark_s).count() == 0 and spark_s.exceptAll(ours).count() == 0


def test_empty_null_and_missing_arrays_give_no_rows(spark, shared):
    # drill2106: the second record of input2.json has no `rl`; tf drill2217_1: `evnts` is [].
    c = conformance_table(spark, shared, "tf.json.json_kvgenflatten.flatten.drill2217_1")
    assert_case(spark.sql("select d.id, drill_flatten(d.evnts) from t d"), c)
    df = spark.sql("select * from values (1, array(1)), (2, array()), (3, null) as v(id, a)")
    assert rows(df.select("id", F.call_function("drill_flatten", "a"))) == [[1, 1]]


def test_drill2106_flatten_of_flattened_2d_array(spark, shared):
    c = conformance_table(spark, shared, "drill.flatten.drill2106_a")
    q = "select rl, drill_flatten(rl) frl from (select `integer`, drill_flatten(rl) as rl from t)"
    assert_case(spark.sql(q), c)


def test_nested_flatten_flattens_two_levels(spark, shared):
    # DRILL-2254: flatten(flatten(a)) yields the scalars of a 2-D array.
    conformance_table(spark, shared, "drill.flatten.drill2106_a")
    got = sorted(
        r[0] for r in spark.sql("select drill_flatten(drill_flatten(rl)) x from t").collect()
    )
    assert got == sorted([2, 1, 4, 6] * 3)
    via_api = spark.table("t").select(
        F.call_function("drill_flatten", F.call_function("drill_flatten", "rl")).alias("x")
    )
    assert sorted(r.x for r in via_api.collect()) == got


def test_drill2099_flatten_after_sort(spark, shared):
    c = conformance_table(spark, shared, "drill.flatten.drill2099_after_sort")
    q = (
        "select drill_flatten(s1.rms.rptd) rptds from (select d.uid uid, drill_flatten(d.map.rm) rms "
        "from t d order by d.uid) s1"
    )
    assert_case(spark.sql(q), c)


def test_drill1671_eleven_flattens_are_a_cross_product(spark, shared):
    c = conformance_table(spark, shared, "drill.flatten.drill1671_11_flattens")
    flattens = ", ".join(f"drill_flatten(evnts{i}) f{i}" for i in range(1, 12))
    q = f"select count(*) as cnt from (select id, {flattens} from t) x"
    assert c["expected_row_count"] == 1 and spark.sql(q).first().cnt == 2048


# The other test-framework flatten cases run as written over the dfs catalog
# (test_drill_source_cases.py); these two need the arithmetic moved out of the generator.
@pytest.mark.parametrize(
    "case_id, query",
    [
        # Spark refuses a generator inside an expression: the +1 goes one query level up.
        (
            "tf.json.json_kvgenflatten.flatten.flatten29",
            "select id, f + 1 from (select id, drill_flatten(ints) f from t)",
        ),
        (
            "tf.json.json_kvgenflatten.flatten.flatten30",
            "select id, f + 1 from (select id, drill_flatten(decs) f from t)",
        ),
    ],
)
def test_test_framework_cases(spark, shared, case_id, query):
    c = conformance_table(spark, shared, case_id)
    assert_case(spark.sql(query), c)


def test_empty_array_in_all_text_mode(spark, shared):
    c = conformance_table(
        spark, shared, "drill.json.flatten_empty_array_all_text_true", primitivesAsString=True
    )
    assert_case(spark.sql("select drill_flatten(t.a.b.c) as c from t"), c)


def test_scalar_and_map_give_one_row(spark, citibike):
    # The logical plan's flatten operator (docs/functions.md): a scalar or map input returns a single record holding it.
    df = citibike.select(
        "executionTime", F.call_function("drill_flatten", "executionTime").alias("f")
    )
    assert [(r.executionTime == r.f) for r in df.collect()] == [True, True]
    one = spark.sql(
        "select drill_flatten(named_struct('a', 1)) m, drill_flatten(cast(null as int)) n"
    )
    assert one.count() == 0  # a null scalar flattens to no rows, so the product is empty
    assert rows(spark.sql("select drill_flatten(named_struct('a', 1)) m")) == [[{"a": 1}]]


def test_strict_mode_raises_drills_error(spark, citibike):
    spark.conf.set("spark.drillspark.flatten.strict", "true")
    try:
        df = citibike.select(F.call_function("drill_flatten", "executionTime"))
        with pytest.raises(
            PySparkException, match="Flatten does not support inputs of non-list values"
        ) as e:
            df.collect()
        assert "drill_flatten(executionTime)" in str(e.value)
        # Arrays are unaffected, and null scalars still give no rows.
        assert citibike.select(F.call_function("drill_flatten", "stationBeanList")).count() == 664
        assert spark.sql("select drill_flatten(cast(null as int))").count() == 0
    finally:
        spark.conf.unset("spark.drillspark.flatten.strict")


def test_variant_decides_per_row(spark):
    df = spark.sql("""select id, drill_flatten(parse_json(j)) v from values
        (1, '[1, "a", {"b": 2}]'), (2, '7'), (3, '[]'), (4, 'null'), (5, '{"k": [1]}') as t(id, j)""")
    got = [(r.id, r.t) for r in df.selectExpr("id", "drill_typeof(v) t").collect()]
    assert sorted(got) == [(1, "BIGINT"), (1, "MAP"), (1, "VARCHAR"), (2, "BIGINT"), (5, "MAP")]


def test_variant_strict_mode(spark):
    spark.conf.set("spark.drillspark.flatten.strict", "true")
    try:
        ok = spark.sql("select drill_flatten(parse_json('[1, 2]'))").count()
        assert ok == 2
        with pytest.raises(PySparkException, match="non-list values"):
            spark.sql("select drill_flatten(parse_json('{\"a\": 1}'))").collect()
    finally:
        spark.conf.unset("spark.drillspark.flatten.strict")


def test_interpreted_path_matches_generated_code(spark, shared):
    conformance_table(spark, shared, "drill.flatten.drill2106_a")
    q = "select `integer`, drill_flatten(drill_flatten(rl)) x from t"
    generated = sorted(map(tuple, rows(spark.sql(q))))
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    spark.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    try:
        interpreted = sorted(map(tuple, rows(spark.sql(q))))
    finally:
        spark.conf.unset("spark.sql.codegen.wholeStage")
        spark.conf.unset("spark.sql.codegen.factoryMode")
    assert generated == interpreted and len(generated) == 12


def explain(spark, query: str, section: str) -> str:
    """One section of EXPLAIN EXTENDED (public SQL, so this also works on Spark Connect), with
    expression ids (`#12`, `#12L`) blanked so plans of two queries can be compared."""
    text = spark.sql(f"EXPLAIN EXTENDED {query}").first()[0]
    part = text.split(f"== {section} ==\n")[1].split("\n== ")[0]
    return re.sub(r"#\d+L?", "#", part)


def test_same_optimized_and_physical_plan_as_explode(spark, citibike):
    # The claim behind the benchmark: after FlattenAsExplode, drill_flatten *is* explode.
    citibike.createOrReplaceTempView("bikes")
    query = "select executionTime, {}(stationBeanList) s from bikes"
    assert "Generate drill_flatten(bikes.stationBeanList)" in explain(
        spark, query.format("drill_flatten"), "Analyzed Logical Plan"
    )
    for section in ("Optimized Logical Plan", "Physical Plan"):
        ours, sparks = (
            explain(spark, query.format(fn), section) for fn in ("drill_flatten", "explode")
        )
        assert ours == sparks, section
    physical = explain(spark, query.format("drill_flatten"), "Physical Plan")
    assert "*(" in physical and "Generate explode(" in physical  # whole-stage generated code


def test_nested_fields_are_pruned_through_the_generator(spark, citibike, tmp_path):
    # Like explode, a field of the flattened struct is all that is read from Parquet.
    citibike.write.parquet(str(tmp_path / "bikes"))
    spark.read.parquet(str(tmp_path / "bikes")).createOrReplaceTempView("bikes_parquet")
    query = "select s.id from (select drill_flatten(stationBeanList) s from bikes_parquet)"
    assert "ReadSchema: struct<stationBeanList:array<struct<id:bigint>>>" in explain(
        spark, query, "Physical Plan"
    )
    assert spark.sql(query).count() == 664


def test_several_flattens_in_drills_order(spark, shared):
    # Drill's testFlatten_Drill2162_complex shape on the test framework's 2-row file: the
    # per-record cross product, the first flatten in the SELECT varying slowest (Drill stacks
    # one Flatten operator per call, the first one lowest), records in file order.
    import json

    data = shared / DRILL_ROOT / "data/tf/flatten_operators/2rows/data.json"
    decoder, text, pos, records = json.JSONDecoder(), data.read_text(), 0, []
    while text[pos:].strip():
        record, pos = decoder.raw_decode(text, pos + len(text[pos:]) - len(text[pos:].lstrip()))
        records.append(record)
    want = [
        [r["uid"], a, b, c]
        for r in records
        for a in r["lst_lst"][1]
        for b in r["lst_lst"][0]
        for c in r["lst_lst"]
    ]
    q = (
        f"select uid, drill_flatten(d.lst_lst[1]) lst1, drill_flatten(d.lst_lst[0]) lst0, "
        f"drill_flatten(d.lst_lst) lst from dfs.`{data}` d"
    )
    assert rows(spark.sql(q)) == want and len(want) == 100


# Spark's generated loop of a Generate hands on a record's rows only once all are made: FLATTENs
# nested in one stage, or one carrying an array on, buffered the product of their arrays (three
# over one record of 3,000 elements ran the driver out of memory). Those run row by row
# (compat/StreamingGenerates.scala); a FLATTEN carrying only scalars keeps its generated code.
STREAMING = "StreamingGenerate Generate explode("


@pytest.mark.parametrize(
    ("query", "streaming"),
    [
        ("select id, drill_flatten(a) x from v", 0),
        ("select a, drill_flatten(a) x from v", 1),
        ("select s, drill_flatten(s.b) x from v", 1),
        ("select drill_flatten(x) y from (select drill_flatten(m) x from v)", 1),
        ("select x, drill_flatten(a) y from (select drill_flatten(a) x, a from v)", 1),
        # the first carries the struct on; the second's input rows are then each one element's
        ("select id, drill_flatten(a) x, drill_flatten(s.b) y from v", 1),
    ],
)
def test_flattens_that_would_buffer_their_products_run_row_by_row(spark, query, streaming):
    spark.sql(
        "select 1 id, array(1, 2) a, named_struct('b', array(3)) s, array(array(4, 5)) m"
    ).createOrReplaceTempView("v")
    physical = explain(spark, query, "Physical Plan")
    assert physical.count(STREAMING) == streaming, physical
    generated = re.findall(r"\*\(\d+\) Generate explode\(", physical)
    assert len(generated) == physical.count("Generate explode(") - streaming


def test_nested_flattens_over_one_large_array_give_every_row(spark):
    n = 2000  # 4 million rows from one record, in the order of their sum
    q = (
        "select x, y from (select x, drill_flatten(a) y from "
        f"(select drill_flatten(a) x, a from (select sequence(0, {n - 1}) a))) "
        f"order by x * {n} + y desc limit 3"
    )
    assert STREAMING in explain(spark, q, "Physical Plan")
    assert rows(spark.sql(q)) == [[n - 1, n - 1], [n - 1, n - 2], [n - 1, n - 3]]
    assert spark.sql(q.replace(" order by", " --")).count() == n * n
