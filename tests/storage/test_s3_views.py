"""Views, SHOW TABLES, SHOW FILES and INFORMATION_SCHEMA (FILES, VIEWS, TABLES) on a `file`
plugin backed by an S3-compatible server (moto's, the `s3` fixture): a view is Drill's view file
(`v.view.drill`, the JSON Drill writes) stored as an object under the workspace's key prefix,
read back by SELECT and removed by DROP VIEW; listings hold the workspace's own objects only.
The shapes (columns, summaries, the view file) are Drill 1.22's, asked of Drill with a local
`file` plugin of the same layout (docs/storage.md, "Views and listings on s3a:// and hdfs://";
Drill's own s3 needs AWS)."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

BUCKET = "drill-views"
OTHER = "drill-views-other"
PEOPLE = '{"id": 1, "name": "Ann"}\n{"id": 2, "name": "Bob"}\n'


@pytest.fixture(scope="module")
def bucket(s3):
    client = s3.client()
    client.create_bucket(Bucket=BUCKET)
    client.create_bucket(Bucket=OTHER)
    s3.put(BUCKET, "data/people.json", PEOPLE)
    s3.put(BUCKET, "data/sub/more.json", '{"id": 3, "name": "Cy"}\n')
    s3.put(BUCKET, "database/x.json", '{"id": 9}\n')  # shares the prefix "data" as text
    s3.put(BUCKET, "secret/key.json", '{"k": 1}\n')
    s3.put(OTHER, "data/elsewhere.json", '{"id": 7}\n')
    return BUCKET


@pytest.fixture
def engine(spark, s3, bucket):
    config = s3.plugin(
        bucket,
        {
            "data": {"location": "/data", "writable": False},
            "tmp": {"location": "/scratch", "writable": True},
        },
    )
    return SqlEngine(spark, SqlSession(plugins={"s3": config}))


def objects(s3, prefix: str) -> list[str]:
    """The objects under `prefix`, without S3A's empty folder markers (`scratch/`)."""
    return [k for k in s3.keys(BUCKET, prefix) if not k.endswith("/")]


def rows(engine, sql: str) -> list[dict]:
    return [dict(r) for r in engine.execute(sql)[-1].rows()]


def test_create_select_and_drop_a_view_on_s3(engine, s3, bucket):
    created = rows(engine, "CREATE VIEW s3.tmp.v AS SELECT id, name FROM s3.data.`people.json`")
    # Drill 1.22's summary, with a local file plugin `mydata.w`
    assert created == [{"ok": True, "summary": "View 'v' created successfully in 's3.tmp' schema"}]
    assert "scratch/v.view.drill" in s3.keys(bucket, "scratch/")
    body = s3.client().get_object(Bucket=bucket, Key="scratch/v.view.drill")["Body"].read()
    view = json.loads(body)
    assert view["name"] == "v"
    assert view["sql"] == "SELECT id, name FROM s3.data.`people.json`"
    assert [f["name"] for f in view["fields"]] == ["id", "name"]
    assert body.startswith(b'{\n  "name" : "v",')  # Jackson's pretty printer, as Drill writes

    got = rows(engine, "SELECT id, name FROM s3.tmp.v ORDER BY id")
    assert got == [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]
    shown = rows(engine, "SHOW TABLES IN s3.tmp")
    assert shown == [{"TABLE_SCHEMA": "s3.tmp", "TABLE_NAME": "v"}]
    views = rows(
        engine,
        "SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM INFORMATION_SCHEMA.VIEWS "
        "WHERE TABLE_SCHEMA LIKE 's3%'",
    )
    # (Drill shows its planner's unparsed text as VIEW_DEFINITION; drillspark the SQL given)
    assert [(r["TABLE_SCHEMA"], r["TABLE_NAME"]) for r in views] == [("s3.tmp", "v")]
    assert "people.json" in views[0]["VIEW_DEFINITION"]
    with pytest.raises(SqlError, match=r"A view with given name \[v\] already exists"):
        engine.execute("CREATE VIEW s3.tmp.v AS SELECT 1 AS a FROM (VALUES (1))")
    replaced = rows(engine, "CREATE OR REPLACE VIEW s3.tmp.v AS SELECT id FROM s3.data.sub")
    assert replaced[0]["summary"] == "View 'v' replaced successfully in 's3.tmp' schema"
    assert rows(engine, "SELECT * FROM s3.tmp.v") == [{"id": 3}]
    # no temporary object is left beside the view file
    assert objects(s3, "scratch/") == ["scratch/v.view.drill"]

    dropped = rows(engine, "DROP VIEW s3.tmp.v")
    assert dropped == [
        {"ok": True, "summary": "View [v] deleted successfully from schema [s3.tmp]."}
    ]
    assert objects(s3, "scratch/") == []
    with pytest.raises(SqlError, match=r"Unknown view \[v\] in schema \[s3.tmp\]"):
        engine.execute("DROP VIEW s3.tmp.v")
    assert rows(engine, "DROP VIEW IF EXISTS s3.tmp.v")[0]["ok"] is False


def test_a_view_in_a_read_only_workspace_is_refused(engine, s3, bucket):
    with pytest.raises(SqlError, match=r"Schema \[s3.data\] is immutable"):
        engine.execute("CREATE VIEW s3.data.v AS SELECT 1 AS a FROM (VALUES (1))")
    assert not any(k.endswith(".view.drill") for k in s3.keys(bucket))


def test_a_view_name_stays_in_its_workspace(engine, s3, bucket):
    for name in ("`../data/v`", "`%2e%2e/v`"):
        with pytest.raises(SqlError, match="refused in workspace 's3.tmp'"):
            engine.execute(f"CREATE VIEW s3.tmp.{name} AS SELECT 1 AS a FROM (VALUES (1))")
    assert not any(k.endswith(".view.drill") for k in s3.keys(bucket))


def test_a_view_file_drill_wrote_is_read(engine, s3, bucket):
    """A view file as Drill 1.22 wrote it (its `fields` of a schema-free SELECT *), put into
    the bucket by hand: SELECT reads it."""
    drill_wrote = {
        "name": "dv",
        "sql": "SELECT *\nFROM `s3`.`data`.`people.json`",
        "fields": [{"name": "**", "type": "DYNAMIC_STAR", "isNullable": True}],
        "workspaceSchemaPath": [],
    }
    s3.put(bucket, "scratch/dv.view.drill", json.dumps(drill_wrote, indent=2))
    try:
        got = rows(engine, "SELECT name FROM s3.tmp.dv ORDER BY name")
        assert got == [{"name": "Ann"}, {"name": "Bob"}]
    finally:
        s3.client().delete_object(Bucket=bucket, Key="scratch/dv.view.drill")


def test_ctas_and_a_table_shadowing_a_view(engine, s3, bucket):
    engine.execute("ALTER SESSION SET `store.format` = 'json'")
    written = rows(engine, "CREATE TABLE s3.tmp.t AS SELECT id FROM s3.data.`people.json`")
    assert written == [{"Fragment": "0_0", "Number of records written": 2}]
    try:
        with pytest.raises(SqlError, match=r"A non-view table with given name \[t\] already"):
            engine.execute("CREATE VIEW s3.tmp.t AS SELECT 1 AS a FROM (VALUES (1))")
        engine.execute("CREATE VIEW s3.tmp.w AS SELECT 1 AS a FROM (VALUES (1))")
        with pytest.raises(SqlError, match=r"A table or view with given name \[w\] already"):
            engine.execute("CREATE TABLE s3.tmp.w AS SELECT 1 AS a FROM (VALUES (1))")
    finally:
        engine.execute("DROP TABLE IF EXISTS s3.tmp.t")
        engine.execute("DROP VIEW IF EXISTS s3.tmp.w")
    assert objects(s3, "scratch/") == []


def test_a_temporary_table_goes_to_the_temporary_workspace_only(engine, s3, bucket):
    # Drill 1.22 (a local file plugin `mydata.w`, writable): "Temporary tables are not
    # allowed to be created / dropped outside of default temporary workspace [dfs.tmp]."
    with pytest.raises(SqlError, match=r"outside of default temporary workspace \[dfs.tmp\]"):
        engine.execute("CREATE TEMPORARY TABLE s3.tmp.tt AS SELECT 1 AS a FROM (VALUES (1))")
    assert objects(s3, "scratch/") == []


def test_show_files_lists_the_workspace_prefix_only(engine):
    got = rows(engine, "SHOW FILES IN s3.data")
    # Drill's SHOW FILES columns
    assert list(got[0]) == [
        "name",
        "isDirectory",
        "isFile",
        "length",
        "owner",
        "group",
        "permissions",
        "accessTime",
        "modificationTime",
    ]
    assert [(r["name"], r["isDirectory"], r["isFile"], r["length"]) for r in got] == [
        ("people.json", False, True, len(PEOPLE)),
        ("sub", True, False, 0),
    ]
    for escape in ("`..`", "`../secret`", "`%2e%2e`", "`s3a://drill-views-other/data`"):
        with pytest.raises(SqlError, match="refused in workspace 's3.data'"):
            engine.execute(f"SHOW FILES IN s3.data.{escape}")


def test_information_schema_files_lists_each_workspace_prefix(engine):
    got = rows(
        engine,
        "SELECT * FROM INFORMATION_SCHEMA.`FILES` WHERE ROOT_SCHEMA_NAME = 's3' "
        "ORDER BY SCHEMA_NAME, FILE_NAME",
    )
    # Drill's columns, in its order
    assert list(got[0]) == [
        "SCHEMA_NAME",
        "ROOT_SCHEMA_NAME",
        "WORKSPACE_NAME",
        "FILE_NAME",
        "RELATIVE_PATH",
        "IS_DIRECTORY",
        "IS_FILE",
        "LENGTH",
        "OWNER",
        "GROUP",
        "PERMISSION",
        "ACCESS_TIME",
        "MODIFICATION_TIME",
    ]
    listed = {(r["SCHEMA_NAME"], r["FILE_NAME"], r["IS_FILE"]) for r in got}
    data = {(s, f, i) for s, f, i in listed if s == "s3.data"}
    assert data == {("s3.data", "people.json", True), ("s3.data", "sub", False)}
    # the default workspace is the bucket's root, as Drill's file plugin has it
    default = {f for s, f, _ in listed if s == "s3.default"}
    assert {"data", "database", "secret"} <= default
    # nothing of the other bucket, nothing of `database/` in s3.data
    assert not any(f in ("elsewhere.json", "x.json") for _, f, _ in listed)
    assert all(r["RELATIVE_PATH"] == r["FILE_NAME"] for r in got)
    people = next(r for r in got if r["FILE_NAME"] == "people.json")
    assert people["LENGTH"] == len(PEOPLE) and people["MODIFICATION_TIME"] is not None
