"""`*` next to other select items, `t.*` in joins, and ORDER BY an ordinal that names the star,
with the answers real Drill 1.22 gave for the same queries (shared/tools/drill,
`query.sh --root shared/data`). A star has no field list at plan time: the plan's project
expands it in place and names repeats as Drill's project does."""

from __future__ import annotations

import pytest

from drillspark.sql import SqlError
from drillspark.sql.output import columns_and_rows

DEPTS = "dfs.`breadth/own/json/depts.json`"
PEOPLE = "dfs.`breadth/own/json/people.json`"
ORDERS = "dfs.`breadth/own/json/orders_nested.json`"
REGION = "dfs.`breadth/tpch/region.parquet`"
DEPT_ROWS = [["Sales", 1, 1], ["Engineering", 3, 3], ["Marketing", 2, 7], ["Legal", 4, None]]


def result(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])


def test_items_around_a_star_keep_their_place_and_repeats_get_a_digit(data_engine):
    # Drill: floor, dept, floor0, manager_id (the star's `floor` is the repeat)
    cols, rows = result(data_engine, f"SELECT floor, * FROM {DEPTS}")
    assert cols == ["floor", "dept", "floor0", "manager_id"]
    assert rows == [[r[1], *r] for r in DEPT_ROWS]
    # Drill: dept, floor, manager_id, floor0 = floor + 1 (before: floor was overwritten)
    cols, rows = result(data_engine, f"SELECT *, floor + 1 AS floor FROM {DEPTS}")
    assert cols == ["dept", "floor", "manager_id", "floor0"]
    assert rows == [[*r, r[1] + 1] for r in DEPT_ROWS]
    # Drill: Calcite names the items first (dept, **, dept0), then the star's dept is dept0
    # and the last item becomes dept00; names compare ignoring case (DEPT, dept0)
    cols, _ = result(data_engine, f"SELECT dept, *, dept FROM {DEPTS}")
    assert cols == ["dept", "dept0", "floor", "manager_id", "dept00"]
    cols, _ = result(data_engine, f"SELECT DEPT, * FROM {DEPTS}")
    assert cols == ["DEPT", "dept0", "floor", "manager_id"]
    cols, rows = result(data_engine, f"SELECT *, * FROM {DEPTS}")
    assert cols == ["dept", "floor", "manager_id", "dept0", "floor0", "manager_id0"]
    assert rows == [r + r for r in DEPT_ROWS]
    # Drill: unaliased items count the star as one position
    cols, _ = result(data_engine, f"SELECT *, UPPER(dept), floor * 2 FROM {DEPTS}")
    assert cols == ["dept", "floor", "manager_id", "EXPR$1", "EXPR$2"]


def test_a_flatten_named_like_a_starred_column_keeps_both(data_engine):
    # Drill: cust, city, tags (the array), orders, scores, tags0 (its elements)
    cols, rows = result(data_engine, f"SELECT t.*, flatten(t.tags) AS tags FROM {ORDERS} t")
    assert cols == ["cust", "city", "tags", "orders", "scores", "tags0"]
    assert [(r[0], r[2], r[5]) for r in rows] == [
        ("ann", ["vip", "new"], "vip"),
        ("ann", ["vip", "new"], "new"),
        ("bob", ["old"], "old"),
        ("dee", ["vip"], "vip"),
    ]
    cols, _ = result(data_engine, f"SELECT flatten(t.tags) AS tags, t.* FROM {ORDERS} t")
    assert cols == ["tags", "cust", "city", "tags0", "orders", "scores"]


def test_stars_over_a_join_of_schema_free_tables(data_engine):
    on = f"{PEOPLE} p JOIN {DEPTS} d ON p.dept = d.dept"
    people = ["id", "first_name", "last_name", "dept", "salary", "hired", "active"]
    # Drill: each t.* is its own table's columns, in the order written
    cols, rows = result(data_engine, f"SELECT d.*, p.* FROM {on} WHERE p.id = 3")
    assert cols == ["dept", "floor", "manager_id", *people[:3], "dept0", *people[4:]]
    assert rows == [["Engineering", 3, 3, 3, "Carol", "White", "Engineering", 7300.25,
                     "2018-11-30", True]]  # fmt: skip
    cols, rows = result(data_engine, f"SELECT *, p.id FROM {on} WHERE p.id = 1")
    assert cols == [*people, "dept0", "floor", "manager_id", "id0"]
    assert rows[0][-1] == 1
    cols, _ = result(data_engine, f"SELECT p.id, * FROM {on}")
    assert cols == ["id", "id0", *people[1:], "dept0", "floor", "manager_id"]
    # Drill: a three-way self join numbers the repeats (dept0, dept1)
    cols, rows = result(
        data_engine,
        f"SELECT * FROM {DEPTS} a JOIN {DEPTS} b ON a.floor = b.floor "
        f"JOIN {DEPTS} c ON b.floor = c.floor",
    )
    assert cols == [
        "dept", "floor", "manager_id", "dept0", "floor0", "manager_id0",
        "dept1", "floor1", "manager_id1",
    ]  # fmt: skip
    assert sorted(rows, key=str) == sorted((r * 3 for r in DEPT_ROWS), key=str)


def test_order_by_the_ordinal_of_a_star_keeps_the_read_order(data_engine):
    # Drill sorts by its `**` column, which no record has: the rows stay in file order (not
    # Engineering, Legal, ... as a sort by `dept` would give), ASC or DESC
    for sql in (
        f"SELECT * FROM {DEPTS} ORDER BY 1",
        f"SELECT * FROM {DEPTS} ORDER BY 1 DESC",
    ):
        cols, rows = result(data_engine, sql)
        assert cols == ["dept", "floor", "manager_id"] and rows == DEPT_ROWS
    # Drill: the star is ordinal 2 here; ORDER BY 1 sorts by floor
    _, rows = result(data_engine, f"SELECT floor, * FROM {DEPTS} ORDER BY 1")
    assert [r[0] for r in rows] == [1, 2, 3, 4]
    _, rows = result(data_engine, f"SELECT floor, * FROM {DEPTS} ORDER BY 2")
    assert [r[0] for r in rows] == [1, 3, 2, 4]
    # Drill: "VALIDATION ERROR: ... Ordinal out of range" past the star
    for bad in (f"SELECT * FROM {DEPTS} ORDER BY 2", f"SELECT * FROM {REGION} ORDER BY 2 DESC"):
        with pytest.raises(SqlError, match="Ordinal out of range"):
            data_engine.execute(bad)


def test_star_plan_is_one_project(data_engine):
    # EXPLAIN shows the plan that runs: the star and the item in one project
    plan = data_engine.compile(f"SELECT floor, * FROM {DEPTS}").plan
    (project,) = [op for op in plan.to_json()["query"] if op["op"] == "project"]
    assert project["projections"] == [
        {"ref": "`floor`", "expr": "floor"},
        {"ref": "`*`", "expr": "`*`"},
    ]
