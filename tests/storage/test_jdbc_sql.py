"""A `jdbc` plugin's tables in Drill SQL (docs/storage.md, "In SQL"): `pg.sales.orders` through
the SQL engine and through `drillspark serve` with the plugin created over REST, joined with a
JSON file in the same statement; a missing table is an error at its place in the SQL; EXPLAIN
and profiles show the plugin's config with its password masked. Answers are checked against
what PostgreSQL itself says."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from tests.server.helpers import Http
from tests.storage.conftest import drill

from drillspark.server import DrillServer
from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession


def _pg_rows(postgresql, sql: str) -> list[list[str]]:
    out = postgresql.sql(f"COPY ({sql}) TO STDOUT")
    return [line.split("\t") for line in out.strip().splitlines()]


@pytest.fixture
def engine(spark, pg, tmp_path):
    (tmp_path / "customers.json").write_text(
        "".join(json.dumps({"id": f"c{i}", "name": f"Customer {i}"}) + "\n" for i in range(4))
    )
    session = SqlSession(workspaces={"data": str(tmp_path)}, plugins={"pg": pg})
    return SqlEngine(spark, session)


def test_an_aggregate_over_a_postgresql_table(engine, postgresql):
    result = engine.execute(
        "SELECT customer, count(*) AS n, sum(quantity) AS q FROM pg.sales.orders "
        "GROUP BY customer ORDER BY customer"
    )[-1]
    got = [[r["customer"], r["n"], r["q"]] for r in result.rows()]
    want = _pg_rows(
        postgresql,
        "SELECT customer, count(*), sum(quantity) FROM sales.orders GROUP BY customer "
        "ORDER BY customer",
    )
    assert got == [[c, int(n), int(q)] for c, n, q in want]


def test_a_postgresql_table_joined_with_a_json_file(engine, postgresql):
    result = engine.execute(
        "SELECT c.name, sum(o.amount) AS total FROM pg.sales.orders o "
        "JOIN dfs.data.`customers.json` c ON o.customer = c.id "
        "WHERE o.status = 'open' GROUP BY c.name ORDER BY c.name"
    )[-1]
    want = _pg_rows(
        postgresql,
        "SELECT customer, sum(amount) FROM sales.orders WHERE status = 'open' "
        "GROUP BY customer ORDER BY customer",
    )
    got = [[r["name"], r["total"]] for r in result.rows()]
    assert [g[0] for g in got] == [f"Customer {c[1:]}" for c, _ in want]
    # Drill reads PostgreSQL's numeric as FLOAT8 (docs/storage.md)
    assert [round(float(g[1]), 2) for g in got] == [float(Decimal(t)) for _, t in want]


def test_a_missing_table_is_an_error_at_its_place(engine):
    with pytest.raises(SqlError) as e:
        engine.execute("SELECT *\nFROM pg.sales.nosuch")
    text = str(e.value)
    assert "nosuch" in text and "line 2" in text, text


def test_explain_shows_the_config_with_its_password_masked(engine, pg):
    result = engine.execute("EXPLAIN PLAN FOR SELECT id FROM pg.sales.orders WHERE id < 3")[-1]
    text = json.dumps(result.rows())
    assert pg["password"] not in text and "*****" in text
    assert '"storageengine": "pg"' in text or '\\"storageengine\\": \\"pg\\"' in text


def test_the_server_reads_a_jdbc_plugin_created_over_rest(spark, pg, postgresql):
    srv = DrillServer(spark, port=0, workspaces={}).start()
    try:
        http = Http(srv.url)
        body = json.dumps({"name": "pg", "config": pg}).encode()
        status, _, data = http.request(
            "POST", "/storage/pg.json", body, {"Content-Type": "application/json"}
        )
        assert status == 200, data
        answer = http.query("SELECT count(*) AS n FROM pg.sales.orders WHERE quantity > 2")
        want = _pg_rows(postgresql, "SELECT count(*) FROM sales.orders WHERE quantity > 2")
        assert answer["rows"] == [{"n": int(want[0][0])}], answer
        profile = http.get_json(f"/profiles/{answer['queryId']}.json")
        assert pg["password"] not in json.dumps(profile)
        # disabled: the query says so
        assert http.get("/storage/pg/enable/false")[0] == 200
        off = http.query("SELECT count(*) AS n FROM pg.sales.orders")
        assert off["queryState"] == "FAILED" and "disabled" in off["errorMessage"], off
    finally:
        srv.stop()


def test_drillspark_sql_reads_the_plugins_a_session_was_given(spark, pg, postgresql, tmp_path):
    """drillspark.session(storage={...}): drillspark.sql on that session reads the jdbc plugin
    and the dfs workspace it adds; a plugin SQL cannot read yet is refused at once."""
    import importlib

    import drillspark

    session_module = importlib.import_module("drillspark.session")  # the module, not the call
    from drillspark.plugin_configs import PluginConfigError
    from drillspark.sql import default_engine

    (tmp_path / "one.json").write_text('{"x": 1}\n')
    same = drillspark.session(
        storage={"pg": pg, "dfs": {"workspaces": {"extra": {"location": str(tmp_path)}}}}
    )
    try:
        assert same is spark  # the running session, given the plugins
        n = drillspark.sql("SELECT count(*) AS n FROM pg.sales.orders", spark=spark).rows()
        assert n == [{"n": int(_pg_rows(postgresql, "SELECT count(*) FROM sales.orders")[0][0])}]
        one = drillspark.sql("SELECT x FROM dfs.extra.`one.json`", spark=spark).rows()
        assert one == [{"x": 1}]
        with pytest.raises(PluginConfigError, match="'type'"):
            drillspark.session(storage={"bad": {"type": 3}})
    finally:  # the test run's shared session and its engine as they were
        session_module._STORAGE.pop(spark, None)
        state = default_engine(spark).session
        state.plugins.pop("pg", None)
        state.workspaces.pop("extra", None)
        state.outside.pop("extra", None)


def test_show_schemas_and_describe_ask_the_database(engine):
    schemas = [r["SCHEMA_NAME"] for r in engine.execute("SHOW SCHEMAS")[-1].rows()]
    assert {"pg", "pg.public", "pg.sales"} <= set(schemas), schemas
    # DESCRIBE as real Drill 1.22 answered it over the same table
    sql = "DESCRIBE pg.public.all_types"
    described = engine.execute(sql)[-1].rows()
    got = [[r["COLUMN_NAME"], r["DATA_TYPE"], r["IS_NULLABLE"]] for r in described]
    assert got == drill(sql)["rows"]


def test_a_real_is_the_double_of_its_own_text(engine, postgresql):
    # Drill 1.22 (2026-12-07) reads a PostgreSQL real 0.1 as the DOUBLE 0.1 (its driver's
    # getDouble), 3.4e38 as 3.4E38; it had been the float's 0.10000000149011612 here, and a
    # CTAS copied that
    postgresql.sql(
        "CREATE SCHEMA IF NOT EXISTS reals AUTHORIZATION drill;\n"
        "SET ROLE drill;\n"
        "CREATE TABLE IF NOT EXISTS reals.r (id int, v real);\n"
        "TRUNCATE reals.r;\n"
        "INSERT INTO reals.r VALUES (1, 0.1), (2, 3.4e38), (3, NULL);\n"
    )
    try:
        result = engine.execute("SELECT v, typeof(v) t FROM pg.reals.r ORDER BY id")[-1]
        assert [[r["v"], r["t"]] for r in result.rows()] == [
            [0.1, "FLOAT8"],
            [3.4e38, "FLOAT8"],
            [None, "FLOAT8"],  # a typed NULL's type, as Drill's typeof names it
        ]
    finally:  # the other tests list the database's schemas
        postgresql.sql("DROP SCHEMA reals CASCADE;\n")


def test_a_column_the_table_lacks_is_refused_at_its_place(engine):
    # Drill 1.22 (2026-12-07): "VALIDATION ERROR: From line 1, column 8 to line 1, column 13:
    # Column 'nosuch' not found in any table" (a database table's columns are known when
    # planned); it had been a column of NULLs here. Its own columns answer in any case.
    with pytest.raises(SqlError, match=r"Column 'nosuch' not found in any table.*column 8"):
        engine.execute("SELECT nosuch FROM pg.sales.orders")
    result = engine.execute("SELECT CUSTOMER, o.Quantity FROM pg.sales.orders o WHERE id = 1")[-1]
    assert len(result.rows()) == 1
