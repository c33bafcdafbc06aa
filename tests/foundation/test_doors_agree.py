"""A Drill rule both doors apply answers alike through both, on the same input: drillspark.sql
(Drill SQL lowered to a plan the Python side translates) and Spark's own door (spark.sql over a
`drill` DataFrame, or the `drill` source's options). docs/architecture.md, "One owner per rule",
names each rule's owner; the rules here have a part on each side."""

from __future__ import annotations

import pytest

from drillspark.rules import json_options
from drillspark.sql import SqlEngine, SqlSession

# Drill 1.22 over a file `{"id": 1}` (query.sh, this test's question):
#   SELECT typeof(missing), sqltypeof(missing), modeof(missing) FROM dfs.`t.json`
#     -> VARCHAR | CHARACTER VARYING | NULLABLE
#   ALTER SESSION SET `store.json.enable_v2_reader` = false; the same SELECT
#     -> INT | INTEGER | NULLABLE
MISSING = {
    "v2": ("true", "varchar", ("VARCHAR", "CHARACTER VARYING", "NULLABLE")),
    "v1": ("false", "int", ("INT", "INTEGER", "NULLABLE")),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("doors")
    (d / "t.json").write_text('{"id": 1}\n')
    (d / "nan.json").write_text('{"a": NaN}\n')
    (d / "escape.json").write_text('{"a": "x\\qy"}\n')
    (d / "malformed.json").write_text('{"a": 1}\n{"a" 2}\n{"a": 3}\n')
    return d


@pytest.mark.parametrize("reader", sorted(MISSING))
def test_a_missing_column_has_the_readers_type_through_both_doors(spark, folder, reader):
    v2, conf, drill = MISSING[reader]
    select = "typeof(missing) t, sqltypeof(missing) s, modeof(missing) m"
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(folder)}))
    sql = engine.execute(
        f"ALTER SESSION SET `store.json.enable_v2_reader` = {v2};"
        f"SELECT {select} FROM dfs.data.`t.json`"
    )[-1].rows()[0]
    spark.read.format("drill").load(str(folder / "t.json")).createOrReplaceTempView("doors_t")
    spark.conf.set("spark.drillspark.missingColumns.type", conf)
    try:
        row = spark.sql(
            "SELECT drill_typeof(missing) t, drill_sqltypeof(missing) s, drill_modeof(missing) m"
            " FROM doors_t"
        ).first()
    finally:
        spark.conf.unset("spark.drillspark.missingColumns.type")
    assert (sql["t"], sql["s"], sql["m"]) == drill
    assert tuple(row) == drill


# Drill's spellings of a JSON option other than the `drill` source's own name (json_options.tsv)
ALIASES = {s: o.option for o in json_options() for s in o.spellings if s != o.option}
# (spelling, value, file, outcome): column `a` as text, or "error"; each spelling once with a
# value that reads and once with one that refuses, so an unknown option (refused) cannot pass
OUTCOMES = [
    ("allowNanInf", "true", "nan.json", ["nan"]),
    ("allowNanInf", "false", "nan.json", "error"),  # NaN is not JSON unless allowed
    ("allowEscapeAnyChar", "true", "escape.json", ["xqy"]),  # `\q` is `q` when allowed
    ("allowEscapeAnyChar", "false", "escape.json", "error"),
    ("skipMalformedJSONRecords", "true", "malformed.json", ["1", "3"]),  # the bad line skipped
    ("skipMalformedJSONRecords", "false", "malformed.json", "error"),
]


def test_every_alias_is_tried():
    assert set(ALIASES) == {spelling for spelling, *_ in OUTCOMES}


def _outcome(read):
    try:
        return [str(r[0]) for r in read()]
    except Exception:  # noqa: BLE001 - either door's refusal of the value
        return "error"


@pytest.mark.parametrize("spelling, value, name, want", OUTCOMES)
def test_a_drill_spelling_of_a_json_option_works_through_both_doors(
    spark, folder, spelling, value, name, want
):
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(folder)}))
    sql = _outcome(
        lambda: engine.execute(
            f"SELECT a FROM table(dfs.data.`{name}`(type => 'json', {spelling} => {value}))"
        )[-1].collect()
    )
    source = _outcome(
        lambda: (
            spark.read.format("drill").option(spelling, value).load(str(folder / name)).collect()
        )
    )
    assert sql == source == want
