"""Drill SQL lowered to Drill logical plan operators. Lowering runs no Spark job, but a `dfs`
table is resolved by the extension's workspace rule, which needs a running session."""

from __future__ import annotations

import pytest

from drillspark.plan import parse_expression, to_text
from drillspark.sql.errors import (
    SqlSyntaxError,
    TableNotFoundError,
    UnsupportedSqlError,
    ValidationError,
)
from drillspark.sql.parser import compile_query
from drillspark.sql.session import SqlSession

INPUT2 = "dfs.`data/drill/jsoninput/input2.json`"


@pytest.fixture
def session(spark, shared):  # the workspace rule runs in the session's JVM
    return SqlSession(workspaces={"root": str(shared / "data" / "drill-conformance")})


def ops(q, session):
    """The operators of the plan's JSON (as EXPLAIN shows it)."""
    return compile_query(q, session).plan.to_json()["query"]


def e(text):
    """An expression as the plan's JSON writes it (the lowering's spelling, read and written)."""
    return to_text(parse_expression(text))


def named(ref, text):
    """A named expression as the plan's JSON writes it."""
    return {"ref": f"`{ref}`", "expr": e(text)}


def by_op(plan_ops, name):
    return [o for o in plan_ops if o["op"] == name]


def test_names_paths_and_expr_ordinals(session):
    q = compile_query(
        f"select t.`integer`, t.a.b, x[0], t.m['a.b'], t.`rk.q`, 1+2 AS three, "
        f"`integer` from {INPUT2} t",
        session,
    )
    assert q.columns == ["integer", "EXPR$1", "EXPR$2", "EXPR$3", "rk.q", "three", "integer0"]
    (project,) = by_op(q.plan.to_json()["query"], "project")
    assert [p["expr"] for p in project["projections"]] == [
        e(x)
        for x in ("`integer`", "`a`.`b`", "`x`[0]", "`m`.`a.b`", "`rk.q`", "(1 + 2)", "`integer`")
    ]


def test_case_insensitive_alias(session):
    (project,) = by_op(ops(f"select T.A.b from {INPUT2} t", session), "project")
    assert project["projections"][0]["expr"] == e("`A`.`b`")


def test_map_access_needs_table_alias(session):
    with pytest.raises(ValidationError) as e:
        compile_query(f"select\n  a.b from {INPUT2} t", session)
    assert "table 'a' not found" in str(e.value)
    assert (e.value.line, e.value.column) == (2, 3)


def test_a_number_past_doubles_range_is_out_of_range_as_in_drill(session):
    # Drill 1.22: "VALIDATION ERROR: From line 1, column 23 to line 1, column 28: Numeric
    # literal '1E9991' out of range"; the plan had held an infinity, which no JSON number is
    # (found by tests/fuzz/test_sql_fuzz.py)
    for text in ("select * from (values(1e9991))", "select * from (values(-1e9991))"):
        with pytest.raises(ValidationError, match="Numeric literal '1E9991' out of range") as e:
            compile_query(text, session)
        assert (e.value.line, e.value.column) == (1, 23 if "-" not in text else 24)
    (values,) = by_op(ops("select * from (values(1e300))", session), "values")
    assert values["content"] == [{"EXPR$0": 1e300}]


def test_scan_selection_folds_session_and_table_options(session, shared):
    session.set_option("store.json.all_text_mode", True)
    (scan,) = by_op(
        ops(
            "select * from table(dfs.`data/drill/jsoninput/nan_test.json`"
            "(type => 'json', nanInf => false))",
            session,
        ),
        "scan",
    )
    fmt = scan["selection"]["format"]
    assert fmt["type"] == "json" and fmt["allTextMode"] is True and fmt["nanInf"] is False
    assert scan["selection"]["files"] == [
        str(shared / "data/drill-conformance/data/drill/jsoninput/nan_test.json")
    ]


def test_missing_table_is_reported_with_path(session):
    with pytest.raises(TableNotFoundError, match="no/such.json"):
        compile_query("select * from dfs.`no/such.json`", session)


def test_flatten_becomes_successive_flatten_operators(session):
    plan_ops = ops(
        f"select flatten(a), flatten(b) + 1 as c, flatten(flatten(d)) from {INPUT2}", session
    )
    flats = by_op(plan_ops, "flatten")
    assert [(f["name"], f["expr"]) for f in flats] == [
        ("`EXPR$0`", e("`a`")),
        ("`$flatten0`", e("`b`")),
        ("`$flatten1`", e("`d`")),
        ("`EXPR$2`", e("`$flatten1`")),
    ]
    # each flatten reads the previous one: a per-record cross product
    assert [f["input"] for f in flats[1:]] == [f["@id"] for f in flats[:-1]]
    project = plan_ops[-1]
    assert project["projections"][1] == named("c", "(`$flatten0` + 1)")


def test_group_by_having_order_limit(session):
    plan_ops = ops(
        f"select t.`float`, count(*) as n, sum(t.`integer`) + 1 from {INPUT2} t "
        "group by t.`float` having count(*) > 1 order by n desc, 1 limit 3 offset 1",
        session,
    )
    (agg,) = by_op(plan_ops, "groupingaggregate")
    assert agg["keys"] == [named("$g0", "`float`")]
    assert [x["expr"] for x in agg["exprs"]] == [e("count(1)"), e("sum(`integer`)")]
    (having,) = by_op(plan_ops, "filter")
    assert having["expr"] in (e("(`$a1` > 1)"), e("(`$a0` > 1)"))
    (order,) = by_op(plan_ops, "order")
    assert order["orderings"] == [
        {"order": "DESC", "expr": e("`n`"), "nullDirection": "FIRST"},
        {"order": "ASC", "expr": e("`float`"), "nullDirection": "LAST"},
    ]
    (limit,) = by_op(plan_ops, "limit")
    assert (limit["first"], limit["last"]) == (1, 4)


def test_explicit_null_ordering(session):
    (order,) = by_op(
        ops(f"select a from {INPUT2} order by a nulls first, b desc nulls last", session), "order"
    )
    assert [o["nullDirection"] for o in order["orderings"]] == ["FIRST", "LAST"]
    # b is not selected: ordered through a hidden column, dropped afterwards
    assert ops(f"select a from {INPUT2} order by b", session)[-1]["projections"] == [
        named("a", "`a`")
    ]


def test_ungrouped_column_is_an_error(session):
    with pytest.raises(ValidationError, match="neither in GROUP BY"):
        compile_query(f"select a, count(*) from {INPUT2} group by b", session)


def test_self_join_renames_each_side(session):
    plan_ops = ops(
        f"select t.a, u.b from {INPUT2} t join {INPUT2} u on t.k = u.k and u.x < t.y", session
    )
    (join,) = by_op(plan_ops, "join")
    assert join["type"] == "INNER"
    assert join["conditions"] == [
        {"relationship": "==", "left": e("`t$k`"), "right": e("`u$k`")},
        {"relationship": ">", "left": e("`t$y`"), "right": e("`u$x`")},
    ]
    assert plan_ops[-1]["projections"] == [named("a", "`t$a`"), named("b", "`u$b`")]


def test_union_renames_second_branch(session):
    plan_ops = ops(f"select a from {INPUT2} union select b as z from {INPUT2}", session)
    (union,) = by_op(plan_ops, "union")
    assert union["distinct"] is True
    renamed = next(o for o in plan_ops if o["@id"] == union["inputs"][1])
    assert renamed["projections"] == [named("a", "`z`")]


def test_star_over_subquery_expands(session):
    q = compile_query(f"select * from (select a, b as c from {INPUT2}) where c = 1", session)
    assert q.columns == ["a", "c"]


def test_literals(session):
    (project,) = by_op(
        ops(
            "select 12.3, 'it''s', date '2018-01-22', cast(null as int), "
            "cast(a as varchar), -5 from " + INPUT2,
            session,
        ),
        "project",
    )
    assert [p["expr"] for p in project["projections"]] == [
        e("cast('12.3' as VARDECIMAL(3, 1))"),
        e("'it\\'s'"),
        e("cast('2018-01-22' as DATE)"),
        e("cast(null as INT)"),
        e("cast(`a` as VARCHAR(65536))"),
        e("-5"),
    ]


def test_syntax_error_has_line_and_column(session):
    with pytest.raises(SqlSyntaxError) as e:
        compile_query("select a\nfrom t where a = = 3", session)
    assert (e.value.line, e.value.column) == (2, 18)
    assert e.value.caret().splitlines() == ["from t where a = = 3", " " * 17 + "^"]


def test_unsupported_construct_is_named(session):
    # (correlated conditions of any form and QUALIFY are lowered now: test_subqueries.py,
    # test_qualify_correlation_joins.py)
    with pytest.raises(UnsupportedSqlError, match="Rollup, Cube, Grouping Sets"):
        compile_query(f"select a, count(b) from {INPUT2} group by rollup(a)", session)
    with pytest.raises(UnsupportedSqlError, match="NATURAL JOIN"):
        compile_query(f"select a from {INPUT2} t natural join {INPUT2} u", session)


def test_count_distinct_pre_aggregates(session):
    plan_ops = ops(f"select b, count(distinct a) from {INPUT2} group by b", session)
    inner, outer = by_op(plan_ops, "groupingaggregate")
    assert inner["keys"] == [named("$g0", "`b`"), named("$distinct", "`a`")]
    assert outer["input"] == inner["@id"]
    assert outer["exprs"][0]["expr"] == e("count(`$distinct`)")


def test_ctas_stores_with_session_format(session, tmp_path):
    session.workspaces["tmp"] = str(tmp_path)
    session.set_option("store.format", "json")
    q = compile_query(f"create table dfs.tmp.`out` as select a from {INPUT2}", session)
    store = q.plan.to_json()["query"][-1]
    assert store["op"] == "store"
    assert store["target"]["path"] == str(tmp_path / "out")
    assert store["target"]["format"] == "json"


def test_flatten_does_not_overwrite_a_column_read_elsewhere(session):
    plan_ops = ops(f"select flatten(l) as l, l[0] as f from {INPUT2}", session)
    (flat,) = by_op(plan_ops, "flatten")
    assert flat["name"].startswith("`$flatten")
    assert plan_ops[-1]["projections"] == [named("l", flat["name"]), named("f", "`l`[0]")]
