"""An index or member access on a computed value (`split(s, ' ')[1]`, `kvgen(m)[0]['key']`):
the value is computed into a hidden field ahead of the operator that reads it. Each test states
the query and Drill 1.22's answer (asked through shared/tools/drill with `--root shared/data`)."""

from __future__ import annotations

import pytest

from drillspark.sql.errors import SqlError
from drillspark.sql.output import columns_and_rows

S = "dfs.`breadth/own/json/strings.json`"
N = "dfs.`breadth/own/json/nums.json`"
ORDERS = "dfs.`breadth/own/json/orders_nested.json`"


def result(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])


def test_index_in_the_select_list_where_and_order_by(data_engine):
    # Drill: the words of `s` (id 5's s is null: null; id 6 has one word)
    assert result(
        data_engine,
        f"SELECT id, split(s, ' ')[0] AS w, split(s, ' ')[1] AS w2 FROM {S} ORDER BY id",
    )[1] == [
        [1, "Apache", "Drill"],
        [2, "hello", "world"],
        [3, "MiXeD", "CaSe"],
        [4, "naïve", "café"],
        [5, None, None],
        [6, "abc123def456", None],
    ]
    # Drill: [[1, 'b']]
    assert result(
        data_engine, f"SELECT id, split(csv, ',')[1] AS w FROM {S} WHERE split(csv, ',')[0] = 'a'"
    )[1] == [[1, "b"]]
    # Drill: [[5], [6], [2], [4], [1], [3]] (nulls first in DESC)
    assert result(data_engine, f"SELECT id FROM {S} ORDER BY split(s, ' ')[1] DESC, id")[1] == [
        [5],
        [6],
        [2],
        [4],
        [1],
        [3],
    ]
    # an index of an indexed value; Drill: Ap, hello, MiXeD, n, null, ''
    assert result(
        data_engine, f"SELECT id, split(split(s, ' ')[0], 'a')[0] AS x FROM {S} ORDER BY id"
    )[1] == [[1, "Ap"], [2, "hello"], [3, "MiXeD"], [4, "n"], [5, None], [6, ""]]


def test_member_access_on_a_function_result(data_engine):
    # Drill: [['ann', 'q1', 5], ['bob', 'q1', None], ['cid', 'q1', 2], ['dee', 'q2', None]]
    assert result(
        data_engine,
        f"SELECT cust, kvgen(scores)[0]['key'] AS k0, kvgen(scores)[1]['value'] AS v1 FROM {ORDERS}",
    )[1] == [["ann", "q1", 5], ["bob", "q1", None], ["cid", "q1", 2], ["dee", "q2", None]]


def test_index_under_aggregates_and_as_a_group_key(data_engine):
    # Drill: [['', 1], ['1', 1], ['a', 1], ['one', 1], ['x', 1], [None, 1]]
    assert result(
        data_engine,
        f"SELECT split(csv, ',')[0] AS k, count(*) AS c FROM {S} GROUP BY split(csv, ',')[0] "
        "ORDER BY k",
    )[1] == [["", 1], ["1", 1], ["a", 1], ["one", 1], ["x", 1], [None, 1]]
    # Drill: [['world', 'Apache']]
    assert result(
        data_engine, f"SELECT max(split(s, ' ')[1]) AS m, min(split(s, ' ')[0]) AS n FROM {S}"
    )[1] == [["world", "Apache"]]
    # Drill: [[5]]
    assert result(data_engine, f"SELECT count(DISTINCT split(csv, ',')[0]) AS c FROM {S}")[1] == [
        [5]
    ]
    # an index inside an aggregate and one over a group key; Drill:
    # [['a', 'y', 'a'], ['b', 'z', 'b'], ['c', 'y', 'c'], [None, 'x', None]]
    assert result(
        data_engine,
        f"SELECT grp, max(split(s, 'q')[0]) AS m, split(grp, 'z')[0] AS g2 FROM {N} "
        "GROUP BY grp ORDER BY grp",
    )[1] == [["a", "y", "a"], ["b", "z", "b"], ["c", "y", "c"], [None, "x", None]]
    # Drill: b, a, c, null
    assert result(
        data_engine, f"SELECT grp FROM {N} GROUP BY grp ORDER BY max(split(s, 'q')[0]) DESC, grp"
    )[1] == [["b"], ["a"], ["c"], [None]]


def test_index_in_a_window_partition(data_engine):
    # Drill: only id 6 shares its partition (split(s, ' ')[1] null with id 5)
    _, rows = result(
        data_engine,
        f"SELECT id, row_number() OVER (PARTITION BY split(s, ' ')[1] ORDER BY id) AS rn "
        f"FROM {S} ORDER BY id",
    )
    assert rows == [[1, 1], [2, 1], [3, 1], [4, 1], [5, 1], [6, 2]]


def test_index_in_join_conditions_and_in_subqueries(data_engine):
    # Drill: [[1], [2], [3], [4], [6]] (id 5's null first word matches nothing)
    assert result(
        data_engine,
        f"SELECT a.id FROM {S} a JOIN {S} b ON split(a.s, ' ')[0] = split(b.s, ' ')[0] "
        "ORDER BY a.id",
    )[1] == [[1], [2], [3], [4], [6]]
    # Drill: every a.id with bid null (no second word is a first word)
    assert result(
        data_engine,
        f"SELECT a.id, b.id AS bid FROM {S} a LEFT JOIN {S} b "
        "ON split(a.s, ' ')[1] = split(b.s, ' ')[0] ORDER BY a.id",
    )[1] == [[i, None] for i in range(1, 7)]
    # Drill: [[1, 1]]
    assert result(
        data_engine,
        f"SELECT a.id, b.id AS bid FROM {S} a JOIN {S} b "
        "ON a.id = b.id AND split(a.csv, ',')[0] = 'a'",
    )[1] == [[1, 1]]
    # Drill: [[1], [2]]
    assert result(
        data_engine,
        f"SELECT id FROM {S} WHERE split(s, ' ')[0] IN "
        f"(SELECT split(s, ' ')[0] FROM {S} WHERE id < 3) ORDER BY id",
    )[1] == [[1], [2]]
    # Drill: x, y, null, x, z, y
    assert result(
        data_engine,
        f"SELECT id, (SELECT max(split(n.s, 'q')[0]) FROM {N} n WHERE n.id = t.id) AS m "
        f"FROM {S} t ORDER BY id",
    )[1] == [[1, "x"], [2, "y"], [3, None], [4, "x"], [5, "z"], [6, "y"]]


def test_the_hidden_fields_stay_out_of_a_star(data_engine):
    # Drill: the VALUES columns only, [[1, 'a b', 2, 'a c']]
    assert result(
        data_engine,
        "SELECT * FROM (VALUES(1, 'a b')) t(x, s) JOIN (VALUES(2, 'a c')) u(y, r) "
        "ON split(t.s, ' ')[0] = split(u.r, ' ')[0]",
    ) == (["x", "s", "y", "r"], [[1, "a b", 2, "a c"]])
    assert result(data_engine, f"SELECT * FROM {S} WHERE split(s, ' ')[1] = 'Drill'") == (
        ["id", "s", "t", "csv"],
        [[1, "Apache Drill", "  padded  ", "a,b,c"]],
    )


def test_index_in_having_is_refused_clearly(data_engine):
    # Drill 1.22 fails too (SYSTEM ERROR: ClassCastException: FunctionCall cannot be cast to
    # SchemaPath); here the refusal names the place
    with pytest.raises(SqlError, match=r"computed value .*line 1, column"):
        data_engine.execute(
            f"SELECT grp, count(*) AS c FROM {N} GROUP BY grp HAVING split(grp, 'x')[0] = 'a'"
        )
