"""drillspark.sql takes two spellings for one name exactly when Spark's resolver does
(`String.equalsIgnoreCase`; drillspark.names.fold, the extension's Names.fold): `ſ` (long s,
U+017F) is `s` and the Kelvin sign `K` (U+212A) is `k`, though `"ſ".lower()` is still `ſ`. The
`drill` source makes such keys one column, named by the first spelling seen (docs/scan.md), so
a query may name a column, alias, table alias, CTE or USING column in either spelling. Drill
1.22 agrees where Calcite compares (table aliases, below) and keeps `size` and `ſize` apart as
JSON keys (docs/drill-differences.md)."""

from __future__ import annotations

import json

import pytest

from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.errors import ValidationError
from drillspark.sql.output import columns_and_rows

LONG_S = "\u017f"  # ſ: upper case S, lower case itself
KELVIN = "\u212a"  # K: lower case k


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


@pytest.fixture
def eng(spark, tmp_path):
    _write(
        tmp_path / "sizes.json",
        [
            {f"{LONG_S}ize": 1, f"{KELVIN}ind": "a", "id": 1},
            {f"{LONG_S}ize": 2, f"{KELVIN}ind": "a", "id": 2},
            {f"{LONG_S}ize": 5, f"{KELVIN}ind": "b", "id": 3},
        ],
    )
    # both spellings of each key in one file: one column each, named as first seen
    _write(
        tmp_path / "mixed.json",
        [{"size": 1, f"{KELVIN}ind": "a"}, {f"{LONG_S}ize": 2, "kind": "b"}],
    )
    _write(
        tmp_path / "left.json",
        [{"sid": 1, "key": "x", "v": 10}, {"sid": 2, "key": "y", "v": 20}],
    )
    _write(
        tmp_path / "right.json",
        [
            {f"{LONG_S}id": 1, f"{KELVIN}ey": "x", "w": 100},
            {f"{LONG_S}id": 3, f"{KELVIN}ey": "z", "w": 300},
        ],
    )
    return SqlEngine(spark, SqlSession(workspaces={"tmp": str(tmp_path)}))


def run(eng, sql):
    return columns_and_rows(eng.execute(sql)[-1])


T = "dfs.tmp.`sizes.json`"
L = "dfs.tmp.`left.json`"
R = "dfs.tmp.`right.json`"


def test_spark_takes_the_spellings_for_one_name(spark, tmp_path, eng):
    resolver = spark._jsparkSession.sessionState().conf().resolver()
    assert resolver.apply("size", f"{LONG_S}ize") and resolver.apply("kind", f"{KELVIN}ind")
    assert f"{LONG_S}ize".lower() != "size"  # why str.lower() was the wrong rule
    df = spark.read.format("drill").load(str(tmp_path / "mixed.json"))
    assert df.columns == ["size", f"{KELVIN}ind"]
    assert [tuple(r) for r in df.collect()] == [(1, "a"), (2, "b")]
    # drillspark.sql reads the same file the same way, in any spelling
    assert run(eng, f"select {LONG_S}ize, KIND from dfs.tmp.`mixed.json`") == (
        [f"{LONG_S}ize", "KIND"],
        [[1, "a"], [2, "b"]],
    )
    assert run(eng, "select * from dfs.tmp.`mixed.json`")[0] == ["size", f"{KELVIN}ind"]


@pytest.mark.parametrize(
    "size, kind", [("size", "kind"), (f"{LONG_S}ize", f"{KELVIN}ind"), ("SIZE", "KIND")]
)
def test_select_and_filter_in_either_spelling(eng, size, kind):
    assert run(eng, f"select {size}, {kind} from {T} where {size} > 1 order by id") == (
        [size, kind],
        [[2, "a"], [5, "b"]],
    )


def test_group_by_in_either_spelling(eng):
    # Drill 1.22, same data: `select kind, sum(ſize) as total ... group by Kind` is a 3, b 5
    assert run(
        eng, f"select kind, sum({LONG_S}ize) as total from {T} group by {KELVIN}ind order by kind"
    ) == (["kind", "total"], [["a", 3], ["b", 5]])
    # GROUP BY a select-list alias spelt the other way (`ſort` is `sort`)
    assert run(
        eng,
        f"select kind as {LONG_S}ort, count(*) as n from {T} group by sort order by {LONG_S}ort",
    ) == ([f"{LONG_S}ort", "n"], [["a", 2], ["b", 1]])


@pytest.mark.parametrize("using", ["sid", f"{LONG_S}id", "SID"])
def test_join_using_in_either_spelling(eng, using):
    # the unqualified USING column is the joined value, whichever spelling names it
    assert run(eng, f"select {LONG_S}id, a.v, b.w from {L} a join {R} b using ({using})") == (
        [f"{LONG_S}id", "v", "w"],
        [[1, 10, 100]],
    )
    assert run(eng, f"select sid, b.w from {L} a left join {R} b using ({using}) order by SID") == (
        ["sid", "w"],
        [[1, 100], [2, None]],
    )
    assert run(eng, f"select key, b.w from {L} a join {R} b using ({KELVIN}ey)") == (
        ["key", "w"],
        [["x", 100]],
    )


def test_join_on_with_table_aliases_in_either_spelling(eng):
    # table alias `s`, referenced as `ſ`; columns on each side in the other spelling. Drill
    # 1.22 takes `ſ` for `s` too: `select s.v, b.w from left.json s join right.json b on
    # ſ.sid = b.ſid` (sid 1, 2 / ſid 1, 3) is v 10, w 100
    assert run(
        eng, f"select {LONG_S}.v, b.w from {L} s join {R} b on {LONG_S}.{LONG_S}id = B.sid"
    ) == (["v", "w"], [[10, 100]])
    assert run(eng, f"select a.v, b.w from {L} a join {R} b on a.{KELVIN}ey = b.key") == (
        ["v", "w"],
        [[10, 100]],
    )
    # `s` and `ſ` are one alias, so naming two tables so is a duplicate
    with pytest.raises(ValidationError, match="duplicate table alias"):
        run(eng, f"select 1 from {L} s join {R} {LONG_S} on s.sid = {LONG_S}.sid")


def test_aliases_and_ctes_in_either_spelling(eng):
    assert run(eng, f"select size as {LONG_S} from {T} order by s") == (
        [LONG_S],
        [[1], [2], [5]],
    )
    assert run(
        eng, f"select sq.s from (select size as {LONG_S} from {T}) {LONG_S}q order by SQ.S"
    ) == (["s"], [[1], [2], [5]])
    assert run(
        eng, f"with {LONG_S}izes as (select {LONG_S}ize from {T}) select size from sizes"
    ) == (["size"], [[1], [2], [5]])
    # two select items of one name: the second is renamed, as Drill renames `a, a` to a, a0
    assert run(eng, f"select size, {LONG_S}ize from {T} where id = 1") == (
        ["size", f"{LONG_S}ize0"],
        [[1, 1]],
    )


def test_schema_and_workspace_names_in_either_spelling(spark, tmp_path, eng):
    session = SqlSession(workspaces={"store": str(tmp_path)})
    store = SqlEngine(spark, session)
    assert run(store, f"select count(*) as n from dfs.{LONG_S}tore.`sizes.json`") == (
        ["n"],
        [[3]],
    )
    # USE names the workspace as it is configured (Drill shows schema names lower-cased)
    assert run(store, f"use DFS.{LONG_S}TORE")[1] == [
        [True, "Default schema changed to [dfs.store]"]
    ]
    assert run(store, "select count(*) as n from `sizes.json`") == (["n"], [[3]])
    assert run(store, f"use information_{LONG_S}chema")[1] == [
        [True, "Default schema changed to [information_schema]"]
    ]
