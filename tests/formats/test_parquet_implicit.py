"""Drill's implicit columns of a Parquet table through Spark's own door (spark.sql over the
`dfs` catalog) give drillspark.sql's answers: dirN columns first in `SELECT *` (as Drill's
Parquet reader puts them), filename, filepath, fqn and suffix when a query names them, filters
and aggregates over them and over data columns."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "t"
    (root / "2024" / "q1").mkdir(parents=True)
    pq.write_table(pa.table({"id": [1, 2], "v": ["a", "b"]}), root / "a.parquet")
    pq.write_table(pa.table({"id": [3], "v": ["c"]}), root / "2024" / "b.parquet")
    pq.write_table(pa.table({"id": [4, 5], "v": ["d", None]}), root / "2024" / "q1" / "c.parquet")
    return root


QUERIES = [
    "SELECT * FROM {t} ORDER BY id",
    "SELECT id, filename, filepath, fqn, suffix, dir0, dir1 FROM {t} ORDER BY id",
    "SELECT filename, count(*) AS n FROM {t} GROUP BY filename ORDER BY filename",
    "SELECT id, v FROM {t} WHERE dir0 = '2024' AND id > 3 ORDER BY id",
    "SELECT dir1, count(*) AS n, max(v) AS m FROM {t} GROUP BY dir1 ORDER BY n",
    "SELECT count(*) AS n FROM {t}",
    "SELECT fqn FROM {t} WHERE id = 1",
]


@pytest.mark.parametrize("query", QUERIES)
def test_parquet_implicit_columns_alike_through_both_doors(spark, sql, folder, query):
    plain = spark.sql(query.format(t=f"dfs.`{folder}`"))
    ours = sql(query.format(t="dfs.data.`t`"))
    assert plain.columns == ours.columns
    assert [tuple(r) for r in plain.collect()] == [tuple(r) for r in ours.collect()]


def test_parquet_implicit_values(spark, folder):
    rows = spark.sql(
        f"SELECT id, dir0, dir1, filename, filepath, fqn, suffix FROM dfs.`{folder}` ORDER BY id"
    ).collect()
    assert spark.table(f"dfs.`{folder}`").columns == ["dir0", "dir1", "id", "v"]
    c = folder / "2024" / "q1" / "c.parquet"
    assert tuple(rows[-1]) == (5, "2024", "q1", "c.parquet", str(c.parent), str(c), "parquet")
    assert tuple(rows[0])[:4] == (1, None, None, "a.parquet")
