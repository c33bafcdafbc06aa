"""The breadth corpus (../shared/conformance/breadth/cases.jsonl): plain Drill SQL across the
language, with the answers of real Apache Drill 1.22.

Every case must match Drill's answer, or be listed with its reason in
docs/drill-differences.md ("Breadth cases that do not pass"). The per-feature counts are
printed at the end of the run (tests/conformance/conftest.py)."""

from __future__ import annotations

import datetime as dt
import decimal
import os
from pathlib import Path

import pytest
from conformance_runner import feature_counts, load_cases, run_breadth_case, typed_equal
from test_sql_conformance import documented

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("DRILLSPARK_SHARED", ROOT.parent / "shared"))
BREADTH = SHARED / "conformance" / "breadth" / "cases.jsonl"
CASES = load_cases(BREADTH) if BREADTH.exists() else []
OUTCOMES: dict[str, object] = {}  # case id -> Outcome, for the summary


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_breadth_case(case, spark, shared, tmp_path):
    outcome = run_breadth_case(case, spark, shared, tmp_path)
    OUTCOMES[case["id"]] = outcome
    if outcome.passed:
        return
    assert case["id"] in documented(), (
        f"breadth case failed and is not listed in docs/drill-differences.md: {outcome.message}"
    )


def test_breadth_cases_are_present():
    assert len(CASES) >= 150
    assert {c["feature"] for c in CASES} >= {"aggregates", "joins", "window", "views"}


def test_listed_breadth_cases_exist():
    """A listed breadth id that is not in the corpus is a typo hiding nothing: refuse it."""
    ids = {c["id"] for c in CASES}
    listed = {k for k in documented() if k.startswith("breadth.")}
    assert listed <= ids, sorted(listed - ids)


def test_typed_cells():
    # each Drill type wants its own Python kind: an INT is never a float, a DATE never text
    assert typed_equal("BIGINT", 3, 3) and not typed_equal("BIGINT", 3, 3.0)
    assert typed_equal("FLOAT8", 0.1, 0.1 + 1e-17) and not typed_equal("FLOAT8", 1.0, 1)
    assert typed_equal("VARDECIMAL", 1.5, decimal.Decimal("1.50"))
    assert typed_equal("DATE", "2024-01-02", dt.date(2024, 1, 2))
    assert not typed_equal("DATE", "2024-01-02", "2024-01-02")
    assert typed_equal(
        "TIMESTAMP", "2024-01-02 03:04:05.5", dt.datetime(2024, 1, 2, 3, 4, 5, 500000)
    )
    assert typed_equal("TIME", "03:04:05", dt.time(3, 4, 5))
    assert typed_equal("INTERVALDAY", "P1DT7384S", dt.timedelta(days=1, seconds=7384))
    assert typed_equal("INTERVALYEAR", "P1Y2M", 14)
    assert typed_equal("FLOAT8", {"$double": "NaN"}, float("nan"))
    assert typed_equal("MAP", {"a": 1, "b": None}, {"a": 1})


def test_feature_counts():
    from conformance_runner import Outcome

    cases = [{"feature": "a"}, {"feature": "a"}, {"feature": "b"}]
    outcomes = [Outcome("x", True), Outcome("y", False), Outcome("z", True)]
    assert feature_counts(cases, outcomes) == {"a": [1, 1], "b": [1, 0]}
