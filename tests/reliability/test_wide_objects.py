"""A scan that reads too many columns is refused with a clear error (issue #15): Spark's planning
of a DSv2 scan is quadratic in the columns read (DataSourceStrategy.normalizeExprs matches every
output attribute against the others), so `SELECT *` over one object of 100,000 keys planned for
over 10 minutes (docs/reliability.md). A scan may read `maxColumns` columns (10,000 unless set);
count(*) and single columns of such a table still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

KEYS = 10_001  # one more than the default limit


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wide")
    record = {f"k{i:05d}": i for i in range(KEYS)}
    (folder / "wide.json").write_text(json.dumps(record) + "\n")
    return folder / "wide.json"


def test_select_star_past_the_limit_is_refused_clearly(spark, wide):
    df = spark.read.format("drill").load(str(wide))
    assert len(df.columns) == KEYS
    with pytest.raises(Exception) as e:
        df.collect()
    message = str(e.value)
    assert f"reads {KEYS} columns" in message and "option maxColumns" in message, message
    # what still reads: the count, one column, and a few columns
    assert df.count() == 1
    assert df.select("k10000").first()[0] == 10_000
    assert df.select("k00000", "k05000").first() == (0, 5000)
    # the session is usable and the limit is an option
    small = spark.read.format("drill").option("maxColumns", "3").load(str(wide))
    assert small.select("k00001", "k00002", "k00003").first() == (1, 2, 3)
    with pytest.raises(Exception, match="more than the 3 a scan may read"):
        small.select("k00001", "k00002", "k00003", "k00004").collect()


def test_select_star_through_sql_names_the_limit(spark, wide):
    import drillspark

    with pytest.raises(drillspark.Error) as e:
        drillspark.sql(f"SELECT * FROM dfs.`{wide}`", spark).rows()
    assert "option maxColumns" in str(e.value) and "Traceback" not in str(e.value)
