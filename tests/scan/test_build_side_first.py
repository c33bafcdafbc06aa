"""Of a shuffled join's two inputs, the one likely small runs first (compat/BuildSideFirst, #37),
so AQE can broadcast it before the large one is shuffled for nothing (TPC-H q05, q12). On by
default (spark.drillspark.buildSideFirst); the same rows with it off, and Spark's shuffled join
when the side guessed small proves large. Real TPC-H rows (../shared), written as four files a
table so each scan has several partitions and the join shuffles, as at larger scales; the
broadcast threshold lowered to this data's size."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest

KEY = "spark.drillspark.buildSideFirst"
# Spark's planner's and AQE's (a local master's session sets AQE's own: session.local_conf)
THRESHOLDS = (
    "spark.sql.autoBroadcastJoinThreshold",
    "spark.sql.adaptive.autoBroadcastJoinThreshold",
)
TPCH = "data/breadth/tpch"

# lineitem's filter keeps about 1 % of its rows (a guessed 7.5 %): a broadcast's worth
SELECTIVE = "l_shipmode IN ('MAIL', 'SHIP') AND l_quantity < 5 AND l_discount > 0.05"
# five conditions guessed to keep 1/32 of the rows keep them all
KEEPS_ALL = "l_quantity > -1 AND l_discount >= 0 AND l_tax >= 0 AND l_extendedprice > 0 AND l_linenumber > 0"
COLUMNS = {
    "lineitem": ["l_orderkey", "l_shipmode", "l_quantity", "l_discount"],
    "orders": ["o_orderkey", "o_orderpriority"],
}


@pytest.fixture(scope="module")
def tables(spark, shared, tmp_path_factory):
    root = tmp_path_factory.mktemp("build_side_first")
    frames = {}
    for name in ("lineitem", "orders"):
        table = pq.read_table(shared / TPCH / f"{name}.parquet")
        (root / name).mkdir()
        n = table.num_rows // 4 + 1
        for i in range(4):
            pq.write_table(table.slice(i * n, n), root / name / f"part{i}.parquet")
        spark.read.parquet(str(root / name)).createOrReplaceTempView(f"bsf_{name}")
        frames[name] = table.select(COLUMNS[name]).to_pandas()  # (its dates are out of range)
    yield frames
    for name in ("lineitem", "orders"):
        spark.catalog.dropTempView(f"bsf_{name}")


def _query(where: str, join: str = "JOIN") -> str:
    return (
        "SELECT o_orderpriority, count(*) AS n, count(l_orderkey) AS matched "
        f"FROM bsf_orders o {join} (SELECT * FROM bsf_lineitem WHERE {where}) l "
        "ON o_orderkey = l_orderkey GROUP BY o_orderpriority"
    )


def _expected(frames, keep, how: str = "inner") -> list[tuple]:
    lines = frames["lineitem"][keep(frames["lineitem"])]
    joined = frames["orders"].merge(lines, left_on="o_orderkey", right_on="l_orderkey", how=how)
    groups = joined.groupby("o_orderpriority")
    out = pd.DataFrame({"n": groups.size(), "matched": groups["l_orderkey"].count()})
    return sorted((k, int(r.n), int(r.matched)) for k, r in out.iterrows())


def _run(spark, query: str, on: bool | None) -> tuple[list[tuple], str, str]:
    """(the rows, the final plan, the initial plan) with the rule on, off or at its default."""
    given = {k: "100KB" for k in THRESHOLDS}
    given[KEY] = None if on is None else str(on).lower()
    before = {k: spark.conf.get(k, None) for k in given}
    for key, value in given.items():
        if value is not None:
            spark.conf.set(key, value)
    try:
        df = spark.sql(query)
        rows = sorted(tuple(r) for r in df.collect())
        final, initial = (
            df._jdf.queryExecution().executedPlan().toString().split("== Initial Plan ==")
        )
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
    return rows, final, initial


def _selective(df):
    return df.l_shipmode.isin(["MAIL", "SHIP"]) & (df.l_quantity < 5) & (df.l_discount > 0.05)


def test_the_filtered_side_runs_first_and_the_large_side_is_never_shuffled(spark, tables):
    expected = _expected(tables, _selective)
    assert sum(n for _, n, _ in expected) < len(tables["lineitem"]) // 50  # selective
    rows, final, initial = _run(spark, _query(SELECTIVE), on=None)  # the default: on
    assert rows == expected
    assert "AfterStage" in initial, initial  # orders' shuffle waits for lineitem's stage
    assert "BroadcastHashJoin" in final and "hashpartitioning(o_orderkey" not in final, final
    off_rows, off_final, off_initial = _run(spark, _query(SELECTIVE), on=False)
    assert off_rows == expected
    assert "AfterStage" not in off_initial
    # without it AQE still broadcasts lineitem's rows, but orders was shuffled meanwhile
    assert "hashpartitioning(o_orderkey" in off_final, off_final


def test_a_side_that_proves_large_keeps_the_shuffled_join(spark, tables):
    expected = _expected(tables, lambda df: df.l_quantity > -1)
    assert sum(n for _, n, _ in expected) == len(tables["lineitem"])
    rows, final, initial = _run(spark, _query(KEEPS_ALL), on=True)
    assert rows == expected
    assert "AfterStage" in initial, initial  # guessed small: it ran first ...
    # ... proved larger than a broadcast, and both sides were shuffled, one after the other
    assert "BroadcastHashJoin" not in final, final
    assert "hashpartitioning(o_orderkey" in final and "hashpartitioning(l_orderkey" in final, final
    off_rows, _, _ = _run(spark, _query(KEEPS_ALL), on=False)
    assert off_rows == expected


def test_an_outer_join_never_waits_for_its_preserved_side(spark, tables):
    """A broadcast join streams an outer join's preserved side: lineitem's filtered rows on the
    left of a LEFT JOIN can never be broadcast, so orders does not wait for them; on the right
    they can."""
    query = (
        "SELECT o_orderpriority, count(*) AS n, count(o_orderkey) AS matched "
        f"FROM (SELECT * FROM bsf_lineitem WHERE {SELECTIVE}) l LEFT JOIN bsf_orders o "
        "ON o_orderkey = l_orderkey GROUP BY o_orderpriority"
    )
    rows, _, initial = _run(spark, query, on=True)
    assert "AfterStage" not in initial, initial
    lines = tables["lineitem"][_selective(tables["lineitem"])]
    joined = lines.merge(tables["orders"], left_on="l_orderkey", right_on="o_orderkey", how="left")
    assert sum(n for _, n, _ in rows) == len(joined)
    assert rows == sorted(
        (k, len(g), int(g.o_orderkey.count())) for k, g in joined.groupby("o_orderpriority")
    )
    rows, final, initial = _run(spark, _query(SELECTIVE, join="LEFT JOIN"), on=True)
    assert "AfterStage" in initial, initial
    assert rows == _expected(tables, _selective, how="left")
