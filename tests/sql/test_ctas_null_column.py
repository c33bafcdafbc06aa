"""CTAS of a NULL literal (#36): `CREATE TABLE t AS SELECT 'a', null` then reading `t`. Spark
would write Parquet's missing null type and fail to read it back ("Parquet type null is not
supported"); Drill 1.22 writes the column as a nullable INT. Drill's answers, asked with
query.sh:

    CREATE TABLE dfs.tmp.tn AS SELECT 'a', null  -> [["0_0", 1]]
    SELECT * FROM dfs.tmp.tn                      -> EXPR$0, EXPR$1 (CHARACTER VARYING, INTEGER)
                                                     [["a", null]]
    SELECT typeof(EXPR$1), sqltypeof(EXPR$1), modeof(EXPR$1) FROM dfs.tmp.tn
                                                  -> [["INT", "INTEGER", "NULLABLE"]]
"""

from __future__ import annotations

import pytest

from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.output import columns_and_rows


@pytest.fixture
def eng(spark, tmp_path):
    engine = SqlEngine(spark, SqlSession(workspaces={"tmp": str(tmp_path)}))
    yield engine
    engine.close()


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_a_null_column_is_written_as_int_and_read_back(eng):
    assert q(eng, "CREATE TABLE dfs.tmp.tn AS SELECT 'a', null")[1] == [["0_0", 1]]
    assert q(eng, "SELECT * FROM dfs.tmp.tn") == (["EXPR$0", "EXPR$1"], [["a", None]])
    assert q(eng, "SELECT typeof(EXPR$1) t, sqltypeof(EXPR$1) s, modeof(EXPR$1) m FROM dfs.tmp.tn")[
        1
    ] == [["INT", "INTEGER", "NULLABLE"]]


def test_a_named_null_column_beside_others(eng):
    eng.execute("CREATE TABLE dfs.tmp.tn2 AS SELECT 'a' AS a, null AS b, 1 AS c")
    assert q(eng, "SELECT * FROM dfs.tmp.tn2") == (["a", "b", "c"], [["a", None, 1]])
    assert q(eng, "SELECT sqltypeof(b) FROM dfs.tmp.tn2")[1] == [["INTEGER"]]
