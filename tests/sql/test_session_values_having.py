"""Calcite's niladic session values (USER, SESSION_USER, SYSTEM_USER, CURRENT_SCHEMA) and HAVING
naming a select-list alias, with the answers real Drill 1.22 gave for the same queries (asked
through shared/tools/drill, `query.sh --root shared/data`)."""

from __future__ import annotations

from drillspark.sql.output import columns_and_rows

NATION = "dfs.`breadth/tpch/nation.parquet`"
NATION_JSON = "dfs.`breadth/tpch_json/nation.json`"


def result(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])


def test_user_and_schema_are_session_values_not_missing_columns(data_engine):
    # Drill: [["anonymous", "anonymous", "anonymous", ""]], all VARCHAR; after USE dfs.tmp the
    # schema is "dfs.tmp". Before, each read as a missing column: NULL.
    cols, rows = result(
        data_engine,
        "SELECT USER, SESSION_USER, SYSTEM_USER, CURRENT_SCHEMA, "
        "sqltypeof(USER) t FROM (VALUES(1))",
    )
    assert cols == ["USER", "SESSION_USER", "SYSTEM_USER", "CURRENT_SCHEMA", "t"]
    assert rows == [["anonymous", "anonymous", "anonymous", "", "CHARACTER VARYING"]]
    assert result(data_engine, "USE dfs.tmp; SELECT CURRENT_SCHEMA FROM (VALUES(1))")[1] == [
        ["dfs.tmp"]
    ]
    # quoted, the name is a column again
    assert result(data_engine, "SELECT `user` FROM (SELECT 'x' AS `user` FROM (VALUES(1)))")[1] == [
        ["x"]
    ]


def test_having_names_a_select_alias(data_engine):
    # Drill: every region has 5 nations
    _, rows = result(
        data_engine,
        f"SELECT n_regionkey AS r, count(*) AS c FROM {NATION} GROUP BY n_regionkey HAVING c > 4",
    )
    assert sorted(rows) == [[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]
    # the alias wins over an input column of the same name (Drill: the same 5 rows)
    _, rows = result(
        data_engine,
        f"SELECT N_REGIONKEY AS r, count(*) AS N_NATIONKEY FROM "
        f"{NATION} GROUP BY N_REGIONKEY HAVING N_NATIONKEY > 4",
    )
    assert sorted(rows) == [[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]
    # an aggregate alias and a key alias together (Drill: [[2, 68], [3, 77], [4, 58]])
    _, rows = result(
        data_engine,
        f"SELECT N_REGIONKEY AS r, sum(N_NATIONKEY) AS s FROM "
        f"{NATION_JSON} GROUP BY N_REGIONKEY HAVING s > 50 AND r > 0",
    )
    assert sorted(rows) == [[2, 68], [3, 77], [4, 58]]
