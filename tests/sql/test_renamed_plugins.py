"""A session whose file plugin is not Drill's bootstrap `dfs` (#31): the built-in `dfs` and
`cp` disabled (`{"enabled": false}`, as drillspark.session(storage=...) takes them) and a `file`
plugin named `files` holding the data, with Drill's drill.exec.default_temporary_workspace set
to `files.tmp`. Everything that works on `dfs` works on `files` (reads, USE, SHOW FILES, views,
CTAS, temporary tables), and the disabled names resolve nowhere, as a disabled plugin's do in
Drill. Real files in a temp folder; the expected rows are the data the test wrote."""

from __future__ import annotations

import json

import pytest

from drillspark.session import storage_configs
from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.errors import ValidationError
from drillspark.sql.session import SqlSession
from drillspark.sql.temporary import temporary_tables

PEOPLE = [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}]


def rows(engine: SqlEngine, sql: str) -> list[list]:
    return [list(r.values()) for r in engine.execute(sql)[-1].rows()]


def refused(engine: SqlEngine, sql: str) -> str:
    with pytest.raises(SqlError) as e:
        engine.execute(sql)[-1].rows()
    return str(e.value)


@pytest.fixture
def renamed(spark, tmp_path):
    data, scratch = tmp_path / "data", tmp_path / "scratch"
    data.mkdir()
    scratch.mkdir()
    (data / "people.json").write_text("".join(json.dumps(p) + "\n" for p in PEOPLE))
    storage = storage_configs(
        {
            "dfs": {"enabled": False},
            "cp": {"enabled": False},
            "files": {
                "type": "file",
                "connection": "file:///",
                "workspaces": {
                    "data": {"location": str(data), "writable": False},
                    "tmp": {"location": str(scratch), "writable": True},
                },
            },
        }
    )
    session = SqlSession(temporary_workspace="files.tmp")
    session.take_storage(storage)
    engine = SqlEngine(spark, session)
    yield engine, data, scratch
    engine.close()


def test_the_renamed_file_plugin_reads_lists_and_writes(renamed):
    engine, data, scratch = renamed
    assert engine.session.home is None and engine.session.classpath is None
    people = [[p["id"], p["name"]] for p in PEOPLE]
    assert rows(engine, "SELECT id, name FROM files.data.`people.json` ORDER BY id") == people
    schemas = [r[0] for r in rows(engine, "SHOW SCHEMAS")]
    assert {"files.data", "files.tmp", "files.default"} <= set(schemas)
    assert not [s for s in schemas if s.split(".")[0] in ("dfs", "cp")], schemas
    names = [r[0] for r in rows(engine, "SHOW FILES IN files.data")]
    assert names == ["people.json"]
    listed = rows(engine, "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA")
    assert not [r for r in listed if r[0].split(".")[0] in ("dfs", "cp")], listed
    assert rows(
        engine,
        "SELECT SCHEMA_NAME, FILE_NAME FROM INFORMATION_SCHEMA.`FILES` "
        "WHERE SCHEMA_NAME = 'files.data'",
    ) == [["files.data", "people.json"]]
    engine.execute("USE files.data")
    assert rows(engine, "SELECT COUNT(*) FROM `people.json`") == [[len(PEOPLE)]]
    # CTAS and a view in the writable workspace; the read-only one refuses, naming itself
    assert rows(engine, "CREATE TABLE files.tmp.two AS SELECT id FROM `people.json` WHERE id < 3")
    assert (scratch / "two").is_dir()
    assert rows(engine, "SELECT id FROM files.tmp.two ORDER BY id") == [[1], [2]]
    assert rows(engine, "CREATE VIEW files.tmp.v AS SELECT name FROM files.data.`people.json`")
    assert (scratch / "v.view.drill").is_file()
    assert rows(engine, "SELECT COUNT(*) FROM files.tmp.v") == [[len(PEOPLE)]]
    assert "Schema [files.data] is immutable" in refused(
        engine, "CREATE TABLE files.data.x AS SELECT 1 a FROM (VALUES(1))"
    )


def test_temporary_tables_go_to_the_configured_workspace(renamed):
    engine, _data, scratch = renamed
    assert rows(engine, "CREATE TEMPORARY TABLE tt AS SELECT 7 a FROM (VALUES(1))") == [["0_0", 1]]
    (folder,) = list(scratch.iterdir())  # the session's folder, by its id
    assert folder.name == temporary_tables(engine.session).session_id
    assert rows(engine, "SELECT a FROM tt") == [[7]]
    assert rows(engine, "SELECT a FROM files.tmp.tt") == [[7]]
    engine.close()
    assert list(scratch.iterdir()) == []  # gone with the session


def test_the_disabled_names_resolve_nowhere(renamed):
    engine, _data, _scratch = renamed
    for sql in (
        "SELECT * FROM dfs.tmp.`people.json`",
        "SELECT * FROM cp.`employee.json`",
        "USE dfs.tmp",
        "USE cp",
    ):
        message = refused(engine, sql)
        assert "dfs" in message or "cp" in message, message  # names what was asked
    # a bare name with no default schema: the hint names a plugin of this session
    message = refused(engine, "SELECT * FROM `people.json`")
    assert "files.`people.json`" in message, message


def test_no_default_schema_and_no_home_plugin_is_said(renamed):
    engine, _data, _scratch = renamed
    # the default schema's folder (the shell's completion asks it): none, in Drill's words,
    # not the disabled home plugin's root
    with pytest.raises(ValidationError, match="No default schema selected"):
        engine.session.schema_folder(None)
    engine.execute("USE files.data")
    assert engine.session.schema_folder(None)[1] == str(_data)
