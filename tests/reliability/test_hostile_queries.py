"""Hostile but legal SQL and plans (issue #15): long IN lists, deep parentheses, long operator
chains and many-way UNION ALL run; absurd nesting is refused with a drillspark error naming
the SQL position or the plan operator, never a RecursionError or a JVM StackOverflowError."""

from __future__ import annotations

import json

import pytest

import drillspark
from drillspark.plan import PlanError
from drillspark.plan import parse as parse_plan
from drillspark.plan.depth import MAX_SQL_NESTING
from drillspark.spark.rel import PlanExecutionError
from drillspark.sql import QueryPlanError, SqlEngine, SqlSession, SqlSyntaxError
from drillspark.sql.parser import compile_query

NATION = "dfs.data.`breadth/tpch_json/nation.json`"  # 25 rows, N_NATIONKEY 0..24


@pytest.fixture
def engine(spark, shared):
    return SqlEngine(spark, SqlSession(workspaces={"data": str(shared / "data")}))


def one(engine, sql):
    return engine.execute(sql)[-1].rows()


def test_in_list_of_5000_literals_runs(engine):
    # was java.lang.StackOverflowError: a chain of 5,000 ORs; Drill 1.22 answers 13
    evens = ",".join(str(i) for i in range(0, 10_000, 2))
    rows = one(engine, f"SELECT count(*) AS c FROM {NATION} WHERE N_NATIONKEY IN ({evens})")
    assert rows == [{"c": 13}]


def test_in_list_keeps_null_semantics(engine):
    rows = one(
        engine,
        f"SELECT count(*) AS c FROM {NATION} WHERE N_NATIONKEY IN "
        "(1, 2, 3, NULL) OR N_NATIONKEY IS NULL",
    )
    assert rows == [{"c": 3}]


def test_500_nested_parentheses_run(engine):
    # was a raw RecursionError from 50 levels on; Drill 1.22 runs 500
    depth = MAX_SQL_NESTING - 2  # the FROM's parentheses count too
    sql = f"SELECT {'(' * depth}N_NATIONKEY{')' * depth} AS k FROM {NATION} WHERE N_NATIONKEY = 7"
    assert one(engine, sql) == [{"k": 7}]


def test_too_deep_parentheses_name_the_position():
    depth = MAX_SQL_NESTING + 1
    sql = f"SELECT {'(' * depth}1{')' * depth} AS k FROM (VALUES(1))"
    with pytest.raises(SqlSyntaxError) as err:
        compile_query(sql, SqlSession())
    assert err.value.line == 1 and err.value.column == len("SELECT ") + MAX_SQL_NESTING + 1
    assert str(MAX_SQL_NESTING) in str(err.value)


def test_500_plus_terms_run(engine):
    # was RecursionError in the lowering; Drill 1.22 answers 500
    sql = f"SELECT {' + '.join(['1'] * 500)} AS s FROM {NATION} WHERE N_NATIONKEY = 3"
    assert one(engine, sql) == [{"s": 500}]


def test_plus_chain_over_a_column_past_spark_limit_is_a_clean_error(engine):
    # Spark resolves one level of a column expression per analyzer iteration (100 by default)
    sql = f"SELECT N_NATIONKEY{' + 1' * 150} AS s FROM {NATION}"
    with pytest.raises(QueryPlanError) as err:
        engine.execute(sql)
    assert "spark.sql.analyzer.maxIterations" in str(err.value)
    assert "plan operator @" in str(err.value) and err.value.line == 1


def test_500_way_union_all_compiles_to_one_union():
    # was RecursionError (one nested union per term)
    sql = " UNION ALL ".join(f"SELECT {i} AS a FROM (VALUES(1))" for i in range(500))
    plan = compile_query(sql, SqlSession()).plan
    unions = [op for op in plan.to_json()["query"] if op["op"] == "union"]
    assert len(unions) == 1 and len(unions[0]["inputs"]) == 500


def test_many_way_union_all_runs(engine):
    sql = " UNION ALL ".join(
        f"SELECT N_NATIONKEY AS k FROM {NATION} WHERE N_NATIONKEY = {i}" for i in range(40)
    )
    rows = one(engine, f"SELECT count(*) AS c, sum(k) AS s FROM ({sql})")
    assert rows == [{"c": 25, "s": sum(range(25))}]  # keys 25..39 match nothing


def test_mixed_union_keeps_distinct_parts(engine):
    sql = (
        "SELECT 1 AS a FROM (VALUES(1)) UNION ALL SELECT 1 AS a FROM (VALUES(1)) "
        "UNION SELECT 2 AS a FROM (VALUES(1)) UNION ALL SELECT 2 AS a FROM (VALUES(1))"
    )
    assert sorted(r["a"] for r in one(engine, sql)) == [1, 2, 2]


def _chain_plan(length: int, last_expr: str) -> dict:
    ops: list[dict] = [{"@id": 1, "op": "values", "content": [{"a": 1}]}]
    for i in range(2, length + 2):
        expr = last_expr if i == length + 1 else "`a` + 1"
        ops.append(
            {"@id": i, "op": "project", "input": i - 1, "projections": [{"ref": "a", "expr": expr}]}
        )
    ops.append(
        {"@id": length + 2, "op": "store", "input": length + 1, "storageEngine": "--SCREEN--"}
    )
    return {
        "head": {
            "type": "APACHE_DRILL_LOGICAL",
            "version": 1,
            "generator": {"type": "test", "info": ""},
        },
        "storage": {},
        "query": ops,
    }


@pytest.mark.slow
def test_200_project_chain_names_the_failing_operator(spark, tmp_path):
    # was "operator @4 (project): maximum recursion depth exceeded"
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(_chain_plan(200, "no_such_function(`a`)")))
    with pytest.raises(PlanExecutionError) as err:
        drillspark.run(str(path), spark=spark)
    assert "operator @201 (project)" in str(err.value)
    assert "no_such_function" in str(err.value)


def test_absurdly_nested_plan_expression_names_the_operator():
    depth = 40_000
    plan = _chain_plan(3, "abs(" * depth + "`a`" + ")" * depth)
    with pytest.raises(PlanError) as err:
        parse_plan(json.dumps(plan))
    (issue,) = err.value.errors
    assert issue.op_id == 4 and "nests too deeply" in issue.message
