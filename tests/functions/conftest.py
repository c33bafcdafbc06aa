"""Shared fixtures for the drill_* function tests: the real data sets, read in place."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def citibike(spark, shared):
    """Two Citi Bike feed snapshots: one record each, `stationBeanList` holds 332 stations."""
    files = sorted((shared / "data" / "citibike").glob("*.ndjson"))[:2]
    return spark.read.json([str(f) for f in files])


@pytest.fixture(scope="session")
def yelp(spark, shared):
    """Yelp businesses (case-sensitive: the data has keys differing only in case)."""
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        df = spark.read.json(str(shared / "data" / "yelp" / "yelp_business_small.ndjson"))
        return df.select("business_id", "name", "categories", "hours", "neighborhoods").limit(300).cache()
    finally:
        spark.conf.unset("spark.sql.caseSensitive")
