"""semi-join (inner, anti and not_in), lateral-join with unnest, join duplicates=rename and
IS NOT DISTINCT FROM, run as hand-written plans."""

from __future__ import annotations

import pytest

from .conftest import values

EMP = [{"name": "ann", "dept": 1}, {"name": "bob", "dept": 2}, {"name": "cy", "dept": None}]
DEPT = [{"dept": 1, "dname": "eng"}, {"dept": 3, "dname": "ops"}]
COND = [{"relationship": "==", "left": "dept", "right": "dept"}]


@pytest.mark.parametrize("how,expected", [("inner", ["ann"]), ("anti", ["bob", "cy"])])
def test_semi_join(run_plan, how, expected):
    r = run_plan(
        [
            values(1, EMP),
            values(2, DEPT),
            {"@id": 3, "op": "semi-join", "left": 1, "right": 2, "type": how, "conditions": COND},
        ]
    )
    assert r.df.columns == ["name", "dept"]  # only the left side's columns
    assert sorted(x["name"] for x in r.rows()) == expected


def test_not_in_semi_join(run_plan):
    # SQL's NOT IN: bob's dept 2 is in no row; cy's NULL might match any, so is dropped
    plan = [values(1, EMP), values(2, DEPT)]
    join = {"@id": 3, "op": "semi-join", "left": 1, "right": 2, "type": "not_in"}
    r = run_plan([*plan, {**join, "conditions": COND}])
    assert sorted(x["name"] for x in r.rows()) == ["bob"]
    # one NULL among the right side's keys: no row is surely absent
    with_null = values(2, [*DEPT, {"dept": None, "dname": "tbd"}])
    assert run_plan([plan[0], with_null, {**join, "conditions": COND}]).rows() == []
    # nothing on the right: every row, the NULL key too
    empty = {"@id": 4, "op": "filter", "input": 2, "expr": "dept > 100"}
    r = run_plan([*plan, empty, {**join, "right": 4, "@id": 5, "conditions": COND}])
    assert sorted(x["name"] for x in r.rows()) == ["ann", "bob", "cy"]


def test_semi_join_type_is_checked(run_plan):
    join = {"@id": 3, "op": "semi-join", "left": 1, "right": 2, "type": "left"}
    with pytest.raises(Exception, match="semi-join type must be inner, anti or not_in"):
        run_plan([values(1, EMP), values(2, DEPT), {**join, "conditions": COND}])


def test_lateral_join_unnest(run_plan):
    rows = [{"k": "a", "xs": [1, 2]}, {"k": "b", "xs": []}, {"k": "c", "xs": [3]}]
    r = run_plan(
        [
            values(1, rows),
            {"@id": 2, "op": "unnest", "column": "xs"},
            {"@id": 3, "op": "lateral-join", "left": 1, "right": 2},
            {
                "@id": 4,
                "op": "project",
                "input": 3,
                "projections": [{"ref": "k", "expr": "k"}, {"ref": "x", "expr": "xs0"}],
            },
        ]
    )
    assert sorted((x["k"], x["x"]) for x in r.rows()) == [("a", 1), ("a", 2), ("c", 3)]


def test_left_lateral_join_with_aggregate_per_row(run_plan):
    rows = [{"k": "a", "xs": [1, 2]}, {"k": "b", "xs": []}]
    implicit = "`$drill_implicit_field$`"
    r = run_plan(
        [
            values(1, rows),
            {"@id": 2, "op": "unnest", "column": "xs"},
            {
                "@id": 3,
                "op": "groupingaggregate",
                "input": 2,
                "keys": [{"ref": "$drill_implicit_field$", "expr": implicit}],
                "exprs": [{"ref": "s", "expr": "sum(xs)"}],
            },
            {"@id": 4, "op": "lateral-join", "left": 1, "right": 3, "type": "left"},
            {
                "@id": 5,
                "op": "project",
                "input": 4,
                "projections": [{"ref": "k", "expr": "k"}, {"ref": "s", "expr": "s"}],
            },
        ]
    )
    assert sorted((x["k"], x["s"]) for x in r.rows()) == [("a", 3), ("b", None)]


def test_lateral_right_side_must_keep_the_row_number(run_plan):
    with pytest.raises(Exception, match="drill_implicit_field"):
        run_plan(
            [
                values(1, [{"xs": [1]}]),
                {"@id": 2, "op": "unnest", "column": "xs"},
                {
                    "@id": 3,
                    "op": "project",
                    "input": 2,
                    "projections": [{"ref": "x", "expr": "xs"}],
                },
                {"@id": 4, "op": "lateral-join", "left": 1, "right": 3},
            ]
        )


def test_join_duplicates_rename_and_null_safe_equality(run_plan):
    r = run_plan(
        [
            values(1, EMP),
            values(2, DEPT + [{"dept": None, "dname": "none"}]),
            {
                "@id": 3,
                "op": "join",
                "left": 1,
                "right": 2,
                "type": "inner",
                "duplicates": "rename",
                "conditions": [
                    {"relationship": "IS NOT DISTINCT FROM", "left": "dept", "right": "dept"}
                ],
            },
        ]
    )
    assert r.df.columns == ["name", "dept", "dept0", "dname"]
    assert sorted((x["name"], x["dname"]) for x in r.rows()) == [("ann", "eng"), ("cy", "none")]
