"""Mismatches found by probing Drill 1.22 with queries in the breadth corpus' style (hand-written
ones, and queries mined from mapr/drill-test-framework, Drill's unit tests and its docs,
rewritten to shared/data/breadth): each test states the query and Drill's answer (asked
through shared/tools/drill with `--root shared/data`)."""

from __future__ import annotations

import math
import os
import struct

import pytest

from drillspark.sql.errors import ValidationError
from drillspark.sql.output import columns_and_rows

HEADER_CSV = "dfs.`breadth/tf/table_function/header.csv`"


def result(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])


def test_crlf_line_delimiter_ends_lines_without_a_stray_carriage_return(data_engine):
    # drill-test-framework table_function/positive/data: the file's lines end with \r\n.
    # Drill: 4 rows; the last field has no \r, and a short line's missing field is NULL
    # (before: the \r stayed in the last field and the lines after a short one were merged)
    _, rows = result(
        data_engine,
        f"select columns[0], columns[1], columns[2] from table({HEADER_CSV}(type => 'text', "
        "lineDelimiter => '\\r\\n', fieldDelimiter => ',', skipFirstLine => true))",
    )
    assert rows == [
        ["1", "aaa", "bbb"],
        ["2", "ccc", "ddd"],
        ["3", "eee", None],
        ["4", "fff", "ggg"],
    ]


NUMS = "dfs.`breadth/own/json/nums.json`"
DEPTS = "dfs.`breadth/own/json/depts.json`"


def test_expr_names_count_the_distinct_names_before_them(data_engine):
    # Drill (Calcite): EXPR$n counts the distinct derived names before the item,
    # case-sensitively; repeats then get a digit, ignoring case
    cases = {
        f"SELECT id, id, id, id + 0 FROM {NUMS} WHERE id = 2": ["id", "id0", "id1", "EXPR$1"],
        f"SELECT id AS x, grp AS x, id + 0 FROM {NUMS} WHERE id = 2": ["x", "x0", "EXPR$1"],
        f"SELECT id, ID, id + 0 FROM {NUMS} WHERE id = 2": ["id", "ID0", "EXPR$2"],
        f"SELECT id + 0, id, id FROM {NUMS} WHERE id = 2": ["EXPR$0", "id", "id0"],
        f"SELECT id, id + 0, id, id + 1 FROM {NUMS} WHERE id = 2": [
            "id",
            "EXPR$1",
            "id0",
            "EXPR$2",
        ],
        "SELECT 1, 2 AS EXPR$0, 3 FROM (VALUES(1))": ["EXPR$0", "EXPR$00", "EXPR$1"],
        f"SELECT *, *, floor + 1 FROM {DEPTS} WHERE floor = 1": [
            "dept",
            "floor",
            "manager_id",
            "dept0",
            "floor0",
            "manager_id0",
            "EXPR$2",
        ],  # fmt: skip
    }
    for sql, want in cases.items():
        assert result(data_engine, sql)[0] == want, sql


def test_select_distinct_star_over_a_schema_free_table(data_engine):
    # Drill groups by its `**` column, which no record has: one row, `**` NULL (INT), for
    # JSON, text and Parquet alike; over known columns it is a plain DISTINCT
    for table, where in (
        (NUMS, "grp IS NOT NULL"),
        ("dfs.`breadth/own/text/people.csv`", "columns[3] = 'Sales'"),
        ("dfs.`breadth/tpch/region.parquet`", "r_regionkey < 2"),
    ):
        assert result(data_engine, f"SELECT DISTINCT * FROM {table} WHERE {where}") == (
            ["**"],
            [[None]],
        )
    cols, rows = result(data_engine, f"SELECT DISTINCT * FROM (SELECT grp FROM {NUMS}) t")
    assert cols == ["grp"] and sorted(rows, key=repr) == [["a"], ["b"], ["c"], [None]]


def test_star_over_join_using_lists_the_using_columns_once(data_engine):
    a, b = "(VALUES (1, 'a')) a(k, v)", "(VALUES (1, 'b')) b(k, v)"
    # Drill: k, v, v0; with USING (k, v): k, v, x, y; FULL: k is the joined value
    assert result(data_engine, f"SELECT * FROM {a} JOIN {b} USING (k)") == (
        ["k", "v", "v0"],
        [[1, "a", "b"]],
    )
    assert result(
        data_engine,
        "SELECT * FROM (VALUES (1, 'a', 5)) a(k, v, x) JOIN (VALUES (1, 'b', 6)) b(k, v, y) "
        "USING (k, v)",
    ) == (["k", "v", "x", "y"], [])
    cols, rows = result(
        data_engine,
        "SELECT * FROM (VALUES (1, 'a')) a(k, v) FULL JOIN (VALUES (2, 'b')) b(k, w) USING (k)",
    )
    assert cols == ["k", "v", "w"] and sorted(rows) == [[1, "a", None], [2, None, "b"]]
    # qualified stars keep both copies: k, v, k0, w
    assert result(
        data_engine,
        "SELECT a.*, b.* FROM (VALUES (1, 'a')) a(k, v) JOIN (VALUES (1, 'b')) b(k, w) USING (k)",
    ) == (["k", "v", "k0", "w"], [[1, "a", 1, "b"]])
    # schema-free sides: Drill lists both (dept and dept0)
    cols, _ = result(
        data_engine,
        "SELECT * FROM dfs.`breadth/own/json/people.json` p JOIN "
        f"{DEPTS} d USING (dept) WHERE p.id < 3",
    )
    assert cols[3] == "dept" and cols[7] == "dept0"


def test_limit_all_and_unaliased_subqueries(data_engine):
    # Drill's unit tests (TestExampleQueries, TestJoinNullable ...): LIMIT ALL is no limit;
    # several unaliased subqueries in FROM are a cross join
    _, rows = result(
        data_engine,
        "select t.n_nationkey from dfs.`breadth/tpch/nation.parquet` t limit all offset 22",
    )
    assert sorted(rows) == [[22], [23], [24]]
    lineitem = "dfs.`breadth/tpch/lineitem.parquet`"
    assert result(
        data_engine,
        f"select total1, total2 from (select sum(l_quantity) as total1 from {lineitem} where "
        f"l_suppkey between 100 and 200), (select sum(l_quantity) as total2 from {lineitem} "
        "where l_suppkey between 200 and 300)",
    ) == (["total1", "total2"], [[15595.0, None]])


def test_lateral_rows_keep_drills_order(data_engine):
    # Drill's TestE2EUnnestAndLateral: without ORDER BY, LIMIT 1 takes the first customer's
    # first phone (the rows of each left row in turn, its elements in order)
    _, rows = result(
        data_engine,
        "select t.c_name, t2.phone as c_phone from "
        "dfs.`breadth/drilltest/lateraljoin/nested-customer.json` t, unnest(t.c_phone) t2(phone) "
        "limit 1",
    )
    assert rows == [["customer1", "6505200001"]]


T1 = "dfs.`breadth/tf/aggregation/t1`"


def test_row_value_comparisons(data_engine):
    # drill-test-framework (aggregates): `(x, y) = (..)` holds when every pair is equal,
    # `<>` when some pair differs: (NULL, 'hhhhh') <> (1, 'aaaaa') is true, (4, NULL) too
    sub = f"(select a1, b1, avg(a1) from {T1} group by a1, b1) as sq(x, y, z)"
    _, rows = result(data_engine, f"select x, y, z from {sub} where (x, y) = (1, 'aaaaa')")
    assert rows == [[1, "aaaaa", 1.0]]
    _, rows = result(data_engine, f"select x, y from {sub} where (x, y) <> (1, 'aaaaa')")
    assert sorted(rows, key=repr) == sorted(
        [[2, "bbbbb"], [3, "ccccc"], [4, None], [5, "eeeee"], [6, "fffff"], [7, "ggggg"],
         [9, "iiiii"], [10, "jjjjj"], [None, "hhhhh"]],
        key=repr,
    )  # fmt: skip


def test_having_aggregate_of_a_column_an_alias_shadows(data_engine):
    # Drill: inside SUM(...) `salary` is the input column, not the alias of SUM(salary)
    assert result(
        data_engine,
        "SELECT dept, SUM(salary) AS salary FROM dfs.`breadth/own/json/people.json` "
        "GROUP BY dept HAVING SUM(salary) > 10000",
    ) == (["dept", "salary"], [["Engineering", 21500.5]])


def test_parenthesised_select_item_keeps_the_column_name(data_engine):
    # drill-test-framework min_max_dir: `distinct(filename)` is the column filename, so the
    # ORDER BY names a selected column
    cols, rows = result(
        data_engine,
        "select distinct(filename) from dfs.`breadth/tf/min_max_dir/data` "
        "where filepath like '%2016%' order by filename",
    )
    assert cols == ["filename"]
    assert rows == [[f"voter{n}.parquet"] for n in (5, 50, 55, 60, 70, 75)]


def test_reset_answers_updated_as_drill(data_engine):
    # Drill 1.22: "planner.slice_target updated." and "ALL updated."; a name it does not know
    # resets too ("nosuch.option updated.")
    for sql, summary in (
        ("ALTER SESSION RESET `planner.slice_target`", "planner.slice_target updated."),
        ("ALTER SESSION RESET ALL", "ALL updated."),
        ("ALTER SESSION RESET `nosuch.option`", "nosuch.option updated."),
    ):
        assert result(data_engine, sql) == (["ok", "summary"], [[True, summary]])


def test_setting_an_option_drill_does_not_have_is_refused(data_engine):
    # Drill 1.22: VALIDATION ERROR: The option 'planner.nosuch' does not exist. (also under
    # exec. and store.); an internal option (sys.internal_options) is set
    for name in ("nosuch.option", "planner.nosuch", "exec.nosuch", "store.nosuch"):
        with pytest.raises(ValidationError, match=f"The option '{name}' does not exist"):
            data_engine.execute(f"ALTER SESSION SET `{name}` = 1")
    assert result(data_engine, "ALTER SESSION SET `planner.enable_topn` = false")[1] == [
        [True, "planner.enable_topn updated."]
    ]


def test_a_column_values_does_not_have_is_an_error(data_engine):
    # Drill 1.22: VALIDATION ERROR: ... Column 'nosuch' not found in any table (in the select
    # list, WHERE, ORDER BY); qualified: Column 'nosuch' not found in table 't'. A schema-free
    # table beside the VALUES takes the name (NULL)
    for sql, col in (
        ("SELECT nosuch FROM (VALUES(1))", 8),
        ("SELECT nosuch FROM (VALUES(1)) t(a)", 8),
        ("SELECT EXPR$0 FROM (VALUES(1)) WHERE nosuch = 1", 38),
        ("SELECT a FROM (VALUES(1)) t(a) ORDER BY nosuch", 41),
    ):
        with pytest.raises(
            ValidationError, match=rf"Column 'nosuch' not found in any table \(line 1, column {col}"
        ):
            data_engine.execute(sql)
    with pytest.raises(ValidationError, match="Column 'nosuch' not found in table 't'"):
        data_engine.execute("SELECT t.nosuch FROM (VALUES(1)) t")
    assert result(data_engine, f"SELECT nosuch FROM (VALUES(1)) v, {NUMS} LIMIT 1")[1] == [[None]]


def test_float4_arithmetic_stays_float4(data_engine):
    # Drill 1.22: FLOAT4 with an INT, a BIGINT, a DECIMAL or a FLOAT4 is FLOAT4 (the operands
    # converted to FLOAT4 first: 16777217 * 1.0f is 16777216.0); with a DOUBLE it is FLOAT8
    cols, rows = result(
        data_engine,
        "SELECT typeof(CAST(0.1 AS FLOAT) * 3) c, typeof(CAST(0.1 AS FLOAT) * CAST(3 AS BIGINT)) d, "
        "typeof(CAST(0.1 AS FLOAT) + 1.5) e, typeof(CAST(0.1 AS FLOAT) / 3) f, "
        "typeof(CAST(0.1 AS FLOAT) * 1.5e0) g, typeof(CAST(0.1 AS FLOAT) - CAST(1 AS DECIMAL(5,2))) i, "
        "typeof(mod(CAST(5.5 AS FLOAT), 2)) j, typeof(3 - CAST(0.1 AS FLOAT)) k FROM (VALUES(1))",
    )
    assert rows == [["FLOAT4"] * 4 + ["FLOAT8"] + ["FLOAT4"] * 3]
    # Drill: 0.3, 1.6, 0.033333335, -0.9, 1.5, 2.9, Infinity, 16777216.0 (as FLOAT4 values)
    _, rows = result(
        data_engine,
        "SELECT CAST(0.1 AS FLOAT) * 3, CAST(0.1 AS FLOAT) + 1.5, CAST(0.1 AS FLOAT) / 3, "
        "CAST(0.1 AS FLOAT) - CAST(1 AS DECIMAL(5,2)), mod(CAST(5.5 AS FLOAT), 2), "
        "3 - CAST(0.1 AS FLOAT), CAST(1 AS FLOAT) / 0, CAST(16777217 AS INT) * CAST(1 AS FLOAT) "
        "FROM (VALUES(1))",
    )
    f4 = [
        struct.unpack("f", struct.pack("f", v))[0] for v in (0.3, 1.6, 0.033333335, -0.9, 1.5, 2.9)
    ]
    assert rows == [[*f4, math.inf, 16777216.0]]


def test_show_files_lists_in_directory_order(data_engine, shared):
    # Drill 1.22 lists a folder's entries in the order the file system gives them
    # (orders_nested, events, depts, ... here), not sorted
    folder = shared / "data" / "breadth" / "own" / "json"
    _, rows = result(data_engine, "SHOW FILES IN dfs.`breadth/own/json`")
    assert [r[0] for r in rows] == os.listdir(folder)
