"""Drill's convert functions by name (issue #36): `convert_fromJSON(x)` is CONVERT_FROM(x, 'JSON')
(the call sqlalchemy-drill's and pydrill's suites make). It failed with "expression syntax error
at column 13 ... (plan operator @2 flatten expr)": lowered as a call `convert_fromjson(...)`,
which the plan grammar reads as the keyword `convert_from` and a stray `json`, an error placed
in the generated plan. Expected answers are Apache Drill 1.22's (../shared/tools/drill/query.sh,
2026-12-02)."""

from __future__ import annotations

import pytest

from drillspark.plan import parse
from drillspark.plan.expressions import FunctionCall
from drillspark.sql import SqlEngine, SqlError, SqlSession
from drillspark.sql import expressions as sx
from drillspark.sql.output import columns_and_rows
from drillspark.sql.parser import compile_query


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


@pytest.fixture
def engine(spark):
    return SqlEngine(spark, SqlSession())


DRILL_ANSWERS = [
    ("""SELECT convert_fromJSON('["a"]')""", ["EXPR$0"], [[["a"]]]),
    ("""SELECT convert_fromJSON('["a"]') AS x""", ["x"], [[["a"]]]),
    ("""SELECT flatten(convert_fromJSON('["a","b"]'))""", ["EXPR$0"], [["a"], ["b"]]),
    (
        """SELECT flatten(convert_fromJSON('["a","b"]')) AS f, 1 AS one""",
        ["f", "one"],
        [["a", 1], ["b", 1]],
    ),
    ("""SELECT convert_fromJSON('{"a":1,"b":[1,2]}') AS m""", ["m"], [[{"a": 1, "b": [1, 2]}]]),
    ("""SELECT t.m.a FROM (SELECT convert_fromJSON('{"a":1}') AS m) t""", ["EXPR$0"], [[1]]),
    ("""SELECT CONVERT_FROM('["a"]', 'JSON') AS c""", ["c"], [[["a"]]]),
    ("SELECT count(*) AS n FROM (SELECT flatten(convert_fromJSON('[1,2,3]')) AS f)", ["n"], [[3]]),
    ("SELECT sum(f) AS s FROM (SELECT flatten(convert_fromJSON('[1,2,3]')) AS f)", ["s"], [[6]]),
    ("SELECT convert_fromUTF8(convert_toUTF8('abc')) AS s", ["s"], [["abc"]]),
    ("SELECT convert_fromINT_BE(convert_toINT_BE(5)) AS i", ["i"], [[5]]),
]


@pytest.mark.parametrize(("sql", "columns", "rows"), DRILL_ANSWERS, ids=lambda v: str(v)[:40])
def test_drills_answers(engine, sql, columns, rows):
    assert q(engine, sql) == (columns, rows)


def test_any_spelling_of_the_name(engine):
    sql = "SELECT CONVERT_FROMJSON('[1,2]') AS l, convert_fromjson('{\"k\":\"v\"}') AS m"
    assert q(engine, sql) == (["l", "m"], [[[1, 2], {"k": "v"}]])


# --- the lowering (no Spark): the plan's two-argument form, errors at the SQL -------------


def plan_exprs(sql: str) -> list[str]:
    compiled = compile_query(sql, SqlSession())
    parse(compiled.plan.to_json_text())  # the plan reads back
    return [
        e
        for op in compiled.plan.to_json()["query"]
        for e in [op.get("expr")] + [p["expr"] for p in op.get("projections", [])]
        if e
    ]


def test_lowered_to_the_two_argument_form():
    assert plan_exprs("""SELECT flatten(convert_fromJSON('["a"]')) AS f""")[0] == (
        """convert_from('["a"]', 'JSON')"""
    )
    assert "convert_to(x, 'UTF8')" in plan_exprs(
        "SELECT convert_toUTF8(x) AS b FROM (SELECT 'a' AS x)"
    )


# Drill 1.22's errors: CONVERT_FROM('["a"]') "From line 1, column 8 ...: No match found for
# function signature CONVERT_FROM(<CHARACTER>)"; convert_fromJSON('["a"]', 'x') "CONVERT_FROMJSON
# does not support operand types (CHAR,CHAR)"; CONVERT_FROM(x, col) "Invalid type ANY passed as
# second argument to function 'CONVERT_FROM'. The function expects a literal argument."
@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("""SELECT CONVERT_FROM('["a"]') AS x""", "CONVERT_FROM takes a value and an encoding"),
        ("""SELECT convert_fromJSON('["a"]', 'x') AS x""", "CONVERT_FROMJSON takes one argument"),
        (
            "SELECT CONVERT_FROM('[1]', t.x) FROM (SELECT 'JSON' AS x) t",
            "an encoding named by a string literal",
        ),
        ("""SELECT 1 AS a,\n  flatten(convert_fromJSON()) AS f""", "takes one argument"),
    ],
)
def test_wrong_calls_are_errors_in_the_statement(sql, message):
    with pytest.raises(SqlError, match=message) as info:
        compile_query(sql, SqlSession())
    line, column = (2, 11) if "\n" in sql else (1, 8)
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert "plan operator" not in str(info.value)


@pytest.mark.parametrize("item", ["flatten(convert_fromJSON('[1]')) AS f", "flatten(x) + 1"])
def test_a_flatten_expression_the_plan_cannot_read_is_placed_in_the_sql(monkeypatch, item):
    # a lowering bug must not surface as a column of the generated plan (the flatten operator
    # has no place in the SQL recorded for it): it is an error at the FLATTEN in the statement
    bad_call = FunctionCall("convert_from(", ())  # no function name the plan can write
    monkeypatch.setattr(sx.ExprLowering, "_convert", lambda self, fname, node: bad_call)
    monkeypatch.setattr(sx.ExprLowering, "_Column", lambda self, node: "`x")  # no node at all
    with pytest.raises(SqlError) as info:
        compile_query(f"SELECT 1 AS a,\n  {item}", SqlSession())
    assert (info.value.line, info.value.column) == (2, 3), str(info.value)
    assert "a drillspark bug" in str(info.value) and "plan operator" not in str(info.value)


@pytest.mark.parametrize(
    ("sql", "message", "where"),
    [
        (
            "SELECT x,\n  FLATTEN(repeated_count(t.a)) AS f FROM (SELECT 1 AS x, 2 AS a) t",
            "repeated_count needs an array",
            (2, 3),
        ),
        ("SELECT FLATTEN(nosuchfn(t.a)) AS f FROM (SELECT 1 AS a) t", "unknown function", (1, 8)),
        ("SELECT 1 AS x, FLATTEN(kvgen(t.a)) AS f FROM (SELECT 1 AS a) t", "kvgen", (1, 16)),
    ],
)
def test_a_flatten_operators_failure_points_into_the_sql(engine, sql, message, where):
    # the flatten operator is recorded with its FLATTEN's place (before: no place, so the
    # error named only the plan operator)
    with pytest.raises(SqlError, match=message) as info:
        q(engine, sql)
    assert (info.value.line, info.value.column) == where, str(info.value)


def test_members_of_a_columns_parsed_json_are_read(data_engine, tmp_path):
    # CONVERT_FROM over a column is a VARIANT per row: its members and indexes are read from
    # it (they were NULL: the member of a VARIANT was taken for a missing column), and FLATTEN
    # of a member gives every element. Drill 1.22 (2026-12-07): t.c.arr is [1, 2, 3], and
    # FLATTEN(convert_from(j, 'JSON').arr) fails "Incompatible types" (Drill wants the subquery)
    (tmp_path / "cj.json").write_text(
        '{"j": "{\\"arr\\": [1, 2, 3], \\"m\\": {\\"k\\": \\"v\\"}}"}\n{"j": "{\\"arr\\": []}"}\n'
    )
    inner = "(SELECT convert_from(j, 'JSON') c FROM dfs.tmp.`cj.json`) t"
    got = q(data_engine, f"SELECT typeof(t.c.arr[1]), typeof(t.c.m.k), t.c.nope FROM {inner}")
    assert got[1] == [["BIGINT", "VARCHAR", None], ["NULL", "NULL", None]]
    got = q(data_engine, f"SELECT flatten(t.c.arr) AS f FROM {inner}")
    assert [str(r[0]) for r in got[1]] == ["1", "2", "3"]
    got = q(data_engine, "SELECT flatten(convert_from(j, 'JSON').arr) AS f FROM dfs.tmp.`cj.json`")
    assert [str(r[0]) for r in got[1]] == ["1", "2", "3"]
