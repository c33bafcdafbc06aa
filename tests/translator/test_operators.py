"""Each operator on small inline data; expected rows worked out by hand from the seed's
semantics (001) and Drill's reference interpreter."""

from __future__ import annotations

import pytest

from drillspark.spark.rel import PlanExecutionError

from .conftest import values

EMP = [
    {"name": "ann", "dept": 1, "pay": 10},
    {"name": "bob", "dept": 2, "pay": 20},
    {"name": "cy", "dept": None, "pay": 30},
    {"name": "di", "dept": 1, "pay": None},
]
DEPT = [{"dept": 1, "dname": "eng"}, {"dept": 3, "dname": "ops"}]


def test_filter_drops_false_and_null(run_plan):
    r = run_plan([values(1, EMP), {"@id": 2, "op": "filter", "input": 1, "expr": "pay >= 20"}])
    assert [x["name"] for x in r.rows()] == ["bob", "cy"]


def test_filter_on_missing_field_keeps_nothing(run_plan):
    r = run_plan([values(1, EMP), {"@id": 2, "op": "filter", "input": 1, "expr": "nope == 1"}])
    assert r.rows() == []


def test_project_today_keeps_only_projections_and_later_ones_win(run_plan):
    r = run_plan(
        [
            values(1, EMP[:2]),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [
                    {"ref": "x", "expr": "pay * 2"},
                    {"ref": "output.deptId", "expr": "dept"},
                    {"ref": "x", "expr": "pay + 1"},
                ],
            },
        ]
    )
    # today's refs are single names: "output.deptId" is one column literally named so
    assert r.rows() == [{"x": 11, "output.deptId": 1}, {"x": 21, "output.deptId": 2}]


def test_project_2013_drops_first_ref_segment_and_merges_maps(run_plan):
    rows = [{"m": {"a": 1, "b": 2}, "c": 3}]
    r = run_plan(
        [
            values(1, rows, "constant"),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [
                    {"ref": "output", "expr": "m"},
                    {"ref": "output.c", "expr": "c"},
                    {"ref": "output.b", "expr": "c * 10"},
                ],
            },
        ]
    )
    assert r.rows() == [{"a": 1, "b": 30, "c": 3}]


def test_transform_adds_nested_and_keeps_the_rest(run_plan):
    rows = [{"m": {"a": 1}, "c": 3}, {"m": None, "c": 4}]
    r = run_plan(
        [
            values(1, rows, "constant"),
            {
                "@id": 2,
                "op": "transform",
                "input": 1,
                "transforms": [{"ref": "m.d", "expr": "c + m.a"}, {"ref": "e", "expr": "c"}],
            },
        ]
    )
    # a null map is a map of nulls (Drill maps are never null), so m.d lands in it
    assert r.rows() == [
        {"m": {"a": 1, "d": 4}, "c": 3, "e": 3},
        {"m": {"a": None, "d": None}, "c": 4, "e": 4},
    ]


def test_limit_is_half_open_over_the_stream(run_plan):
    rows = [{"i": i} for i in range(10)]
    r = run_plan([values(1, rows), {"@id": 2, "op": "limit", "input": 1, "first": 3, "last": 6}])
    assert [x["i"] for x in r.rows()] == [3, 4, 5]
    r = run_plan([values(1, rows), {"@id": 2, "op": "limit", "input": 1, "first": 0, "last": 0}])
    assert r.rows() == []


def test_order_default_null_placement_differs_by_dialect(run_plan):
    q = {"@id": 2, "op": "order", "input": 1, "orderings": [{"order": "ASC", "expr": "dept"}]}
    today = run_plan([values(1, EMP), q])
    assert [x["dept"] for x in today.rows()] == [1, 1, 2, None]  # UNSPECIFIED: nulls high
    old = run_plan([values(1, EMP, "constant"), q])
    assert [x["dept"] for x in old.rows()] == [None, 1, 1, 2]  # 2013: nulls first
    desc = run_plan(
        [
            values(1, EMP),
            {**q, "orderings": [{"order": "DESC", "expr": "pay", "nullDirection": "LAST"}]},
        ]
    )
    assert [x["pay"] for x in desc.rows()] == [30, 20, 10, None]


@pytest.mark.parametrize(
    "how,expected",
    [
        ("inner", [("ann", 1, "eng"), ("di", 1, "eng")]),
        ("left", [("ann", 1, "eng"), ("bob", 2, None), ("cy", None, None), ("di", 1, "eng")]),
        ("right", [(None, 3, "ops"), ("ann", 1, "eng"), ("di", 1, "eng")]),
        (
            "full",
            [
                (None, 3, "ops"),
                ("ann", 1, "eng"),
                ("bob", 2, None),
                ("cy", None, None),
                ("di", 1, "eng"),
            ],
        ),
    ],
)
def test_join_types_and_name_clash(run_plan, how, expected):
    r = run_plan(
        [
            values(1, EMP),
            values(2, DEPT),
            {
                "@id": 3,
                "op": "join",
                "left": 1,
                "right": 2,
                "type": how,
                "conditions": [{"relationship": "==", "left": "dept", "right": "dept"}],
            },
        ]
    )
    got = sorted(
        ((x["name"], x["dept"], x["dname"]) for x in r.rows()),
        key=lambda t: (t[0] or "", t[1] or 0),
    )
    # `dept` is on both sides: the left value where there is a left record, else the right
    assert got == sorted(expected, key=lambda t: (t[0] or "", t[1] or 0))


def test_join_without_conditions_is_cartesian_and_relationships_combine(run_plan):
    r = run_plan(
        [
            values(1, EMP),
            values(2, DEPT),
            {"@id": 3, "op": "join", "left": 1, "right": 2, "type": "inner"},
        ]
    )
    assert len(r.rows()) == 8
    r = run_plan(
        [
            values(1, [{"a": 1}, {"a": 2}, {"a": 3}]),
            values(2, [{"b": 2, "c": 1}]),
            {
                "@id": 3,
                "op": "join",
                "left": 1,
                "right": 2,
                "type": "inner",
                "conditions": [
                    {"relationship": ">=", "left": "a", "right": "b"},
                    {"relationship": "!=", "left": "a", "right": "c + 2"},
                ],
            },
        ]
    )
    assert r.rows() == [{"a": 2, "b": 2, "c": 1}]


def test_union_by_name_with_missing_and_nested_fields(run_plan):
    a = [{"x": 1, "m": {"p": 1}}]
    b = [{"m": {"q": "z"}, "y": "b"}, {"x": 1, "m": {"p": 1}}]
    q = {"@id": 3, "op": "union", "inputs": [1, 2], "distinct": False}
    r = run_plan([values(1, a), values(2, b), q])
    assert sorted(r.rows(), key=str) == sorted(
        [
            {"x": 1, "m": {"p": 1, "q": None}, "y": None},
            {"x": None, "m": {"p": None, "q": "z"}, "y": "b"},
            {"x": 1, "m": {"p": 1, "q": None}, "y": None},
        ],
        key=str,
    )
    r = run_plan([values(1, a), values(2, b), {**q, "distinct": True}])
    assert len(r.rows()) == 2


def test_except_and_intersect(run_plan):
    a = [{"v": 1}, {"v": 2}, {"v": 2}, {"v": 3}]
    b = [{"v": 2}, {"v": 4}]
    ex = run_plan(
        [values(1, a), values(2, b), {"@id": 3, "op": "Except", "inputs": [1, 2], "distinct": True}]
    )
    assert sorted(x["v"] for x in ex.rows()) == [1, 3]
    ex_all = run_plan(
        [
            values(1, a),
            values(2, b),
            {"@id": 3, "op": "Except", "inputs": [1, 2], "distinct": False},
        ]
    )
    assert sorted(x["v"] for x in ex_all.rows()) == [1, 2, 3]
    it = run_plan(
        [
            values(1, a),
            values(2, b),
            {"@id": 3, "op": "intersect", "inputs": [1, 2], "distinct": True},
        ]
    )
    assert [x["v"] for x in it.rows()] == [2]


def test_segment_keeps_segments_together_and_stable(run_plan):
    rows = [
        {"k": "b", "i": 0},
        {"k": "a", "i": 1},
        {"k": "b", "i": 2},
        {"k": "a", "i": 3},
        {"k": None, "i": 4},
    ]
    r = run_plan(
        [
            values(1, rows, "constant"),
            {"@id": 2, "op": "segment", "input": 1, "ref": "seg", "exprs": ["k"]},
        ]
    )
    out = [(x["seg"], x["i"]) for x in r.rows()]
    groups: dict = {}
    for seg, i in out:
        groups.setdefault(seg, []).append(i)
    assert groups == {"a": [1, 3], "b": [0, 2], None: [4]}  # stable within a segment
    assert [s for s, _ in out] == sorted([s for s, _ in out], key=lambda s: (s is not None, s))


def test_collapsing_aggregate_with_target_and_carryovers(run_plan):
    rows = [
        {"k": 1, "v": 10, "t": False, "who": "x"},
        {"k": 1, "v": 5, "t": True, "who": "y"},
        {"k": 2, "v": 7, "t": False, "who": "z"},
        {"k": 3, "v": None, "t": True, "who": "w"},
    ]
    q = [
        values(1, rows, "constant"),
        {"@id": 2, "op": "segment", "input": 1, "ref": "seg", "exprs": ["k"]},
        {
            "@id": 3,
            "op": "collapsingaggregate",
            "input": 2,
            "within": "seg",
            "target": "t",
            "carryovers": ["k", "who"],
            "aggregations": [
                {"ref": "n", "expr": "count(1)"},
                {"ref": "s", "expr": "sum(v)"},
                {"ref": "m", "expr": "max(v) - min(v)"},
            ],
        },
    ]
    got = sorted(run_plan(q).rows(), key=lambda x: x["k"])
    # segment 2 has no record whose target is true: no output for it
    assert got == [
        {"k": 1, "who": "y", "n": 2, "s": 15, "m": 5},
        {"k": 3, "who": "w", "n": 1, "s": None, "m": None},
    ]


def test_collapsing_aggregate_whole_input_and_empty_input(run_plan):
    q = {
        "@id": 2,
        "op": "collapsingaggregate",
        "input": 1,
        "carryovers": [],
        "aggregations": [{"ref": "n", "expr": "count(1)"}, {"ref": "s", "expr": "sum(pay)"}],
    }
    assert run_plan([values(1, EMP, "constant"), q]).rows() == [{"n": 4, "s": 60}]
    empty = [
        values(1, EMP, "constant"),
        {"@id": 5, "op": "filter", "input": 1, "expr": "pay > 100"},
        {**q, "input": 5},
    ]
    assert run_plan(empty).rows() == [{"n": 0, "s": None}]


def test_running_aggregate_within_segments_in_input_order(run_plan):
    rows = [
        {"k": "a", "v": 1},
        {"k": "b", "v": 10},
        {"k": "a", "v": 2},
        {"k": "a", "v": None},
        {"k": "b", "v": 20},
    ]
    q = [
        values(1, rows, "constant"),
        {"@id": 2, "op": "segment", "input": 1, "ref": "seg", "exprs": ["k"]},
        {
            "@id": 3,
            "op": "runningaggregate",
            "input": 2,
            "within": "seg",
            "aggregations": [{"ref": "run", "expr": "sum(v)"}, {"ref": "c", "expr": "count(v)"}],
        },
    ]
    got = [(x["k"], x["v"], x["run"], x["c"]) for x in run_plan(q).rows()]
    assert got == [
        ("a", 1, 1, 1),
        ("a", 2, 3, 2),
        ("a", None, 3, 2),
        ("b", 10, 10, 1),
        ("b", 20, 30, 2),
    ]
    whole = [
        values(1, rows, "constant"),
        {
            "@id": 3,
            "op": "runningaggregate",
            "input": 1,
            "aggregations": [{"ref": "run", "expr": "sum(v)"}],
        },
    ]
    assert [x["run"] for x in run_plan(whole).rows()] == [1, 11, 13, 13, 33]


def test_windowframe_reproduces_the_seed_example(run_plan):
    q = [
        values(1, [{"v": i} for i in range(5)], "constant"),
        {
            "@id": 2,
            "op": "windowframe",
            "input": 1,
            "start": -2,
            "end": 0,
            "ref": {"segment": "ref.segment", "position": "ref.position"},
        },
    ]
    out = run_plan(q).rows()
    assert len(out) == 12
    assert [x["v"] for x in out] == [0, 0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 4]
    assert [x["ref"]["segment"] for x in out] == [0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    assert [x["ref"]["position"] for x in out] == [0, -1, 0, -2, -1, 0, -2, -1, 0, -2, -1, 0]


def test_windowframe_within_segments_does_not_cross_them(run_plan):
    rows = [{"k": "a", "v": 0}, {"k": "b", "v": 1}, {"k": "a", "v": 2}]
    q = [
        values(1, rows, "constant"),
        {"@id": 2, "op": "segment", "input": 1, "ref": "seg", "exprs": ["k"]},
        {
            "@id": 3,
            "op": "windowframe",
            "input": 2,
            "within": "seg",
            "start": -1,
            "end": 0,
            "ref": {"segment": "w", "position": "p"},
        },
    ]
    got = [(x["k"], x["v"], x["w"], x["p"]) for x in run_plan(q).rows()]
    assert got == [("a", 0, 0, 0), ("a", 0, 1, -1), ("a", 2, 1, 0), ("b", 1, 0, 0)]


def test_flatten_with_drop_and_empty_or_null_arrays(run_plan):
    rows = [{"id": 1, "t": [{"x": 1}, {"x": 2}]}, {"id": 2, "t": []}, {"id": 3, "t": None}]
    q = [
        values(1, rows, "constant"),
        {"@id": 2, "op": "flatten", "input": 1, "expr": "t", "name": "e", "drop": True},
    ]
    assert run_plan(q).rows() == [{"id": 1, "e": {"x": 1}}, {"id": 1, "e": {"x": 2}}]
    keep = [values(1, rows, "constant"), {**q[1], "drop": False}]
    assert [x["t"] is not None for x in run_plan(keep).rows()] == [True, True]


def test_grouping_aggregate_and_window(run_plan):
    g = run_plan(
        [
            values(1, EMP),
            {
                "@id": 2,
                "op": "groupingaggregate",
                "input": 1,
                "keys": [{"ref": "dept", "expr": "dept"}],
                "exprs": [
                    {"ref": "total", "expr": "sum(pay)"},
                    {"ref": "n", "expr": "count(name)"},
                ],
            },
        ]
    )
    assert sorted(g.rows(), key=lambda x: (x["dept"] is None, x["dept"] or 0)) == [
        {"dept": 1, "total": 10, "n": 2},
        {"dept": 2, "total": 20, "n": 1},
        {"dept": None, "total": 30, "n": 1},
    ]
    w = run_plan(
        [
            values(1, EMP),
            {
                "@id": 2,
                "op": "window",
                "input": 1,
                "withins": [{"ref": "dept", "expr": "dept"}],
                "orderings": [{"order": "ASC", "expr": "name"}],
                "aggregations": [{"ref": "run", "expr": "count(1)"}],
            },
        ]
    )
    assert sorted((x["name"], x["run"]) for x in w.rows()) == [
        ("ann", 1),
        ("bob", 1),
        ("cy", 1),
        ("di", 2),
    ]


def test_unknown_function_names_operator_and_closest(run_plan):
    with pytest.raises(Exception, match=r"@2.*unknown function 'sbustr'.*substr"):
        run_plan(
            [
                values(1, EMP),
                {
                    "@id": 2,
                    "op": "project",
                    "input": 1,
                    "projections": [{"ref": "x", "expr": "sbustr(name, 1)"}],
                },
            ]
        )


def test_spark_errors_name_the_operator(run_plan):
    with pytest.raises(PlanExecutionError, match=r"operator @2 \(project\)"):
        run_plan(
            [
                values(1, EMP),
                {
                    "@id": 2,
                    "op": "project",
                    "input": 1,
                    "projections": [{"ref": "x", "expr": "cast(name as varchar(3)) + m"}],
                },
            ]
        ).rows()


@pytest.mark.parametrize(
    "op",
    [
        {"op": "order", "orderings": [{"order": "ASC", "expr": "pay"}]},
        {"op": "limit", "first": 1, "last": 3},
        {"op": "project", "projections": [{"ref": "output.x", "expr": "m.k"}]},
        {"op": "flatten", "expr": "arr", "name": "e", "drop": True},
        {"op": "runningaggregate", "aggregations": [{"ref": "r", "expr": "sum(pay)"}]},
        {"op": "windowframe", "start": -1, "end": 0, "ref": {"segment": "s", "position": "p"}},
    ],
)
def test_empty_input_gives_empty_output(run_plan, op):
    rows = [{"pay": 1, "m": {"k": 2}, "arr": [1, 2]}]
    q = [
        values(1, rows, "constant"),
        {"@id": 2, "op": "filter", "input": 1, "expr": "pay > 5"},
        {"@id": 3, "input": 2, **op},
    ]
    result = run_plan(q)
    assert result.rows() == []
    assert result.df.columns  # the schema survives an empty stream


def test_empty_segments_and_joins(run_plan):
    base = [values(1, EMP, "constant"), {"@id": 2, "op": "filter", "input": 1, "expr": "pay > 500"}]
    seg = base + [
        {"@id": 3, "op": "segment", "input": 2, "ref": "g", "exprs": ["dept"]},
        {
            "@id": 4,
            "op": "collapsingaggregate",
            "input": 3,
            "within": "g",
            "carryovers": ["dept"],
            "aggregations": [{"ref": "n", "expr": "count(1)"}],
        },
    ]
    assert run_plan(seg).rows() == []
    join = base + [
        values(5, DEPT, "constant"),
        {
            "@id": 6,
            "op": "join",
            "left": 5,
            "right": 2,
            "type": "left",
            "conditions": [{"relationship": "==", "left": "dept", "right": "dept"}],
        },
    ]
    assert sorted(x["dname"] for x in run_plan(join).rows()) == ["eng", "ops"]


def test_join_conditions_with_typed_functions_on_clashing_names(run_plan):
    # `dept` exists on both sides; integer division needs its type on the renamed side
    r = run_plan(
        [
            values(1, EMP),
            values(2, DEPT),
            {
                "@id": 3,
                "op": "join",
                "left": 1,
                "right": 2,
                "type": "inner",
                "conditions": [{"relationship": "==", "left": "dept / 1", "right": "dept"}],
            },
        ]
    )
    assert sorted(x["name"] for x in r.rows()) == ["ann", "di"]


SCORES = [
    {"g": "a", "s": 10},
    {"g": "a", "s": 20},
    {"g": "a", "s": 20},
    {"g": "a", "s": 40},
    {"g": "b", "s": 5},
]


def test_window_ranking_and_offset_functions(run_plan):
    aggs = {
        "rn": "row_number()",
        "rk": "rank()",
        "dr": "dense_rank()",
        "pr": "percent_rank()",
        "cd": "cume_dist()",
        "nt": "ntile(2)",
        "lg": "lag(s)",
        "ld": "lead(s, 2, -1)",
        "fv": "first_value(s)",
        "lv": "last_value(s)",
    }
    w = run_plan(
        [
            values(1, SCORES),
            {
                "@id": 2,
                "op": "window",
                "input": 1,
                "withins": [{"ref": "g", "expr": "g"}],
                "orderings": [{"order": "ASC", "expr": "s"}],
                "aggregations": [{"ref": k, "expr": v} for k, v in aggs.items()],
            },
        ]
    )
    got = sorted((x["g"], x["s"], *[x[k] for k in aggs if k not in ("rn", "lg")]) for x in w.rows())
    # by hand: group a is 10, 20, 20, 40 (n=4); percent_rank = (rank-1)/(n-1),
    # cume_dist = rows <= s / n; the frame is rows up to the current one (last_value)
    assert got == [
        ("a", 10, 1, 1, 0.0, 0.25, 1, 20, 10, 10),
        ("a", 20, 2, 2, 1 / 3, 0.75, 1, 40, 10, 20),
        ("a", 20, 2, 2, 1 / 3, 0.75, 2, -1, 10, 20),
        ("a", 40, 4, 3, 1.0, 1.0, 2, -1, 10, 40),
        ("b", 5, 1, 1, 0.0, 1.0, 1, -1, 5, 5),
    ]
    by_rn = sorted((x["g"], x["rn"], x["s"], x["lg"]) for x in w.rows())
    assert by_rn == [
        ("a", 1, 10, None),
        ("a", 2, 20, 10),
        ("a", 3, 20, 20),
        ("a", 4, 40, 20),
        ("b", 1, 5, None),
    ]
    assert dict(w.df.dtypes)["rk"] == "bigint" and dict(w.df.dtypes)["rn"] == "bigint"


def test_window_ranking_without_orderings_treats_all_rows_as_peers(run_plan):
    w = run_plan(
        [
            values(1, SCORES),
            {
                "@id": 2,
                "op": "window",
                "input": 1,
                "withins": [{"ref": "g", "expr": "g"}],
                "aggregations": [
                    {"ref": "rk", "expr": "rank()"},
                    {"ref": "n", "expr": "row_number()"},
                ],
            },
        ]
    )
    assert sorted((x["g"], x["rk"], x["n"]) for x in w.rows()) == [
        ("a", 1, 1),
        ("a", 1, 2),
        ("a", 1, 3),
        ("a", 1, 4),
        ("b", 1, 1),
    ]


def test_window_functions_only_in_window_operators(run_plan):
    with pytest.raises(Exception, match=r"@2 \(project\).*window function rank\(\) is only"):
        run_plan(
            [
                values(1, SCORES),
                {
                    "@id": 2,
                    "op": "project",
                    "input": 1,
                    "projections": [{"ref": "x", "expr": "rank()"}],
                },
            ]
        )
    with pytest.raises(
        Exception,
        match=r"@2 \(window\).*ntile\(\): argument 1 must be an "
        r"integer literal",
    ):
        run_plan(
            [
                values(1, SCORES),
                {
                    "@id": 2,
                    "op": "window",
                    "input": 1,
                    "aggregations": [{"ref": "x", "expr": "ntile(s)"}],
                },
            ]
        )
