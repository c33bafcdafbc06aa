"""A grouped aggregate whose state grows with its group's rows (COLLECT_LIST, MEDIAN) runs as
Spark's sort aggregate, whose sort spills, where Spark would hold its groups in an object hash
aggregate: drillspark sessions let that operator keep 65,536 groups in memory before it sorts,
for the VARCHAR aggregates whose state is one text a group (docs/performance.md, "A growing
aggregate's groups sorted"); a COLLECT_LIST over 50,000 groups of a 750 MB CSV held the whole
input in the heap. Answers from the records themselves."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict

import pyspark.sql.functions as F
from tests.sql.conftest import rows_and_plan

FILE = "yelp/yelp_business_small.ndjson"


def _by_city(shared) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    with open(shared / "data" / FILE, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            groups[record["city"]].append(record)
    return groups


def _final(plan: str) -> str:
    return plan.split("== Initial Plan ==")[0]


def test_collect_list_and_median_sort_their_groups(data_engine, shared):
    rows, plan = rows_and_plan(
        data_engine,
        "SELECT city, count(*) AS n, median(stars) AS m, collect_list('name', name) AS names "
        f"FROM dfs.root.`{FILE}` GROUP BY city ORDER BY city",
    )
    groups = _by_city(shared)
    assert len(groups) > 30
    expected = [
        [c, len(g), statistics.median(r["stars"] for r in g), sorted(r["name"] for r in g)]
        for c, g in sorted(groups.items())
    ]
    got = [[c, n, m, sorted(x["name"] for x in names)] for c, n, m, names in rows]
    assert got == expected
    final = _final(plan)
    assert "SortAggregate" in final and "collect_list" in final, plan
    assert "ObjectHashAggregate" not in final, plan


def test_a_varchar_aggregate_keeps_its_hash_aggregate_and_shares_a_growing_ones_sort(
    data_engine, shared
):
    rows, plan = rows_and_plan(
        data_engine,
        f"SELECT city, max(name) AS mx FROM dfs.root.`{FILE}` GROUP BY city ORDER BY city",
    )
    groups = _by_city(shared)
    assert rows == [
        [c, max((r["name"] for r in g), key=str.encode)] for c, g in sorted(groups.items())
    ]
    assert "ObjectHashAggregate" in _final(plan) and "SortAggregate" not in _final(plan), plan
    # with a growing state beside it, the whole aggregate sorts
    rows, plan = rows_and_plan(
        data_engine,
        "SELECT city, max(name) AS mx, collect_list('s', stars) AS s "
        f"FROM dfs.root.`{FILE}` GROUP BY city ORDER BY city",
    )
    assert [[c, mx, sorted(x["s"] for x in s)] for c, mx, s in rows] == [
        [c, max((r["name"] for r in g), key=str.encode), sorted(r["stars"] for r in g)]
        for c, g in sorted(groups.items())
    ]
    assert "SortAggregate" in _final(plan) and "ObjectHashAggregate" not in _final(plan), plan


def test_the_spark_door_and_an_aggregate_without_groups(spark):
    df = spark.range(20_000).withColumn("g", F.col("id") % 500).repartition(3)
    grouped = df.groupBy("g").agg(F.collect_list("id").alias("ids"))
    got = {r.g: sorted(r.ids) for r in grouped.collect()}
    assert got == {g: list(range(g, 20_000, 500)) for g in range(500)}
    plan = grouped._jdf.queryExecution().executedPlan().toString()
    assert "SortAggregate" in _final(plan) and "ObjectHashAggregate" not in _final(plan), plan
    # one group: nothing to sort, Spark's own operator
    whole = df.agg(F.collect_list("id").alias("ids"))
    assert sorted(whole.collect()[0].ids) == list(range(20_000))
    assert "ObjectHashAggregate" in whole._jdf.queryExecution().executedPlan().toString()
