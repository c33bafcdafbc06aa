"""MIN, MAX and ANY_VALUE of a VARCHAR in a grouping operator run as the extension's
drill_min_varchar / drill_max_varchar / drill_any_varchar, which Spark holds in an object hash
aggregate where its own min / max / first of a string sort every row of a task by its group
first (docs/performance.md, "MIN and MAX of a VARCHAR in a hash aggregate"). Texts compare by
their UTF-8 bytes, as Drill 1.22 does; ANY_VALUE keeps the first text read that is not NULL."""

from __future__ import annotations

import json
import random
from collections import defaultdict

import pyspark.sql.functions as F
import pytest
from tests.sql.conftest import rows_and_plan

FALLBACK = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold"


def test_real_records_by_state_as_their_bytes_order_them_in_a_hash_aggregate(data_engine, shared):
    rows, plan = rows_and_plan(
        data_engine,
        "SELECT state, count(*) AS n, max(name) AS mx, min(name) AS mn, max(city) AS mc "
        "FROM dfs.root.`yelp/yelp_business_small.ndjson` GROUP BY state ORDER BY state",
    )
    groups: dict[str, list[dict]] = defaultdict(list)
    with open(shared / "data" / "yelp" / "yelp_business_small.ndjson", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            groups[record["state"]].append(record)

    def most(records, key, pick):
        return pick((r[key] for r in records), key=lambda s: s.encode())

    expected = [
        [s, len(g), most(g, "name", max), most(g, "name", min), most(g, "city", max)]
        for s, g in sorted(groups.items())
    ]
    assert rows == expected
    # Drill 1.22 over the same file (query.sh): AZ's max 'lucy Activewear' (lower case after
    # upper), min '1st Emergency Pet Care'; WI's 'Zimbrick Volkswagen', '007 Nails'
    assert [r[2:4] for r in rows] == [
        ["lucy Activewear", "1st Emergency Pet Care"],
        ["Zimbrick Volkswagen", "007 Nails"],
    ]
    assert "ObjectHashAggregate" in plan and "drill_max_varchar" in plan, plan
    assert "SortAggregate" not in plan, plan


def test_utf8_byte_order_nulls_and_empty_texts_as_drill(data_engine, tmp_path):
    # Drill 1.22 (query.sh over this file): max 𝄞 and min z. The UTF-8 bytes order U+1D11E
    # after U+FB03, where Java's UTF-16 order would put the surrogate pair first.
    texts = ["é", "z", "\U0001d11e", "\ufb03"]
    lines = [json.dumps({"g": 1, "x": t}) for t in texts]
    lines += [json.dumps({"g": 2, "x": None}), json.dumps({"g": 3, "x": ""})]
    lines += [json.dumps({"g": 3, "x": None})]
    (tmp_path / "u.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows, plan = rows_and_plan(
        data_engine,
        "SELECT g, max(x) AS mx, min(x) AS mn, count(x) AS n, any_value(x) AS av "
        "FROM dfs.tmp.`u.json` GROUP BY g ORDER BY g",
    )
    # ANY_VALUE: the first text read that is not NULL (one file, one task: its order)
    assert rows == [
        [1, "\U0001d11e", "z", 4, "é"],
        [2, None, None, 0, None],
        [3, "", "", 1, ""],
    ]
    assert "drill_any_varchar" in plan and "SortAggregate" not in plan, plan


def test_any_value_keeps_the_first_text_and_the_last_value_of_other_types(data_engine, tmp_path):
    # Drill 1.22 (query.sh over this file, 2026-12-07): g 1 x, 7, 2.5, false; g 2 p, 2, 0.7,
    # true; ANY_VALUE(s) OVER (PARTITION BY g) x and p on every row. Of a VARCHAR Drill keeps
    # the first text it reads that is not NULL, of other types the last value.
    records = [
        (1, None, None, None, None),
        (1, "x", 5, 1.5, True),
        (1, "y", 7, 2.5, False),
        (1, None, None, None, None),
        (2, "p", 1, 0.5, False),
        (2, "q", 2, 0.7, True),
    ]
    keys = ("g", "s", "n", "d", "b")
    lines = [json.dumps(dict(zip(keys, r, strict=True))) for r in records]
    (tmp_path / "av.json").write_text("\n".join(lines) + "\n")
    rows, plan = rows_and_plan(
        data_engine,
        "SELECT g, ANY_VALUE(s) s, ANY_VALUE(n) n, ANY_VALUE(d) d, ANY_VALUE(b) b "
        "FROM dfs.tmp.`av.json` GROUP BY g ORDER BY g",
    )
    assert rows == [[1, "x", 7, 2.5, False], [2, "p", 2, 0.7, True]]
    assert "drill_any_varchar" in plan, plan
    windowed, _ = rows_and_plan(
        data_engine,
        "SELECT DISTINCT g, ANY_VALUE(s) OVER (PARTITION BY g) s FROM dfs.tmp.`av.json` ORDER BY g",
    )
    assert windowed == [[1, "x"], [2, "p"]]


def test_a_window_keeps_sparks_max(data_engine):
    rows, plan = rows_and_plan(
        data_engine,
        "SELECT DISTINCT state, max(name) OVER (PARTITION BY state) AS mx "
        "FROM dfs.root.`yelp/yelp_business_small.ndjson` ORDER BY state",
    )
    assert rows == [["AZ", "lucy Activewear"], ["WI", "Zimbrick Volkswagen"]]
    assert "drill_max_varchar" not in plan, plan


@pytest.mark.parametrize("fallback", ["65536", "2"])
def test_the_spark_door_agrees_with_sparks_own_aggregates(spark, spark_confs, fallback):
    """Random texts (ASCII, other UTF-8, empty, NULL) in 300 groups over four partitions, each
    group's answer against Spark's own min / max, and ANY_VALUE one of the group's texts (NULL
    only when it has none); with a fallback threshold of 2 every task sorts past its second
    group, so the buffers go through their serialized form."""
    spark_confs({FALLBACK: fallback})
    rng = random.Random(37)
    alphabet = "abAB09 éß\u4e2d\U0001f600"
    data = []
    for i in range(3000):
        text = None if rng.random() < 0.1 else "".join(rng.choices(alphabet, k=rng.randint(0, 6)))
        data.append((i % 300, text))
    data += [(300, None), (301, "")]
    df = spark.createDataFrame(data, "g int, s string").repartition(4)
    ours = df.groupBy("g").agg(
        F.call_function("drill_max_varchar", F.col("s")).alias("mx"),
        F.call_function("drill_min_varchar", F.col("s")).alias("mn"),
        F.call_function("drill_any_varchar", F.col("s")).alias("av"),
    )
    theirs = df.groupBy("g").agg(F.max("s").alias("mx"), F.min("s").alias("mn"))
    assert "ObjectHashAggregate" in ours._jdf.queryExecution().executedPlan().toString()
    got = sorted((r.g, r.mx, r.mn) for r in ours.collect())
    assert got == sorted(tuple(r) for r in theirs.collect())
    assert len(got) == 302 and (300, None, None) in got and (301, "", "") in got
    texts: dict[int, set] = defaultdict(set)
    for g, text in data:
        if text is not None:
            texts[g].add(text)
    for r in ours.collect():
        assert (r.av in texts[r.g]) if texts[r.g] else r.av is None, r


def test_a_text_of_another_type_is_refused_naming_the_function(spark):
    with pytest.raises(Exception) as e:
        spark.sql("SELECT drill_max_varchar(id) FROM range(3)").collect()
    assert "drill_max_varchar" in str(e.value) and "UTF-8 binary string" in str(e.value)
