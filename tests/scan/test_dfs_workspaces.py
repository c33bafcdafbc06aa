"""The dfs catalog's workspaces: confinement of every listed file (symlinks met through globs
and directories), the workspace format, read options on catalog tables, missing tables,
paths with spaces and non-local roots, the `default` workspace, duplicate paths."""

from __future__ import annotations

import json
import os

import pytest

CATALOG = "drillspark.catalog.DfsCatalog"


@pytest.fixture(scope="module")
def dfsw(spark, tmp_path_factory):
    """Catalog `dfsw`: workspace `ws` (json) and `cs` (same root, format csv)."""
    root = tmp_path_factory.mktemp("wsroot")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.json").write_text('{"secret": "leaked"}\n')
    (root / "sub").mkdir()
    (root / "sub" / "s.json").write_text('{"secret": "fine"}\n')
    (root / "clean").mkdir()
    (root / "clean" / "c.json").write_text('{"c": 1}\n{"c": 2}\n')
    os.symlink(outside, root / "link")  # a folder outside
    os.symlink(outside / "secret.json", root / "sub" / "leak.json")  # a file outside
    os.symlink(root / "clean" / "c.json", root / "inside.json")  # stays inside: fine
    (root / "with space").mkdir()
    (root / "with space" / "a b.json").write_text('{"sp": "ok"}\n')
    spark.conf.set("spark.sql.catalog.dfsw", CATALOG)
    spark.conf.set("spark.sql.catalog.dfsw.workspace.ws", str(root))
    spark.conf.set("spark.sql.catalog.dfsw.workspace.cs", str(root))
    spark.conf.set("spark.sql.catalog.dfsw.workspace.cs.format", "csv")
    spark.conf.set("spark.sql.catalog.dfsw.workspace.spaced", str(root / "with space"))
    spark.conf.set("spark.sql.catalog.dfsw.workspace.spaceduri", (root / "with space").as_uri())
    # a file system Hadoop does not know: errors name the path a table name resolved to
    spark.conf.set("spark.sql.catalog.dfsw.workspace.far", "nofs://host/base")
    spark.conf.set("spark.sql.catalog.dfsw.workspace.farabs", "nofs://host/base")
    spark.conf.set("spark.sql.catalog.dfsw.workspace.farabs.allowAbsolute", "true")
    return root, outside


def _error(spark, sql: str) -> str:
    with pytest.raises(Exception) as e:
        spark.sql(sql).collect()
    return str(e.value)


# 1. confinement applies to every listed file, not only to the literal path


def test_a_glob_through_a_symlinked_folder_is_refused(spark, dfsw):
    msg = _error(spark, "SELECT * FROM dfsw.ws.`lin?/secret.json`")
    assert "secret.json" in msg and "outside the workspace root" in msg
    assert "workspace 'ws'" in msg and "leaked" not in msg


def test_a_directory_holding_a_symlink_outside_is_refused(spark, dfsw):
    msg = _error(spark, "SELECT * FROM dfsw.ws.`sub/`")
    assert "leak.json" in msg and "outside the workspace root" in msg


def test_files_and_symlinks_inside_the_root_are_read(spark, dfsw):
    assert spark.sql("SELECT secret FROM dfsw.ws.`sub/s.json`").first().secret == "fine"
    assert spark.sql("SELECT count(*) n FROM dfsw.ws.`clean`").first().n == 2
    assert spark.sql("SELECT sum(c) s FROM dfsw.ws.`inside.json`").first().s == 3


# 2. the workspace format applies to directories; compression suffixes are not formats


def test_workspace_format_applies_to_directories(spark, dfsw):
    root, _ = dfsw
    (root / "plain").mkdir(exist_ok=True)
    (root / "plain" / "data").write_text("x,y\n")
    # a folder of files without a known extension: the workspace's format (csv) reads them
    rows = spark.sql("SELECT * FROM dfsw.cs.`plain`").collect()
    assert [list(r.columns) for r in rows] == [["x", "y"]]
    # a file's own extension wins over the workspace default, in a folder too (as in Drill:
    # a folder takes the format of its first data file)
    assert spark.sql("SELECT count(*) n FROM dfsw.cs.`clean/c.json`").first().n == 2
    assert spark.sql("SELECT count(*) n FROM dfsw.cs.`clean`").first().n == 2


@pytest.mark.parametrize("suffix", ["zst", "zstd"])
def test_zstd_suffixes_are_json_in_the_catalog(spark, tmp_path, suffix):
    import zstandard

    p = tmp_path / f"z.json.{suffix}"
    p.write_bytes(zstandard.ZstdCompressor().compress(b'{"z": 5}\n{"z": 6}\n'))
    assert spark.sql(f"SELECT sum(z) s FROM dfs.`{p}`").first().s == 11


# 3. read options on a catalog table are refused, never silently ignored


def test_read_options_on_a_catalog_table_are_refused(spark, dfsw):
    reader = spark.read.option("allTextMode", "true")
    with pytest.raises(Exception) as e:
        reader.table("dfsw.ws.`clean/c.json`").schema  # noqa: B018  (refused when analysed, before any scan)
    msg = str(e.value)
    assert "allTextMode" in msg and "spark.sql.catalog.dfsw.option." in msg
    # without options the table reads as usual
    assert spark.read.table("dfsw.ws.`clean/c.json`").schema.simpleString() == "struct<c:bigint>"


# 4. a missing table is a missing table: tableExists is false, queries name the table


def test_missing_tables(spark, dfsw, tmp_path):
    missing = tmp_path / "nope.json"
    assert not spark.catalog.tableExists(f"dfs.`{missing}`")
    assert not spark.catalog.tableExists("dfsw.ws.`nothing/here.json`")
    assert not spark.catalog.tableExists("dfsw.ws.`no*.json`")
    assert spark.catalog.tableExists("dfsw.ws.`clean/c.json`")
    msg = _error(spark, f"SELECT * FROM dfs.`{missing}`")
    assert "TABLE_OR_VIEW_NOT_FOUND" in msg and str(missing) in msg
    with pytest.raises(Exception) as e:
        spark.read.table(f"dfs.`{missing}`")
    assert str(missing) in str(e.value)
    # an unknown workspace is a configuration error, not a missing table
    with pytest.raises(Exception, match="define one with spark.sql.catalog.dfsw.workspace.nows="):
        spark.catalog.tableExists("dfsw.nows.`x.json`")


# 5. names with spaces; absolute paths and URIs in non-local workspaces


def test_paths_with_spaces(spark, dfsw, tmp_path):
    root, _ = dfsw
    assert spark.sql("SELECT sp FROM dfsw.ws.`with space/a b.json`").first().sp == "ok"
    assert spark.sql("SELECT sp FROM dfsw.spaced.`a b.json`").first().sp == "ok"
    assert spark.sql("SELECT sp FROM dfsw.spaceduri.`a b.json`").first().sp == "ok"
    assert spark.sql(f"SELECT sp FROM dfs.`{root / 'with space' / 'a b.json'}`").first().sp == "ok"


def test_non_local_workspace_roots(spark, dfsw):
    assert "nofs://host/base/a b.json" in _error(spark, "SELECT * FROM dfsw.far.`a b.json`")
    # an allowed absolute path is a path of the workspace's file system, still inside the root
    assert "nofs://host/base/s/x.json" in _error(
        spark, "SELECT * FROM dfsw.farabs.`/base/s/x.json`"
    )
    assert "escapes the workspace root" in _error(spark, "SELECT * FROM dfsw.farabs.`/abs/x.json`")
    assert "absolute paths are not allowed" in _error(spark, "SELECT * FROM dfsw.far.`/abs/x.json`")
    assert "escapes the workspace root" in _error(spark, "SELECT * FROM dfsw.far.`a/../../x.json`")
    assert "another file system" in _error(spark, "SELECT * FROM dfsw.far.`file:/etc/passwd`")


# 8. `default` names the default workspace (the conf `root` is its root, not workspace root's)


def test_default_workspace_by_name(spark, dfsw, tmp_path):
    root, _ = dfsw
    spark.conf.set("spark.sql.catalog.dfsd", CATALOG)
    spark.conf.set("spark.sql.catalog.dfsd.workspace.default", str(root / "clean"))
    spark.conf.set("spark.sql.catalog.dfsd.workspace.root", str(root / "sub"))
    assert spark.sql("SELECT count(*) n FROM dfsd.`c.json`").first().n == 2
    assert spark.sql("SELECT count(*) n FROM dfsd.default.`c.json`").first().n == 2
    # workspace.root configures the workspace named root, not the default one
    assert spark.sql("SELECT secret FROM dfsd.root.`s.json`").first().secret == "fine"
    assert spark.sql("SELECT count(*) n FROM dfsd.`c.json`").first().n == 2
    # the older spelling `root` and workspace.default may not disagree
    spark.conf.set("spark.sql.catalog.dfsd2", CATALOG)
    spark.conf.set("spark.sql.catalog.dfsd2.root", str(root / "clean"))
    spark.conf.set("spark.sql.catalog.dfsd2.workspace.default", str(root / "sub"))
    assert "keep one" in _error(spark, "SELECT * FROM dfsd2.`s.json`")


# 6. duplicate and overlapping paths behave as Spark's own file sources do


def test_duplicate_paths_follow_spark(spark, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    f = d / "x.json"
    f.write_text("".join(json.dumps({"a": i}) + "\n" for i in range(2)))
    for paths in ([str(f), str(f)], [str(d), str(f)], [str(d), str(d)]):
        drill = spark.read.format("drill").load(paths).count()
        assert drill == spark.read.json(paths).count(), paths


def test_a_symlink_loop_in_a_folder_is_refused(spark, tmp_path):
    d = tmp_path / "loop"
    d.mkdir()
    (d / "a.json").write_text('{"a": 1}\n')
    os.symlink(d, d / "self")
    with pytest.raises(Exception) as e:
        spark.read.format("drill").load(str(d)).count()
    assert "self" in str(e.value) and "loop" in str(e.value)
