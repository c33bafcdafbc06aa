"""A join of two tables of one `jdbc` plugin runs in the database as one statement (Drill's
`Jdbc(sql=[... JOIN ...])`; spark/storage/jdbc_join.py), with the filters above it pushed into
that statement; the answers equal the join run in Spark (the same plugin with `pushDownJoin`
off) and the database's own. Joins it cannot send (another plugin, an outer join, MariaDB's
string keys) run in Spark with the same answers."""

from __future__ import annotations

import pytest

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
    return [ln for ln in explained.splitlines() if ln.startswith("External engine query:")]


def test_a_join_of_one_postgresql_plugin_is_one_statement(engine, pg, postgresql):
    rows, explained = _run(engine, JOIN.format(p="pg"))
    queries = _queries(explained)
    assert len(queries) == 1, explained
    assert (
        'FROM "sales"."orders" l INNER JOIN "sales"."big_orders" r ON l."id" = r."id"'
        in (queries[0])
    )
    assert 'WHERE ("o$quantity" IS NOT NULL) AND ("o$quantity" > 2)' in queries[0]
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
    assert len(queries) == 1 and "INNER JOIN `drilltest`.`MixedCase` r" in queries[0], queries
    in_spark, _ = _run(engine, sql.format(p="mariaoff"))
    assert rows == in_spark == [[1, "closed", "one"], [2, "closed", "two"]]


def test_joins_it_cannot_send_run_in_spark_with_the_same_answers(engine):
    cases = [
        # two plugins (one database, but two configs: Drill joins them in Drill too)
        "SELECT o.id, b.amount FROM pg.sales.orders o JOIN pgoff.sales.big_orders b "
        "ON o.id = b.id ORDER BY o.id",
        # an outer join
        "SELECT o.id, b.amount FROM pg.sales.orders o LEFT JOIN pg.sales.big_orders b "
        "ON o.id = b.id WHERE o.id > 30 ORDER BY o.id",
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
