"""Entry point x attack: every door that turns a table name into a file refuses the names that
would leave a workspace, with an error naming the workspace, through the extension's one rule
(`drill_workspace_path`, the `dfs` catalog's). docs/security.md states the model.

Doors: drillspark.sql (SqlEngine with a configured workspace), CTAS, the CLI's `sql --workspace`,
the Spark `dfs` catalog (spark.sql), a plan's file engine (scan and store), and a plan run with
`workspaces` (CLI `run --workspace`) whose own engine declares `connection: file:///`."""

from __future__ import annotations

import json
import os

import pytest

from drillspark.cli.main import build_parser, main
from drillspark.cli.sql import make_engine
from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.errors import SqlError

SECRET = "leaked-secret"


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """data/ (the workspace), outside/ (next to it), tmp/ (a second workspace)."""
    base = tmp_path_factory.mktemp("attack")
    data, outside, tmp = base / "data", base / "outside", base / "tmp"
    for d in (data, outside, tmp, data / "sub", data / "dirlink_parent"):
        d.mkdir()
    (outside / "secret.json").write_text(json.dumps({"s": SECRET}) + "\n")
    (data / "ok.json").write_text('{"a": 1}\n')
    (data / "sub" / "in.json").write_text('{"a": 2}\n')
    os.symlink(outside / "secret.json", data / "link.json")  # a file link out
    os.symlink(outside, data / "dirlink_parent" / "out")  # a folder link out
    os.symlink(data / "ok.json", data / "sub" / "inside_link.json")  # stays inside: fine
    os.symlink(outside, tmp / "escape")  # CTAS through a link
    return base


# attack -> table name in workspace `data` (the `{base}` placeholder is the temp folder)
ATTACKS = {
    "dotdot": "../outside/secret.json",
    "dotdot_deep": "sub/../../outside/secret.json",
    "absolute": "{base}/outside/secret.json",
    "file_uri": "file://{base}/outside/secret.json",
    "other_scheme": "hdfs://host/outside/secret.json",
    "symlink_file": "link.json",
    "symlink_in_folder": "dirlink_parent",
    "symlink_folder_glob": "dirlink_parent/*/secret.json",
    "fullwidth_dots": "\uff0e\uff0e/outside/secret.json",
    "division_slash": "..\u2215outside\u2215secret.json",
    "one_dot_leader": "\u2024\u2024/outside/secret.json",
    "undecodable_bytes": "\ufffd\ufffd/outside/secret.json",
    "control_char": "ok.json\u0000",
}


def _name(attack: str, base) -> str:
    return ATTACKS[attack].replace("{base}", str(base))


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _assert_refused(message: str, workspace: str = "data") -> None:
    assert f"is refused in workspace '{workspace}'" in message, message
    assert SECRET not in message


# ---------------------------------------------------------------- drillspark.sql


@pytest.fixture
def engine(spark, layout):
    return SqlEngine(
        spark, SqlSession(workspaces={"data": str(layout / "data"), "tmp": str(layout / "tmp")})
    )


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_drillspark_sql_refuses(engine, layout, attack):
    with pytest.raises(SqlError) as e:
        engine.execute(f"SELECT * FROM dfs.data.{_quoted(_name(attack, layout))}")
    _assert_refused(str(e.value))


def test_drillspark_sql_reads_inside(engine):
    got = engine.execute("SELECT a FROM dfs.data.`sub/../sub/in.json`")[-1].rows()
    assert got == [{"a": 2}]
    assert engine.execute("SELECT a FROM dfs.data.`sub/inside_link.json`")[-1].rows() == [{"a": 1}]
    assert engine.execute("SELECT a FROM dfs.data.`ok.json`")[-1].rows() == [{"a": 1}]


def test_tmp_and_use_are_confined_too(engine, layout):
    with pytest.raises(SqlError) as e:
        engine.execute("SELECT * FROM dfs.tmp.`../outside/secret.json`")
    _assert_refused(str(e.value), "tmp")
    engine.execute("USE dfs.data")
    with pytest.raises(SqlError) as e:
        engine.execute("SELECT * FROM `../outside/secret.json`")
    _assert_refused(str(e.value))


def test_root_is_confined_once_workspaces_are_configured(engine, layout):
    # a server exposes only what its operator configured: root is the working directory
    with pytest.raises(SqlError) as e:
        engine.execute(f"SELECT * FROM dfs.`{layout}/outside/secret.json`")
    _assert_refused(str(e.value), "root")


def test_allow_access_outside_workspace_opens_a_workspace(spark, layout):
    session = SqlSession(
        workspaces={"data": {"location": str(layout / "data"), "allowAccessOutsideWorkspace": True}}
    )
    got = (
        SqlEngine(spark, session)
        .execute("SELECT s FROM dfs.data.`../outside/secret.json`")[-1]
        .rows()
    )
    assert got == [{"s": SECRET}]


def test_unconfigured_root_reaches_the_file_system_as_drills_root(spark, layout):
    # no workspace configured (local use, the conformance judge): relative names resolve in
    # the working directory and absolute ones are taken as they are (Drill's root is `/`)
    got = (
        SqlEngine(spark, SqlSession())
        .execute(f"SELECT s FROM dfs.`{layout}/outside/secret.json`")[-1]
        .rows()
    )
    assert got == [{"s": SECRET}]


# ---------------------------------------------------------------- CTAS


@pytest.mark.parametrize(
    "target", ["../outside/t", "escape/t", "/etc/drillspark_t", "\uff0e\uff0e/outside/t"]
)
def test_ctas_refuses_targets_outside_tmp(engine, layout, target):
    with pytest.raises(SqlError) as e:
        engine.execute(f"CREATE TABLE dfs.tmp.{_quoted(target)} AS SELECT 1 a FROM (VALUES(1))")
    _assert_refused(str(e.value), "tmp")
    assert sorted(os.listdir(layout / "outside")) == ["secret.json"]


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE VIEW dfs.tmp.`../outside/v` AS SELECT 1 a FROM (VALUES(1))",
        "CREATE OR REPLACE VIEW dfs.tmp.`escape/v` AS SELECT 1 a FROM (VALUES(1))",
        "DROP VIEW dfs.tmp.`../outside/secret`",
        "DROP TABLE dfs.tmp.`../outside`",
        "DROP TABLE IF EXISTS dfs.tmp.`escape`",
    ],
)
def test_views_and_drop_refuse_targets_outside_tmp(engine, layout, statement):
    # a view file and DROP's target are named by the same rule as a CTAS target
    with pytest.raises(SqlError) as e:
        engine.execute(statement)
    _assert_refused(str(e.value), "tmp")
    assert sorted(os.listdir(layout / "outside")) == ["secret.json"]


def test_ctas_inside_tmp_writes(engine, layout):
    engine.execute("CREATE TABLE dfs.tmp.`t1` AS SELECT 1 a FROM (VALUES(1))")
    assert engine.execute("SELECT a FROM dfs.tmp.`t1`")[-1].rows() == [{"a": 1}]


# ---------------------------------------------------------------- CLI `sql --workspace`


@pytest.mark.parametrize("attack", ["dotdot", "absolute", "symlink_file", "fullwidth_dots"])
def test_cli_sql_workspace_refuses(spark, layout, attack):
    args = build_parser().parse_args(
        [
            "sql",
            "--workspace",
            f"data={layout / 'data'}",
            f"SELECT * FROM dfs.data.{_quoted(_name(attack, layout))}",
        ]
    )
    with pytest.raises(SqlError) as e:
        make_engine(args).execute(args.query)
    _assert_refused(str(e.value))


# ---------------------------------------------------------------- spark.sql via the dfs catalog


@pytest.fixture(scope="module")
def catalog(spark, layout):
    spark.conf.set("spark.sql.catalog.secdfs", "drillspark.catalog.DfsCatalog")
    spark.conf.set("spark.sql.catalog.secdfs.workspace.data", str(layout / "data"))
    return "secdfs"


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_spark_dfs_catalog_refuses(spark, catalog, layout, attack):
    with pytest.raises(Exception) as e:
        spark.sql(f"SELECT * FROM {catalog}.data.{_quoted(_name(attack, layout))}").collect()
    _assert_refused(str(e.value))


def test_spark_dfs_catalog_root_means_what_drillspark_sql_means(
    spark, layout, tmp_path, monkeypatch
):
    # `root` (unconfigured) is the working directory, names may leave it: as drillspark.sql's
    spark.conf.set("spark.sql.catalog.rootdfs", "drillspark.catalog.DfsCatalog")
    got = spark.sql(f"SELECT s FROM rootdfs.root.`{layout}/outside/secret.json`").first()
    assert got.s == SECRET


# ---------------------------------------------------------------- plans: scan and store


def _plan(engine_config: dict, selection: dict, store: dict | None = None) -> dict:
    ops = [{"@id": 1, "op": "scan", "storageengine": "fs", "selection": selection}]
    if store is not None:
        ops.append({"@id": 2, "op": "store", "input": 1, "storageengine": "fs", "target": store})
    else:
        ops.append(
            {"@id": 2, "op": "store", "input": 1, "target": None, "storageengine": "--SCREEN--"}
        )
    return {
        "head": {
            "type": "APACHE_DRILL_LOGICAL",
            "version": 1,
            "generator": {"type": "test", "info": "attacks"},
        },
        "storage": {"fs": engine_config},
        "query": ops,
    }


@pytest.mark.parametrize(
    "attack",
    [
        "dotdot",
        "dotdot_deep",
        "symlink_file",
        "symlink_in_folder",
        "fullwidth_dots",
        "division_slash",
    ],
)
def test_plan_scan_refuses(spark, layout, attack):
    import drillspark

    plan = _plan(
        {"type": "file", "connection": f"file://{layout / 'data'}"},
        {"path": _name(attack, layout), "format": "json"},
    )
    with pytest.raises(Exception) as e:
        drillspark.run(plan, spark=spark).df.collect()
    _assert_refused(str(e.value), "fs")


def test_plan_store_refuses_a_target_outside(spark, layout):
    import drillspark

    plan = _plan(
        {"type": "file", "connection": f"file://{layout / 'data'}"},
        {"path": "ok.json", "format": "json"},
        {"path": "../outside/t"},
    )
    with pytest.raises(Exception) as e:
        drillspark.run(plan, spark=spark)
    _assert_refused(str(e.value), "fs")
    assert sorted(os.listdir(layout / "outside")) == ["secret.json"]


def test_plan_with_its_own_root_engine_is_confined_by_the_runs_workspaces(spark, layout):
    import drillspark

    plan = _plan(
        {"type": "file", "connection": "file:///"},
        {"path": f"{layout}/outside/secret.json", "format": "json"},
    )
    with pytest.raises(Exception) as e:
        drillspark.run(plan, spark=spark, workspaces={"data": str(layout / "data")}).df.collect()
    _assert_refused(str(e.value))
    # the same engine reading inside the run's workspace is fine
    plan = _plan(
        {"type": "file", "connection": "file:///"},
        {"path": f"{layout}/data/ok.json", "format": "json"},
    )
    got = drillspark.run(plan, spark=spark, workspaces={"data": str(layout / "data")})
    assert [r.a for r in got.df.collect()] == [1]


def test_cli_run_workspace_confines_the_plan(spark, layout, tmp_path, capsys):
    plan = _plan(
        {"type": "file", "connection": "file:///"},
        {"path": f"{layout}/outside/secret.json", "format": "json"},
    )
    path = tmp_path / "p.json"
    path.write_text(json.dumps(plan))
    code = main(["run", str(path), "--workspace", f"data={layout / 'data'}"])
    err = capsys.readouterr().err
    assert code != 0
    _assert_refused(err)


# ---------------------------------------------------------------- swapped after planning
# The check at planning (the name, the listing) is made again where each file is opened, on the
# executors: a file (or a folder on its path) swapped for a symlink that leads out between
# `df = ...` and `df.collect()` is refused there, never read. The planned column `s` is the
# secret's too, so a read that went through would return the secret.


@pytest.fixture
def swap(tmp_path):
    data, outside = tmp_path / "data", tmp_path / "outside"
    (data / "dir").mkdir(parents=True)
    (outside / "dir").mkdir(parents=True)
    (data / "mine.json").write_text('{"s": "mine"}\n')
    (data / "dir" / "t.json").write_text('{"s": "mine"}\n')
    (outside / "secret.json").write_text(json.dumps({"s": SECRET}) + "\n")
    (outside / "dir" / "t.json").write_text(json.dumps({"s": SECRET}) + "\n")

    def file_to_link() -> None:
        os.remove(data / "mine.json")
        os.symlink(outside / "secret.json", data / "mine.json")

    def folder_to_link() -> None:
        os.rename(data / "dir", data / "dir.old")
        os.symlink(outside / "dir", data / "dir")

    return data, {"file": ("mine.json", file_to_link), "folder": ("dir", folder_to_link)}


@pytest.mark.parametrize("what", ["file", "folder"])
def test_spark_dfs_catalog_refuses_a_file_swapped_for_a_link_before_collect(spark, swap, what):
    data, cases = swap
    table, do_swap = cases[what]
    catalog = f"swap_{what}"  # a catalog reads its confs once: one per test
    spark.conf.set(f"spark.sql.catalog.{catalog}", "drillspark.catalog.DfsCatalog")
    spark.conf.set(f"spark.sql.catalog.{catalog}.workspace.data", str(data))
    df = spark.sql(f"SELECT s FROM {catalog}.data.`{table}`")  # analysed: listed, discovered
    do_swap()
    with pytest.raises(Exception) as e:
        df.collect()
    _assert_refused(str(e.value))
    assert "symlinks may not lead out of a workspace" in str(e.value)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_drillspark_sql_refuses_a_file_swapped_for_a_link_before_collect(spark, swap, what):
    data, cases = swap
    table, do_swap = cases[what]
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(data)}))
    result = engine.execute(f"SELECT s FROM dfs.data.`{table}`")[-1]  # translated: listed
    do_swap()
    with pytest.raises(Exception) as e:
        result.rows()
    _assert_refused(str(e.value))


def test_a_swap_inside_the_workspace_is_read(spark, swap):
    # the check is confinement, not immutability: a link that stays inside reads its target
    data, _ = swap
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(data)}))
    result = engine.execute("SELECT s FROM dfs.data.`mine.json`")[-1]
    os.remove(data / "mine.json")
    os.symlink(data / "dir" / "t.json", data / "mine.json")
    assert result.rows() == [{"s": "mine"}]
