"""The dfs catalog: Drill table names in plain Spark SQL, workspaces from confs, and refusal
of paths that leave a workspace root."""

from __future__ import annotations

import json
import os

import pytest

CATALOG = "drillspark.catalog.DfsCatalog"


def test_dfs_is_registered_by_configure(spark, tmp_path):
    assert spark.conf.get("spark.sql.catalog.dfs") == CATALOG
    p = tmp_path / "events.json"
    p.write_text(json.dumps({"id": 1, "m": {"k": "v"}}) + "\n")
    row = spark.sql(f"SELECT t.id, t.m.k FROM dfs.`{p}` t").first()
    assert tuple(row) == (1, "v")


def test_relative_path_resolves_against_the_driver_cwd(spark):
    # the JVM's working directory is the directory pytest started in (the repository root)
    here = os.getcwd()
    rel = "tests/scan/_cwd_probe.json"
    path = os.path.join(here, rel)
    with open(path, "w") as f:
        f.write('{"cwd": "yes"}\n')
    try:
        assert spark.sql(f"SELECT cwd FROM dfs.`{rel}`").first().cwd == "yes"
    finally:
        os.remove(path)


@pytest.fixture(scope="module")
def ws_catalog(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "sub").mkdir()
    (root / "sub" / "x.json").write_text('{"a": 1}\n{"a": 2}\n')
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.json").write_text('{"s": 1}\n')
    os.symlink(outside / "secret.json", root / "link.json")
    spark.conf.set("spark.sql.catalog.dfsws", CATALOG)
    spark.conf.set("spark.sql.catalog.dfsws.workspace.mine", str(root))
    spark.conf.set("spark.sql.catalog.dfsws.option.allTextMode", "true")
    return root, outside


def test_named_workspace_and_catalog_options(spark, ws_catalog):
    rows = spark.sql("SELECT a FROM dfsws.mine.`sub/x.json` ORDER BY a").collect()
    assert [r.a for r in rows] == ["1", "2"]  # option.allTextMode applies
    assert spark.sql("SELECT count(*) c FROM dfsws.mine.`sub/`").first().c == 2


@pytest.mark.parametrize(
    "table, why",
    [
        ("../outside/secret.json", "escapes the workspace root"),
        ("sub/../../secret.json", "escapes the workspace root"),
        ("link.json", "links to"),
    ],
)
def test_paths_escaping_a_workspace_are_refused(spark, ws_catalog, table, why):
    with pytest.raises(Exception) as e:
        spark.sql(f"SELECT * FROM dfsws.mine.`{table}`").collect()
    assert why in str(e.value) and "workspace 'mine'" in str(e.value)


def test_absolute_path_refused_in_a_named_workspace(spark, ws_catalog):
    _, outside = ws_catalog
    with pytest.raises(
        Exception, match="absolute paths outside the workspace root .* are not allowed"
    ):
        spark.sql(f"SELECT * FROM dfsws.mine.`{outside / 'secret.json'}`").collect()


def test_unknown_workspace_and_unsupported_format(spark, tmp_path):
    with pytest.raises(Exception, match="no workspace 'nope'"):
        spark.sql("SELECT * FROM dfs.nope.`x.json`").collect()
    # text is read through Spark's door too (drill-text, docs/formats.md): Drill's columns[]
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,2\n")
    assert [list(r.columns) for r in spark.sql(f"SELECT * FROM dfs.`{p}`").collect()] == [
        ["a", "b"],
        ["1", "2"],
    ]
    import pyarrow as pa
    import pyarrow.parquet as pq

    q = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1]}), q)
    # parquet through Spark's door too (#33; tests/scan/test_catalog_parquet.py)
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM dfs.`{q}`").collect()] == [(1,)]
    # a format the catalog does not know is refused naming the table
    r = tmp_path / "x.weird"
    r.write_text("?")
    with pytest.raises(Exception, match="format 'weird' is not readable yet"):
        spark.sql(f"SELECT * FROM dfs.`{r}`").collect()


def test_tmp_workspace_reads_below_java_io_tmpdir(spark, tmp_path):
    import tempfile

    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.json").write_text('{"w": "tmp"}\n')
    rel = os.path.relpath(tmp_path / "t", tempfile.gettempdir())
    assert not rel.startswith("..")
    assert spark.sql(f"SELECT w FROM dfs.tmp.`{rel}/`").first().w == "tmp"
