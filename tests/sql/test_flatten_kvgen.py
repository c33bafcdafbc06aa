"""FLATTEN / KVGEN in Drill SQL where Drill 1.22 allows more than "flatten in a subquery":
aggregates of flattened values, an index into a flattened column, and the places Drill refuses
FLATTEN (GROUP BY, COUNT, DISTINCT). Expected values are what real Drill 1.22 answered for the
same queries over ../shared/data/breadth."""

from __future__ import annotations

import pytest

from drillspark.sql import SqlError
from drillspark.sql.output import columns_and_rows

ORD = "dfs.`breadth/own/json/orders_nested.json`"
MX = "dfs.`breadth/own/json/matrix.json`"
WN = "dfs.`breadth/drilltest/lateraljoin/with_nulls.json`"


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_aggregates_of_flattened_values(data_engine):
    assert q(data_engine, f"SELECT SUM(FLATTEN(sales)) AS s FROM {WN}") == (["s"], [[2377]])
    cols, rows = q(
        data_engine,
        f"SELECT key, MAX(FLATTEN(sales)) AS mx, MIN(FLATTEN(sales)) AS mn FROM {WN} GROUP BY key",
    )
    assert cols == ["key", "mx", "mn"]
    assert sorted(rows) == [["bb", 400, 100], ["dd", 222, 111]]
    assert q(data_engine, f"SELECT AVG(FLATTEN(FLATTEN(m))) AS a FROM {MX}") == (["a"], [[4.0]])
    assert q(data_engine, f"SELECT SUM(FLATTEN(t.m[0])) FROM {MX} t") == (["EXPR$0"], [[7]])
    assert q(data_engine, f"SELECT MAX(FLATTEN(t.orders)['amount']) AS mx FROM {ORD} t") == (
        ["mx"],
        [[99.99]],
    )


def test_an_index_into_a_flattened_column(data_engine):
    assert q(data_engine, f"SELECT FLATTEN(m)[1] AS x FROM {MX}") == (
        ["x"],
        [[2], [None], [None], [6]],
    )
    assert q(data_engine, f"SELECT id, FLATTEN(t.m)[0] + 1 AS x FROM {MX} t") == (
        ["id", "x"],
        [[1, 2], [1, 4], [2, 5], [2, 6]],
    )
    assert q(data_engine, f"SELECT FLATTEN(t.orders)['oid'] AS oid FROM {ORD} t") == (
        ["oid"],
        [[1], [2], [3], [4], [5], [6]],
    )
    assert q(data_engine, f"SELECT FLATTEN(KVGEN(scores))['key'] AS k FROM {ORD}")[1] == [
        ["q1"],
        ["q2"],
        ["q1"],
        ["q1"],
        ["q2"],
        ["q3"],
        ["q2"],
    ]


@pytest.mark.parametrize(
    "sql, message",
    [
        (f"SELECT COUNT(FLATTEN(tags)) AS c FROM {ORD}", "Flatten function in aggregate functions"),
        (
            f"SELECT cust, COUNT(FLATTEN(tags)) AS c FROM {ORD} GROUP BY cust",
            "Flatten function in aggregate functions",
        ),
        (
            f"SELECT COUNT(DISTINCT FLATTEN(tags)) AS c FROM {ORD}",
            "Flatten function in aggregate functions",
        ),
        (
            f"SELECT cust FROM {ORD} GROUP BY cust HAVING COUNT(FLATTEN(tags)) > 0",
            "Flatten function in aggregate functions",
        ),
        (
            f"SELECT FLATTEN(tags) AS tag, COUNT(*) AS c FROM {ORD} GROUP BY FLATTEN(tags)",
            "Flatten function is not supported in Group By",
        ),
        (
            f"SELECT DISTINCT FLATTEN(tags) AS tag FROM {ORD}",
            "Flatten function is not supported in Distinct",
        ),
    ],
)
def test_where_drill_refuses_flatten(data_engine, sql, message):
    # Drill 1.22: UNSUPPORTED_OPERATION ERROR ... (DRILL-2181)
    with pytest.raises(SqlError, match=message):
        data_engine.execute(sql)


def test_flatten_named_like_the_translators_own_column(data_engine):
    # the translator once named its temporary column `__drill_flatten`; a query's own column of
    # that name lost its values (all NULL)
    plain = q(data_engine, f"SELECT key, FLATTEN(sales) AS v FROM {WN}")
    same = q(data_engine, f"SELECT key, FLATTEN(sales) AS __drill_flatten FROM {WN}")
    assert same == (["key", "__drill_flatten"], plain[1])
    assert any(r[1] is not None for r in plain[1])


def test_a_flatten_of_a_member_of_a_computed_value_reads_it(data_engine, tmp_path):
    # the value a FLATTEN's argument indexes (`KVGEN(m)[0]`, `FLATTEN(t.orders)`) is written by
    # a transform of its own just ahead of that flatten: written after the flatten operators
    # it had been a missing column there, and every row flattened to nothing.
    # Drill 1.22 (2026-12-07): FLATTEN(KVGEN(m)[0]['value']) over {"m": {"a": [5, 6]}} and
    # {"m": {"b": [7]}} is 5, 6 (the second record's first pair is a: [], as the tables' union
    # of members gives it)
    (tmp_path / "kv.json").write_text('{"m": {"a": [5, 6]}}\n{"m": {"b": [7]}}\n')
    assert q(data_engine, "SELECT FLATTEN(KVGEN(m)[0]['value']) AS v FROM dfs.tmp.`kv.json`") == (
        ["v"],
        [[5], [6]],
    )
    # the dotted form of a member of a FLATTEN (Drill refuses it: "Incompatible types") as
    # its bracket form, which Drill answers: pen, ink, pad, desk, lamp, pen, ink, pen, pad
    want = q(data_engine, f"SELECT FLATTEN(FLATTEN(t.orders)['items']) AS i FROM {ORD} t")
    assert len(want[1]) == 9
    assert q(data_engine, f"SELECT FLATTEN(FLATTEN(t.orders).items) AS i FROM {ORD} t") == want


def test_kvgen_of_maps_of_different_members(data_engine, tmp_path):
    # Drill 1.22 (2026-12-07): KVGEN over {"m": {"a": {"x": 1}}} then {"m": {"b": {"x": 2,
    # "y": "q"}}} answers, each pair's value the map with its own members ({} for the one a
    # record lacks); the extension's kvgen had refused members of two map types
    (tmp_path / "kv3.json").write_text('{"m": {"a": {"x": 1}}}\n{"m": {"b": {"x": 2, "y": "q"}}}\n')
    _, got = q(data_engine, "SELECT FLATTEN(KVGEN(m)) AS p FROM dfs.tmp.`kv3.json`")
    pairs = [(p["key"], {k: v for k, v in p["value"].items() if v is not None}) for (p,) in got]
    assert pairs == [("a", {"x": 1}), ("b", {}), ("a", {}), ("b", {"x": 2, "y": "q"})]


def test_kvgen_skips_a_member_null_in_every_record(data_engine, tmp_path):
    # Drill 1.22 (2026-12-07): KVGEN of {"m": {"a": 1, "b": null}} is [{a, 1}]; the scan types
    # b VARCHAR (it has no value), which KVGEN had refused beside a BIGINT
    (tmp_path / "kv4.json").write_text('{"m": {"a": 1, "b": null}}\n{"m": {"a": 2}}\n')
    assert q(data_engine, "SELECT KVGEN(m) AS k FROM dfs.tmp.`kv4.json`")[1] == [
        [[{"key": "a", "value": 1}]],
        [[{"key": "a", "value": 2}]],
    ]
