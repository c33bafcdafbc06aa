"""Drill's SYSTEM option `storage.plugin_auto_disable` (#31): off (the default), a plugin that
cannot start keeps failing the statements that need it and stays configured; on, the first
statement that needs it fails, saying in Drill's words that the plugin is now disabled, and from
then on its names resolve nowhere (the server's registry shows it disabled, as after REST's
enable/false). Asked of Drill 1.22 (tests/storage/data/drill_auto_disable_answers.json): the
option takes SYSTEM scope only; `SELECT * FROM pgdown.public.x` with PostgreSQL at a closed port
answers `CONNECTION ERROR: ... Connection to 127.0.0.1:1 refused ... The plugin pgdown will now
be disabled (see SYSTEM option storage.plugin_auto_disable)`, the same query then `Object
'pgdown' not found`; SHOW SCHEMAS fails on the first plugin that cannot start (a jdbc plugin
whose driver is missing, then an `hdfs://` plugin at a closed port: `PLUGIN ERROR: Failed to
load schema for schema deadhdfs`), disabling it, until none is left. Real servers: PostgreSQL
(a wrong password, a closed port) and moto's S3 (an endpoint at a closed port)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.server.helpers import Http
from tests.storage.conftest import jdbc_config

from drillspark.errors import Error
from drillspark.server import DrillServer
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

ANSWERS = json.loads(
    (Path(__file__).parent / "data" / "drill_auto_disable_answers.json").read_text("utf-8")
)["answers"]
DISABLED = "will now be disabled (see SYSTEM option storage.plugin_auto_disable)"


def _drill(sql: str, nth: int = 0) -> dict:
    return [a for a in ANSWERS if a["sql"] == sql][nth]


@pytest.fixture
def plugins(postgresql, s3):
    pg = jdbc_config(postgresql)
    down = s3.plugin("drill-auto-down", {"w": {"location": "/w", "writable": False}})
    down["config"] = {**down["config"], "fs.s3a.endpoint": "http://127.0.0.1:1"}
    return {
        "pg": pg,
        "pgdown": {**pg, "url": "jdbc:postgresql://127.0.0.1:1/drilltest"},
        "pgbad": {**pg, "password": "not-the-password"},
        "s3down": down,
    }


def _failure(engine, sql: str) -> str:
    with pytest.raises(Error) as e:
        engine.execute(sql)[-1].rows()
    text = getattr(e.value, "message", None) or str(e.value)
    assert "not-the-password" not in text and "\n\tat " not in text
    return text


def test_the_option_is_drills_system_option(spark):
    engine = SqlEngine(spark, SqlSession())
    row = engine.execute(
        "SELECT name, kind, accessibleScopes, val, optionScope FROM sys.options "
        "WHERE name = 'storage.plugin_auto_disable'"
    )[-1].rows()
    drills = _drill(
        "SELECT name, kind, accessibleScopes, val, optionScope FROM sys.options "
        "WHERE name = 'storage.plugin_auto_disable'"
    )
    assert [list(r.values()) for r in row] == drills["rows"]
    refused = _failure(engine, "ALTER SESSION SET `storage.plugin_auto_disable` = true")
    assert "Cannot change option storage.plugin_auto_disable in scope SESSION" in refused
    assert _drill("ALTER SESSION SET `storage.plugin_auto_disable` = true")["error"].endswith(
        "Cannot change option storage.plugin_auto_disable in scope SESSION"
    )


def test_off_a_plugin_that_cannot_start_stays(spark, plugins):
    engine = SqlEngine(spark, SqlSession(plugins=dict(plugins)))
    for _ in range(2):
        message = _failure(engine, "SELECT * FROM pgdown.public.x")
        assert "cannot connect to the database" in message and DISABLED not in message
    assert "pgdown" in engine.session.plugins
    # SHOW SCHEMAS leaves out an unreachable jdbc plugin (Drill's answer, pinned before) but
    # fails on an unreachable file plugin, which stays
    assert "Failed to load schema for schema s3down" in _failure(engine, "SHOW SCHEMAS")
    assert "s3down" in engine.session.plugins


def test_on_a_jdbc_plugin_that_cannot_start_is_disabled(spark, plugins):
    engine = SqlEngine(spark, SqlSession(plugins=dict(plugins)))
    engine.execute("ALTER SYSTEM SET `storage.plugin_auto_disable` = true")
    message = _failure(engine, "SELECT * FROM pgdown.public.x")
    assert "jdbc storage plugin 'pgdown': cannot connect to the database" in message
    assert message.endswith(f"The plugin pgdown {DISABLED}"), message
    drills = [a for a in ANSWERS if a["sql"] == "SELECT * FROM pgdown.public.x"]
    assert drills[0]["error"].endswith(f"The plugin pgdown {DISABLED}")
    assert "pgdown" not in engine.session.plugins
    again = _failure(engine, "SELECT * FROM pgdown.public.x")
    assert DISABLED not in again and "cannot connect" not in again  # no such schema now
    assert "Object 'pgdown' not found" in drills[1]["error"]
    # the working plugin still answers
    assert engine.execute("SELECT count(*) AS n FROM pg.sales.orders")[-1].rows() == [{"n": 40}]


def test_on_show_schemas_disables_one_failing_plugin_at_a_time(spark, plugins):
    engine = SqlEngine(spark, SqlSession(plugins=dict(plugins)))
    engine.execute("ALTER SYSTEM SET `storage.plugin_auto_disable` = true")
    failed = []
    for _ in range(4):
        try:
            names = [r["SCHEMA_NAME"] for r in engine.execute("SHOW SCHEMAS")[-1].rows()]
            break
        except Error as e:
            text = getattr(e, "message", None) or str(e)
            assert DISABLED in text and "not-the-password" not in text, text
            failed.append(text.rsplit("The plugin ", 1)[1].split(" ")[0])
    assert sorted(failed) == ["pgbad", "pgdown", "s3down"]
    assert "pg.sales" in names and not any(
        n.startswith(("pgdown", "pgbad", "s3down")) for n in names
    )
    shows = [a for a in ANSWERS if a["sql"] == "SHOW SCHEMAS"]  # Drill: one plugin a statement
    assert all(DISABLED in a["error"] for a in shows) and len(shows) == 2
    assert "PLUGIN ERROR: Failed to load schema for schema deadhdfs" in shows[1]["error"]


def test_on_information_schema_disables_an_unreachable_file_plugin(spark, plugins):
    engine = SqlEngine(spark, SqlSession(plugins={"s3down": plugins["s3down"]}))
    engine.execute("ALTER SYSTEM SET `storage.plugin_auto_disable` = true")
    message = _failure(engine, "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA")
    assert message.startswith("Failed to load schema for schema s3down"), message
    assert message.endswith(f"The plugin s3down {DISABLED}")
    rows = engine.execute("SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA")[-1].rows()
    assert "s3down.w" not in [r["SCHEMA_NAME"] for r in rows]


def test_the_server_disables_it_in_its_registry(spark, tmp_path, plugins):
    srv = DrillServer(
        spark,
        port=0,
        storage={"pgdown": plugins["pgdown"], "pg": plugins["pg"]},
        state_dir=str(tmp_path / "state"),
    ).start()
    try:
        http = Http(srv.url)
        assert http.get_json("/storage/pgdown.json")["config"]["enabled"] is True
        off = http.query("SELECT * FROM pgdown.public.x")
        assert off["queryState"] == "FAILED" and DISABLED not in json.dumps(off)
        done = http.query("ALTER SYSTEM SET `storage.plugin_auto_disable` = true")
        assert done["queryState"] == "COMPLETED", done
        failed = http.query("SELECT * FROM pgdown.public.x")
        assert failed["queryState"] == "FAILED" and DISABLED in json.dumps(failed), failed
        shown = http.get_json("/storage/pgdown.json")["config"]
        assert "enabled" not in shown  # Drill shows a disabled plugin without `enabled`
        assert http.get_json("/storage/pg.json")["config"]["enabled"] is True
        again = http.query("SELECT * FROM pgdown.public.x")
        assert again["queryState"] == "FAILED" and DISABLED not in json.dumps(again)
    finally:
        srv.stop()


def test_on_a_role_without_the_connect_privilege_is_not_disabled(spark, postgresql):
    # PostgreSQL refuses the login (SQLState 42501, "permission denied for database"): the
    # database answers, the plugin can start for another role or once granted; only SQLState
    # class 08 (no connection) or 28 (the plugin's credentials) disables it
    postgresql.sql(
        "CREATE DATABASE auto_noconnect OWNER drill;\n"
        "REVOKE CONNECT ON DATABASE auto_noconnect FROM PUBLIC;\n"
        "CREATE ROLE auto_noconnect_role LOGIN PASSWORD 'noconnect-pw';\n"
    )
    config = {
        **jdbc_config(postgresql),
        "url": postgresql.url("auto_noconnect"),
        "username": "auto_noconnect_role",
        "password": "noconnect-pw",
    }
    try:
        engine = SqlEngine(spark, SqlSession(plugins={"pgnoconnect": config}))
        engine.execute("ALTER SYSTEM SET `storage.plugin_auto_disable` = true")
        for _ in range(2):
            message = _failure(engine, "SELECT * FROM pgnoconnect.public.x")
            assert 'permission denied for database "auto_noconnect"' in message, message
            assert DISABLED not in message and "cannot connect" not in message, message
        assert "pgnoconnect" in engine.session.plugins
    finally:
        postgresql.sql("DROP DATABASE auto_noconnect;\nDROP ROLE auto_noconnect_role;\n")
