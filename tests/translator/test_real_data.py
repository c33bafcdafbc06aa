"""A plan over real data (shared/data/yelp, read in place), checked against pandas."""

from __future__ import annotations

import pandas as pd
import pytest

YELP = "data/yelp"


def test_flatten_segment_collapse_order_matches_pandas(run_plan, shared):
    plan = [
        {
            "@id": 1,
            "op": "scan",
            "storageengine": "yelp",
            "selection": {"path": "/yelp_business_small.ndjson", "type": "json"},
        },
        {"@id": 2, "op": "filter", "input": 1, "expr": "state == 'AZ' and review_count >= 10"},
        {
            "@id": 3,
            "op": "flatten",
            "input": 2,
            "expr": "categories",
            "name": "category",
            "drop": True,
        },
        {"@id": 4, "op": "segment", "input": 3, "ref": "seg", "exprs": ["category"]},
        {
            "@id": 5,
            "op": "collapsingaggregate",
            "input": 4,
            "within": "seg",
            "carryovers": ["category"],
            "aggregations": [
                {"ref": "n", "expr": "count(1)"},
                {"ref": "stars", "expr": "avg(stars)"},
                {"ref": "reviews", "expr": "sum(review_count)"},
            ],
        },
        {
            "@id": 6,
            "op": "order",
            "input": 5,
            "orderings": [{"order": "DESC", "expr": "n"}, {"order": "ASC", "expr": "category"}],
        },
        {"@id": 7, "op": "limit", "input": 6, "first": 0, "last": 15},
    ]
    got = run_plan(plan, storage={"yelp": {"type": "file", "root": str(shared / YELP)}}).rows()

    df = pd.read_json(shared / YELP / "yelp_business_small.ndjson", lines=True)
    df = df[(df.state == "AZ") & (df.review_count >= 10)].explode("categories")
    df = df[df.categories.notna()]
    agg = (
        df.groupby("categories")
        .agg(n=("stars", "size"), stars=("stars", "mean"), reviews=("review_count", "sum"))
        .reset_index()
    )
    agg = agg.sort_values(["n", "categories"], ascending=[False, True]).head(15)
    want = [
        {"category": r.categories, "n": int(r.n), "stars": r.stars, "reviews": int(r.reviews)}
        for r in agg.itertuples()
    ]
    assert [(g["category"], g["n"], g["reviews"]) for g in got] == [
        (w["category"], w["n"], w["reviews"]) for w in want
    ]
    assert [g["stars"] for g in got] == pytest.approx([w["stars"] for w in want])
