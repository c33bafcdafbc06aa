"""Every logical plan in ../shared/conformance/logical_cases.jsonl runs and meets what Drill's
test asserted. Plans Drill itself no longer parses must be refused with a located error; plans
that need data or engines the case does not provide are run where they can be."""

from __future__ import annotations

import json

import pytest

import drillspark
from drillspark.plan import PlanError

CASES_FILE = "conformance/logical_cases.jsonl"
CP_ROOT = "data/drill-conformance/logical/drill-0.1.0"
# Stale plans whose format today's Drill rejects (the case descriptions say so).
STALE = {
    "head.simple_plan",
    "head.dsort-logical",
    "head.logical_string_filter",
    "head.logical_json_scan",
    "head.logical_order",
    "head.logical_group",
}
# Plans that need external input the case does not ship: a Drill-registered `dfs` plugin with
# /tmp parquet files, and a mock scan with a null selection (only its config is tested).
NEEDS_OUTSIDE_DATA = {"head.parquet_scan_screen", "head.storage_engine_plan"}


def load_cases(shared):
    with open(shared / CASES_FILE) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def cases(shared):
    return {c["id"]: c for c in load_cases(shared)}


def _run(spark, shared, case):
    return drillspark.run(
        str(shared / case["plan"]), spark=spark, classpath=[str(shared / CP_ROOT)]
    )


def test_every_case_is_accounted_for(cases):
    runnable = set(cases) - STALE - NEEDS_OUTSIDE_DATA
    assert {c for c in cases if cases[c]["data"]} <= runnable
    assert len(runnable) == 15


@pytest.mark.parametrize(
    "case_id",
    [
        "ref.simple_plan",
        "ref.simple_plan_flattened",
        "ref.simple_join_outer_console",
        "ref.join_inner",
        "ref.join_full_outer",
        "ref.join_left",
        "ref.union_distinct",
        "ref.union_all",
        "ref.order_nulls_first",
        "ref.order_nulls_last",
        "ref.collapsing_aggregate",
        "ref.constant_operator",
        "head.scan_screen_logical",
        "head.conversionTestWithLogicalPlan",
        "head.jdbc_plan",
    ],
)
def test_case_meets_drills_assertion(spark, shared, cases, case_id):
    case = cases[case_id]
    rows = _run(spark, shared, case).rows()
    if "expected_record_count" in case:
        assert len(rows) == case["expected_record_count"]
    if "expected_values_prefix" in case:
        want = case["expected_values_prefix"]
        assert [r[case["expected_column"]] for r in rows[: len(want)]] == want
    if "expected_rows_prefix" in case:
        want = case["expected_rows_prefix"]
        got = [[r[c] for c in case["expected_columns"]] for r in rows[: len(want)]]
        assert got == want
    if "expected_rows" in case:
        assert [[r[c] for c in case["expected_columns"]] for r in rows] == case["expected_rows"]
    assert rows  # every runnable case produces records


def test_simple_plan_values(spark, shared, cases):
    # donuts with ppu < 1.00, per ppu: count, sum(sales), sum(ppu * sales), ppu descending
    rows = _run(spark, shared, cases["ref.simple_plan"]).rows()
    assert [(r["ppu"], r["typeCount"], r["quantity"]) for r in rows] == [
        (0.69, 2, 159),
        (0.55, 2, 335),
    ]
    assert rows[0]["sales"] == pytest.approx(0.69 * 159)


def test_conversion_plan_round_trips(spark, shared, cases):
    rows = _run(spark, shared, cases["head.conversionTestWithLogicalPlan"]).rows()
    # convert_from(convert_to(x, T), T) == x; the mock scan counts 0..9
    assert [r["col_int_be"] for r in rows] == list(range(10))
    assert all(len(set(r.values())) == 1 for r in rows)


@pytest.mark.parametrize("case_id", sorted(STALE))
def test_stale_plans_are_refused_with_a_location(spark, shared, cases, case_id):
    with pytest.raises(PlanError) as e:
        _run(spark, shared, cases[case_id])
    assert cases[case_id]["plan"].rsplit("/", 1)[-1] in str(e.value)
