"""QUALIFY, correlated subqueries of any form Drill runs, outer joins whose ON is not a list of
comparisons, and GROUP BY a constant: each with the answer real Drill 1.22 gave for the same
query (shared/tools/drill, `query.sh --root shared/data`; the non-equality correlations and
the OR joins need `planner.enable_nljoin_for_scalar_only = false` in Drill)."""

from __future__ import annotations

import pytest

from drillspark.sql import UnsupportedSqlError
from drillspark.sql.output import columns_and_rows

NATION = "dfs.`breadth/tpch/nation.parquet`"
REGION = "dfs.`breadth/tpch/region.parquet`"
PEOPLE = "dfs.`breadth/own/json/people.json`"
DEPTS = "dfs.`breadth/own/json/depts.json`"


def result(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])


def bag(rows):
    return sorted(rows, key=repr)


# --- QUALIFY ---------------------------------------------------------------------------------


def test_qualify_filters_on_window_functions(data_engine):
    cols, rows = result(
        data_engine,
        f"SELECT n_name, n_regionkey FROM {NATION} "
        "QUALIFY ROW_NUMBER() OVER (PARTITION BY n_regionkey ORDER BY n_name) = 1",
    )
    assert cols == ["n_name", "n_regionkey"]
    assert bag(rows) == bag(
        [["ALGERIA", 0], ["ARGENTINA", 1], ["CHINA", 2], ["FRANCE", 3], ["EGYPT", 4]]
    )
    # an alias of a window function of the select list; WHERE runs first, ORDER BY last
    _, rows = result(
        data_engine,
        f"SELECT n_regionkey, n_name, ROW_NUMBER() OVER (PARTITION BY n_regionkey "
        f"ORDER BY n_name) AS rn FROM {NATION} QUALIFY rn <= 2",
    )
    assert len(rows) == 10 and {r[2] for r in rows} == {1, 2}
    _, rows = result(
        data_engine,
        f"SELECT n_name FROM {NATION} WHERE n_regionkey < 2 "
        "QUALIFY ROW_NUMBER() OVER (ORDER BY n_name DESC) <= 3 ORDER BY n_name",
    )
    assert rows == [["MOZAMBIQUE"], ["PERU"], ["UNITED STATES"]]
    _, rows = result(
        data_engine,
        f"SELECT id, salary FROM {PEOPLE} QUALIFY salary > AVG(salary) OVER (PARTITION BY dept)",
    )
    assert bag(rows) == bag([[3, 7300.25], [6, 7300.25], [7, 5100.0], [1, 5200.5]])


def test_qualify_is_a_filter_after_the_window_in_the_plan(data_engine):
    plan = data_engine.compile(
        f"SELECT n_name FROM {NATION} QUALIFY RANK() OVER (ORDER BY n_name) = 1"
    ).plan
    ops = [op["op"] for op in plan.to_json()["query"]]
    assert ops.index("window") < ops.index("filter") < ops.index("project")


def test_qualify_with_aggregates_is_unsupported(data_engine):
    # Drill 1.22 fails with a ClassCastException (LogicalAggregate / LogicalProject)
    with pytest.raises(UnsupportedSqlError, match="QUALIFY in an aggregate query"):
        data_engine.execute(
            f"SELECT n_regionkey, COUNT(*) FROM {NATION} GROUP BY n_regionkey "
            "QUALIFY RANK() OVER (ORDER BY n_regionkey DESC) = 1"
        )


# --- correlated subqueries -------------------------------------------------------------------


def test_correlated_aggregate_without_match_is_null(data_engine):
    # Drill: COUNT over no matching row is NULL (not 0) in a correlated subquery, also inside
    # an expression; so `= 0` keeps no row. Uncorrelated, it is 0.
    _, rows = result(
        data_engine,
        f"SELECT d.dept, (SELECT COUNT(*) FROM {PEOPLE} p WHERE p.dept = d.dept) + 1 AS c "
        f"FROM {DEPTS} d",
    )
    assert bag(rows) == bag([["Engineering", 4], ["Legal", None], ["Marketing", 3], ["Sales", 3]])
    _, rows = result(
        data_engine,
        f"SELECT d.dept FROM {DEPTS} d WHERE "
        f"(SELECT COUNT(*) FROM {PEOPLE} p WHERE p.dept = d.dept) = 0",
    )
    assert rows == []
    _, rows = result(
        data_engine, f"SELECT (SELECT COUNT(*) FROM {PEOPLE} p WHERE 1 = 0) AS c FROM (VALUES(1))"
    )
    assert rows == [[0]]


def test_correlations_other_than_equalities(data_engine):
    # a non-equality next to the equality
    _, rows = result(
        data_engine,
        f"SELECT p.id, (SELECT MAX(q.salary) FROM {PEOPLE} q WHERE q.dept = p.dept "
        f"AND q.id <> p.id) AS m FROM {PEOPLE} p",
    )
    assert bag(rows) == bag(
        [[1, 4100.0], [2, 5200.5], [3, 7300.25], [4, 7300.25], [5, 5100.0], [6, 7300.25],
         [7, 4800.75], [8, None]]
    )  # fmt: skip
    # only a non-equality
    _, rows = result(
        data_engine,
        f"SELECT p.id, (SELECT COUNT(*) FROM {PEOPLE} q WHERE q.salary > p.salary) AS higher "
        f"FROM {PEOPLE} p",
    )
    assert bag(rows) == bag([[1, 3], [2, 6], [3, None], [4, 2], [5, 5], [6, None], [7, 4], [8, 7]])
    # a correlated OR, as EXISTS / NOT EXISTS conjuncts
    _, rows = result(
        data_engine,
        f"SELECT r.r_name FROM {REGION} r WHERE EXISTS (SELECT 1 FROM {NATION} n "
        "WHERE n.n_regionkey = r.r_regionkey OR n.n_nationkey = r.r_regionkey)",
    )
    assert bag(rows) == [["AFRICA"], ["AMERICA"], ["ASIA"], ["EUROPE"], ["MIDDLE EAST"]]
    _, rows = result(
        data_engine,
        f"SELECT d.dept FROM {DEPTS} d WHERE NOT EXISTS (SELECT 1 FROM {PEOPLE} p "
        "WHERE p.dept = d.dept OR p.id = d.floor + 4)",
    )
    assert rows == []
    # EXISTS under OR, IN in the select list, ANY: each with a non-equality
    _, rows = result(
        data_engine,
        f"SELECT d.dept FROM {DEPTS} d WHERE EXISTS (SELECT 1 FROM {PEOPLE} p "
        "WHERE p.dept = d.dept AND p.salary > d.floor * 2000) OR d.floor = 4",
    )
    assert bag(rows) == [["Engineering"], ["Legal"], ["Marketing"], ["Sales"]]
    _, rows = result(
        data_engine,
        f"SELECT p.id, p.dept IN (SELECT d.dept FROM {DEPTS} d WHERE d.floor < p.id) AS x "
        f"FROM {PEOPLE} p",
    )
    assert bag(rows) == bag(
        [[1, False], [2, True], [3, False], [4, True], [5, True], [6, True], [7, True],
         [8, False]]
    )  # fmt: skip
    _, rows = result(
        data_engine,
        f"SELECT p.id FROM {PEOPLE} p WHERE p.salary > ANY (SELECT q.salary + p.id "
        f"FROM {PEOPLE} q WHERE q.dept = p.dept)",
    )
    assert bag(rows) == [[1], [3], [6], [7]]


def test_outer_reference_in_the_select_list_of_a_subquery(data_engine):
    _, rows = result(
        data_engine,
        f"SELECT p.id, (SELECT p.salary * 2 FROM (VALUES(1)) v(x)) AS dbl FROM {PEOPLE} p",
    )
    assert bag(rows) == bag(
        [[1, 10401.0], [2, 8200.0], [3, 14600.5], [4, 13800.0], [5, 9601.5], [6, 14600.5],
         [7, 10200.0], [8, 7800.2]]
    )  # fmt: skip


def test_general_correlation_plan_reads_the_outer_values_once(data_engine):
    # the subquery runs per distinct outer value: a grouping of the outer stream, joined back
    # null-safely
    plan = data_engine.compile(
        f"SELECT p.id, (SELECT COUNT(*) FROM {PEOPLE} q WHERE q.salary > p.salary) FROM {PEOPLE} p"
    ).plan
    joins = [op for op in plan.to_json()["query"] if op["op"] == "join"]
    assert [c["relationship"] for j in joins for c in j["conditions"]] == ["IS NOT DISTINCT FROM"]


# --- outer joins with any ON -----------------------------------------------------------------


def test_outer_join_on_mixing_both_sides_with_or(data_engine):
    on = "p.dept = d.dept OR p.id = d.floor"
    _, rows = result(
        data_engine, f"SELECT p.id, d.dept FROM {PEOPLE} p LEFT JOIN {DEPTS} d ON {on}"
    )
    assert bag(rows) == bag(
        [[1, "Sales"], [2, "Sales"], [2, "Marketing"], [3, "Engineering"], [4, "Engineering"],
         [4, "Legal"], [5, "Marketing"], [6, "Engineering"], [7, "Marketing"], [8, None]]
    )  # fmt: skip
    _, rows = result(
        data_engine,
        f"SELECT p.id, d.dept FROM {PEOPLE} p RIGHT JOIN {DEPTS} d "
        "ON p.dept = d.dept OR p.id = d.floor + 4",
    )
    assert bag(rows) == bag(
        [[1, "Sales"], [2, "Sales"], [5, "Sales"], [3, "Engineering"], [4, "Engineering"],
         [6, "Engineering"], [7, "Engineering"], [5, "Marketing"], [6, "Marketing"],
         [7, "Marketing"], [8, "Legal"]]
    )  # fmt: skip
    _, rows = result(
        data_engine,
        f"SELECT p.id, d.dept FROM {PEOPLE} p LEFT JOIN {DEPTS} d "
        "ON (p.dept = d.dept AND d.floor > 1) OR p.id = d.manager_id",
    )
    # Drill refuses this one ("cannot be planned", even with the option); by the data: Sales
    # is on floor 1, so only Alice, its manager, matches it
    assert bag(rows) == bag(
        [[1, "Sales"], [2, None], [3, "Engineering"], [4, "Engineering"], [5, "Marketing"],
         [6, "Engineering"], [7, "Marketing"], [8, None]]
    )  # fmt: skip
    plan = data_engine.compile(
        f"SELECT p.id, d.dept FROM {PEOPLE} p LEFT JOIN {DEPTS} d ON {on}"
    ).plan
    (join,) = [op for op in plan.to_json()["query"] if op["op"] == "join"]
    assert join["conditions"] == [] and " or " in join["condition"]


# --- GROUP BY a constant ---------------------------------------------------------------------


def test_group_by_a_constant(data_engine):
    cols, rows = result(data_engine, f"SELECT 'a', COUNT(*) FROM {NATION} GROUP BY 'a'")
    assert cols == ["EXPR$0", "EXPR$1"] and rows == [["a", 25]]
    _, rows = result(
        data_engine, f"SELECT 'a' AS k, COUNT(*) AS c FROM {NATION} GROUP BY 'a', n_regionkey"
    )
    assert rows == [["a", 5]] * 5
    _, rows = result(data_engine, f"SELECT COUNT(*) FROM {NATION} GROUP BY 'a', 1 + 1")
    assert rows == [[25]]
