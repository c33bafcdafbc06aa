"""Provided schemas (option `schema`, `.drill.schema` file) with not null / default, and
Drill's implicit columns: filename, filepath, fqn, suffix, and dir0, dir1, ..."""

from __future__ import annotations

import json

import pytest
from pyspark.sql.types import DoubleType, IntegerType, LongType, StringType


def read(spark, path, **opts):
    return spark.read.format("drill").options(**opts).load(str(path))


def write_lines(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_provided_schema_option_wins_with_not_null_default(spark, tmp_path):
    p = write_lines(
        tmp_path / "p.json",
        [{"a": 1, "b": "x", "c": 1.5}, {"b": "y", "a": None}, {"a": "7", "extra": True}],
    )
    df = read(
        spark, p, schema="a INT NOT NULL DEFAULT '42', b VARCHAR, c DOUBLE, z BIGINT NOT NULL"
    )
    s = df.schema
    assert s.fieldNames() == ["a", "b", "c", "z", "extra"]  # provided first, discovered after
    assert s["a"].dataType == IntegerType() and not s["a"].nullable
    assert s["b"].dataType == StringType() and s["c"].dataType == DoubleType()
    assert s["z"].dataType == LongType()
    got = [tuple(r) for r in df.select("a", "b", "c", "z").collect()]
    assert got == [(1, "x", 1.5, 0), (42, "y", None, 0), (7, None, None, 0)]


def test_drill_schema_file_in_table_root(spark, tmp_path):
    root = tmp_path / "t"
    write_lines(root / "1.json", [{"id": 1, "v": 10}])
    write_lines(root / "2.json", [{"id": 2}])
    (root / ".drill.schema").write_text(
        json.dumps(
            {
                "table": "t",
                "schema": {
                    "columns": [
                        {"name": "id", "type": "BIGINT", "mode": "REQUIRED"},
                        {
                            "name": "v",
                            "type": "INT",
                            "mode": "REQUIRED",
                            "properties": {"drill.default": "-1"},
                        },
                        {
                            "name": "label",
                            "type": "VARCHAR",
                            "mode": "REQUIRED",
                            "properties": {"drill.default": "none"},
                        },
                    ]
                },
                "version": 1,
            }
        )
    )
    df = read(spark, root)
    assert df.schema["v"].dataType == IntegerType()
    assert sorted(tuple(r) for r in df.collect()) == [(1, 10, "none"), (2, -1, "none")]


def test_bad_provided_schema_is_a_clear_error(spark, tmp_path):
    p = write_lines(tmp_path / "p.json", [{"a": 1}])
    with pytest.raises(Exception, match="provided schema column 'a NOPE' cannot be parsed"):
        read(spark, p, schema="a NOPE").schema  # noqa: B018


def test_implicit_file_columns_only_when_selected(spark, tmp_path):
    p = write_lines(tmp_path / "dir" / "data.json", [{"a": 1}])
    df = read(spark, tmp_path / "dir")
    assert df.columns == ["a"]
    r = df.select("a", "filename", "filepath", "fqn", "suffix").first()
    assert tuple(r) == (1, "data.json", str(p.parent), str(p), "json")


def test_partition_dirs_after_data_columns_null_when_shallower(spark, tmp_path):
    root = tmp_path / "t"
    write_lines(root / "top.json", [{"x": 0}])
    write_lines(root / "2020" / "a.json", [{"x": 1}])
    write_lines(root / "2021" / "Q2" / "b.json", [{"x": 2}])
    df = read(spark, root)
    assert df.columns == ["x", "dir0", "dir1"]
    assert sorted(tuple(r) for r in df.collect()) == [
        (0, None, None),
        (1, "2020", None),
        (2, "2021", "Q2"),
    ]
    assert [r.x for r in df.filter("dir0 = '2021'").collect()] == [2]


def test_multilevel_partitions_drill_data(spark, shared):
    # drill.implicit.partition_dir0_dir1_eq / partition_dir_and_column
    root = shared / "data" / "drill-conformance" / "data" / "drill" / "multilevel" / "json"
    df = read(spark, root)
    assert df.columns[-2:] == ["dir0", "dir1"]
    assert df.filter("dir0 = 1994 AND dir1 = 'Q1'").count() == 10
    assert df.filter("o_custkey < 1000 AND dir0 = 1994 AND dir1 = 'Q1'").count() == 5
