"""Temporary tables in a workspace other than dfs.tmp (#31): Drill's boot option
drill.exec.default_temporary_workspace, set in drillspark by the Spark setting
spark.drillspark.defaultTemporaryWorkspace (a SqlSession's `temporary_workspace`), names any
writable workspace of a `file` plugin, on S3 too. Asked of Drill 1.22 started with it set to
`mydata.t` (a writable workspace of a second local `file` plugin): CREATE TEMPORARY TABLE tt
writes there; `mydata.t.tt`, `USE mydata.t` then `tt`, `USE mydata` then `t.tt` read it; SHOW
TABLES and INFORMATION_SCHEMA do not list it; a second temporary table, a table or a view of a
temporary table's name is refused (`A table or view with given name [t2] already exists in
schema [mydata.t]`, `A non-view table with given name [t2] ...`), and a temporary table of a
table's name too; `CREATE TEMPORARY TABLE dfs.tmp.x` is refused naming [mydata.t], one in the
read-only `mydata.w` as immutable; DROP TABLE mydata.t.t2 and DROP TABLE tt answer `Temporary
table [..] dropped`, again `Table [tt] not found`. Drill 1.22 answers a bare `tt` with `Object
'tt' not found` unless the default schema is the temporary workspace (with dfs.tmp it finds it
whatever the default schema); drillspark finds it, as Drill's own rule says (docs/storage.md).
Real components: a local folder, and moto's S3 server."""

from __future__ import annotations

import pytest

from drillspark.options.boot import DEFAULT_TEMPORARY_WORKSPACE, TEMPORARY_WORKSPACE_CONF
from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession
from drillspark.sql.temporary import temporary_tables

ONE = "SELECT 1 a FROM (VALUES(1))"
BUCKET = "drill-temporary"


def rows(engine, sql: str) -> list[list]:
    return [list(r.values()) for r in engine.execute(sql)[-1].rows()]


def refused(engine, sql: str) -> str:
    with pytest.raises(SqlError) as e:
        engine.execute(sql)[-1].rows()
    return str(e.value)


@pytest.fixture
def local(spark, tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "w").mkdir()
    mydata = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {
            "t": {"location": str(tmp_path / "t"), "writable": True},
            "w": {"location": str(tmp_path / "w"), "writable": False},
        },
    }
    session = SqlSession(
        workspaces={"tmp": str(tmp_path / "dfs-tmp")},
        plugins={"mydata": mydata},
        temporary_workspace="mydata.t",
    )
    (tmp_path / "dfs-tmp").mkdir()
    engine = SqlEngine(spark, session)
    yield engine, tmp_path
    engine.close()


def test_a_local_file_plugins_workspace_holds_them_as_drill_names_them(local):
    engine, tmp_path = local
    assert rows(engine, f"CREATE TEMPORARY TABLE tt AS {ONE}") == [["0_0", 1]]
    (folder,) = [p for p in (tmp_path / "t").iterdir()]  # the session's folder, by its id
    assert folder.name == temporary_tables(engine.session).session_id
    assert rows(engine, "SELECT * FROM mydata.t.tt") == [[1]]
    assert rows(engine, "SELECT * FROM mydata.t.`tt`") == [[1]]
    assert rows(engine, "SELECT * FROM tt") == [[1]]  # Drill 1.22: not found (see above)
    engine.execute("USE mydata.t")
    assert rows(engine, "SELECT * FROM tt") == [[1]]
    assert rows(engine, "SHOW TABLES") == []
    assert (
        rows(
            engine,
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.`TABLES` "
            "WHERE TABLE_SCHEMA LIKE 'mydata%'",
        )
        == []
    )
    engine.execute("USE mydata")
    assert rows(engine, "SELECT * FROM t.tt") == [[1]]
    assert rows(engine, "CREATE TEMPORARY TABLE mydata.t.t2 AS SELECT 2 b FROM (VALUES(1))")
    assert rows(engine, "SELECT * FROM mydata.t.t2") == [[2]]
    taken = "A table or view with given name [t2] already exists in schema [mydata.t]"
    assert taken in refused(engine, f"CREATE TEMPORARY TABLE mydata.t.t2 AS {ONE}")
    assert taken in refused(engine, f"CREATE TABLE mydata.t.t2 AS {ONE}")
    assert "A non-view table with given name [t2] already exists in schema [mydata.t]" in (
        refused(engine, f"CREATE VIEW mydata.t.t2 AS {ONE}")
    )
    assert rows(engine, f"CREATE TABLE mydata.t.perm AS {ONE}") == [["0_0", 1]]
    assert "A table or view with given name [perm] already exists in schema [mydata.t]" in (
        refused(engine, f"CREATE TEMPORARY TABLE perm AS {ONE}")
    )
    assert (
        "Temporary tables are not allowed to be created / dropped outside of default "
        "temporary workspace [mydata.t]."
    ) in refused(engine, f"CREATE TEMPORARY TABLE dfs.tmp.x AS {ONE}")
    assert "Unable to create or drop objects. Schema [mydata.w] is immutable." in refused(
        engine, f"CREATE TEMPORARY TABLE mydata.w.z AS {ONE}"
    )
    assert rows(engine, f"CREATE TABLE dfs.tmp.y AS {ONE}") == [["0_0", 1]]  # a table: fine
    assert rows(engine, "DROP TABLE mydata.t.t2") == [[True, "Temporary table [t2] dropped"]]
    assert "t2" in refused(engine, "SELECT * FROM mydata.t.t2")
    engine.execute("USE dfs.tmp")
    assert rows(engine, "DROP TABLE tt") == [[True, "Temporary table [tt] dropped"]]
    assert "Table [tt] not found" in refused(engine, "DROP TABLE tt")
    assert rows(engine, f"CREATE TEMPORARY TABLE t3 AS {ONE}")
    engine.close()  # the session ends: its folder goes, the persistent table stays
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["perm"]


def test_a_temporary_workspace_that_cannot_hold_them_is_named(spark, tmp_path):
    for name, why in (("dfs.nosuch", "is not a workspace"), ("dfs.root", "is not writable")):
        engine = SqlEngine(spark, SqlSession(temporary_workspace=name))
        message = refused(engine, f"CREATE TEMPORARY TABLE tt AS {ONE}")
        assert f"Default temporary workspace [{name}]" in message and why in message, message


@pytest.fixture
def s3_engine(spark, s3):
    s3.client().create_bucket(Bucket=BUCKET)
    s3.put(BUCKET, "data/people.json", '{"id": 1, "name": "Ann"}\n{"id": 2, "name": "Bob"}\n')
    config = s3.plugin(
        BUCKET,
        {
            "data": {"location": "/data", "writable": False},
            "tmp": {"location": "/scratch", "writable": True},
        },
    )
    engines = []

    def make() -> SqlEngine:
        engine = SqlEngine(
            spark, SqlSession(plugins={"s3": dict(config)}, temporary_workspace="s3.tmp")
        )
        engines.append(engine)
        return engine

    yield make, config
    for engine in engines:
        engine.close()


def _objects(s3, prefix: str) -> list[str]:
    return [k for k in s3.keys(BUCKET, prefix) if not k.endswith("/")]


def test_an_s3_workspace_holds_a_sessions_temporary_tables_until_it_ends(s3_engine, s3):
    make, _config = s3_engine
    mine, other = make(), make()
    made = rows(mine, "CREATE TEMPORARY TABLE people AS SELECT id, name FROM s3.data.`people.json`")
    assert made == [["0_0", 2]]
    sid = temporary_tables(mine.session).session_id
    keys = _objects(s3, "scratch/")
    assert keys and all(k.startswith(f"scratch/{sid}/") for k in keys), keys
    assert any(k.startswith(f"scratch/{sid}/people/") for k in keys)
    assert rows(mine, "SELECT name FROM people ORDER BY id") == [["Ann"], ["Bob"]]
    assert rows(mine, "SELECT count(*) n FROM s3.tmp.people") == [[2]]
    # another session: not by its name, not by its path
    assert "people" in refused(other, "SELECT * FROM s3.tmp.people")
    assert "another session's temporary tables" in refused(
        other, f"SELECT * FROM s3.tmp.`{sid}/people`"
    )
    assert "outside of default temporary workspace [s3.tmp]" in refused(
        mine, f"CREATE TEMPORARY TABLE dfs.tmp.x AS {ONE}"
    )
    assert rows(mine, f"CREATE TEMPORARY TABLE two AS {ONE}")
    assert rows(mine, "DROP TABLE people") == [[True, "Temporary table [people] dropped"]]
    assert not any(k.startswith(f"scratch/{sid}/people/") for k in _objects(s3, "scratch/"))
    mine.close()
    assert _objects(s3, "scratch/") == []


def test_the_spark_setting_names_it_for_drillspark_sql(spark, s3_engine, s3):
    import drillspark

    _make, config = s3_engine
    spark.conf.set(TEMPORARY_WORKSPACE_CONF, "s3.tmp")
    try:
        drillspark.sql(
            f"CREATE TEMPORARY TABLE api_t AS {ONE}", spark=spark, storage={"s3": config}
        )
        assert [
            list(r.values()) for r in drillspark.sql("SELECT * FROM api_t", spark=spark).rows()
        ] == [[1]]
        assert any("/api_t/" in k for k in _objects(s3, "scratch/"))
        drillspark.sql("DROP TABLE api_t", spark=spark)
    finally:
        spark.conf.unset(TEMPORARY_WORKSPACE_CONF)
    assert not any("/api_t/" in k for k in _objects(s3, "scratch/"))


def test_the_server_shows_it_in_sys_boot(spark, tmp_path, s3_engine):
    from tests.server.helpers import Http

    from drillspark.server import DrillServer

    _make, config = s3_engine
    spark.conf.set(TEMPORARY_WORKSPACE_CONF, "s3.tmp")
    try:
        srv = DrillServer(spark, port=0, storage={"s3": config}, state_dir="").start()
    finally:
        spark.conf.unset(TEMPORARY_WORKSPACE_CONF)
    try:
        http = Http(srv.url, cookies=True)
        boot = http.query(
            f"SELECT string_val FROM sys.boot WHERE name = '{DEFAULT_TEMPORARY_WORKSPACE}'"
        )
        assert boot["rows"] == [{"string_val": '"s3.tmp"'}], boot
        made = http.query(f"CREATE TEMPORARY TABLE srv_t AS {ONE}")
        assert made["queryState"] == "COMPLETED", made
        assert len(http.query("SELECT * FROM s3.tmp.srv_t")["rows"]) == 1
    finally:
        srv.stop()
