"""Metadata, views and DDL as Drill 1.22 answers them (each expectation below was asked of real
Drill 1.22 with the same statements): INFORMATION_SCHEMA, sys, SHOW / DESCRIBE, CREATE VIEW and
its view file, CTAS with a column list, temporary tables, DROP TABLE / VIEW and their messages."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlError, SqlSession, ValidationError
from drillspark.sql.output import columns_and_rows

REGION = "dfs.`breadth/tpch/region.parquet`"
NATION = "dfs.`breadth/tpch/nation.parquet`"
PEOPLE = "dfs.`breadth/own/json/people.json`"


@pytest.fixture
def eng(spark, shared, tmp_path):
    """dfs.root is ../shared/data (read in place), dfs.tmp a fresh folder."""
    engine = SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path)})
    )
    yield engine
    engine.close()


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_information_schema_catalogs_schemata_tables(eng):
    assert q(eng, "select * from INFORMATION_SCHEMA.CATALOGS") == (
        ["CATALOG_NAME", "CATALOG_DESCRIPTION", "CATALOG_CONNECT"],
        [["DRILL", "The internal metadata used by Drill", ""]],
    )
    _, rows = q(eng, "SELECT SCHEMA_NAME, TYPE, IS_MUTABLE FROM INFORMATION_SCHEMA.SCHEMATA")
    assert sorted(rows) == [
        ["cp.default", "file", "NO"],
        ["dfs.default", "file", "NO"],
        ["dfs.root", "file", "NO"],
        ["dfs.tmp", "file", "YES"],
        ["information_schema", "ischema", "NO"],
        ["sys", "system-tables", "NO"],
    ]
    # names are case-insensitive; every schema table is listed, 15 of them in sys
    _, rows = q(
        eng, "select count() from information_schema.`tables` where table_name = 'SCHEMATA'"
    )
    assert rows == [[1]]
    _, rows = q(
        eng,
        "SELECT TABLE_SCHEMA, count(*) AS n FROM INFORMATION_SCHEMA.`TABLES` "
        "GROUP BY TABLE_SCHEMA ORDER BY TABLE_SCHEMA",
    )
    assert rows == [["information_schema", 7], ["sys", 15]]
    _, rows = q(
        eng,
        "SELECT TABLE_NAME, count(*) AS n FROM INFORMATION_SCHEMA.COLUMNS WHERE "
        "TABLE_SCHEMA = 'information_schema' GROUP BY TABLE_NAME ORDER BY 1",
    )
    assert rows == [
        ["CATALOGS", 3],
        ["COLUMNS", 24],
        ["FILES", 13],
        ["PARTITIONS", 10],
        ["SCHEMATA", 5],
        ["TABLES", 8],
        ["VIEWS", 4],
    ]


def test_metadata_scan_is_in_the_plan(eng):
    (result,) = eng.execute("explain plan for select * from information_schema.`tables`")
    plan = json.loads(result.data[0][1])
    assert plan["query"][0]["op"] == "scan"
    assert plan["query"][0]["selection"] == {"table": "TABLES"}
    assert plan["storage"]["information_schema"]["type"] == "ischema"


def test_sys_tables(eng):
    assert q(eng, "select min(version) version from sys.drillbits") == (["version"], [["1.22.0"]])
    cols, rows = q(eng, "select * from sys.version")
    assert cols[:2] == ["version", "commit_id"] and rows[0][0] == "1.22.0"
    eng.execute("ALTER SESSION SET `planner.slice_target` = 10")
    _, rows = q(
        eng, "SELECT val, status, optionScope FROM sys.options WHERE name = 'planner.slice_target'"
    )
    assert rows == [["10", "CHANGED", "SESSION"]]
    with pytest.raises(SqlError, match="sys.options_old"):  # listed, not answered
        eng.execute("select * from sys.options_old")
    with pytest.raises(SqlError, match="Object 'nosuch' not found within 'information_schema'"):
        eng.execute("select * from information_schema.nosuch")


def test_view_file_fields_and_columns(eng, tmp_path):
    sql = (
        f"SELECT CAST(n_nationkey AS INT) AS k, CAST(n_name AS VARCHAR(25)) AS nm, "
        f"n_comment, 1.5 AS d, 'abc' AS s, count(*) over () AS c, "
        f"CAST(n_regionkey AS DECIMAL(10, 3)) + 1 AS u FROM {NATION}"
    )
    assert q(eng, f"CREATE VIEW dfs.tmp.`bv` AS {sql}") == (
        ["ok", "summary"],
        [[True, "View 'bv' created successfully in 'dfs.tmp' schema"]],
    )
    view = json.loads((tmp_path / "bv.view.drill").read_text())
    assert view["name"] == "bv" and view["sql"] == sql and view["workspaceSchemaPath"] == []
    assert view["fields"][:3] == [
        {"name": "k", "type": "INTEGER", "isNullable": True},
        {"name": "nm", "type": "VARCHAR", "precision": 25, "isNullable": True},
        {"name": "n_comment", "type": "ANY", "isNullable": True},
    ]
    _, rows = q(
        eng,
        "SELECT COLUMN_NAME, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, "
        "NUMERIC_PRECISION, NUMERIC_SCALE, INTERVAL_TYPE, COLUMN_SIZE FROM "
        "INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'dfs.tmp' AND "
        "TABLE_NAME = 'bv' ORDER BY ORDINAL_POSITION",
    )
    assert rows == [
        ["k", "YES", "INTEGER", None, 32, 0, None, 32],
        ["nm", "YES", "CHARACTER VARYING", 25, None, None, None, 25],
        ["n_comment", "YES", "ANY", None, None, None, None, None],
        ["d", "NO", "DECIMAL", None, 2, 1, None, 2],
        ["s", "NO", "CHARACTER", 3, None, None, None, 3],
        ["c", "NO", "BIGINT", None, 64, 0, None, 64],
        ["u", "YES", "DECIMAL", None, 14, 3, None, 14],
    ]
    assert q(eng, "DESCRIBE dfs.tmp.bv 'n%'")[1] == [
        ["nm", "CHARACTER VARYING", "YES"],
        ["n_comment", "ANY", "YES"],
    ]
    _, rows = q(eng, "select * from INFORMATION_SCHEMA.VIEWS")
    assert rows == [["DRILL", "dfs.tmp", "bv", sql]]


def test_views_are_queried_joined_and_nested(eng):
    eng.execute(f"CREATE VIEW dfs.tmp.v2 (a, b) AS SELECT r_regionkey, r_name FROM {REGION}")
    assert q(eng, "select * from dfs.tmp.v2 where a > 2") == (
        ["a", "b"],
        [[3, "EUROPE"], [4, "MIDDLE EAST"]],
    )
    with pytest.raises(ValidationError, match="Column 'r_name' not found in any table"):
        eng.execute("select r_name from dfs.tmp.v2")
    eng.execute(f"CREATE VIEW dfs.tmp.v3 AS SELECT * FROM {REGION}")  # columns known at run
    _, rows = q(
        eng,
        "select v3.r_name, v2.a from dfs.tmp.v3 join dfs.tmp.v2 "
        "on v3.r_regionkey = v2.a where v2.a < 2 order by v2.a",
    )
    assert rows == [["AFRICA", 0], ["AMERICA", 1]]
    eng.execute("USE dfs.tmp")
    eng.execute("CREATE VIEW v4 AS SELECT a FROM v2 WHERE a = 1")  # written under dfs.tmp
    eng.execute("USE dfs.root")
    assert q(eng, "select * from dfs.tmp.v4") == (["a"], [[1]])
    assert q(eng, "SHOW TABLES IN dfs.tmp")[1] == [
        ["dfs.tmp", "v2"],
        ["dfs.tmp", "v3"],
        ["dfs.tmp", "v4"],
    ]


def test_view_messages(eng):
    make = "CREATE VIEW dfs.tmp.v1 AS SELECT 1 AS a FROM (VALUES(1))"
    eng.execute(make)
    with pytest.raises(
        ValidationError,
        match=r"A view with given name \[v1\] already exists "
        r"in schema \[dfs.tmp\]",
    ):
        eng.execute(make)
    assert q(eng, "CREATE VIEW IF NOT EXISTS dfs.tmp.v1 AS SELECT 2 AS b FROM (VALUES(1))")[1] == [
        [False, "A table or view with given name [v1] already exists in schema [dfs.tmp]"]
    ]
    assert q(eng, "CREATE OR REPLACE VIEW dfs.tmp.v1 AS SELECT 2 AS b FROM (VALUES(1))")[1] == [
        [True, "View 'v1' replaced successfully in 'dfs.tmp' schema"]
    ]
    assert q(eng, "select * from dfs.tmp.v1") == (["b"], [[2]])
    with pytest.raises(ValidationError, match=r"Schema \[dfs.root\] is immutable"):
        eng.execute("CREATE VIEW dfs.root.x AS SELECT 1 AS a FROM (VALUES(1))")
    with pytest.raises(ValidationError, match="different counts"):
        eng.execute(f"CREATE VIEW dfs.tmp.x (a, b) AS SELECT r_name FROM {REGION}")
    with pytest.raises(ValidationError, match=r"Duplicate column name \[a\]"):
        eng.execute("CREATE VIEW dfs.tmp.x AS SELECT 1 a, 2 a FROM (VALUES(1))")
    eng.execute(f"CREATE TABLE dfs.tmp.t AS SELECT r_name FROM {REGION}")
    with pytest.raises(ValidationError, match=r"A non-view table with given name \[t\]"):
        eng.execute("CREATE OR REPLACE VIEW dfs.tmp.t AS SELECT 1 AS a FROM (VALUES(1))")
    with pytest.raises(ValidationError, match=r"\[t\] is not a VIEW in schema \[dfs.tmp\]"):
        eng.execute("DROP VIEW dfs.tmp.t")
    assert q(eng, "DROP VIEW dfs.tmp.v1")[1] == [
        [True, "View [v1] deleted successfully from schema [dfs.tmp]."]
    ]
    assert q(eng, "DROP VIEW IF EXISTS dfs.tmp.v1")[1] == [
        [False, "View [v1] not found in schema [dfs.tmp]."]
    ]
    with pytest.raises(ValidationError, match=r"Unknown view \[v1\] in schema \[dfs.tmp\]."):
        eng.execute("DROP VIEW dfs.tmp.v1")
    assert q(eng, "SELECT COUNT(*) AS c FROM INFORMATION_SCHEMA.VIEWS")[1] == [[0]]


def test_ctas_column_list_summary_and_formats(eng, tmp_path):
    assert q(
        eng, f"CREATE TABLE dfs.tmp.`c7` (k, nm) AS SELECT r_regionkey, r_name FROM {REGION}"
    ) == (["Fragment", "Number of records written"], [["0_0", 5]])
    assert q(eng, "SELECT k, nm FROM dfs.tmp.`c7` WHERE k < 2") == (
        ["k", "nm"],
        [[0, "AFRICA"], [1, "AMERICA"]],
    )
    assert [p.name for p in (tmp_path / "c7").iterdir()] == ["0_0_0.parquet"]
    # the column list of SELECT * of a schema-free table is checked against its columns
    with pytest.raises(ValidationError, match="different counts"):
        eng.execute(f"CREATE TABLE dfs.tmp.x (a, b) AS SELECT * FROM {REGION}")
    eng.execute(f"CREATE TABLE dfs.tmp.c8 (a, b, c) AS SELECT * FROM {REGION}")
    assert q(eng, "SELECT a, b FROM dfs.tmp.c8 WHERE a = 4")[1] == [[4, "MIDDLE EAST"]]
    with pytest.raises(ValidationError, match=r"A table or view with given name \[c7\]"):
        eng.execute("CREATE TABLE dfs.tmp.c7 AS SELECT 1 AS a FROM (VALUES(1))")
    assert q(eng, "CREATE TABLE IF NOT EXISTS dfs.tmp.c7 AS SELECT 1 AS a FROM (VALUES(1))")[1] == [
        [False, "A table or view with given name [c7] already exists in schema [dfs.tmp]"]
    ]
    # csv is written with a header line, which Drill reads back as a row of `columns`
    eng.execute("ALTER SESSION SET `store.format` = 'csv'")
    eng.execute(
        f"CREATE TABLE dfs.tmp.c9 AS SELECT r_regionkey, r_name FROM {REGION} WHERE r_regionkey < 2"
    )
    assert q(eng, "SELECT * FROM dfs.tmp.c9")[1] == [
        [["r_regionkey", "r_name"]],
        [["0", "AFRICA"]],
        [["1", "AMERICA"]],
    ]
    eng.execute("ALTER SESSION SET `store.format` = 'psv'")
    eng.execute(f"CREATE TABLE dfs.tmp.c10 AS SELECT r_name FROM {REGION} WHERE r_regionkey = 4")
    assert [p.name for p in (tmp_path / "c10").iterdir()] == ["0_0_0.tbl"]
    assert q(eng, "SELECT * FROM dfs.tmp.c10")[1] == [[["r_name"]], [["MIDDLE EAST"]]]
    # a map in a text table is its JSON text, quoted with doubled quotes (Drill reads it back)
    eng.execute("ALTER SESSION SET `store.format` = 'csv'")
    eng.execute(
        "CREATE TABLE dfs.tmp.c11 AS SELECT cust, city FROM "
        "dfs.`breadth/own/json/orders_nested.json` WHERE cust = 'bob'"
    )
    assert q(eng, "SELECT * FROM dfs.tmp.c11")[1] == [
        [["cust", "city"]],
        [["bob", '{"name":"Rome","zip":"00100"}']],
    ]
    with pytest.raises(ValidationError, match=r"Schema \[dfs\] is immutable"):
        eng.execute("CREATE TABLE dfs.`x` AS SELECT 1 AS a FROM (VALUES(1))")


def test_temporary_tables_live_with_the_session(spark, shared, tmp_path):
    engine = SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path)})
    )
    engine.execute(
        f"CREATE TEMPORARY TABLE dfs.tmp.`t2` (x) AS SELECT r_name FROM {REGION} "
        f"WHERE r_regionkey > 2"
    )
    assert q(engine, "SELECT * FROM dfs.tmp.t2 ORDER BY x")[1] == [["EUROPE"], ["MIDDLE EAST"]]
    assert q(engine, "SHOW TABLES IN dfs.tmp")[1] == []  # Drill does not list them
    engine.execute(f"CREATE TEMPORARY TABLE t3 AS SELECT r_name FROM {REGION}")  # to dfs.tmp
    assert q(engine, "SELECT count(*) AS n FROM dfs.tmp.t3")[1] == [[5]]
    assert q(engine, "DROP TABLE dfs.tmp.t2")[1] == [[True, "Temporary table [t2] dropped"]]
    with pytest.raises(SqlError, match="t2"):
        engine.execute("SELECT * FROM dfs.tmp.t2")
    engine.close()
    assert list(tmp_path.iterdir()) == []  # the session's folder went with it


def test_drop_table_removes_only_tables(eng, tmp_path):
    eng.execute(f"CREATE TABLE dfs.tmp.c9 AS SELECT * FROM {REGION}")
    assert q(eng, "DROP TABLE dfs.tmp.`c9`")[1] == [[True, "Table [c9] dropped"]]
    assert not (tmp_path / "c9").exists()
    assert q(eng, "DROP TABLE IF EXISTS dfs.tmp.c9")[1] == [[False, "Table [c9] not found"]]
    with pytest.raises(ValidationError, match=r"Table \[c9\] not found"):
        eng.execute("DROP TABLE dfs.tmp.c9")
    (tmp_path / "mixed").mkdir()
    (tmp_path / "mixed" / "a.parquet").write_bytes(b"x")
    (tmp_path / "mixed" / "notes.md").write_text("keep me")
    with pytest.raises(ValidationError, match="different file formats"):
        eng.execute("DROP TABLE dfs.tmp.mixed")
    (tmp_path / "nested" / "sub").mkdir(parents=True)
    with pytest.raises(ValidationError):
        eng.execute("DROP TABLE dfs.tmp.nested")
    assert (tmp_path / "mixed" / "notes.md").exists() and (tmp_path / "nested").exists()
    eng.execute("CREATE VIEW dfs.tmp.v AS SELECT 1 AS a FROM (VALUES(1))")
    with pytest.raises(ValidationError, match=r"Table \[v\] not found"):
        eng.execute("DROP TABLE dfs.tmp.v")


def test_show_and_describe(eng):
    assert q(eng, "SHOW SCHEMAS LIKE 'dfs%'")[1] == [["dfs.default"], ["dfs.root"], ["dfs.tmp"]]
    assert q(eng, "SHOW TABLES IN sys LIKE 'op%'")[1] == [
        ["sys", "options_old"],
        ["sys", "options"],
    ]
    with pytest.raises(ValidationError, match="No default schema selected"):
        eng.execute("SHOW TABLES")
    cols, rows = q(eng, "SHOW FILES IN dfs.`breadth/tpch`")
    assert cols == [
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
    assert ["region.parquet", False, True, 617] in [r[:4] for r in rows]
    assert q(eng, f"DESCRIBE {REGION}")[1] == []
    assert q(eng, "DESCRIBE sys.drillbits")[1][:2] == [
        ["hostname", "CHARACTER VARYING", "NO"],
        ["user_port", "INTEGER", "YES"],
    ]
    with pytest.raises(ValidationError, match=r"Unknown table \[tmp\] in schema \[dfs.default\]"):
        eng.execute("DESCRIBE dfs.tmp")
    schema, props = q(eng, "DESCRIBE SCHEMA dfs.tmp")[1][0]
    assert schema == "dfs.tmp" and '"writable" : true' in props
    eng.execute("USE sys")
    assert q(eng, "SELECT count(*) AS n FROM version")[1] == [[1]]
