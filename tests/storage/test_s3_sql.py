"""`file` plugins on an S3-compatible server (moto's, started by the `s3` fixture): Drill SQL
over ``s3.root.`logs/` `` through the SQL engine, every format, implicit columns, SHOW FILES,
SHOW SCHEMAS, CTAS into a writable workspace, a join with local files; answers checked against
what was put into the bucket (docs/storage.md, "file plugins on object stores")."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

BUCKET = "drill-logs"


@pytest.fixture(scope="module")
def bucket(s3):
    client = s3.client()
    client.create_bucket(Bucket=BUCKET)
    for day in (1, 2):
        rows = [{"day": day, "user": f"u{i}", "bytes": 100 * day + i} for i in range(3)]
        s3.put(BUCKET, f"logs/2024/d{day}/events.json", "".join(json.dumps(r) + "\n" for r in rows))
    s3.put(BUCKET, "csv/people.csvh", "id,name\n1,Ann\n2,Bob\n")
    s3.put(BUCKET, "csv/plain.csv", "1,Ann\n2,Bob\n")
    s3.put(BUCKET, "csv/tabs.tsv", "1\tAnn\n")
    s3.put(BUCKET, "secret/hidden.json", '{"x": 1}\n')
    s3.put(BUCKET, "data/ok.json", '{"x": 1}\n')
    return BUCKET


@pytest.fixture
def engine(spark, s3, bucket, tmp_path):
    config = s3.plugin(
        bucket,
        {
            "root": {"location": "/", "writable": False},
            "data": {"location": "/data", "writable": False},
            "out": {"location": "/out", "writable": True},
        },
    )
    session = SqlSession(workspaces={"local": str(tmp_path)}, plugins={"s3": config})
    return SqlEngine(spark, session)


def rows(engine, sql: str) -> list[dict]:
    return [dict(r) for r in engine.execute(sql)[-1].rows()]


def test_a_json_folder_on_s3(engine):
    got = rows(engine, "SELECT `day`, `user`, bytes FROM s3.root.`logs/` ORDER BY bytes")
    assert [(r["day"], r["user"], r["bytes"]) for r in got] == [
        (1, "u0", 100),
        (1, "u1", 101),
        (1, "u2", 102),
        (2, "u0", 200),
        (2, "u1", 201),
        (2, "u2", 202),
    ]


def test_implicit_columns_of_s3_files(engine):
    got = rows(
        engine,
        "SELECT dir0, dir1, filename, fqn, filepath, suffix, bytes FROM s3.root.`logs/` "
        "WHERE bytes IN (100, 200) ORDER BY bytes",
    )
    assert [(r["dir0"], r["dir1"], r["filename"], r["suffix"]) for r in got] == [
        ("2024", "d1", "events.json", "json"),
        ("2024", "d2", "events.json", "json"),
    ]
    assert got[0]["fqn"].endswith("/logs/2024/d1/events.json")
    assert got[0]["filepath"].endswith("/logs/2024/d1")


def test_a_workspace_is_a_key_prefix(engine):
    assert rows(engine, "SELECT x FROM s3.data.`ok.json`") == [{"x": 1}]
    assert rows(engine, "SELECT x FROM s3.`data/ok.json`") == [{"x": 1}]


def test_csv_with_and_without_a_header(engine):
    got = rows(engine, "SELECT id, name FROM s3.root.`csv/people.csvh` ORDER BY id")
    assert got == [{"id": "1", "name": "Ann"}, {"id": "2", "name": "Bob"}]
    got = rows(engine, "SELECT columns[1] AS name FROM s3.root.`csv/plain.csv` ORDER BY 1")
    assert got == [{"name": "Ann"}, {"name": "Bob"}]
    got = rows(engine, "SELECT columns[1] AS name FROM s3.root.`csv/tabs.tsv`")
    assert got == [{"name": "Ann"}]


def test_show_schemas_and_information_schema_list_the_workspaces(engine):
    shown = [r["SCHEMA_NAME"] for r in rows(engine, "SHOW SCHEMAS")]
    assert {"s3.root", "s3.data", "s3.out", "s3.default"} <= set(shown)
    got = rows(
        engine,
        "SELECT SCHEMA_NAME, TYPE, IS_MUTABLE FROM INFORMATION_SCHEMA.SCHEMATA "
        "WHERE SCHEMA_NAME LIKE 's3.%' ORDER BY SCHEMA_NAME",
    )
    assert [(r["SCHEMA_NAME"], r["TYPE"], r["IS_MUTABLE"]) for r in got] == [
        ("s3.data", "file", "NO"),
        ("s3.default", "file", "NO"),
        ("s3.out", "file", "YES"),
        ("s3.root", "file", "NO"),
    ]


def test_show_files(engine):
    got = rows(engine, "SHOW FILES IN s3.root.`csv`")
    assert [(r["name"], r["isFile"], r["length"]) for r in got] == [
        ("people.csvh", True, 20),
        ("plain.csv", True, 12),
        ("tabs.tsv", True, 6),
    ]
    top = {r["name"]: r["isDirectory"] for r in rows(engine, "SHOW FILES IN s3.root")}
    assert top["logs"] is True and top["csv"] is True
    engine.execute("USE s3.data")
    assert [r["name"] for r in rows(engine, "SHOW FILES")] == ["ok.json"]


def test_ctas_into_a_writable_workspace_and_read_back(engine, s3, bucket):
    for fmt in ("json", "parquet", "csv"):
        engine.execute(f"ALTER SESSION SET `store.format` = '{fmt}'")
        result = rows(
            engine,
            f"CREATE TABLE s3.out.`by_day_{fmt}` AS SELECT `day`, count(*) AS n "
            "FROM s3.root.`logs/` GROUP BY `day`",
        )
        assert result[0]["Number of records written"] == 2
        keys = s3.keys(bucket, f"out/by_day_{fmt}/")
        assert keys and not any("/." in k for k in keys), keys
        assert keys[-1].endswith(f"0_0_0.{fmt}"), keys  # Drill's file names
        if fmt == "csv":  # Drill writes a header; `.csv` reads it as a record (Drill does too)
            back = rows(engine, f"SELECT columns FROM s3.out.`by_day_{fmt}`")
            assert sorted(r["columns"] for r in back) == [["1", "3"], ["2", "3"], ["day", "n"]]
        else:
            back = rows(engine, f"SELECT * FROM s3.out.`by_day_{fmt}` ORDER BY 1")
            assert [[str(v) for v in r.values()] for r in back] == [["1", "3"], ["2", "3"]]
    with pytest.raises(SqlError, match="already exists"):
        engine.execute("CREATE TABLE s3.out.`by_day_json` AS SELECT 1 AS a FROM (VALUES (1))")


def test_ctas_into_a_read_only_workspace_is_refused(engine, s3, bucket):
    with pytest.raises(SqlError, match="immutable|not writable|read-only|mutable"):
        engine.execute("CREATE TABLE s3.root.`nope` AS SELECT 1 AS a FROM (VALUES (1))")
    assert s3.keys(bucket, "nope") == []


def test_parquet_written_locally_read_from_s3(engine, spark, s3, bucket, tmp_path):
    folder = tmp_path / "p"
    spark.createDataFrame([(1, "a"), (2, "b")], "id int, v string").coalesce(1).write.parquet(
        str(folder)
    )
    (part,) = [p for p in folder.iterdir() if p.suffix == ".parquet"]
    s3.put(bucket, "pq/t/0_0_0.parquet", part.read_bytes())
    got = rows(engine, "SELECT id, v, filename FROM s3.root.`pq/t` ORDER BY id")
    assert got == [
        {"id": 1, "v": "a", "filename": "0_0_0.parquet"},
        {"id": 2, "v": "b", "filename": "0_0_0.parquet"},
    ]


def test_a_join_of_s3_json_with_a_local_parquet_file(engine, spark, tmp_path):
    spark.createDataFrame([("u0", "Ann"), ("u1", "Bob")], "user string, name string").coalesce(
        1
    ).write.parquet(str(tmp_path / "users"))
    got = rows(
        engine,
        "SELECT u.name, sum(e.bytes) AS total FROM s3.root.`logs/` e "
        "JOIN local.`users` u ON e.`user` = u.`user` GROUP BY u.name ORDER BY u.name",
    )
    assert got == [{"name": "Ann", "total": 300}, {"name": "Bob", "total": 302}]


def test_another_local_file_plugin_is_a_schema_root_too(spark, tmp_path):
    """A `file` plugin on this machine's disk beside dfs (`mydata`): its workspaces are schemas
    and the local workspace rule holds (symlinks and `..` alike)."""
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "a.json").write_text('{"x": 1}\n{"x": 2}\n')
    (tmp_path / "outside.json").write_text('{"x": "secret"}\n')
    (tmp_path / "w" / "link.json").symlink_to(tmp_path / "outside.json")
    config = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {"w": {"location": str(tmp_path / "w")}},
    }
    engine = SqlEngine(spark, SqlSession(plugins={"mydata": config}))
    assert rows(engine, "SELECT sum(x) AS s FROM mydata.w.`a.json`") == [{"s": 3}]
    for name in ("../outside.json", "link.json"):
        with pytest.raises(SqlError, match="refused in workspace 'mydata.w'"):
            engine.execute(f"SELECT x FROM mydata.w.`{name}`")
    # as Drill 1.22 answers with the same plugin (its --plugins file, this folder layout):
    # SHOW SCHEMAS lists mydata.default and mydata.w after cp.default; the default workspace is
    # the root, read-only; USE names the plugin; CTAS into a read-only workspace is refused so
    shown = [r["SCHEMA_NAME"] for r in rows(engine, "SHOW SCHEMAS")]
    assert shown[shown.index("cp.default") + 1 :][:2] == ["mydata.default", "mydata.w"]
    got = rows(
        engine,
        "SELECT SCHEMA_NAME, TYPE, IS_MUTABLE FROM INFORMATION_SCHEMA.SCHEMATA "
        "WHERE SCHEMA_NAME LIKE 'mydata%'",
    )
    assert [list(r.values()) for r in got] == [
        ["mydata.default", "file", "NO"],
        ["mydata.w", "file", "NO"],
    ]
    whole = str(tmp_path / "w" / "a.json").lstrip("/")
    assert rows(engine, f"SELECT sum(x) AS s FROM mydata.`{whole}`") == [{"s": 3}]
    assert rows(engine, "USE mydata")[0]["summary"] == "Default schema changed to [mydata]"
    with pytest.raises(
        SqlError, match=r"Unable to create or drop objects. Schema \[mydata.w\] is immutable."
    ):
        engine.execute("CREATE TABLE mydata.w.t AS SELECT 1 AS a FROM (VALUES(1))")


def test_a_plan_scans_and_stores_on_s3(spark, s3, bucket):
    """A logical plan's `storage` takes the same plugin JSON: a scan by workspace and path, a
    store into a writable workspace (drillspark.run)."""
    import drillspark

    config = s3.plugin(
        bucket, {"logs": {"location": "/logs"}, "w": {"location": "/planned", "writable": True}}
    )
    ops = [
        {
            "@id": 1,
            "op": "scan",
            "storageengine": "s3",
            "selection": {"workspace": "logs", "path": "2024/d2/events.json"},
        },
        {
            "@id": 2,
            "op": "store",
            "input": 1,
            "storageEngine": "s3",
            "target": {"workspace": "w", "path": "copy", "format": "json"},
        },
    ]
    plan = {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "tests"}},
        "storage": {"s3": config},
        "query": ops,
    }
    drillspark.run(plan, spark=spark).rows()
    assert s3.keys(bucket, "planned/copy/") == ["planned/copy/0_0_0.json"]
    body = s3.client().get_object(Bucket=bucket, Key="planned/copy/0_0_0.json")["Body"].read()
    assert sorted(json.loads(line)["bytes"] for line in body.decode().splitlines()) == [
        200,
        201,
        202,
    ]
    ops[0]["selection"] = {"workspace": "logs", "path": "../csv/plain.csv"}
    with pytest.raises(Exception, match="refused in workspace 's3.logs'"):
        drillspark.run(
            {
                **plan,
                "query": [
                    ops[0],
                    {"@id": 9, "op": "store", "input": 1, "storageEngine": "--SCREEN--"},
                ],
            },
            spark=spark,
        ).rows()


def test_a_same_length_rewrite_is_seen_by_its_etag(engine, s3, bucket):
    """The schema cache keys an S3 object by its etag as well (S3's second-resolution
    modification time and the length alone would not tell these two apart)."""
    s3.put(bucket, "cache/x.json", '{"a": 1}\n')
    assert rows(engine, "SELECT * FROM s3.root.`cache/x.json`") == [{"a": 1}]
    s3.put(bucket, "cache/x.json", '{"b": 2}\n')
    assert rows(engine, "SELECT * FROM s3.root.`cache/x.json`") == [{"b": 2}]


def test_drop_table_on_s3(engine, s3, bucket):
    engine.execute("ALTER SESSION SET `store.format` = 'json'")
    engine.execute("CREATE TABLE s3.out.`gone` AS SELECT 1 AS a FROM (VALUES (1))")
    assert s3.keys(bucket, "out/gone/")
    assert rows(engine, "DROP TABLE s3.out.`gone`")[0]["summary"] == "Table [gone] dropped"
    assert s3.keys(bucket, "out/gone/") == []
    assert rows(engine, "DROP TABLE IF EXISTS s3.out.`gone`")[0]["ok"] is False
    with pytest.raises(SqlError, match="not found"):
        engine.execute("DROP TABLE s3.out.`gone`")
    with pytest.raises(SqlError, match="refused in workspace 's3.out'"):
        engine.execute("DROP TABLE s3.out.`../logs`")
    assert s3.keys(bucket, "logs/")  # (views on s3: tests/storage/test_s3_views.py)
