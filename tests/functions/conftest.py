"""Shared fixtures for the drill_* function tests: the real data sets, read in place."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def citibike(spark, shared):
    """Two Citi Bike feed snapshots: one record each, `stationBeanList` holds 332 stations."""
    files = sorted((shared / "data" / "citibike").glob("*.ndjson"))[:2]
    return spark.read.json([str(f) for f in files])


DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
YELP_SCHEMA = (
    "business_id string, name string, categories array<string>, neighborhoods array<string>, "
    "hours struct<" + ", ".join(f"{d}: struct<close: string, open: string>" for d in DAYS) + ">"
)


@pytest.fixture(scope="session")
def yelp(spark, shared):
    """Yelp businesses, the columns these tests use (a given schema skips the inference pass
    over the whole file; `hours` is a struct of weekdays, some absent per business)."""
    path = shared / "data" / "yelp" / "yelp_business_small.ndjson"
    return spark.read.schema(YELP_SCHEMA).json(str(path)).limit(300).cache()
