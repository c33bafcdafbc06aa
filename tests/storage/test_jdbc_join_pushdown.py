"""Joins of tables of one `jdbc` plugin run in the database as one statement (Drill's
`Jdbc(sql=[... JOIN ...])`; spark/storage/jdbc_join.py), with the filters, aggregates, LIMIT /
top-N above them and a third table of the plugin pushed into that statement; the answers equal
the join run in Spark (the same plugin with `pushDownJoin` off), the database's own and Drill
1.22's. LEFT and RIGHT joins and conditions other than `=` go down as Drill 1.22 sends them
(Spark's join push-down carries them), a FULL join as a statement of drillspark's own (Spark's
cannot: its connector JoinType has no FULL). Joins it cannot send (another plugin, a key that
is an expression, MariaDB's string keys, a FULL join on MariaDB) run in Spark with the same
answers."""

from __future__ import annotations

import re

import pytest
from tests.storage.conftest import drill

from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

JOIN = (
    "SELECT o.id, o.customer, o.amount, b.amount AS big FROM {p}.sales.orders o "
    "JOIN {p}.sales.big_orders b ON o.id = b.id WHERE o.quantity > 2 ORDER BY o.id"
)


@pytest.fixture
def engine(spark, pg, maria):
    off = {"sourceParameters": {"pushDownJoin": False}}
    plugins = {"pg": pg, "pgoff": {**pg, **off}, "maria": maria, "mariaoff": {**maria, **off}}
    return SqlEngine(spark, SqlSession(plugins=plugins))


def _run(engine, sql: str):
    result = engine.execute(sql)[-1]
    return [list(r.values()) for r in result.rows()], result.explain(print_it=False)


def _queries(explained: str) -> list[str]:
    """The statements sent to the database, each whole (Spark prints a pushed join's over
    several lines)."""
    out: list[str] = []
    lines = explained.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("External engine query:"):
            text = [ln]
            for more in lines[i + 1 :]:
                if not more.strip() or re.match(r"^\(\d+\) ", more) or more.startswith("Pushed"):
                    break
                text.append(more)
            out.append("\n".join(text))
    return out


def test_a_join_of_one_postgresql_plugin_is_one_statement(engine, pg, postgresql):
    rows, explained = _run(engine, JOIN.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1, explained
    assert "PushedJoins:" in explained and "INNER JOIN" in queries[0], queries
    assert 'FROM "sales"."orders"' in queries[0] and 'FROM "sales"."big_orders"' in queries[0]
    assert '("quantity" IS NOT NULL) AND ("quantity" > 2)' in queries[0]
    assert pg["password"] not in explained
    in_spark, spark_explained = _run(engine, JOIN.format(p="pgoff"))
    assert len(_queries(spark_explained)) == 2 and "JOIN" not in "".join(_queries(spark_explained))
    assert rows == in_spark and len(rows) == 6
    own = postgresql.sql(
        "COPY (SELECT o.id, o.customer, o.amount::float8, b.amount::float8 FROM sales.orders o "
        "JOIN sales.big_orders b ON o.id = b.id WHERE o.quantity > 2 ORDER BY o.id) TO STDOUT"
    )
    want = [ln.split("\t") for ln in own.strip().splitlines()]
    assert rows == [[int(i), c, float(a), float(b)] for i, c, a, b in want]


def test_a_join_of_one_mariadb_plugin_on_numbers_is_one_statement(engine):
    sql = (
        "SELECT o.id, o.status, m.label FROM {p}.drilltest.orders o "
        "JOIN {p}.drilltest.MixedCase m ON o.id = m.id ORDER BY o.id"
    )
    rows, explained = _run(engine, sql.format(p="maria"))
    queries = _queries(explained)
    assert len(queries) == 1 and "FROM `drilltest`.`MixedCase`" in queries[0], queries
    assert "INNER JOIN" in queries[0], queries
    in_spark, _ = _run(engine, sql.format(p="mariaoff"))
    assert rows == in_spark == [[1, "closed", "one"], [2, "closed", "two"]]


def test_joins_it_cannot_send_run_in_spark_with_the_same_answers(engine):
    cases = [
        # two plugins (one database, but two configs: Drill joins them in Drill too)
        "SELECT o.id, b.amount FROM pg.sales.orders o JOIN pgoff.sales.big_orders b "
        "ON o.id = b.id ORDER BY o.id",
        # a key that is an expression (Drill 1.22 sends it: Calcite projects it first)
        "SELECT o.id, b.amount FROM pg.sales.orders o LEFT JOIN pg.sales.big_orders b "
        "ON o.id = b.id + 0 WHERE o.id > 30 ORDER BY o.id",
        # MariaDB compares strings by its collation ('c1' = 'C1'); Spark does not
        "SELECT a.id, b.id AS id2 FROM maria.drilltest.orders a JOIN maria.drilltest.orders b "
        "ON a.customer = b.customer AND a.id = b.id ORDER BY a.id",
    ]
    for sql in cases:
        rows, explained = _run(engine, sql)
        assert len(_queries(explained)) == 2, (sql, explained)
        off, _ = _run(engine, sql.replace("pg.", "pgoff.").replace("maria.", "mariaoff."))
        assert rows == off and rows, sql
    rows, _ = _run(engine, cases[1])
    assert [r[0] for r in rows] == list(range(31, 41))
    assert rows[0][1] == 100.75 and rows[4][1] is None  # 35 has no amount: not a big order


def test_a_numeric_without_precision_is_a_double_in_a_pushed_join(engine, postgresql):
    # PostgreSQL's `numeric` without precision: a double, as the table's own read gives it
    sql = (
        "SELECT a.id, a.num_free, b.num_v FROM {p}.public.all_types a "
        "JOIN {p}.public.all_types b ON a.id = b.id ORDER BY a.id"
    )
    rows, explained = _run(engine, sql.format(p="pg"))
    assert len(_queries(explained)) == 1 and "INNER JOIN" in _queries(explained)[0]
    in_spark, _ = _run(engine, sql.format(p="pgoff"))
    assert rows == in_spark
    own = postgresql.sql(
        "COPY (SELECT id, num_free::float8 FROM public.all_types ORDER BY id) TO STDOUT"
    )
    want = [ln.split("\t") for ln in own.strip().splitlines()]
    assert [[r[0], r[1]] for r in rows] == [
        [int(i), None if v == "\\N" else float(v)] for i, v in want
    ]


J = "{p}.sales.orders o JOIN {p}.sales.big_orders b ON o.id = b.id"
J3 = J + " JOIN {p}.sales.orders p ON p.id = b.id"
JOIN_AGG = (
    "SELECT o.customer, COUNT(*) c, COUNT(o.amount) ca, SUM(b.amount) s, AVG(b.amount) a, "
    "MIN(o.quantity) mq, MAX(o.ordered) mo, SUM(o.quantity) sq, AVG(o.quantity) aq FROM "
    + J
    + " GROUP BY o.customer ORDER BY o.customer"
)


def _plain(rows: list[list]) -> list[list]:
    return [[v.isoformat() if hasattr(v, "isoformat") else v for v in r] for r in rows]


def test_an_aggregate_over_a_join_is_one_statement_with_drills_answer(engine):
    rows, explained = _run(engine, JOIN_AGG.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1 and "GROUP BY" in queries[0] and "INNER JOIN" in queries[0], queries
    pushed = next(ln for ln in explained.splitlines() if ln.startswith("PushedAggregates:"))
    for part in ("COUNT(*)", "SUM(", "AVG(", "MIN(quantity)", "MAX(ordered)"):
        assert part in pushed, pushed
    assert _plain(rows) == drill(JOIN_AGG.format(p="pg"))["rows"]
    in_spark, spark_explained = _run(engine, JOIN_AGG.format(p="pgoff"))
    assert "PushedJoins" not in spark_explained and rows == in_spark
    # Drill's types: COUNT BIGINT, SUM and AVG of numeric FLOAT8, of an integer BIGINT / FLOAT8
    typed = (
        "SELECT typeof(c) t1, typeof(ca) t2, typeof(s) t3, typeof(a) t4, typeof(mq) t5, "
        "typeof(mo) t6, typeof(sq) t7, typeof(aq) t8 FROM (SELECT o.customer, COUNT(*) c, "
        "COUNT(o.amount) ca, SUM(b.amount) s, AVG(b.amount) a, MIN(o.quantity) mq, "
        "MAX(o.ordered) mo, SUM(o.quantity) sq, AVG(o.quantity) aq FROM "
        + J
        + " GROUP BY o.customer) LIMIT 1"
    )
    types, _ = _run(engine, typed.format(p="pg"))
    assert types == drill(typed.format(p="pg"))["rows"]


def test_a_top_n_over_a_join_is_one_statement(engine):
    sql = "SELECT o.id, o.customer, b.amount FROM " + J + " ORDER BY b.amount DESC, o.id LIMIT 3"
    rows, explained = _run(engine, sql.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1 and "INNER JOIN" in queries[0], queries
    assert "PushedTopN: ORDER BY [" in explained and "LIMIT 3" in queries[0], explained
    assert rows == drill(sql.format(p="pg"))["rows"]
    assert rows == _run(engine, sql.format(p="pgoff"))[0]
    limited = "SELECT o.id FROM " + J + " LIMIT 4"
    rows, explained = _run(engine, limited.format(p="pg"))
    assert len(rows) == 4 and "PushedLimit: LIMIT 4" in explained, explained
    assert len(_queries(explained)) == 1


def test_a_third_table_of_the_plugin_joins_in_the_same_statement(engine):
    sql = (
        "SELECT o.id, o.status, b.amount, p.quantity FROM "
        + J3
        + " WHERE p.quantity > 1 ORDER BY o.id"
    )
    rows, explained = _run(engine, sql.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1 and queries[0].count("INNER JOIN") == 2, queries
    assert '("quantity" > 1)' in queries[0]
    assert rows == drill(sql.format(p="pg"))["rows"]
    assert rows == _run(engine, sql.format(p="pgoff"))[0]
    agg = (
        "SELECT p.status, COUNT(*) c, SUM(p.quantity) sq, MAX(b.amount) mb FROM "
        + J3
        + " GROUP BY p.status ORDER BY p.status"
    )
    rows, explained = _run(engine, agg.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1 and "GROUP BY" in queries[0], queries
    assert rows == drill(agg.format(p="pg"))["rows"]
    assert rows == _run(engine, agg.format(p="pgoff"))[0]


# Drill 1.22 sends each of these to PostgreSQL as one statement (its EXPLAIN: `Jdbc(sql=[...
# LEFT JOIN ...])`, pinned in drill_jdbc_answers.json beside its answers)
OUTER = [
    (
        "SELECT o.id, b.amount FROM {p}.sales.orders o LEFT JOIN {p}.sales.big_orders b "
        "ON o.id = b.id ORDER BY o.id",
        "LEFT JOIN",
    ),
    (
        "SELECT o.id, b.id bid FROM {p}.sales.orders o JOIN {p}.sales.big_orders b "
        "ON o.id > b.id WHERE o.id > 38 ORDER BY o.id, b.id",
        'ON "id" > "id_1"',
    ),
    (
        "SELECT o.customer, COUNT(*) c, COUNT(b.id) cb FROM {p}.sales.orders o LEFT JOIN "
        "{p}.sales.big_orders b ON o.id = b.id GROUP BY o.customer ORDER BY o.customer",
        "LEFT JOIN",
    ),
    (
        "SELECT o.id, b.amount FROM {p}.sales.orders o RIGHT JOIN {p}.sales.big_orders b "
        "ON o.id = b.id ORDER BY o.id",
        "RIGHT JOIN",
    ),
]
# an ON condition on one side's column alone (Drill sends it as a filtered subquery): joined
# in Spark here, over the two pushed scans, with Drill's answer
ONE_SIDED = (
    "SELECT o.id, b.amount FROM {p}.sales.orders o LEFT JOIN {p}.sales.big_orders b "
    "ON o.id = b.id AND b.amount > 120 WHERE o.id > 30 ORDER BY o.id"
)


@pytest.mark.parametrize("sql, joined", OUTER)
def test_outer_and_non_equi_joins_are_one_statement_with_drills_answer(engine, sql, joined):
    rows, explained = _run(engine, sql.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1 and joined in queries[0], queries
    off, off_explained = _run(engine, sql.format(p="pgoff"))
    assert len(_queries(off_explained)) == 2
    assert rows == off
    if "RIGHT JOIN" not in sql:
        assert _plain(rows) == drill(sql.format(p="pg"))["rows"]


def test_drill_sends_these_joins_to_the_database_too():
    for sql in [s for s, _ in OUTER[:3]] + [ONE_SIDED]:
        asked = sql.format(p="pg").split(" ORDER BY")[0].replace(" WHERE o.id > 30", "")
        plan = drill("EXPLAIN PLAN FOR " + asked)
        assert "Jdbc(sql=[" in plan["rows"][0][0] and "HashJoin" not in plan["rows"][0][0]


def test_a_one_sided_on_condition_joins_in_spark_with_drills_answer(engine):
    rows, explained = _run(engine, ONE_SIDED.format(p="pg"))
    assert len(_queries(explained)) == 2
    assert rows == drill(ONE_SIDED.format(p="pg"))["rows"]


def test_a_right_join_and_a_mixed_condition_are_one_statement(engine):
    sql = (
        "SELECT o.id, b.amount FROM {p}.sales.big_orders b RIGHT JOIN {p}.sales.orders o "
        "ON o.id = b.id ORDER BY o.id"
    )
    rows, explained = _run(engine, sql.format(p="pg"))
    (query,) = _queries(explained)
    assert "RIGHT JOIN" in query, query
    assert rows == _run(engine, sql.format(p="pgoff"))[0]
    left = drill(
        "SELECT o.id, b.amount FROM pg.sales.orders o LEFT JOIN pg.sales.big_orders b "
        "ON o.id = b.id ORDER BY o.id"
    )
    assert rows == left["rows"]  # Drill's LEFT JOIN the other way round: the same rows
    assert (
        "RIGHT JOIN"
        in drill("EXPLAIN PLAN FOR " + sql.format(p="pg").split(" ORDER")[0])["rows"][0][0]
    )
    # an integer compared with a numeric(12, 2): both exact, PostgreSQL compares as Spark does
    mixed = (
        "SELECT o.id, b.id bid FROM {p}.sales.orders o JOIN {p}.sales.big_orders b "
        "ON o.id = b.id AND o.quantity < b.amount ORDER BY o.id"
    )
    rows, explained = _run(engine, mixed.format(p="pg"))
    (query,) = _queries(explained)
    assert "INNER JOIN" in query and '< "amount"' in query, query
    assert rows == _run(engine, mixed.format(p="pgoff"))[0] and len(rows) == 9


def test_a_top_n_over_a_left_join_is_one_statement(engine):
    sql = (
        "SELECT o.id, b.amount FROM {p}.sales.orders o LEFT JOIN {p}.sales.big_orders b "
        "ON o.id = b.id ORDER BY b.amount DESC NULLS LAST, o.id LIMIT 3"
    )
    rows, explained = _run(engine, sql.format(p="pg"))
    (query,) = _queries(explained)
    assert "LEFT JOIN" in query and "LIMIT 3" in query and "PushedTopN" in explained, query
    want = [[40, 130.0], [39, 126.75], [38, 123.5]]
    assert rows == _run(engine, sql.format(p="pgoff"))[0] == want
    drills = drill("EXPLAIN PLAN FOR " + sql.format(p="pg"))["rows"][0][0]
    assert "LEFT JOIN" in drills and "FETCH NEXT 3 ROWS ONLY" in drills


def test_a_full_join_is_a_statement_of_drillsparks_own(engine, postgresql):
    # Spark 4.3's join push-down has no FULL join (org.apache.spark.sql.connector.join.JoinType:
    # INNER_JOIN, LEFT_OUTER_JOIN, RIGHT_OUTER_JOIN); Drill 1.22 sends one, and so do we
    sql = (
        "SELECT o.id, b.id bid, b.amount FROM {p}.sales.orders o FULL JOIN "
        "{p}.sales.big_orders b ON o.id = b.id ORDER BY o.id, b.id"
    )
    rows, explained = _run(engine, sql.format(p="pg"))
    (query,) = _queries(explained)
    assert "FULL OUTER JOIN" in query, query
    assert rows == _run(engine, sql.format(p="pgoff"))[0] and len(rows) == 40
    own = postgresql.sql(
        "COPY (SELECT o.id, b.id, b.amount::float8 FROM sales.orders o FULL JOIN "
        "sales.big_orders b ON o.id = b.id ORDER BY o.id, b.id) TO STDOUT"
    )
    want = [
        [None if v == "\\N" else (float(v) if "." in v else int(v)) for v in ln.split("\t")]
        for ln in own.strip().splitlines()
    ]
    assert rows == want
    # Drill's FULL join on an expression key (pinned): sent by Drill, joined in Spark here,
    # the same rows
    expr = sql.replace("o.id = b.id", "o.id = b.id + 35")
    rows, explained = _run(engine, expr.format(p="pg"))
    assert len(_queries(explained)) == 2
    assert rows == drill(expr.format(p="pg"))["rows"]
    plan = drill("EXPLAIN PLAN FOR " + expr.format(p="pg").split(" ORDER BY")[0])["rows"][0][0]
    assert "FULL JOIN" in plan


def test_a_left_join_of_one_mariadb_plugin_is_one_statement(engine):
    sql = (
        "SELECT o.id, m.label FROM {p}.drilltest.orders o LEFT JOIN {p}.drilltest.MixedCase m "
        "ON o.id = m.id WHERE o.id < 4 ORDER BY o.id"
    )
    rows, explained = _run(engine, sql.format(p="maria"))
    (query,) = _queries(explained)
    assert "LEFT JOIN" in query and "`drilltest`.`MixedCase`" in query, query
    want = [[1, "one"], [2, "two"], [3, None]]
    assert rows == _run(engine, sql.format(p="mariaoff"))[0] == want
    # MariaDB has no FULL JOIN: Spark joins the two pushed scans
    full = sql.replace("LEFT JOIN", "FULL JOIN")
    rows, explained = _run(engine, full.format(p="maria"))
    assert len(_queries(explained)) == 2
    assert rows == _run(engine, full.format(p="mariaoff"))[0]


def test_an_ordering_of_string_keys_is_not_sent_to_the_database(engine, postgresql):
    # PostgreSQL orders these strings by their ICU collation ('a' < 'A' < 'b' < 'B'), Spark by
    # their bytes ('A' < 'B' < 'a' < 'b'): a join on `<` of string keys runs in Spark, with
    # Spark's answer; `=` of string keys still goes down (equal is equal in both)
    postgresql.sql(
        "CREATE SCHEMA IF NOT EXISTS collated AUTHORIZATION drill;\n"
        "SET ROLE drill;\n"
        'CREATE TABLE IF NOT EXISTS collated.lefts (k text COLLATE "en-x-icu");\n'
        'CREATE TABLE IF NOT EXISTS collated.rights (k text COLLATE "en-x-icu");\n'
        "TRUNCATE collated.lefts, collated.rights;\n"
        "INSERT INTO collated.lefts VALUES ('a'), ('B');\n"
        "INSERT INTO collated.rights VALUES ('A'), ('b'), ('B');\n"
    )
    try:
        sql = (
            "SELECT l.k AS lk, r.k AS rk FROM {p}.collated.lefts l JOIN {p}.collated.rights r "
            "ON l.k {rel} r.k ORDER BY lk, rk"
        )
        rows, explained = _run(engine, sql.format(p="pg", rel="<"))
        in_spark, _ = _run(engine, sql.format(p="pgoff", rel="<"))
        assert rows == in_spark == [["B", "b"], ["a", "b"]], rows
        assert not any("JOIN" in q for q in _queries(explained)), explained
        own = postgresql.sql(
            "COPY (SELECT l.k, r.k FROM collated.lefts l JOIN collated.rights r ON l.k < r.k "
            'ORDER BY l.k COLLATE "C", r.k COLLATE "C") TO STDOUT'
        )
        assert [ln.split("\t") for ln in own.strip().splitlines()] != rows  # the collation's order
        rows, explained = _run(engine, sql.format(p="pg", rel="="))
        assert rows == [["B", "B"]] and any("JOIN" in q for q in _queries(explained)), explained
    finally:  # the other tests list the database's schemas
        postgresql.sql("DROP SCHEMA collated CASCADE;\n")


@pytest.mark.parametrize("source", ["{p}.sales.orders o", J])
def test_max_min_of_a_varchar_still_run_in_the_database(engine, source):
    """Elsewhere drillspark's MAX / MIN / ANY_VALUE of a VARCHAR are the extension's own
    aggregates (docs/functions.md, drill_max_varchar), which Spark's JDBC pushdown does not
    know: over a database's table, and over a join it runs there, they stay Spark's and the
    database answers them; the answer is the rows' own, by their bytes."""
    sql = (
        f"SELECT o.customer, MAX(o.status) ms, MIN(o.status) mn, COUNT(*) c FROM {source} "
        "GROUP BY o.customer ORDER BY o.customer"
    ).format(p="pg")
    rows, explained = _run(engine, sql)
    pushed = next(ln for ln in explained.splitlines() if ln.startswith("PushedAggregates:"))
    assert "MAX(status)" in pushed and "MIN(status)" in pushed, pushed
    assert "drill_max_varchar" not in explained
    plain, _ = _run(engine, f"SELECT o.customer, o.status FROM {source}".format(p="pg"))
    groups: dict = {}
    for customer, status in plain:
        groups.setdefault(customer, []).append(status)
    expected = [
        [c, max(v, key=str.encode), min(v, key=str.encode), len(v)]
        for c, v in sorted(groups.items())
    ]
    assert rows == expected
