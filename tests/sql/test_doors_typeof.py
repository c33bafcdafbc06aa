"""typeof, sqltypeof, drilltypeof and modeof answer alike through both doors, drillspark.sql
(Drill SQL lowered to a plan) and spark.sql (the drill_* functions over the `dfs` catalog and a
`drill` DataFrame's temp view), and as real Drill 1.22 does: each expected row below is what
Drill answered for `SELECT typeof(x), sqltypeof(x), drilltypeof(x), modeof(x) FROM
dfs.data.`types.json` WHERE id = 1` over the same file."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlSession

RECORDS = [
    {
        "id": 1,
        "s": "x",
        "f": 0.5,
        "b": True,
        "m": {"k": 1, "s": "a"},
        "aa": [[1]],
        "arr": [1, 2],
        "sa": ["a"],
        "ma": [{"k": 1}],
        "e": {},
        "n": None,
        "nm": {"x": None},
    },
    {
        "id": 2,
        "s": None,
        "f": None,
        "b": False,
        "m": {"k": 2},
        "aa": [[2, 3], []],
        "arr": [],
        "sa": [],
        "ma": [],
        "e": {},
        "n": None,
        "nm": {"x": None},
    },
]

# expression (Drill SQL, valid in Spark SQL too) -> Drill 1.22's (typeof, sqltypeof,
# drilltypeof, modeof)
DRILL = {
    "id": ("BIGINT", "BIGINT", "BIGINT", "NULLABLE"),
    "s": ("VARCHAR", "CHARACTER VARYING", "VARCHAR", "NULLABLE"),
    "f": ("FLOAT8", "DOUBLE", "FLOAT8", "NULLABLE"),
    "b": ("BIT", "BOOLEAN", "BIT", "NULLABLE"),
    "m": ("MAP", "STRUCT", "MAP", "NOT NULL"),
    "aa": ("LIST", "ARRAY", "LIST", "ARRAY"),
    "arr": ("BIGINT", "BIGINT", "BIGINT", "ARRAY"),
    "sa": ("VARCHAR", "CHARACTER VARYING", "VARCHAR", "ARRAY"),
    "ma": ("MAP", "STRUCT", "MAP", "ARRAY"),
    "e": ("MAP", "STRUCT", "MAP", "NOT NULL"),
    "n": ("VARCHAR", "CHARACTER VARYING", "VARCHAR", "NULLABLE"),
    "nm": ("MAP", "STRUCT", "MAP", "NOT NULL"),
    "missing": ("VARCHAR", "CHARACTER VARYING", "VARCHAR", "NULLABLE"),
    "aa[0]": ("BIGINT", "BIGINT", "BIGINT", "ARRAY"),
    "aa[0][0]": ("BIGINT", "BIGINT", "BIGINT", "NULLABLE"),
    "ma[0]": ("MAP", "STRUCT", "MAP", "NOT NULL"),
    "arr[0]": ("BIGINT", "BIGINT", "BIGINT", "NULLABLE"),
    "1": ("INT", "INTEGER", "INT", "NOT NULL"),
    "'a'": ("VARCHAR", "CHARACTER VARYING", "VARCHAR", "NOT NULL"),
    "true": ("BIT", "BOOLEAN", "BIT", "NOT NULL"),
    "cast(null as int)": ("INT", "INTEGER", "INT", "NULLABLE"),
    "cast(1 as decimal(5,2))": ("VARDECIMAL", "DECIMAL(5, 2)", "VARDECIMAL", "NOT NULL"),
    "date '2024-01-01'": ("DATE", "DATE", "DATE", "NOT NULL"),
    "timestamp '2024-01-01 00:00:00'": ("TIMESTAMP", "TIMESTAMP", "TIMESTAMP", "NOT NULL"),
    "id + 1": ("BIGINT", "BIGINT", "BIGINT", "NULLABLE"),
    # members through the table alias (Drill's rule for map access); a missing member is
    # the reader's missing-column type
    "t.m.k": ("BIGINT", "BIGINT", "BIGINT", "NULLABLE"),
    "t.m.zz": ("VARCHAR", "CHARACTER VARYING", "VARCHAR", "NULLABLE"),
    "t.ma[0].k": ("BIGINT", "BIGINT", "BIGINT", "NULLABLE"),
    "cast(id as int)": ("INT", "INTEGER", "INT", "NULLABLE"),
}
FUNCTIONS = ("typeof", "sqltypeof", "drilltypeof", "modeof")


@pytest.fixture(scope="module")
def types_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("doors")
    path = folder / "types.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


def _select(expr: str, prefix: str) -> str:
    return ", ".join(f"{prefix}{fn}({expr}) {fn}" for fn in FUNCTIONS)


@pytest.mark.parametrize("expr", sorted(DRILL))
def test_drillspark_sql_answers_as_drill(spark, types_file, expr):
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(types_file.parent)}))
    row = engine.execute(f"SELECT {_select(expr, '')} FROM dfs.data.`types.json` t WHERE id = 1")[
        -1
    ].rows()[0]
    assert tuple(row[fn] for fn in FUNCTIONS) == DRILL[expr]


@pytest.mark.parametrize("expr", sorted(DRILL))
def test_spark_sql_through_the_dfs_catalog_answers_as_drill(spark, types_file, expr):
    row = spark.sql(
        f"SELECT {_select(expr, 'drill_')} FROM dfs.`{types_file}` t WHERE id = 1"
    ).first()
    assert tuple(row) == DRILL[expr]


@pytest.mark.parametrize("expr", sorted(DRILL))
def test_spark_sql_through_a_temp_view_answers_as_drill(spark, types_file, expr):
    spark.read.format("drill").load(str(types_file)).createOrReplaceTempView("doors_types")
    row = spark.sql(f"SELECT {_select(expr, 'drill_')} FROM doors_types t WHERE id = 1").first()
    assert tuple(row) == DRILL[expr]
