"""Subqueries, joins (USING, outer-join conditions) and LATERAL / UNNEST over the breadth data
(shared/data/breadth/own/json). Every expected answer is what real Drill 1.22 returned for the
same query (tools/drill/query.sh).

people.json: id 1..8, dept Sales(1,2) Engineering(3,4,6) Marketing(5,7) Support(8);
depts.json: Sales floor 1, Engineering 3, Marketing 2, Legal 4 (manager NULL);
nums.json: i = 10, -3, NULL, 7, 7, 0, 4 for id 1..7 (grp a,a,a,b,b,c,NULL);
orders_nested.json: ann 2 orders, bob 1, cid none, dee 3.
"""

from __future__ import annotations

import pytest

from drillspark.sql import UnsupportedSqlError
from drillspark.sql.output import columns_and_rows

P = "dfs.`breadth/own/json/people.json`"
D = "dfs.`breadth/own/json/depts.json`"
N = "dfs.`breadth/own/json/nums.json`"
ORD = "dfs.`breadth/own/json/orders_nested.json`"
C = "dfs.`breadth/drilltest/lateraljoin/nested-customer.parquet`"


def q(data_engine, text):
    return columns_and_rows(data_engine.execute(text)[-1])


def plan_text(data_engine, sql):
    result = data_engine.execute("EXPLAIN PLAN FOR " + sql)[-1]
    text = getattr(result, "text", None)
    if text:
        return text
    return " ".join(str(c) for r in columns_and_rows(result)[1] for c in r)


def bag(rows):
    return sorted(rows, key=repr)


# --- IN / NOT IN / ANY / ALL with SQL's NULL semantics ----------------------------------------


def test_not_in_with_null_in_subquery_keeps_no_row(data_engine):
    assert q(data_engine, f"SELECT id FROM {P} WHERE id NOT IN (SELECT i FROM {N})")[1] == []


def test_not_in_without_nulls(data_engine):
    _, rows = q(data_engine, f"SELECT id FROM {N} WHERE i NOT IN (SELECT floor FROM {D})")
    assert bag(rows) == [[1], [2], [4], [5], [6]]  # the NULL probe (id 3) is dropped


def test_not_in_conjunct_is_a_null_aware_anti_join(data_engine):
    """An uncorrelated NOT IN conjunct is a NOT_IN semi-join, which Spark runs as its
    null-aware anti join (a hash lookup) instead of a cross join with the subquery's counts."""
    sql = f"SELECT id FROM {N} WHERE i NOT IN (SELECT floor FROM {D})"
    assert '"type" : "NOT_IN"' in plan_text(data_engine, sql).replace('": "', '" : "')
    result = data_engine.execute(sql)[-1]
    assert bag(columns_and_rows(result)[1]) == [[1], [2], [4], [5], [6]]
    physical = result.df._jdf.queryExecution().executedPlan().toString()
    assert "LeftAnti" in physical and "CartesianProduct" not in physical, physical
    assert "BroadcastNestedLoopJoin" not in physical, physical


def test_not_in_over_an_empty_subquery_keeps_every_row(data_engine):
    # NOT IN over no values is true, for a NULL probe too (Drill 1.22: ids 1..7)
    _, rows = q(
        data_engine, f"SELECT id FROM {N} WHERE i NOT IN (SELECT floor FROM {D} WHERE 1 = 0)"
    )
    assert bag(rows) == [[1], [2], [3], [4], [5], [6], [7]]
    _, rows = q(
        data_engine,
        f"SELECT id FROM {N} WHERE i NOT IN (SELECT floor FROM {D} UNION SELECT i FROM {N} "
        "WHERE i > 5)",
    )
    assert bag(rows) == [[2], [6]]


def test_in_as_a_value(data_engine):
    cols, rows = q(data_engine, f"SELECT id, id IN (SELECT i FROM {N}) AS x FROM {P}")
    assert cols == ["id", "x"]
    assert bag(rows) == bag(
        [[1, None], [2, None], [3, None], [4, True], [5, None], [6, None], [7, True], [8, None]]
    )


def test_in_under_or(data_engine):
    _, rows = q(data_engine, f"SELECT id FROM {N} WHERE i IN (SELECT floor FROM {D}) OR id > 6")
    assert rows == [[7]]


def test_some_and_all(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT id FROM {P} WHERE salary = SOME (SELECT salary FROM {P} "
        "WHERE dept = 'Engineering')",
    )
    assert bag(rows) == [[3], [4], [6]]
    _, rows = q(
        data_engine,
        f"SELECT id FROM {P} WHERE salary > ALL (SELECT salary FROM {P} WHERE dept = 'Marketing')",
    )
    assert bag(rows) == [[1], [3], [4], [6]]


def test_all_and_any_over_empty_and_null(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT id FROM {P} WHERE salary > ALL (SELECT salary FROM {P} WHERE dept = 'Nope')",
    )
    assert len(rows) == 8  # ALL over no rows is true
    assert (
        q(
            data_engine,
            f"SELECT id FROM {P} WHERE salary < ANY (SELECT salary FROM {P} WHERE dept = 'Nope')",
        )[1]
        == []
    )
    # a NULL among the values: > ALL is never true
    assert (
        q(data_engine, f"SELECT id FROM {N} WHERE i > ALL (SELECT i FROM {N} WHERE grp = 'a')")[1]
        == []
    )
    _, rows = q(
        data_engine, f"SELECT id FROM {N} WHERE i <> ALL (SELECT i FROM {N} WHERE grp = 'b')"
    )
    assert bag(rows) == [[1], [2], [6], [7]]


# --- EXISTS ----------------------------------------------------------------------------------


def test_correlated_exists_and_not_exists(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT p.id FROM {P} p WHERE EXISTS (SELECT * FROM {D} d "
        "WHERE d.dept = p.dept AND d.floor > 1)",
    )
    assert bag(rows) == [[3], [4], [5], [6], [7]]
    _, rows = q(
        data_engine,
        f"SELECT p.id FROM {P} p WHERE NOT EXISTS (SELECT * FROM {D} d WHERE d.dept = p.dept)",
    )
    assert rows == [[8]]


def test_exists_is_a_semi_join_in_the_plan(data_engine):
    text = plan_text(
        data_engine,
        f"SELECT p.id FROM {P} p WHERE NOT EXISTS (SELECT * FROM {D} d WHERE d.dept = p.dept)",
    )
    assert '"semi-join"' in text and '"ANTI"' in text


def test_a_semi_joins_right_side_keeps_each_key_once(data_engine):
    """The right side of EXISTS / IN / NOT IN keeps each row once (a grouping of its keys in
    the plan): only which keys exist counts. Not under a correlation other than equality
    (nearly every row distinct there); answers as Drill 1.22's."""
    grouped = '"op" : "groupingaggregate"'
    exists = f"SELECT p.id FROM {P} p WHERE EXISTS (SELECT * FROM {N} n WHERE n.grp = p.dept)"
    in_sql = f"SELECT id FROM {P} WHERE id IN (SELECT i FROM {N})"
    not_in = f"SELECT id FROM {N} WHERE i NOT IN (SELECT floor FROM {D})"
    for sql in (exists, in_sql, not_in):
        assert grouped in plan_text(data_engine, sql).replace('": "', '" : "'), sql
    unequal = (
        f"SELECT p.id FROM {P} p WHERE EXISTS "
        f"(SELECT * FROM {N} n WHERE n.id = p.id AND n.i <> p.id)"
    )
    assert grouped not in plan_text(data_engine, unequal).replace('": "', '" : "')
    # nums.json holds 7 twice and a NULL: the IN keeps 4 and 7 once; the NOT IN keeps no row
    assert bag(q(data_engine, in_sql)[1]) == [[4], [7]]
    assert bag(q(data_engine, f"SELECT id FROM {P} WHERE id NOT IN (SELECT i FROM {N})")[1]) == []
    assert q(data_engine, exists)[1] == []
    assert bag(q(data_engine, unequal)[1]) == [[1], [2], [4], [5], [6], [7]]


def spark_plan(data_engine, sql):
    return data_engine.execute(sql)[-1].explain(print_it=False)


def test_a_semi_join_over_keys_once_runs_as_an_inner_join(data_engine):
    """Over a right side of each key once, compared by equalities only, the semi-join runs as
    an inner join (which may build from either side) and keeps every left row once, its
    duplicates too; answers as Drill 1.22's. Another correlation stays a semi-join."""
    by_dept = f"SELECT p.id FROM {P} p WHERE p.dept IN (SELECT dept FROM {P} WHERE id > 2)"
    exists = (
        f"SELECT p.id FROM {P} p WHERE EXISTS "
        f"(SELECT * FROM {P} q WHERE q.dept = p.dept AND q.id > 4)"
    )
    two_keys = f"SELECT id FROM {N} WHERE (grp, i) IN (SELECT grp, i FROM {N} WHERE id > 3)"
    for sql, ids in (
        (by_dept, [3, 4, 5, 6, 7, 8]),
        (exists, [3, 4, 5, 6, 7, 8]),
        (two_keys, [4, 5, 6]),
    ):
        plan = spark_plan(data_engine, sql)
        assert "Inner" in plan and "LeftSemi" not in plan, sql
        assert bag(q(data_engine, sql)[1]) == [[i] for i in ids], sql
    unequal = (
        f"SELECT p.id FROM {P} p WHERE EXISTS "
        f"(SELECT * FROM {N} n WHERE n.id = p.id AND n.i <> p.id)"
    )
    assert "LeftSemi" in spark_plan(data_engine, unequal)


def test_a_semi_join_over_a_having_rebalances_its_groups(data_engine):
    """The groups a HAVING keeps get an exchange of their own (a rebalance by the compared
    keys), which AQE measures before the left side is shuffled (compat/BuildSideFirst); IN, a
    row IN of two keys and NOT EXISTS, answers as Drill 1.22's (query.sh)."""
    having_in = (
        f"SELECT p.id FROM {P} p WHERE p.dept IN "
        f"(SELECT dept FROM {P} GROUP BY dept HAVING count(*) > 1)"
    )
    two_keys = (
        f"SELECT id FROM {N} WHERE (grp, i) IN "
        f"(SELECT grp, i FROM {N} GROUP BY grp, i HAVING count(*) > 1)"
    )
    not_exists = (
        f"SELECT d.dept FROM {D} d WHERE NOT EXISTS (SELECT p.dept FROM {P} p "
        "WHERE p.dept = d.dept GROUP BY p.dept HAVING count(*) > 2)"
    )
    for sql, rows in (
        (having_in, [[1], [2], [3], [4], [5], [6], [7]]),
        (two_keys, [[4], [5]]),
        (not_exists, [["Legal"], ["Marketing"], ["Sales"]]),
    ):
        assert "REBALANCE_PARTITIONS_BY_COL" in spark_plan(data_engine, sql), sql
        assert bag(q(data_engine, sql)[1]) == rows, sql
    # NOT IN is left as Spark's null-aware anti join (no rebalance)
    not_in = (
        f"SELECT id FROM {N} WHERE i NOT IN "
        f"(SELECT i FROM {N} WHERE i IS NOT NULL GROUP BY i HAVING count(*) > 1)"
    )
    assert "REBALANCE" not in spark_plan(data_engine, not_in)
    assert bag(q(data_engine, not_in)[1]) == [[1], [2], [6], [7]]


# --- scalar subqueries -----------------------------------------------------------------------


def test_correlated_scalar_in_select(data_engine):
    cols, rows = q(
        data_engine,
        f"SELECT p.id, (SELECT d.floor FROM {D} d WHERE d.dept = p.dept) AS floor FROM {P} p",
    )
    assert cols == ["id", "floor"]
    assert bag(rows) == bag([[1, 1], [2, 1], [3, 3], [4, 3], [5, 2], [6, 3], [7, 2], [8, None]])


def test_correlated_count_is_null_without_match(data_engine):
    # Drill 1.22 (query.sh, same query): Legal, which has nobody, gets NULL from COUNT too
    # (its decorrelated subquery is a LEFT JOIN to per-key counts, with no 0 for a miss)
    _, rows = q(
        data_engine,
        f"SELECT d.dept, (SELECT COUNT(*) FROM {P} q WHERE q.dept = d.dept) AS c,"
        f" (SELECT MAX(salary) FROM {P} q WHERE q.dept = d.dept) AS m FROM {D} d",
    )
    assert bag(rows) == bag(
        [
            ["Sales", 2, 5200.5],
            ["Engineering", 3, 7300.25],
            ["Marketing", 2, 5100.0],
            ["Legal", None, None],
        ]
    )


def test_correlated_scalar_in_where(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT p.id FROM {P} p WHERE p.salary > (SELECT AVG(q.salary) "
        f"FROM {P} q WHERE q.dept = p.dept)",
    )
    assert bag(rows) == [[1], [3], [6], [7]]


def test_scalar_subquery_of_several_rows_fails(data_engine):
    with pytest.raises(Exception, match="single_value function has more than one row"):
        q(data_engine, f"SELECT p.id, (SELECT q.id FROM {P} q WHERE q.dept = p.dept) FROM {P} p")


def test_correlation_other_than_equality_in_select(data_engine):
    # Drill 1.22 (with planner.enable_nljoin_for_scalar_only = false, which it needs): per
    # person the departments on a higher floor than the id; none is NULL, as above
    _, rows = q(
        data_engine, f"SELECT p.id, (SELECT COUNT(*) FROM {D} d WHERE d.floor > p.id) FROM {P} p"
    )
    assert bag(rows) == bag([[1, 3], [2, 2], [3, 1], [4, None], [5, None], [6, None], [7, None],
                             [8, None]])  # fmt: skip


# --- joins -----------------------------------------------------------------------------------


def test_join_using(data_engine):
    cols, rows = q(
        data_engine, f"SELECT dept, p.id, d.floor FROM {P} p FULL JOIN {D} d USING (dept)"
    )
    assert cols == ["dept", "id", "floor"]
    assert bag(rows) == bag(
        [
            ["Sales", 1, 1],
            ["Sales", 2, 1],
            ["Engineering", 3, 3],
            ["Engineering", 4, 3],
            ["Marketing", 5, 2],
            ["Engineering", 6, 3],
            ["Marketing", 7, 2],
            ["Support", 8, None],
            ["Legal", None, 4],
        ]
    )


def test_natural_join_is_rejected(data_engine):
    with pytest.raises(UnsupportedSqlError, match="NATURAL JOIN is not supported"):
        q(data_engine, f"SELECT * FROM {P} p NATURAL JOIN {D} d")


def test_outer_join_with_one_side_conditions(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT p.id, d.dept FROM {P} p LEFT JOIN {D} d ON p.dept = d.dept AND p.salary > 5000",
    )
    assert bag(rows) == bag(
        [
            [1, "Sales"],
            [2, None],
            [3, "Engineering"],
            [4, "Engineering"],
            [5, None],
            [6, "Engineering"],
            [7, "Marketing"],
            [8, None],
        ]
    )


# --- LATERAL / UNNEST ------------------------------------------------------------------------


def test_lateral_aggregate_per_row(data_engine):
    cols, rows = q(
        data_engine,
        f"SELECT c.cust, o.n FROM {ORD} c, LATERAL (SELECT COUNT(*) AS n "
        "FROM UNNEST(c.orders) t(ord)) o",
    )
    assert cols == ["cust", "n"]
    assert bag(rows) == [["ann", 2], ["bob", 1], ["dee", 3]]  # cid's empty array: no row


def test_left_join_lateral_keeps_empty_rows(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT c.cust, o.x FROM {ORD} c LEFT JOIN LATERAL (SELECT t.ord.oid AS x "
        "FROM UNNEST(c.orders) t(ord)) o ON TRUE",
    )
    assert bag(rows) == bag(
        [["ann", 1], ["ann", 2], ["bob", 3], ["cid", None], ["dee", 4], ["dee", 5], ["dee", 6]]
    )


def test_lateral_limit_per_row(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT c.cust, o.x FROM {ORD} c, LATERAL (SELECT t.ord.oid AS x FROM "
        "UNNEST(c.orders) t(ord) ORDER BY t.ord.amount DESC LIMIT 1) o",
    )
    assert bag(rows) == [["ann", 1], ["bob", 3], ["dee", 5]]


def test_unnest_names(data_engine):
    cols, rows = q(data_engine, f"SELECT c.cust, u.* FROM {ORD} c, UNNEST(c.tags) u")
    assert cols == ["cust", "u"]
    assert bag(rows) == [["ann", "new"], ["ann", "vip"], ["bob", "old"], ["dee", "vip"]]
    cols, _ = q(data_engine, f"SELECT * FROM {ORD} c, UNNEST(c.tags) u(tag)")
    assert cols == ["cust", "city", "tags", "orders", "scores", "tag"]


def test_chained_laterals(data_engine):
    _, rows = q(
        data_engine,
        f"select t.c_name, sum(t4.items) from {C} t, lateral (select "
        "t2.ord.items as items from unnest(t.orders) t2(ord)) d1, lateral (select "
        "sum(t3.items.i_number) from unnest(d1.items) t3(items)) t4(items) "
        "where t.c_id > 1 group by t.c_name",
    )
    assert bag(rows) == [["customer2", 117.0], ["customer3", 216.0], ["customer4", 297.0]]


def test_plan_shows_lateral_and_unnest(data_engine):
    text = plan_text(
        data_engine,
        f"SELECT c.cust, o.n FROM {ORD} c, LATERAL (SELECT COUNT(*) AS n "
        "FROM UNNEST(c.orders) t(ord)) o",
    )
    assert '"lateral-join"' in text and '"unnest"' in text


# --- more forms, checked against Drill --------------------------------------------------------

T1 = "dfs.`breadth/tf/aggregation/t1`"
T2 = "dfs.`breadth/tf/aggregation/t2`"


def test_correlated_not_in(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT id FROM {P} p WHERE p.id NOT IN (SELECT d.manager_id FROM {D} d "
        "WHERE d.dept = p.dept)",
    )
    assert bag(rows) == [[2], [4], [5], [6], [8]]


def test_row_valued_in_and_not_in_over_parquet(data_engine):
    _, rows = q(data_engine, f"SELECT a1 FROM {T1} WHERE (a1, b1) IN (SELECT a2, b2 FROM {T2})")
    assert bag(rows) == [[1], [2], [3], [5], [6], [7], [9]]
    _, rows = q(data_engine, f"SELECT a1, b1 FROM {T1} WHERE a1 NOT IN (SELECT a2 FROM {T2})")
    assert rows == [[10, "jjjjj"]]


def test_having_subquery(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT dept, COUNT(*) FROM {P} GROUP BY dept HAVING COUNT(*) > "
        f"(SELECT MIN(floor) FROM {D})",
    )
    assert bag(rows) == [["Engineering", 3], ["Marketing", 2], ["Sales", 2]]


def test_is_not_distinct_from(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT p.id, d.floor FROM {P} p JOIN {D} d ON p.dept IS NOT DISTINCT FROM d.dept",
    )
    assert bag(rows) == bag([[1, 1], [2, 1], [3, 3], [6, 3], [4, 3], [5, 2], [7, 2]])
    assert q(data_engine, f"SELECT n.id FROM {N} n WHERE n.s IS NOT DISTINCT FROM NULL")[1] == [[3]]


def test_star_over_join_keeps_both_fields(data_engine):
    cols, rows = q(data_engine, f"SELECT * FROM {P} p JOIN {D} d USING (dept) WHERE d.floor > 2")
    assert cols == [
        "id",
        "first_name",
        "last_name",
        "dept",
        "salary",
        "hired",
        "active",
        "dept0",
        "floor",
        "manager_id",
    ]
    assert sorted(r[0] for r in rows) == [3, 4, 6]
    cols, _ = q(
        data_engine,
        "SELECT * FROM dfs.`breadth/tpch/region.parquet` r1 JOIN "
        "dfs.`breadth/tpch/region.parquet` r2 ON r1.r_regionkey = r2.r_regionkey + 1",
    )
    assert cols == ["r_regionkey", "r_name", "r_comment", "r_regionkey0", "r_name0", "r_comment0"]


def test_two_unnests_in_a_lateral_subquery(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT c.cust, t.x FROM {ORD} c, LATERAL (SELECT DISTINCT i.it AS x FROM "
        "UNNEST(c.orders) o(ord), UNNEST(o.ord.items) i(it)) t",
    )
    assert bag(rows) == bag(
        [
            ["ann", "ink"],
            ["ann", "pad"],
            ["ann", "pen"],
            ["bob", "desk"],
            ["bob", "lamp"],
            ["bob", "pen"],
            ["dee", "ink"],
            ["dee", "pad"],
            ["dee", "pen"],
        ]
    )


def test_exists_over_unnest_of_the_row(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT c.cust FROM {ORD} c WHERE EXISTS (SELECT 1 FROM UNNEST(c.tags) "
        "u(tag) WHERE u.tag = 'vip')",
    )
    assert bag(rows) == [["ann"], ["dee"]]


def test_subquery_in_aggregate_select_list(data_engine):
    _, rows = q(
        data_engine,
        f"SELECT dept, COUNT(*) AS c, (SELECT COUNT(*) FROM {D}) AS nd FROM {P} GROUP BY dept",
    )
    assert bag(rows) == bag(
        [["Engineering", 3, 4], ["Marketing", 2, 4], ["Sales", 2, 4], ["Support", 1, 4]]
    )
