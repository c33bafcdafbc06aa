"""Storage engines: roots, workspaces, classpath, formats, text `columns`, mock rows, sinks,
atomic writes."""

from __future__ import annotations

import json
import os

import pytest

from drillspark.spark.storage import StorageError, StorageRegistry, make_engine
from drillspark.spark.storage.writers import write_atomic

LOGICAL = "data/drill-conformance/logical/drill-0.1.0"


def test_classpath_root_and_concatenated_json(spark, shared):
    root = shared / LOGICAL
    eng = make_engine("cp", {"type": "classpath", "root": str(root)})
    df = eng.read(spark, {"path": "/join/employees.json", "type": "JSON"})
    rows = sorted((r.lastName, r.deptId) for r in df.collect())
    # employees.json holds 6 pretty-printed objects; John has no deptId
    assert rows == [
        ("John", None),
        ("Jones", 33),
        ("Rafferty", 31),
        ("Robinson", 34),
        ("Smith", 34),
        ("Steinberg", 33),
    ]
    assert dict(df.dtypes)["deptId"] == "bigint"


def test_classpath_without_root_searches_the_classpath(spark, shared, tmp_path):
    eng = make_engine("cp", {"type": "classpath"}, classpath=[str(tmp_path), str(shared / LOGICAL)])
    assert eng.read(spark, {"path": "/departments.json"}).count() == 4


def test_paths_cannot_escape_the_root(spark, shared, tmp_path):
    eng = make_engine("fs", {"type": "file", "root": str(shared / LOGICAL / "join")})
    # the extension's workspace rule (docs/security.md) decides, naming the engine
    with pytest.raises(StorageError, match="refused in workspace 'fs': the path escapes"):
        eng.read(spark, {"path": "../employees.json", "type": "json"})
    os.symlink(shared / LOGICAL / "employees.json", tmp_path / "link.json")
    eng = make_engine("fs", {"type": "fs", "root": f"file://{tmp_path}"})
    with pytest.raises(StorageError, match="refused in workspace 'fs': .*link.json links to"):
        eng.read(spark, {"path": "/link.json"})


def test_workspaces(spark, shared):
    eng = make_engine(
        "dfs",
        {
            "type": "file",
            "connection": "file:///",
            "workspaces": {"logical": {"location": str(shared / LOGICAL)}},
        },
    )
    assert eng.read(spark, {"workspace": "logical", "path": "join/departments.json"}).count() == 4
    with pytest.raises(StorageError, match="no workspace 'nope'"):
        eng.read(spark, {"workspace": "nope", "path": "x.json"})


def test_text_without_header_gives_columns_array(spark, tmp_path):
    (tmp_path / "a.csv").write_text('1,"x,y",z\n2,"say ""hi""",\n')
    (tmp_path / "b.tsv").write_text("a\tb\n")
    eng = make_engine("fs", {"type": "file", "root": str(tmp_path)})
    rows = [r.columns for r in eng.read(spark, {"path": "/a.csv"}).collect()]
    assert rows == [["1", "x,y", "z"], ["2", 'say "hi"', ""]]
    assert [r.columns for r in eng.read(spark, {"path": "/b.tsv"}).collect()] == [["a", "b"]]


def test_text_with_header_names_columns(spark, tmp_path):
    (tmp_path / "h.psv").write_text("id|name\n1|ann\n2|bob\n")
    eng = make_engine(
        "fs",
        {
            "type": "file",
            "root": str(tmp_path),
            "formats": {"psv": {"type": "psv", "extractHeader": True}},
        },
    )
    df = eng.read(spark, {"path": "/h.psv"})
    assert df.columns == ["id", "name"]
    assert [tuple(r) for r in df.collect()] == [("1", "ann"), ("2", "bob")]


def test_parquet_missing_columns_are_filled(spark, tmp_path):
    spark.createDataFrame([(1, "a")], "id bigint, s string").write.parquet(str(tmp_path / "t/1"))
    spark.createDataFrame([(2,)], "id bigint").write.parquet(str(tmp_path / "t/2"))
    eng = make_engine("p", {"type": "parquet", "root": str(tmp_path)})
    df = eng.read(spark, {"path": "/t", "columns": ["id", "s", "nothere"]})
    got = sorted((r.id, r.s, r.nothere) for r in df.collect())
    assert got == [(1, "a", None), (2, None, None)]
    assert dict(df.dtypes)["nothere"] == "int"  # Drill's classic nullable INT


def test_mock_rows_are_predictable(spark):
    eng = make_engine("mock", {"type": "mock", "enabled": True})
    df = eng.read(
        spark,
        {
            "entries": [
                {
                    "records": 3,
                    "types": [
                        {"name": "n", "type": "INT", "mode": "REQUIRED"},
                        {"name": "s", "type": "VARCHAR", "mode": "REQUIRED"},
                        {"name": "r", "type": "BIGINT", "mode": "REPEATED"},
                    ],
                }
            ]
        },
    )
    assert [tuple(r) for r in df.collect()] == [
        (0, "s_0", [0, 1]),
        (1, "s_1", [1, 2]),
        (2, "s_2", [2, 3]),
    ]


def test_registry_overrides_and_errors(tmp_path):
    reg = StorageRegistry(
        {"cp": {"type": "classpath"}}, {"cp": {"type": "classpath", "root": str(tmp_path)}}
    )
    assert reg.get("cp").roots == [str(tmp_path)]
    assert reg.get("--SCREEN--").sink
    with pytest.raises(StorageError, match="unknown storage engine 'x'.*configured: cp"):
        reg.get("x", "operator @1 (scan): ")
    with pytest.raises(StorageError, match="unknown type 'hbase'"):
        make_engine("h", {"type": "hbase"})


def test_atomic_write_reports_rows_and_files(spark, tmp_path):
    df = spark.createDataFrame([(1, None), (2, "b")], "a bigint, b string").coalesce(1)
    report = write_atomic(df, str(tmp_path / "out"), "json")
    assert report.rows == 2 and len(report.files) == 1
    with open(report.files[0]) as f:
        lines = [json.loads(x) for x in f]
    assert lines == [{"a": 1}, {"a": 2, "b": "b"}]  # null fields skipped, as Drill's writer
    assert sorted(os.listdir(tmp_path)) == ["out"]  # no temporary left behind


def test_failed_write_leaves_nothing(spark, tmp_path):
    from pyspark.sql import functions as F

    df = spark.range(3).select(F.raise_error(F.lit("boom")).alias("x"))
    with pytest.raises(Exception, match="boom"):
        write_atomic(df, str(tmp_path / "out"), "parquet")
    assert os.listdir(tmp_path) == []


def test_json_without_the_drill_source_is_a_clear_error(spark, tmp_path, monkeypatch):
    from drillspark.spark.storage import readers

    # the probe is real: it tells a registered source from an unknown one
    assert readers._has_source(spark, "drill")
    assert not readers._has_source(spark, "no_such_source_drillspark")
    monkeypatch.setattr(readers, "_has_source", lambda s, name: False)
    (tmp_path / "lines.json").write_text('{"a": 1}\n')
    with pytest.raises(
        readers.ReadError,
        match=r"drillspark jar is not on the classpath.*"
        r"drillspark.session\(\)",
    ):
        readers.read_json(spark, [str(tmp_path)])


def test_csv_store_keeps_rows_that_are_all_null(spark, tmp_path):
    df = spark.createDataFrame([(None,), (None,)], "x string").coalesce(1)
    report = write_atomic(df, str(tmp_path / "n"), "csv")
    assert report.rows == 2
    with open(report.files[0]) as f:
        assert len(f.read().splitlines()) == 3  # the header and two rows
    back = spark.read.option("header", "true").csv(str(tmp_path / "n"))
    assert [r.x for r in back.collect()] == [None, None]
    # with more columns a NULL stays an empty field
    two = spark.createDataFrame([(None, "b")], "x string, y string").coalesce(1)
    report = write_atomic(two, str(tmp_path / "t"), "csv")
    with open(report.files[0]) as f:
        assert f.read().splitlines() == ["x,y", ",b"]
    assert report.rows == 1
    # nothing to write: no rows, and no wait for a count that never comes
    empty = spark.range(0).selectExpr("CAST(id AS STRING) AS x")
    assert write_atomic(empty, str(tmp_path / "e"), "csv").rows == 0


def test_directory_format_ignores_hidden_directories(spark, tmp_path):
    (tmp_path / "d" / ".hidden").mkdir(parents=True)
    (tmp_path / "d" / "_tmp").mkdir()
    (tmp_path / "d" / ".hidden" / "x.json").write_text('{"a": 1}\n')
    (tmp_path / "d" / "_tmp" / "y.json").write_text('{"a": 1}\n')
    eng = make_engine("fs", {"type": "file", "root": str(tmp_path)})
    with pytest.raises(StorageError, match="cannot tell the format"):
        eng.read(spark, {"path": "/d"})
    (tmp_path / "d" / "sub").mkdir()
    (tmp_path / "d" / "sub" / "z.csv").write_text("1,2\n")
    assert [r.columns for r in eng.read(spark, {"path": "/d"}).collect()] == [["1", "2"]]


def test_parquet_column_names_with_backticks(spark, tmp_path):
    spark.createDataFrame([(1,)], "`a``b` bigint").write.parquet(str(tmp_path / "q"))
    eng = make_engine("p", {"type": "parquet", "root": str(tmp_path)})
    df = eng.read(spark, {"path": "/q", "columns": ["a`b"]})
    assert df.columns == ["a`b"] and df.collect()[0][0] == 1


def test_json_format_options_reach_the_reader(run_plan, tmp_path):
    (tmp_path / "n.json").write_text('{"a": 5.2, "b": NaN}\n{"a": 6, "b": 1}\n')
    storage = {"fs": {"type": "file", "root": str(tmp_path)}}

    def scan(fmt):
        return run_plan(
            [
                {
                    "@id": 1,
                    "op": "scan",
                    "storageengine": "fs",
                    "selection": {"path": "/n.json", "format": fmt},
                }
            ],
            storage,
        )

    # all-text mode keeps each token's text ("6", not "6.0"); NaN is accepted by default
    assert scan({"type": "json", "allTextMode": True}).rows() == [
        {"a": "5.2", "b": "NaN"},
        {"a": "6", "b": "1"},
    ]
    assert scan({"type": "json"}).df.dtypes == [("a", "double"), ("b", "double")]
    with pytest.raises(Exception, match=r"operator @1 \(scan\).*n.json.*NaN") as err:
        scan({"type": "json", "nanInf": False}).rows()
    assert "An error occurred while calling" not in str(err.value)  # no py4j preamble
    with pytest.raises(Exception, match=r"unknown option 'allTextMod' for format type 'json'"):
        scan({"type": "json", "allTextMod": True})


def test_read_numbers_as_double_and_skip_malformed(run_plan, tmp_path):
    (tmp_path / "m.json").write_text('{"a": 1}\n{"a": oops}\n{"a": 3}\n')
    storage = {
        "fs": {
            "type": "file",
            "root": str(tmp_path),
            "formats": {"json": {"type": "json", "readNumbersAsDouble": True}},
        }
    }
    result = run_plan(
        [
            {
                "@id": 1,
                "op": "scan",
                "storageengine": "fs",
                "selection": {
                    "path": "/m.json",
                    "format": {"type": "json", "skipMalformedJSONRecords": True},
                },
            }
        ],
        storage,
    )
    # the engine's formats.json config and the scan's own format options both apply
    assert result.df.dtypes == [("a", "double")]
    assert result.rows() == [{"a": 1.0}, {"a": 3.0}]
