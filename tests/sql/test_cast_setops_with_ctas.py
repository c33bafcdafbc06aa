"""CAST, set operations, WITH and CTAS / view DDL as real Apache Drill 1.22 answers them. Each
query and its expected answer were run on Drill 1.22 (`../shared/tools/drill/`, embedded,
default options) while probing these features; the data is the breadth corpus'
(`../shared/data/breadth/`)."""

from __future__ import annotations

import decimal
import json

import pytest

from drillspark.errors import Error
from drillspark.sql.output import columns_and_rows

N = "dfs.`breadth/own/json/nums.json`"  # i: 10, -3, NULL, 7, 7, 0, 4
P = "dfs.`breadth/own/json/people.json`"
D = "dfs.`breadth/own/json/depts.json`"
V = "(VALUES(1))"


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def fails(engine, text) -> str:
    with pytest.raises(Error) as info:  # a SqlError, or a run-time error of the query
        q(engine, text)
    return str(info.value)


# --- CAST ------------------------------------------------------------------------------------
def test_integer_casts_wrap_as_java_and_arithmetic_overflow_fails_clearly(data_engine):
    _, rows = q(data_engine, f"SELECT CAST(2147483647 AS BIGINT) + 1 a FROM {V}")
    assert rows == [[2147483648]]
    # Drill 1.22 wraps INT arithmetic as Java does: 2147483647 + 1 is -2147483648,
    # CAST(-2147483648 AS INT) - 1 is 2147483647, 65536 * 65536 is 0; so does drillspark
    _, rows = q(
        data_engine,
        f"SELECT 2147483647 + 1 a, CAST(-2147483648 AS INT) - 1 b, 65536 * 65536 c FROM {V}",
    )
    assert rows == [[-2147483648, 2147483647, 0]]
    # chains wrap as Java's int does at every step (a chain adds exactly in BIGINT and each
    # level keeps its low 32 bits, which is the same): 2147483647 + 1 + 1 is -2147483647,
    # three times 2147483647 is 2147483645, (2147483647 + 1) * 2 is 0, 65536 * 65536 + 1 is 1
    _, rows = q(
        data_engine,
        f"SELECT 2147483647 + 1 + 1 a, 2147483647 + 2147483647 + 2147483647 b, "
        f"(2147483647 + 1) * 2 c, 65536 * 65536 + 1 d, 2147483647 + 1 - 1 e FROM {V}",
    )
    assert rows == [[-2147483647, 2147483645, 0, 1, 2147483647]]
    # Drill wraps BIGINT arithmetic too; drillspark fails with an overflow error instead
    # (wrapping grew long chains past Spark's limits: docs/drill-differences.md)
    with pytest.raises(Error, match="overflow"):
        q(data_engine, f"SELECT CAST(9223372036854775807 AS BIGINT) + 1 AS c FROM {V}")
    # a chain stays one node per term (it was 4^terms: out of heap at 150)
    _, rows = q(data_engine, f"SELECT CAST(1 AS INT){' + 1' * 60} AS s FROM {V}")
    assert rows == [[61]]
    _, rows = q(data_engine, f"SELECT CAST(3000000000 AS INT) d FROM {V}")
    assert rows == [[-1294967296]]
    _, rows = q(data_engine, f"SELECT CAST(123456789012 AS INT) a FROM {V}")
    assert rows == [[-1097262572]]
    # no overflow: the plain answers, NULLs kept
    _, rows = q(data_engine, f"SELECT id, i + 1 a, i * 2 b FROM {N} WHERE id < 4 ORDER BY id")
    assert rows == [[1, 11, 20], [2, -2, -6], [3, None, None]]


def test_decimal_product_type(data_engine):
    _, rows = q(
        data_engine,
        "SELECT sqltypeof(CAST(1.1 AS DECIMAL(3,1)) * CAST(2.22 AS "
        "DECIMAL(4,2))) b, sqltypeof(CAST(1 AS DECIMAL(5,2)) + 1) c, "
        "sqltypeof(CAST(1 AS DECIMAL(5,2)) * CAST(1 AS DECIMAL(10,3))) d, "
        "CAST(1.1 AS DECIMAL(3,1)) * CAST(2.22 AS DECIMAL(4,2)) e, "
        f"CAST(123.456 AS DECIMAL(6,3)) * 2 f FROM {V}",
    )
    assert rows == [
        [
            "DECIMAL(7, 3)",
            "DECIMAL(13, 2)",
            "DECIMAL(15, 5)",
            decimal.Decimal("2.442"),
            decimal.Decimal("246.912"),
        ]
    ]


def test_boolean_casts(data_engine):
    _, rows = q(
        data_engine,
        "SELECT CAST('true' AS BOOLEAN) a, CAST('false' AS BOOLEAN) b, "
        f"CAST(0 AS BOOLEAN) c, CAST(1 AS BOOLEAN) d FROM {V}",
    )
    assert rows == [[True, False, False, True]]
    assert "Invalid value for boolean: 5" in fails(
        data_engine, f"SELECT CAST(5 AS BOOLEAN) d FROM {V}"
    )
    assert "Invalid value for boolean: -1" in fails(
        data_engine, f"SELECT CAST(-1 AS BOOLEAN) FROM {V}"
    )


def test_interval_text(data_engine):
    _, rows = q(
        data_engine,
        "SELECT CAST(INTERVAL '36' HOUR AS VARCHAR) a, "
        "CAST(INTERVAL '2' DAY AS VARCHAR) b, "
        "CAST(INTERVAL '1-2' YEAR TO MONTH AS VARCHAR) c, "
        "CAST(INTERVAL '1:30:05.5' HOUR TO SECOND AS VARCHAR) d, "
        "CAST(INTERVAL '3' MONTH AS VARCHAR) e, "
        f"CAST(INTERVAL '-1' DAY AS VARCHAR) f FROM {V}",
    )
    assert rows == [
        [
            "1 day 12:0:0.0",
            "2 days 0:0:0.0",
            "1 year 2 months ",
            "0 days 1:30:5.500",
            "0 years 3 months ",
            "-1 day 0:0:0.0",
        ]
    ]


def test_types_drill_refuses(data_engine):
    for t in ("SMALLINT", "TINYINT"):
        assert f"{t} is not supported" in fails(data_engine, f"SELECT CAST(1 AS {t}) b FROM {V}")
    assert "No match found for function signature NVL" in fails(
        data_engine, f"SELECT id, NVL(i, 0) a FROM {N}"
    )


# --- set operations --------------------------------------------------------------------------
def test_intersect_and_except_never_match_nulls(data_engine):
    # Drill matches the rows as a join does: NULL equals nothing
    _, rows = q(
        data_engine, f"SELECT i FROM {N} INTERSECT SELECT i FROM {N} WHERE grp = 'a' OR i IS NULL"
    )
    assert sorted(rows) == [[-3], [10]]
    _, rows = q(data_engine, f"SELECT i FROM {N} EXCEPT SELECT i FROM {N} WHERE i IS NULL OR i = 7")
    assert sorted(rows, key=str) == [[-3], [0], [10], [4], [None]]
    _, rows = q(data_engine, f"SELECT i FROM {N} INTERSECT ALL SELECT i FROM {N}")
    assert sorted(rows) == [[-3], [0], [4], [7], [7], [10]]
    _, rows = q(data_engine, f"SELECT i FROM {N} EXCEPT ALL SELECT i FROM {N} WHERE i IS NULL")
    assert len(rows) == 7 and [None] in rows
    _, rows = q(
        data_engine, f"SELECT grp, s FROM {N} INTERSECT SELECT grp, s FROM {N} WHERE id > 3"
    )
    assert sorted(rows) == [["b", "x"], ["b", "z"], ["c", "y"]]


def test_set_operation_column_count(data_engine):
    assert "Column count mismatch in UNION" in fails(
        data_engine, f"SELECT id, dept FROM {P} UNION SELECT id FROM {N}"
    )


# --- WITH ------------------------------------------------------------------------------------
def test_with_inside_a_cte(data_engine):
    cols, rows = q(
        data_engine,
        f"WITH a AS (WITH b AS (SELECT id, dept FROM {P}) SELECT dept, "
        "COUNT(*) c FROM b GROUP BY dept) SELECT * FROM a WHERE c > 1",
    )
    assert cols == ["dept", "c"]
    assert sorted(rows) == [["Engineering", 3], ["Marketing", 2], ["Sales", 2]]


def test_with_errors(data_engine):
    assert "Number of columns must match number of query columns" in fails(
        data_engine, f"WITH x(a, b) AS (SELECT id FROM {P}) SELECT * FROM x"
    )
    assert "Encountered" in fails(
        data_engine,
        f"WITH RECURSIVE t(n) AS (SELECT 1 FROM {V} UNION ALL SELECT n + 1 "
        "FROM t WHERE n < 3) SELECT n FROM t",
    )


# --- CTAS and views --------------------------------------------------------------------------
def test_partition_by_errors(data_engine):
    assert "Partition column nosuch is not in the SELECT list of CTAS!" in fails(
        data_engine, f"CREATE TABLE dfs.tmp.`a51` PARTITION BY (nosuch) AS SELECT id FROM {P}"
    )
    data_engine.execute("ALTER SESSION SET `store.format` = 'json'")
    assert "json format does not support auto-partitioning" in fails(
        data_engine, f"CREATE TABLE dfs.tmp.`b13` PARTITION BY (dept) AS SELECT dept, id FROM {P}"
    )


def test_partitioned_parquet_table_reads_back(data_engine):
    cols, rows = q(
        data_engine,
        "CREATE TABLE dfs.tmp.`a50` (k, nm) PARTITION BY (k) AS "
        "SELECT r_regionkey, r_name FROM dfs.`breadth/tpch/region.parquet`",
    )
    assert rows[0][1] == 5
    data_engine.execute(
        f"CREATE TABLE dfs.tmp.`a12` PARTITION BY (dept) AS SELECT id, dept FROM {P}"
    )
    _, rows = q(data_engine, "SELECT COUNT(*) c FROM dfs.tmp.`a12` WHERE dept = 'Engineering'")
    assert rows == [[3]]


def test_or_replace_with_if_not_exists(data_engine):
    assert "cannot have both <OR REPLACE> and <IF NOT EXISTS>" in fails(
        data_engine, f"CREATE OR REPLACE VIEW IF NOT EXISTS dfs.tmp.`v18` AS SELECT id FROM {P}"
    )


def test_a_json_ctas_writes_dates_and_times_as_drill_does(data_engine, tmp_path):
    # Drill 1.22 (2026-12-07), store.format 'json': the file holds '2024-03-05 01:02:03.000',
    # '2024-03-05 01:02:03.456', '10:11:12.000', '2024-03-05' (read back as VARCHAR); Spark's
    # writer had put ISO's 'T' and no milliseconds
    data_engine.execute("ALTER SESSION SET `store.format` = 'json'")
    try:
        data_engine.execute(
            "CREATE TABLE dfs.tmp.`ctj` AS SELECT TIMESTAMP '2024-03-05 01:02:03' t0, "
            "TIMESTAMP '2024-03-05 01:02:03.456' t, TIME '10:11:12' tm, DATE '2024-03-05' d "
            "FROM (VALUES(1))"
        )
    finally:
        data_engine.execute("ALTER SESSION RESET `store.format`")
    records = [
        json.loads(line)
        for f in sorted((tmp_path / "ctj").glob("*.json"))
        for line in f.read_text().splitlines()
    ]
    assert records == [
        {
            "t0": "2024-03-05 01:02:03.000",
            "t": "2024-03-05 01:02:03.456",
            "tm": "10:11:12.000",
            "d": "2024-03-05",
        }
    ]
