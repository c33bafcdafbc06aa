"""A Parquet column of nanosecond timestamps (pyarrow's `timestamp('ns')`, format 2.6) read as
Drill 1.22 reads it (asked 2026-12-07): a BIGINT of the nanoseconds since the epoch, through
drillspark.sql and Spark's own door alike. Spark refuses such a file's every query unless
its `spark.sql.legacy.parquet.nanosAsLong` is on, which drillspark's sessions set
(`session.catalog_confs`)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

NANOS = 1709600000123456789


def test_nanosecond_timestamps_are_bigint(sql, spark, tmp_path):
    table = pa.table(
        {"id": [1, 2], "ts": pa.array([NANOS, None], pa.timestamp("ns"))},
    )
    pq.write_table(table, tmp_path / "nanos.parquet", version="2.6")
    # Drill: [1, 1709600000123456789, BIGINT], [2, null, BIGINT]
    got = sql("SELECT id, ts, typeof(ts) AS t FROM dfs.data.`nanos.parquet` ORDER BY id")
    assert [tuple(r) for r in got.collect()] == [(1, NANOS, "BIGINT"), (2, None, "BIGINT")]
    plain = spark.read.parquet(str(tmp_path / "nanos.parquet")).orderBy("id")
    assert [r["ts"] for r in plain.collect()] == [NANOS, None]
