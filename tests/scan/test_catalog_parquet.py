"""Parquet through Spark's own door, the `dfs` catalog (#33): the answers and types
`drillspark.sql` gives on the same files (real TPC-H and Drill test-framework files of
../shared/data, a folder written by drillspark's CTAS, TIME columns Drill writes), with Spark's
Parquet source doing the reading: columns pruned and filters pushed into it."""

from __future__ import annotations

import datetime
import os
from decimal import Decimal

import pytest

TPCH = "data/breadth/tpch"


def _rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _both(spark, query: str) -> tuple[list[tuple], list[tuple], object, object]:
    """(spark.sql's rows, drillspark.sql's rows, their schemas) for one query text."""
    import drillspark

    ours = spark.sql(query)
    theirs = drillspark.sql(query, spark=spark).df
    return _rows(ours), _rows(theirs), ours.schema, theirs.schema


def _types(schema) -> list[tuple[str, str]]:
    return [(f.name, f.dataType.simpleString()) for f in schema.fields]


@pytest.mark.parametrize("table", ["nation", "region", "supplier"])
def test_tpch_tables_read_as_drillspark_sql_reads_them(spark, shared, table):
    path = shared / TPCH / f"{table}.parquet"
    ours, theirs, s1, s2 = _both(spark, f"SELECT * FROM dfs.`{path}`")
    assert _types(s1) == _types(s2)
    assert ours == theirs and len(ours) > 0


def test_projection_and_filter_reach_sparks_parquet_scan(spark, shared):
    path = shared / TPCH / "lineitem.parquet"
    query = (
        f"SELECT l_orderkey, l_shipdate, l_extendedprice FROM dfs.`{path}` "
        "WHERE l_orderkey < 4 AND l_shipdate >= DATE '1996-01-01'"
    )
    ours, theirs, s1, s2 = _both(spark, query)
    assert ours == theirs and len(ours) > 0
    assert _types(s1) == _types(s2)
    plan = spark.sql(query)._jdf.queryExecution().executedPlan().toString()
    # Spark's own Parquet scan, reading 3 of lineitem's 16 columns, the key's filter pushed;
    # this file's writer (plain parquet-mr, no statistics) may hold Drill's pre-1.9 shifted
    # dates, and it does (year 15360): they are corrected after the scan, so the date's filter
    # runs there, never on the stored values
    assert "BatchScan" in plan and "ParquetScan" in plan, plan
    assert "ReadSchema: struct<l_orderkey:" in plan and "l_comment" not in plan, plan
    assert "LessThan(l_orderkey,4)" in plan and "GreaterThanOrEqual(l_shipdate" not in plan, plan
    assert min(r[1] for r in ours) == datetime.date(1996, 1, 29)


def test_a_folder_of_files_with_drills_test_framework_types(spark, shared):
    folder = shared / "data/breadth/tf/aggregation/alltypes_with_nulls"
    ours, theirs, s1, s2 = _both(spark, f"SELECT * FROM dfs.`{folder}`")
    assert _types(s1) == _types(s2)
    assert ours == theirs and len(ours) > 0


def test_a_ctas_written_folder_reads_back_through_the_catalog(spark, shared, tmp_path):
    import tempfile

    import drillspark

    rel = os.path.relpath(tmp_path / "out", tempfile.gettempdir())
    drillspark.sql(
        f"CREATE TABLE dfs.tmp.`{rel}` AS SELECT n_nationkey AS k, n_name AS name, "
        "CAST(n_nationkey AS DOUBLE) / 4 AS q "
        f"FROM dfs.`{shared / TPCH / 'nation.parquet'}` WHERE n_nationkey < 5",
        spark=spark,
    ).collect()
    ours, theirs, s1, s2 = _both(spark, f"SELECT * FROM dfs.`{tmp_path / 'out'}`")
    assert _types(s1) == _types(s2)
    assert ours == theirs and [r[0] for r in ours] == [0, 1, 2, 3, 4]


def test_drills_time_columns_are_drills_time(spark, tmp_path):
    """Drill writes TIME as INT32 TIME(MILLIS), which Spark's reader refuses: the catalog
    reads the integers and gives Drill's TIME (Spark TIME(3)), microseconds cut."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table(
        {
            "id": pa.array([1, 2, None], pa.int32()),
            "t_ms": pa.array(
                [datetime.time(1, 2, 3, 4000), None, datetime.time(23, 59)], pa.time32("ms")
            ),
            "t_us": pa.array(
                [datetime.time(1, 2, 3, 4567), datetime.time(0, 0), None], pa.time64("us")
            ),
            "big": pa.array([2**63 + 5, 0, None], pa.uint64()),
        }
    )
    path = tmp_path / "times.parquet"
    pq.write_table(t, path)
    ours, theirs, s1, s2 = _both(spark, f"SELECT * FROM dfs.`{path}`")
    assert (
        _types(s1)
        == _types(s2)
        == [
            ("id", "int"),
            ("t_ms", "time(3)"),
            ("t_us", "time(3)"),
            ("big", "decimal(20,0)"),
        ]
    )
    assert ours == theirs
    assert (
        1,
        datetime.time(1, 2, 3, 4000),
        datetime.time(1, 2, 3, 4000),
        Decimal(2**63 + 5),
    ) in ours
    # pruned to the TIME column alone, and a filter on it (run after the scan)
    got = spark.sql(f"SELECT t_ms FROM dfs.`{path}` WHERE t_ms > TIME '12:00:00'").collect()
    assert [r.t_ms for r in got] == [datetime.time(23, 59)]


def test_files_that_type_a_column_differently_read_as_drillspark_sql_reads_them(spark, shared):
    """Drill's test-framework voters: `contributions` is DECIMAL(6,2) in some files, DOUBLE in
    others, which Spark's schema merge refuses; each group of one schema is scanned with its own
    types and the column widened (DOUBLE), as drillspark.sql reads them."""
    folder = shared / "data/breadth/tf/min_max_dir/data"
    # (drillspark.sql's `*` adds the folder's dir0..dir2 first: no dirN through this door yet)
    columns = "voter_id, name, age, registration, contributions, voterzone, date_time"
    ours, theirs, s1, s2 = _both(spark, f"SELECT {columns} FROM dfs.`{folder}`")
    assert _types(s1) == _types(s2)
    assert ("contributions", "double") in _types(s1)
    assert ours == theirs and len(ours) > 0
    query = f"SELECT count(*), max(contributions) FROM dfs.`{folder}` WHERE age > 30"
    ours, theirs, _, _ = _both(spark, query)
    assert ours == theirs


def test_a_missing_column_is_drills_null(spark, shared):
    # a column no file has is Drill's NULL, as in every Drill table of the catalog
    path = shared / TPCH / "region.parquet"
    rows = spark.sql(f"SELECT r_name, nope FROM dfs.`{path}` ORDER BY r_name LIMIT 1").collect()
    assert tuple(rows[0]) == ("AFRICA", None)


def test_drillspark_sql_reads_through_the_catalogs_parquet_table(spark, shared):
    # one reader for both doors: drillspark.sql's table is the `drill-parquet` source, the
    # catalog's table, with Spark's Parquet scan pruning columns and pushing the key's filter
    import drillspark

    path = shared / TPCH / "lineitem.parquet"
    df = drillspark.sql(
        f"SELECT l_orderkey, l_extendedprice FROM dfs.`{path}` WHERE l_orderkey < 2",
        spark=spark,
    ).df
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "drill-parquet:" in plan and "ParquetScan" in plan, plan
    assert "LessThan(l_orderkey,1)" in plan or "LessThan(l_orderkey,2)" in plan, plan
    assert "l_comment" not in plan, plan
    assert len(df.collect()) == 6  # order 1 has six line items in TPC-H (dbgen)


def test_file_columns_of_files_typing_a_column_differently(spark, tmp_path):
    # each file's group scanned alone (BIGINT in one, DOUBLE in the other: DOUBLE); the file
    # columns still name each row's own file under the grouped scan
    import pyarrow as pa
    import pyarrow.parquet as pq

    import drillspark

    (tmp_path / "d").mkdir()
    pq.write_table(pa.table({"x": pa.array([1], pa.int64())}), str(tmp_path / "d" / "a.parquet"))
    pq.write_table(pa.table({"x": pa.array([2.5])}), str(tmp_path / "d" / "b.parquet"))
    df = drillspark.sql(
        f"SELECT x, filename, typeof(x) t FROM dfs.`{tmp_path / 'd'}` ORDER BY x", spark=spark
    ).df
    assert [tuple(r) for r in df.collect()] == [
        (1.0, "a.parquet", "FLOAT8"),
        (2.5, "b.parquet", "FLOAT8"),
    ]
