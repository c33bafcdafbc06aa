"""Bad input for a `jdbc` plugin: a wrong password, a database that is down or goes away while a
query runs, a driver that is not on the class path, a config without a URL. Each is one
paragraph naming the plugin and the cause, with no password and no Java stack trace; Drill
1.22's own messages for the same faults are pinned beside them."""

from __future__ import annotations

import sys

import pytest
from tests.storage.conftest import ROOT, _start, drill, jdbc_config, scan_plan

import drillspark
from drillspark.spark.storage import StorageError, jdbc, make_engine

sys.path.insert(0, str(ROOT / "tools"))
import db_servers  # noqa: E402

SECRET = "wrong-secret-pw"


def one_paragraph(text: str) -> None:
    assert "\n" not in text.strip(), text
    assert "\tat " not in text and " at org." not in text and "Caused by" not in text, text
    assert SECRET not in text and "drill-pw" not in text, text


def run_error(spark, engine: str, config: dict, schema: str = "public", table: str = "all_types"):
    with pytest.raises(StorageError) as caught:
        drillspark.run(scan_plan(engine, config, schema, table), spark=spark).rows()
    text = str(caught.value)
    one_paragraph(text)
    return text


def test_a_wrong_password(spark, pg, maria):
    drills = drill("SELECT * FROM pgbad.public.all_types")["error"]
    assert 'password authentication failed for user "drill"' in drills
    text = run_error(spark, "pgbad", {**pg, "password": SECRET})
    assert "jdbc storage plugin 'pgbad'" in text
    assert (
        'cannot connect to the database: FATAL: password authentication failed for user "drill"'
        in text
    )
    text = run_error(spark, "mariabad", {**maria, "password": SECRET}, "drilltest")
    assert "jdbc storage plugin 'mariabad'" in text and "Access denied for user 'drill'" in text
    # the metadata calls say the same
    with pytest.raises(jdbc.JdbcError) as caught:
        jdbc.list_tables(spark, {**pg, "password": SECRET}, "public", "pgbad")
    one_paragraph(str(caught.value))
    assert "password authentication failed" in str(caught.value)


def test_a_database_that_is_down(spark, pg):
    drills = drill("SELECT * FROM pgdown.public.all_types")["error"]
    assert "Connection to 127.0.0.1:1 refused" in drills
    port = db_servers.free_port()  # nothing listens there
    url = f"jdbc:postgresql://127.0.0.1:{port}/drilltest?password={SECRET}"
    text = run_error(spark, "pgdown", {**pg, "url": url, "password": SECRET})
    assert "jdbc storage plugin 'pgdown': cannot connect to the database" in text
    assert f"Connection to 127.0.0.1:{port} refused" in text


def test_a_driver_not_on_the_class_path(spark, pg):
    config = {**pg, "driver": "com.example.NoSuchDriver", "url": "jdbc:example://127.0.0.1/x"}
    text = run_error(spark, "other", config)
    assert "the JDBC driver com.example.NoSuchDriver is not on Spark's class path" in text
    assert "--jars" in text


def test_a_config_without_url_or_with_another_scheme():
    with pytest.raises(
        StorageError, match="storage plugin 'x' \\(jdbc\\): field 'url' is required"
    ):
        make_engine("x", {"type": "jdbc", "driver": "org.postgresql.Driver"}).read(
            None, {"table": "t"}
        )  # type: ignore[arg-type]
    with pytest.raises(StorageError, match="must be a JDBC URL"):
        jdbc.JdbcConfig.of("x", {"url": "postgresql://u:secret@h/db"})
    with pytest.raises(StorageError, match=r"needs a selection \{\"schema\""):
        make_engine("x", {"type": "jdbc", "url": "jdbc:postgresql://h/db"}).read(
            None, {"path": "/t"}
        )  # type: ignore[arg-type]


def test_a_disabled_plugin(spark, pg):
    with pytest.raises(StorageError, match="storage plugin 'pg' is disabled"):
        drillspark.run(
            scan_plan("pg", {**pg, "enabled": False}, "public", "all_types"), spark=spark
        )


@pytest.fixture
def doomed():
    """A PostgreSQL server of its own, for a test that stops it half-way."""
    server = _start("postgresql")
    yield server
    server.stop()


def test_a_database_that_goes_away_while_the_query_runs(spark, doomed):
    config = jdbc_config(doomed)
    result = drillspark.run(scan_plan("gone", config, "sales", "orders"), spark=spark)
    doomed.stop(remove=False)  # the plan is built (its schema read); the rows are not
    with pytest.raises(drillspark.Error) as caught:
        result.rows()
    text = str(caught.value)
    one_paragraph(text)
    # the failure comes up where the rows are computed (drillspark/result.py): Spark's job
    # error with the driver's message, one paragraph
    assert "Connection to 127.0.0.1" in text and "refused" in text, text


def test_schemas_leave_out_a_database_that_cannot_be_reached(spark, pg):
    # Drill 1.22 lists neither pgbad (a wrong password) nor pgdown (port 1) in SHOW SCHEMAS
    from drillspark.sql import SqlEngine
    from drillspark.sql.session import SqlSession

    drills = {r[0].split(".")[0] for r in drill("SHOW SCHEMAS")["rows"]}
    assert {"pg", "pgbad", "pgdown"} & drills == {"pg"}
    down = {**pg, "url": pg["url"].rsplit(":", 1)[0] + ":1/drilltest"}
    plugins = {"pg": pg, "pgbad": {**pg, "password": SECRET}, "pgdown": down}
    engine = SqlEngine(spark, SqlSession(plugins=plugins))
    for sql in ("SHOW SCHEMAS", "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA"):
        names = {r["SCHEMA_NAME"].split(".")[0] for r in engine.execute(sql)[-1].rows()}
        assert {"pg", "pgbad", "pgdown"} & names == {"pg"}, sql
