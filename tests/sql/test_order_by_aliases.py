"""ORDER BY expressions that read select-list aliases, as Drill 1.22 reads them (each answer
asked of Drill on 2026-12-07): the alias stands for its expression, ahead of an input column
of that name. The sort key was computed beside the select list, where the alias is no column
yet: read as a missing column, every key was NULL and the rows came in file order, so a
LIMIT kept the wrong ones, and over groups the alias of an aggregate was refused."""

from __future__ import annotations

import json

from drillspark.sql.output import columns_and_rows

YELP = "dfs.root.`yelp/yelp_business_small.ndjson`"
ROWS = [
    {"id": 1, "v": 10.5, "s": "a"},
    {"id": 2, "v": -3, "s": "b"},
    {"id": 3, "v": None, "s": "a"},
    {"id": 4, "v": 7, "s": "b"},
    {"id": 5, "v": 0, "s": "a"},
]


def rows(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])[1]


def test_an_expression_of_an_alias_sorts_by_the_aliased_value(data_engine, tmp_path):
    (tmp_path / "a.json").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    a = "dfs.tmp.`a.json`"
    # Drill: ids 1, 4, 5, 2, 3 (v 10.5, 7, 0, -3, NULL; NULLs last ascending)
    assert [r[0] for r in rows(data_engine, f"SELECT id, v x FROM {a} ORDER BY x * -1")] == [
        1,
        4,
        5,
        2,
        3,
    ]
    assert rows(data_engine, f"SELECT id, v x FROM {a} ORDER BY abs(x) DESC LIMIT 2") == [
        [3, None],
        [1, 10.5],
    ]
    # a star beside it, and an alias that is also an input column's name (the alias wins)
    assert [r[0] for r in rows(data_engine, f"SELECT *, v x FROM {a} ORDER BY x * -1")] == [
        1,
        4,
        5,
        2,
        3,
    ]
    got = rows(data_engine, f"SELECT id AS v, v AS id FROM {a} ORDER BY v * -1")
    assert [r[0] for r in got] == [5, 4, 3, 2, 1]
    # over groups: the alias of an aggregate (Drill: a 3, b 2)
    assert rows(data_engine, f"SELECT s, count(*) c FROM {a} GROUP BY s ORDER BY c * -1") == [
        ["a", 3],
        ["b", 2],
    ]


def test_real_records_limited_by_an_expression_of_an_alias(data_engine, shared):
    got = rows(
        data_engine,
        f"SELECT name, review_count rc FROM {YELP} ORDER BY rc * -1, name LIMIT 5",
    )
    with open(shared / "data" / "yelp" / "yelp_business_small.ndjson", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    records.sort(key=lambda r: (-r["review_count"], r["name"]))
    assert got == [[r["name"], r["review_count"]] for r in records[:5]]


def test_a_number_that_is_no_ordinal_is_a_constant_sort_key(data_engine):
    # found by the SQL fuzz test: ORDER BY 1e9991 (and 1.5) had failed int() in the lowering;
    # a constant sorts nothing (the ORDER BY of a set operation refuses it clearly)
    for key in ("1e9991", "1.5"):
        got = rows(data_engine, f"SELECT n FROM (VALUES(2),(1)) t(n) ORDER BY {key}")
        assert sorted(r[0] for r in got) == [1, 2]
