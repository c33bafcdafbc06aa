"""CREATE TABLE AS and DROP TABLE on a `jdbc` plugin from SQL (docs/storage.md, "Writing
(CTAS)"), against the real PostgreSQL: Drill 1.22's answers and messages (asked of Drill with
its own `jdbc` plugin over the same database, tests/storage/data/drill_jdbc_answers.json), the
checks made before the query runs, and a failed write that leaves no table and no password in
its message."""

from __future__ import annotations

import pytest
from tests.storage.conftest import drill

from drillspark.spark.storage import jdbc
from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession


@pytest.fixture
def engine(spark, pg):
    return SqlEngine(spark, SqlSession(plugins={"pg": pg, "pgw": {**pg, "writable": True}}))


def _run(engine, sql: str):
    return engine.execute(sql)[-1]


def _drills_error(sql: str) -> str:
    return drill(sql)["error"].split(": ", 1)[1]


def _tables(spark, pg, schema="public") -> list[str]:
    return [n for n, _ in jdbc.list_tables(spark, pg, schema)]


def test_ctas_into_a_writable_plugin_answers_and_reads_back_as_drill(engine, spark, pg):
    made = _run(
        engine,
        "CREATE TABLE pgw.public.sqlctas1 AS SELECT id, customer, amount, quantity, ordered, "
        "status FROM pg.sales.orders WHERE id < 4",
    )
    want = drill(
        "CREATE TABLE pgw.public.ctas1 AS SELECT id, customer, amount, quantity, ordered, "
        "status FROM pg.sales.orders WHERE id < 4"
    )
    assert made.columns == want["columns"] and made.rows() == [
        dict(zip(want["columns"], r, strict=True)) for r in want["rows"]
    ]
    back = _run(engine, "SELECT * FROM pgw.public.sqlctas1 ORDER BY id")
    answer = drill("SELECT * FROM pgw.public.ctas1 ORDER BY id")
    assert back.columns == answer["columns"]
    got = [
        [v.isoformat() if hasattr(v, "isoformat") else v for v in r.values()] for r in back.rows()
    ]
    assert got == answer["rows"]
    assert not [n for n in _tables(spark, pg) if n.startswith("drillspark_tmp_")]


def test_an_existing_name_is_drills_error_before_the_query_runs(engine):
    _run(engine, "CREATE TABLE pgw.public.sqlctas2 AS SELECT 1 AS i")
    drills = _drills_error("CREATE TABLE pgw.public.ctas1 AS SELECT 1 AS i")
    with pytest.raises(SqlError) as e:
        # the query would fail if it ran: the name is refused first, as Drill refuses it
        _run(engine, "CREATE TABLE pgw.public.sqlctas2 AS SELECT 1/0 AS i")
    assert drills.replace("ctas1", "sqlctas2") in str(e.value)
    quiet = _run(engine, "CREATE TABLE IF NOT EXISTS pgw.public.sqlctas2 AS SELECT 2 AS i")
    assert quiet.rows() == [
        {
            "ok": False,
            "summary": "A table or view with given name [sqlctas2] already exists in schema "
            "[pgw.public]",
        }
    ]
    assert _run(engine, "SELECT i FROM pgw.public.sqlctas2").rows() == [{"i": 1}]


def test_a_plugin_that_is_not_writable_refuses_ctas_and_drop_as_drill(engine):
    drills = _drills_error("CREATE TABLE pg.public.ctas0 AS SELECT 1 AS i")
    for sql in ("CREATE TABLE pg.public.ctas0 AS SELECT 1 AS i", "DROP TABLE pg.public.all_types"):
        with pytest.raises(SqlError) as e:
            _run(engine, sql)
        assert drills in str(e.value)


def test_ctas_with_a_column_list_into_the_current_schema_then_drop(engine, spark, pg):
    # `pgw.t` is a table of the database's current schema (public)
    made = _run(engine, "CREATE TABLE pgw.sqlctas3 (a, b) AS SELECT 1 AS i, 'x' AS s")
    assert made.rows() == [{"Fragment": "0_0", "Number of records written": 1}]
    assert _run(engine, "SELECT * FROM pgw.public.sqlctas3").rows() == [{"a": 1, "b": "x"}]
    dropped = _run(engine, "DROP TABLE pgw.public.sqlctas3")
    want = drill("DROP TABLE pgw.public.ctas3")
    assert [list(r.values()) for r in dropped.rows()] == [[True, "Table [sqlctas3] dropped"]]
    assert want["rows"] == [[True, "Table [ctas3] dropped"]]
    assert "sqlctas3" not in _tables(spark, pg)
    with pytest.raises(SqlError, match=r"Table \[sqlctas3\] not found"):
        _run(engine, "DROP TABLE pgw.public.sqlctas3")
    gone = _run(engine, "DROP TABLE IF EXISTS pgw.public.sqlctas3")
    assert gone.rows() == [{"ok": False, "summary": "Table [sqlctas3] not found"}]


def test_ctas_of_a_json_file_into_postgresql(engine):
    _run(engine, "CREATE TABLE pgw.public.sqlctas4 AS SELECT * FROM cp.`employee.json` LIMIT 2")
    answer = drill("SELECT * FROM pgw.public.ctas4")
    back = _run(engine, "SELECT * FROM pgw.public.sqlctas4 ORDER BY employee_id")
    # the same columns and values (a JSON file's column order is the reader's)
    assert sorted(back.columns) == sorted(answer["columns"])
    want = [dict(zip(answer["columns"], r, strict=True)) for r in answer["rows"]]
    assert back.rows() == sorted(want, key=lambda r: r["employee_id"])


def test_a_failed_ctas_leaves_no_table_and_no_password(engine, spark, pg):
    with pytest.raises(Exception) as e:  # noqa: PT011  (the run's error class is the plan's)
        _run(
            engine, "CREATE TABLE pgw.public.sqlbad AS SELECT 1/(id - 7) AS i FROM pg.sales.orders"
        )
    text = str(e.value)
    assert "jdbc storage plugin 'pgw': cannot write pgw.public.sqlbad" in text
    assert "Division by zero" in text and pg["password"] not in text
    assert "\n\tat " not in text  # no Java stack trace
    names = _tables(spark, pg)
    assert "sqlbad" not in names and not [n for n in names if n.startswith("drillspark_tmp_")]


def test_a_temporary_table_is_refused_outside_dfs_tmp(engine):
    with pytest.raises(SqlError, match=r"outside of default temporary workspace \[dfs.tmp\]"):
        _run(engine, "CREATE TEMPORARY TABLE pgw.public.sqltemp AS SELECT 1 AS i")
