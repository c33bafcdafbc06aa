"""Drill SQL end to end on Spark (drillspark.sql -> logical plan -> translator), over the
shared conformance data. Expected values are read off the data file by hand:
data/drill/jsoninput/input2.json holds four records:

    integer  float  x.y    l      rl
    2010     17.4   kevin  [4,2]  [[2,1],[4,6]]
    -2002    -1.2   (no x, l, rl)
    2001     1.2    bill   [4,2]  [[2,1],[4,6]]
    6005     1.2    mike   [4,2]  [[2,1],[4,6]]
"""

from __future__ import annotations

import math

import pytest

from drillspark.sql import SqlError, TableNotFoundError, UnsupportedSqlError
from drillspark.sql.output import columns_and_rows

T = "dfs.`data/drill/jsoninput/input2.json`"


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_nested_paths_and_expr_names(engine):
    cols, rows = q(
        engine,
        f"select t.`integer`, t.x.y, t.l[1], t.rl[1][0], t.X.`Y` as yy "
        f"from {T} t order by t.`integer`",
    )
    assert cols == ["integer", "EXPR$1", "EXPR$2", "EXPR$3", "yy"]
    assert rows == [
        [-2002, None, None, None, None],
        [2001, "bill", 2, 4, "bill"],
        [2010, "kevin", 2, 4, "kevin"],
        [6005, "mike", 2, 4, "mike"],
    ]


def test_missing_column_is_null(engine):
    cols, rows = q(engine, f"select nosuch, t.x.nosuch from {T} t")
    assert cols == ["nosuch", "EXPR$1"] and rows == [[None, None]] * 4


def test_flatten_cross_product_and_nested(engine):
    _, rows = q(
        engine,
        f"select `integer`, flatten(l) a, flatten(flatten(rl)) b from {T} where `integer` = 2010",
    )
    assert sorted(map(tuple, rows)) == sorted((2010, a, b) for a in (4, 2) for b in (2, 1, 4, 6))


def test_group_by_having_order_nulls(engine):
    _, rows = q(
        engine,
        f"select t.`float` f, count(*) n, sum(t.`integer`) s from {T} t "
        "group by t.`float` having count(*) < 3 order by n desc, f",
    )
    assert rows[0] == [1.2, 2, 8006]
    assert rows[1:] == [[-1.2, 1, -2002], [17.4, 1, 2010]]
    _, rows = q(engine, f"select t.x.y from {T} t order by t.x.y desc")
    assert rows == [[None], ["mike"], ["kevin"], ["bill"]]  # Drill: DESC puts nulls first
    _, rows = q(engine, f"select t.x.y from {T} t order by t.x.y")
    assert rows[-1] == [None]


def test_limit_offset_distinct(engine):
    _, rows = q(engine, f"select distinct `float` from {T} order by `float` limit 2 offset 1")
    assert rows == [[1.2], [17.4]]
    _, rows = q(engine, f"select count(distinct `float`), sum(distinct `float`) from {T}")
    assert rows[0][0] == 3 and rows[0][1] == pytest.approx(17.4)


def test_join_union_and_subqueries(engine):
    _, rows = q(
        engine,
        f"select a.`integer`, b.x.y from {T} a join {T} b "
        "on a.`integer` = b.`integer` where a.`float` > 1 order by 1",
    )
    assert rows == [[2001, "bill"], [2010, "kevin"], [6005, "mike"]]
    _, rows = q(
        engine,
        f"select `integer` from {T} where `float` < 0 union all "
        f"select `integer` from {T} where `float` > 17",
    )
    assert sorted(rows) == [[-2002], [2010]]
    _, rows = q(
        engine,
        f"select `integer` from {T} where `integer` in "
        f"(select `integer` from {T} where `float` = 1.2) order by 1",
    )
    assert rows == [[2001], [6005]]
    _, rows = q(
        engine,
        f"select `integer` from {T} where `integer` > (select avg(`integer`) from {T}) order by 1",
    )
    assert rows == [[2010], [6005]]  # avg = 2003.5
    _, rows = q(engine, f"with c as (select `integer` i from {T}) select max(i) m from c")
    assert rows == [[6005]]


def test_scalar_functions_case_cast(engine):
    _, rows = q(
        engine,
        f"select case when `integer` > 2005 then 'big' else 'small' end, "
        f"cast(`float` as int), upper(t.x.y) from {T} t "
        "where `integer` = 2010",
    )
    assert rows == [["big", 17, "KEVIN"]]


def test_nested_data_functions(engine):
    _, rows = q(
        engine,
        f"select kvgen(t.x), repeated_count(l), typeof(t.`float`) from {T} t "
        "where `integer` = 2001",
    )
    assert rows == [[[{"key": "y", "value": "bill"}, {"key": "z", "value": "peter"}], 2, "FLOAT8"]]


def test_select_without_from_and_values(engine):
    cols, rows = q(engine, "select typeof(1) a, typeof(12.3) b, 1 + 2")
    assert cols == ["a", "b", "EXPR$2"] and rows == [["INT", "VARDECIMAL", 3]]
    _, rows = q(engine, "select n from (values (1, 'a'), (2, 'b')) as v(n, s) where s = 'b'")
    assert rows == [[2]]


def test_session_options_reach_the_scan(engine):
    # read_numbers_as_double: the scan's format config carries it into the plan
    engine.execute("alter session set `store.json.read_numbers_as_double` = true")
    compiled = engine.compile(f"select * from {T}")
    scan = compiled.plan.to_json()["query"][0]
    assert scan["selection"]["format"]["readNumbersAsDouble"] is True
    assert compiled.plan.head["options"]["store.json.read_numbers_as_double"] is True


def test_use_and_ctas(engine, tmp_path):
    cols, rows = q(engine, f"create table dfs.tmp.`t1` as select `integer` i, t.x.y y from {T} t")
    assert (tmp_path / "t1").exists()
    engine.execute("use dfs.tmp")
    _, rows = q(engine, "select i, y from `t1` order by i")
    assert rows == [[-2002, None], [2001, "bill"], [2010, "kevin"], [6005, "mike"]]
    engine.execute("alter session set `store.format` = 'json'")
    engine.execute(f"create table `t2` as select `integer` from {T}")
    assert any(p.suffix == ".json" for p in (tmp_path / "t2").iterdir())


def test_nan_and_explain(engine):
    _, rows = q(engine, "select * from dfs.`data/drill/jsoninput/nan_test.json`")
    assert sorted(map(repr, rows[0])) == ["inf", "nan"]
    assert math.isnan([v for v in rows[0] if v != math.inf][0])
    (result,) = engine.execute(f"explain plan for select flatten(l) from {T}")
    assert '"op": "flatten"' in result.data[0][1]


def test_errors(engine):
    with pytest.raises(TableNotFoundError, match="does not exist"):
        engine.execute("select * from dfs.`no/such/file.json`")
    with pytest.raises(UnsupportedSqlError, match="LIMIT in a subquery correlated this way"):
        engine.execute(
            f"select 1 from {T} t where a not in (select b from {T} u where u.b > t.a limit 1)"
        )


def test_drillspark_sql_function(spark, shared, monkeypatch):
    import drillspark

    monkeypatch.chdir(shared / "data" / "drill-conformance")
    result = drillspark.sql(f"select count(*) as n from {T}", spark)
    assert result.rows() == [{"n": 4}]
    assert type(result).__name__ == "DrillResult"


def test_text_files_columns_and_header(engine, tmp_path):
    (tmp_path / "plain.csv").write_text("1,x,2.5\n3,y,4\n")
    (tmp_path / "head.csvh").write_text("a,b\n1,x\n")
    _, rows = q(
        engine, "select columns[1], columns[0] from dfs.tmp.`plain.csv` order by columns[0]"
    )
    assert rows == [["x", "1"], ["y", "3"]]
    cols, rows = q(engine, "select b, A from dfs.tmp.`head.csvh`")
    assert cols == ["b", "A"] and rows == [["x", "1"]]
    _, rows = q(
        engine,
        "select columns from table(dfs.tmp.`head.csvh`(type => 'text', "
        "fieldDelimiter => ',', extractHeader => false))",
    )
    assert rows == [[["a", "b"]], [["1", "x"]]]


def test_describe(engine):
    # Drill 1.22 lists no columns for a schema-free file (they are known only when read)
    cols, rows = q(engine, "describe dfs.`data/drill/jsoninput/input2.json`")
    assert cols == ["COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE"] and rows == []
    with pytest.raises(SqlError, match=r"Unknown table \[nosuch.json\] in schema \[dfs.default\]"):
        engine.execute("describe dfs.`nosuch.json`")


def test_exists_subqueries(engine):
    sub = f"select 1 from {T} u where u.`integer` = t.`integer` and u.`float` > 1"
    _, rows = q(engine, f"select t.`integer` from {T} t where exists ({sub}) order by 1")
    assert rows == [[2001], [2010], [6005]]
    _, rows = q(engine, f"select t.`integer` from {T} t where not exists ({sub})")
    assert rows == [[-2002]]
    _, rows = q(
        engine,
        f"select count(*) from {T} t where exists (select 1 from {T} u where u.`float` > 100)",
    )
    assert rows == [[0]]
    # SELECT * does not show the helper join columns
    cols, rows = q(
        engine,
        f"select * from {T} t where `integer` in (select `integer` from {T} where `float` > 10)",
    )
    assert not [c for c in cols if c.startswith("$")] and len(rows) == 1


def test_ranking_window_functions(engine):
    cols, rows = q(
        engine,
        f"select t.`integer` i, rank() over (order by t.`float`) r, "
        f"row_number() over (order by t.`integer`) n, "
        f"lag(t.`integer`) over (order by t.`integer`) p, "
        f"ntile(2) over (order by t.`integer`) b from {T} t order by i",
    )
    # floats -1.2, 1.2, 1.2, 17.4 for integers -2002, 2001, 6005, 2010
    assert cols == ["i", "r", "n", "p", "b"]
    assert rows == [
        [-2002, 1, 1, None, 1],
        [2001, 2, 2, -2002, 1],
        [2010, 4, 3, 2001, 2],
        [6005, 2, 4, 2010, 2],
    ]


def test_with_column_list_names_the_cte_columns(spark, shared, tmp_path):
    # Drill 1.22: WITH a (k, v) AS (SELECT n_nationkey, n_name ...) ... WHERE k = 5 -> ETHIOPIA
    from drillspark.sql import SqlEngine, SqlSession

    engine = SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path)})
    )
    nation = "dfs.`breadth/tpch/nation.parquet`"
    assert q(
        engine,
        f"WITH a (k, v) AS (SELECT n_nationkey, n_name FROM {nation}) SELECT v FROM a WHERE k = 5",
    ) == (["v"], [["ETHIOPIA"]])
    assert q(
        engine,
        "WITH a (k) AS (SELECT x FROM (VALUES (1), (2)) t(x)), "
        "b AS (SELECT k * 2 AS d FROM a) SELECT d FROM b ORDER BY d",
    ) == (["d"], [[2], [4]])
    with pytest.raises(SqlError, match="Number of columns must match number of query columns"):
        q(engine, f"WITH a (k, v) AS (SELECT n_nationkey FROM {nation}) SELECT * FROM a")
