"""Drill SQL regressions found in review: joins under `*`, correlated EXISTS in joins, scalar
subqueries, `||`, TRIM sides, CTAS without a scan, indexing computed values, VALUES types,
set-operation ORDER BY ordinals and run-time errors naming the query. Expected values follow
Drill (drill-semantics.md) and are worked out by hand from the literals in each query."""

from __future__ import annotations

import pytest

from drillspark.result import DrillRuntimeError
from drillspark.sql import QueryPlanError, SqlError
from drillspark.sql.output import columns_and_rows, render

A = "(VALUES (1, 2)) a(id, v)"
B = "(VALUES (1, 3)) b(id, v)"
JSON = "dfs.`data/drill/jsoninput/input2.json`"  # integer 2010, -2002, 2001, 6005


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


# --- 1. joins under * -----------------------------------------------------------------------
def test_star_join_reads_each_side(engine):
    cols, rows = q(engine, f"SELECT * FROM {A} JOIN {B} ON a.id = b.id")
    assert cols == ["id", "v", "id0", "v0"] and rows == [[1, 2, 1, 3]]
    cols, rows = q(engine, f"SELECT * FROM {A} JOIN {B} ON a.id = b.id WHERE a.v <> b.v")
    assert rows == [[1, 2, 1, 3]]
    cols, rows = q(engine, f"SELECT a.*, b.* FROM {A} JOIN {B} ON a.id = b.id")
    assert cols == ["id", "v", "id0", "v0"] and rows == [[1, 2, 1, 3]]
    cols, rows = q(engine, f"SELECT b.*, a.v FROM {A} JOIN {B} ON a.id = b.id")
    assert cols == ["id", "v", "v0"] and rows == [[1, 3, 2]]


def test_star_join_of_schema_free_tables_resolves_qualified_names(engine):
    # both sides are the same file: joined on integer, a.integer + b.integer = 2 * integer
    _, rows = q(
        engine,
        f"SELECT a.`integer` + b.`integer` AS s FROM {JSON} a JOIN {JSON} b "
        "ON a.`integer` = b.`integer` ORDER BY s",
    )
    assert rows == [[-4004], [4002], [4020], [12010]]
    cols, rows = q(
        engine,
        f"SELECT * FROM {JSON} a JOIN (VALUES (2001, 'x')) b(i, tag) "
        "ON a.`integer` = b.i WHERE b.tag = 'x' AND a.`float` > 1",
    )
    assert len(rows) == 1 and not [c for c in cols if c.startswith("$") or "$" in c]
    row = dict(zip(cols, rows[0], strict=True))
    assert row["integer"] == 2001 and row["i"] == 2001 and row["tag"] == "x"
    # only the starred side's record reaches the output, plus the items named
    cols, rows = q(
        engine,
        f"SELECT b.tag, a.* FROM {JSON} a JOIN (VALUES (2001, 'x', 7)) "
        "b(i, tag, n) ON a.`integer` = b.i",
    )
    assert "i" not in cols and "n" not in cols and not [c for c in cols if "$" in c]
    row = dict(zip(cols, rows[0], strict=True))
    assert len(rows) == 1 and row["tag"] == "x" and row["integer"] == 2001


# --- 2. correlated EXISTS in a join ---------------------------------------------------------
def test_correlated_exists_inside_join(engine):
    _, rows = q(
        engine,
        "SELECT a.id FROM (VALUES (1, 5)) a(id, k) JOIN (VALUES (1)) b(id) "
        "ON a.id = b.id WHERE EXISTS "
        "(SELECT 1 FROM (VALUES (5)) c(k) WHERE c.k = a.k)",
    )
    assert rows == [[1]]
    _, rows = q(
        engine,
        "SELECT a.id FROM (VALUES (1, 5), (2, 6)) a(id, k) JOIN "
        "(VALUES (1), (2)) b(id) ON a.id = b.id WHERE NOT EXISTS "
        "(SELECT 1 FROM (VALUES (5)) c(k) WHERE c.k = a.k)",
    )
    assert rows == [[2]]


# --- 3. scalar subqueries -------------------------------------------------------------------
def test_empty_scalar_subquery_is_null(engine):
    _, rows = q(
        engine,
        "SELECT x FROM (VALUES (1), (2)) a(x) WHERE x = 1 OR "
        "x = (SELECT y FROM (VALUES (5)) b(y) WHERE y > 10)",
    )
    assert rows == [[1]]
    _, rows = q(
        engine,
        "SELECT x FROM (VALUES (1), (2)) a(x) WHERE x < "
        "(SELECT max(y) FROM (VALUES (5), (2)) b(y)) ORDER BY x",
    )
    assert rows == [[1], [2]]


def test_scalar_subquery_with_two_rows_fails(engine):
    sql = "SELECT x FROM (VALUES (1), (2)) a(x) WHERE x < (SELECT y FROM (VALUES (5), (6)) b(y))"
    with pytest.raises(
        DrillRuntimeError, match="Input for single_value function has more than one row: 2"
    ) as info:
        q(engine, sql)
    assert sql in str(info.value)  # the failure names the query


# --- 4./5. || and TRIM ----------------------------------------------------------------------
def test_concat_operator_is_null_if_null(engine):
    _, rows = q(
        engine,
        "SELECT 'a' || CAST(NULL AS VARCHAR) AS n, 'a' || 'b' AS ab, "
        "concat('a', CAST(NULL AS VARCHAR)) AS c FROM (VALUES (1)) t(x)",
    )
    assert rows == [[None, "ab", "a"]]


def test_trim_sides(engine):
    _, rows = q(
        engine,
        "SELECT TRIM(LEADING '0' FROM '00100') l, "
        "TRIM(TRAILING '0' FROM '00100') r, TRIM(BOTH '0' FROM '00100') b, "
        "TRIM('  x ') s, TRIM(LEADING FROM '  x ') ls FROM (VALUES (1)) t(x)",
    )
    assert rows == [["100", "001", "1", "x", "x "]]


# --- 6. CTAS without a table scan -----------------------------------------------------------
def test_ctas_from_values(engine, tmp_path):
    cols, rows = q(
        engine, "CREATE TABLE dfs.tmp.`v1` AS SELECT x, x * 2 AS y FROM (VALUES (1), (2)) t(x)"
    )
    assert rows[0][-1] == 2 and (tmp_path / "v1").is_dir()  # two records written
    _, rows = q(engine, "SELECT x, y FROM dfs.tmp.`v1` ORDER BY x")
    assert rows == [[1, 2], [2, 4]]


# --- 7. index on a computed value -----------------------------------------------------------
def test_index_on_computed_value(engine):
    # computed into a hidden field first (tests/sql/test_computed_index.py); in HAVING, where
    # Drill 1.22 fails too, the refusal is located
    assert q(engine, "SELECT split('a,b', ',')[0] AS c FROM (VALUES (1)) t(x)")[1] == [["a"]]
    sql = "SELECT x FROM (VALUES (1)) t(x) GROUP BY x HAVING split('a,b', ',')[0] = 'a'"
    with pytest.raises(SqlError) as info:
        engine.execute(sql)
    err = info.value
    assert "drill_item" not in str(err) and "index" in str(err)
    assert (err.line, err.column) == (1, 51)  # at split(


# --- 8. VALUES types ------------------------------------------------------------------------
def test_values_literals_have_sql_types(engine):
    _, rows = q(
        engine,
        "SELECT typeof(t.x) a, typeof(t.y) b, typeof(t.s) c, t.y FROM "
        "(VALUES (1, 1.5, 'p'), (2, 10.25, 'q')) t(x, y, s) ORDER BY t.x",
    )
    assert [r[:3] for r in rows] == [["INT", "VARDECIMAL", "VARCHAR"]] * 2
    assert [str(r[3]) for r in rows] == ["1.50", "10.25"]
    _, rows = q(engine, "SELECT sqltypeof(t.x) a, t.x FROM (VALUES (1), (2.5)) t(x) ORDER BY t.x")
    assert [[r[0], str(r[1])] for r in rows] == [
        ["DECIMAL(11, 1)", "1.0"],
        ["DECIMAL(11, 1)", "2.5"],
    ]
    _, rows = q(engine, "SELECT typeof(t.x) a FROM (VALUES (3000000000), (1)) t(x)")
    assert rows == [["BIGINT"], ["BIGINT"]]
    _, rows = q(engine, "SELECT typeof(t.x) a, t.x FROM (VALUES (1e1)) t(x)")
    assert rows == [["FLOAT8", 10.0]]


# --- 9. ORDER BY ordinals on set operations -------------------------------------------------
def test_set_operation_order_by_ordinal_range(engine):
    u = (
        "SELECT 1 AS a, 2 AS b FROM (VALUES (1)) t(x) UNION "
        "SELECT 3, 4 FROM (VALUES (1)) t(x) ORDER BY "
    )
    _, rows = q(engine, u + "2 DESC")
    assert rows == [[3, 4], [1, 2]]
    for bad in ("0", "5"):
        with pytest.raises(SqlError, match=f"Ordinal out of range: ORDER BY {bad}") as info:
            engine.execute(u + bad)
        assert info.value.column == len(u) + 1


# --- run-time errors name the query ---------------------------------------------------------
def test_translation_errors_carry_the_statement(engine):
    sql = "SELECT nosuchfn(t.x) FROM (VALUES (1)) t(x)"
    with pytest.raises(QueryPlanError) as info:
        engine.execute(sql)
    assert info.value.sql == sql and "unknown function 'nosuchfn'" in str(info.value)
    assert "plan operator @" in str(info.value)
    assert (info.value.line, info.value.column) == (1, 8)


# --- output streams -------------------------------------------------------------------------
def test_render_is_unchanged_by_streaming(engine):
    (result,) = engine.execute("SELECT x, x || 'z' AS s FROM (VALUES ('a'), ('b')) t(x) ORDER BY x")
    assert render(result, "json") == '{"x": "a", "s": "az"}\n{"x": "b", "s": "bz"}'
    assert render(result, "csv") == "x,s\na,az\nb,bz"
    assert render(result, "table").splitlines()[-1] == "2 rows selected"


def test_a_column_a_listed_subquery_lacks_is_refused(engine):
    # Drill 1.22 (2026-12-07): "Column 'nosuch' not found in any table" for a name a
    # subquery's select list does not give (it had been a NULL column here); a subquery
    # with `*` over a schema-free file still gives NULL for a name its rows lack
    with pytest.raises(SqlError, match=r"Column 'nosuch' not found in any table"):
        engine.execute("SELECT nosuch FROM (SELECT 1 AS a FROM (VALUES(1)))")
    with pytest.raises(SqlError, match=r"Column 'nosuch' not found in table 't'"):
        engine.execute(f"SELECT t.nosuch FROM (SELECT integer FROM {JSON}) t")
    assert q(engine, f"SELECT T.INTEGER FROM (SELECT integer FROM {JSON}) t LIMIT 1")[1] == [[2010]]
    assert q(engine, f"SELECT nosuch FROM (SELECT * FROM {JSON}) LIMIT 1")[1] == [[None]]
