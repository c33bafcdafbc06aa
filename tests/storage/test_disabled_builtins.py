"""A disabled built-in plugin is gone from every door (#31), as a disabled plugin is in Drill
1.22 (`Object 'mydata' not found`, `Schema [mydata.w] is not valid ...`, not in SHOW SCHEMAS):
`dfs` disabled by `drillspark.session(storage={"dfs": {"enabled": false}})` is no Spark catalog
any more for plain `spark.sql` / `spark.table`, and comes back when enabled again; a server
whose `dfs` and `cp` are disabled (its `--storage` file, or REST's enable/false) answers as
drillspark.sql's session with them disabled does: a `file` plugin of another name holds the
data, the temporary tables and the hints, and `dfs.…` / `cp.…` resolve nowhere, in its SQL and
in its session's `spark.sql`. Real files in a temp folder; expected rows are what the test
wrote."""

from __future__ import annotations

import importlib
import json
import os
import re
import socket
import subprocess
import sys

import pytest
from tests.server.helpers import Http

import drillspark
from drillspark.server import DrillServer
from drillspark.sql.temporary import OWNER_FILE

PEOPLE = [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}]
CATALOG = "spark.sql.catalog.dfs"
TEMPORARY = "spark.drillspark.defaultTemporaryWorkspace"


@pytest.fixture
def people(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "people.json").write_text("".join(json.dumps(p) + "\n" for p in PEOPLE))
    return data


def _count(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) AS n FROM {table}").first().n


def _failed(http: Http, sql: str) -> str:
    """The error message of a statement the server refuses (Drill's REST: a FAILED query)."""
    answer = http.query(sql)
    assert answer.get("queryState") == "FAILED", answer
    return str(answer["errorMessage"])


def _refused(call) -> str:
    with pytest.raises(Exception) as e:
        call()
    return str(e.value)


def _enable_dfs_again(spark) -> None:
    drillspark.session(storage={"dfs": {"enabled": True}})
    importlib.import_module("drillspark.session")._STORAGE.pop(spark, None)


def test_a_session_that_disables_dfs_has_no_dfs_spark_catalog(spark, people):
    table = f"dfs.`{people / 'people.json'}`"
    assert _count(spark, table) == len(PEOPLE)  # the catalog is loaded: Spark keeps it
    try:
        assert drillspark.session(storage={"dfs": {"enabled": False}}) is spark
        assert spark.conf.get(CATALOG, None) is None
        for call in (lambda: _count(spark, table), lambda: spark.table(table).collect()):
            text = _refused(call)
            assert "TABLE_OR_VIEW_NOT_FOUND" in text and "`dfs`" in text, text
    finally:
        _enable_dfs_again(spark)
    # enabled again: the catalog as it was
    assert spark.conf.get(CATALOG) == "drillspark.catalog.DfsCatalog"
    assert _count(spark, table) == len(PEOPLE)


def test_a_server_without_dfs_and_cp_answers_as_drillspark_sql_does(spark, people, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    storage = {
        "dfs": {"enabled": False},
        "cp": {"enabled": False},
        "files": {
            "type": "file",
            "connection": "file:///",
            "workspaces": {
                "data": {"location": str(people), "writable": False},
                "tmp": {"location": str(scratch), "writable": True},
            },
        },
    }
    table = f"dfs.`{people / 'people.json'}`"
    spark.conf.set(TEMPORARY, "files.tmp")
    srv = DrillServer(spark, port=0, workspaces={}, storage=storage).start()
    try:
        http = Http(srv.url)
        schemas = [r["SCHEMA_NAME"] for r in http.query("SHOW SCHEMAS")["rows"]]
        assert {"files.data", "files.tmp"} <= set(schemas), schemas
        assert not [s for s in schemas if s.split(".")[0] in ("dfs", "cp")], schemas
        rows = http.query("SELECT id, name FROM files.data.`people.json` ORDER BY id")["rows"]
        assert rows == [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}]
        for sql, name in (
            ("SELECT * FROM dfs.tmp.`people.json`", "dfs"),
            ("SELECT * FROM cp.`employee.json`", "cp"),
        ):
            message = _failed(http, sql)
            assert f"schema '{name}' is disabled" in message, message
        message = _failed(http, "USE dfs.tmp")
        assert "schema [dfs.tmp] is not valid" in message, message
        # a bare name with no default schema: the hint names the server's file plugin
        message = _failed(http, "SELECT * FROM `people.json`")
        assert "files.`people.json`" in message, message
        # a temporary table goes to files.tmp, the workspace the Spark setting names
        http.query("CREATE TEMPORARY TABLE tt AS SELECT 7 a FROM (VALUES(1))")
        assert len(list(scratch.iterdir())) == 1, "no session folder in files.tmp"
        # Spark's own door of the server's session: no dfs while it is disabled
        assert spark.conf.get(CATALOG, None) is None
        assert "TABLE_OR_VIEW_NOT_FOUND" in _refused(lambda: _count(spark, table))
        assert http.get("/storage/dfs/enable/true")[0] == 200
        assert _count(spark, table) == len(PEOPLE)
        schemas = [r["SCHEMA_NAME"] for r in http.query("SHOW SCHEMAS")["rows"]]
        assert "dfs.tmp" in schemas, schemas
        assert http.get("/storage/dfs/enable/false")[0] == 200
        assert "TABLE_OR_VIEW_NOT_FOUND" in _refused(lambda: _count(spark, table))
    finally:
        srv.stop()
        spark.conf.unset(TEMPORARY)
    # the session outlives its server: its own dfs catalog is back
    assert spark.conf.get(CATALOG) == "drillspark.catalog.DfsCatalog"
    assert _count(spark, table) == len(PEOPLE)


def _placeholders(http: Http) -> list[str]:
    status, _, page = http.get("/query")
    assert status == 200
    return re.findall(r'placeholder="([^"]*)"', page.decode())


def test_the_consoles_query_examples_name_a_schema_the_server_has(spark, people, tmp_path):
    """The query page's placeholders (its default schema and SQL examples) name a workspace of
    this server: `dfs.data` when the operator gave `--workspace data=...`, the `file` plugin
    that holds the data when `dfs` is disabled, never a plugin that is not there."""
    srv = DrillServer(spark, port=0, workspaces={"data": str(people)}).start()
    try:
        shown = _placeholders(Http(srv.url))
        assert shown == ["e.g. dfs.data", "SELECT * FROM dfs.data.`file.json` LIMIT 10"], shown
    finally:
        srv.stop()
    storage = {
        "dfs": {"enabled": False},
        "files": {"type": "file", "workspaces": {"sales": {"location": str(people)}}},
    }
    srv = DrillServer(spark, port=0, workspaces={}, storage=storage).start()
    try:
        http = Http(srv.url)
        shown = _placeholders(http)
        assert shown == ["e.g. files.sales", "SELECT * FROM files.sales.`file.json` LIMIT 10"]
        # the example is a schema the server answers for
        assert http.query("USE files.sales")["queryState"] == "COMPLETED"
    finally:
        srv.stop()


def test_a_server_clears_a_dead_servers_temporary_tables_where_they_are(spark, tmp_path):
    """At start a server removes the session folders a crashed server of this host left in
    its default temporary workspace: the one drill.exec.default_temporary_workspace names
    (`files.tmp` here), not `dfs.tmp` whatever it is set to. A live process's folder stays."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    for name, pid in (("dead-session", int(gone.stdout)), ("live-session", os.getpid())):
        (scratch / name).mkdir()
        (scratch / name / OWNER_FILE).write_text(f"{socket.gethostname()} {pid}")
        (scratch / name / "t").mkdir()
    storage = {
        "dfs": {"enabled": False},
        "files": {
            "type": "file",
            "workspaces": {"tmp": {"location": str(scratch), "writable": True}},
        },
    }
    spark.conf.set(TEMPORARY, "files.tmp")
    try:
        DrillServer(spark, port=0, workspaces={}, storage=storage).start().stop()
    finally:
        spark.conf.unset(TEMPORARY)
    assert sorted(p.name for p in scratch.iterdir()) == ["live-session"]
