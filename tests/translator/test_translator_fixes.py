"""Row and segment operators: cases a review found wrong. Expected rows are worked out by hand
from Drill's semantics (SQL window frames, the 0.1 reference interpreter for 2013 operators,
nested filtering: docs/running-plans.md, Filtering nested values)."""

from __future__ import annotations

import pytest

import drillspark
from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.output import columns_and_rows

from .conftest import values

LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1


def sql_rows(spark, text, **workspaces):
    engine = SqlEngine(spark, SqlSession(workspaces=workspaces))
    return columns_and_rows(engine.execute(text)[-1])[1]


def console(*steps):
    return [
        {
            "op": "sequence",
            "do": [
                *steps,
                {"op": "store", "storageengine": "console", "target": {"pipe": "STD_OUT"}},
            ],
        }
    ]


CONSOLE = {"console": {"type": "console"}}

# --- filters on whole arrays (nested filtering applies only where a path is used per element) -


def test_filter_with_array_functions_judges_the_whole_array(run_plan):
    rows = [{"id": 1, "arr": [1, 2, 3]}, {"id": 2, "arr": [4]}, {"id": 3, "arr": []}]
    for op in ("values", "constant"):

        def keep(expr, op=op):
            r = run_plan(
                [values(1, rows, op), {"@id": 2, "op": "filter", "input": 1, "expr": expr}]
            )
            return r.rows()

        assert keep("repeated_count(arr) = 3") == [{"id": 1, "arr": [1, 2, 3]}]
        assert keep("repeated_contains(arr, 2)") == [{"id": 1, "arr": [1, 2, 3]}]
        assert keep("repeated_count(arr) = 0") == [{"id": 3, "arr": []}]
        assert [x["id"] for x in keep("isnotnull(arr)")] == [1, 2, 3]


def test_filter_mixing_whole_array_and_element_uses(run_plan):
    # the element use prunes; the whole-array use reads the unpruned array of the record
    rows = [{"id": 1, "arr": [1, 5, 7]}, {"id": 2, "arr": [9]}]
    r = run_plan(
        [
            values(1, rows, "constant"),
            {"@id": 2, "op": "filter", "input": 1, "expr": "repeated_count(arr) > 1 and arr > 4"},
        ]
    )
    assert r.rows() == [{"id": 1, "arr": [5, 7]}]


def test_sql_where_on_array_functions(spark, shared):
    root = str(shared / "data" / "drill-conformance")
    t = "dfs.root.`data/drill/jsoninput/input2.json` t"
    got = sql_rows(
        spark,
        f"select t.`integer`, t.l from {t} where repeated_count(t.l) = 2 order by t.`integer`",
        root=root,
    )
    assert got == [[2001, [4, 2]], [2010, [4, 2]], [6005, [4, 2]]]
    got = sql_rows(
        spark,
        f"select t.`integer` from {t} where repeated_contains(t.l, 4) order by t.`integer`",
        root=root,
    )
    assert got == [[2001], [2010], [6005]]


# --- nested filtering: integer arithmetic on the element -------------------------------------


@pytest.mark.parametrize(
    ("rows", "expr", "want"),
    [
        ([{"a": [{"x": 3}], "c": 1}], "a.x / 2 > 1", []),  # 3 / 2 = 1 (integer division)
        ([{"a": [{"x": 3}, {"x": 4}], "c": 1}], "a.x / 2 > 1", [{"a": [{"x": 4}], "c": 1}]),
        ([{"a": [{"x": 2}], "c": 1}], "(a.x + 1) / 2 > 1", []),  # 3 / 2 = 1
        ([{"a": [{"x": 2.0}], "c": 1}], "(a.x + 1) / 2 > 1", [{"a": [{"x": 2.0}], "c": 1}]),
        ([{"a": {"x": [3, 4]}, "c": 1}], "a.x / 2 > 1", [{"a": {"x": [4]}, "c": 1}]),
    ],
)
def test_appendix_a_divides_integers_as_integers(run_plan, rows, expr, want):
    r = run_plan(
        [values(1, rows, "constant"), {"@id": 2, "op": "filter", "input": 1, "expr": expr}]
    )
    assert r.rows() == want


# --- window frames ---------------------------------------------------------------------------

V = "(VALUES (1,10),(1,20),(2,5)) t(k,v)"


def test_sql_default_frame_includes_peers(spark):
    got = sql_rows(spark, f"SELECT k, v, SUM(v) OVER (ORDER BY k) s FROM {V}")
    assert sorted(map(tuple, got)) == [(1, 10, 30), (1, 20, 30), (2, 5, 35)]


def test_sql_rows_frames_with_unbounded_following(spark):
    got = sql_rows(
        spark,
        f"SELECT k, v, SUM(v) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED "
        f"PRECEDING AND UNBOUNDED FOLLOWING) s FROM {V}",
    )
    assert sorted(map(tuple, got)) == [(1, 10, 35), (1, 20, 35), (2, 5, 35)]
    got = sql_rows(
        spark,
        f"SELECT k, v, SUM(v) OVER (ORDER BY k, v ROWS BETWEEN CURRENT ROW "
        f"AND UNBOUNDED FOLLOWING) s, LAST_VALUE(v) OVER (ORDER BY k, v ROWS "
        f"BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) l FROM {V}",
    )
    assert sorted(map(tuple, got)) == [(1, 10, 35, 5), (1, 20, 25, 5), (2, 5, 5, 5)]
    got = sql_rows(
        spark,
        f"SELECT k, v, SUM(v) OVER (ORDER BY k, v ROWS BETWEEN 1 PRECEDING "
        f"AND 1 FOLLOWING) s, SUM(v) OVER (ORDER BY k, v ROWS UNBOUNDED "
        f"PRECEDING) r FROM {V}",
    )
    assert sorted(map(tuple, got)) == [(1, 10, 30, 10), (1, 20, 35, 30), (2, 5, 25, 35)]


def test_sql_range_frames(spark):
    got = sql_rows(
        spark,
        f"SELECT k, v, SUM(v) OVER (ORDER BY k RANGE BETWEEN UNBOUNDED "
        f"PRECEDING AND CURRENT ROW) s, SUM(v) OVER (ORDER BY k RANGE BETWEEN "
        f"UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) w FROM {V}",
    )
    assert sorted(map(tuple, got)) == [(1, 10, 30, 35), (1, 20, 30, 35), (2, 5, 35, 35)]


def test_plan_window_bounds(run_plan):
    rows = [{"k": 1, "v": 10}, {"k": 1, "v": 20}, {"k": 2, "v": 5}]

    def win(**frame):
        r = run_plan(
            [
                values(1, rows),
                {
                    "@id": 2,
                    "op": "window",
                    "input": 1,
                    **frame,
                    "orderings": [{"order": "ASC", "expr": "k"}, {"order": "ASC", "expr": "v"}],
                    "aggregations": [{"ref": "s", "expr": "sum(v)"}],
                },
            ]
        )
        return sorted((x["k"], x["v"], x["s"]) for x in r.rows())

    # Drill's Long.MIN_VALUE / Long.MAX_VALUE are the unbounded ends
    assert win(start=LONG_MIN, end=LONG_MAX) == [(1, 10, 35), (1, 20, 35), (2, 5, 35)]
    assert win(start=0, end=LONG_MAX) == [(1, 10, 35), (1, 20, 25), (2, 5, 5)]
    assert win(start=-1) == [(1, 10, 10), (1, 20, 30), (2, 5, 25)]
    # no bounds, ordered: unbounded preceding to the current row and its peers
    r = run_plan(
        [
            values(1, rows),
            {
                "@id": 2,
                "op": "window",
                "input": 1,
                "orderings": [{"order": "ASC", "expr": "k"}],
                "aggregations": [{"ref": "s", "expr": "sum(v)"}],
            },
        ]
    )
    assert sorted((x["k"], x["v"], x["s"]) for x in r.rows()) == [
        (1, 10, 30),
        (1, 20, 30),
        (2, 5, 35),
    ]


# --- aggregations are computed from the input, not from each other ---------------------------


def test_window_aggregations_read_the_input_record(run_plan):
    r = run_plan(
        [
            values(1, [{"a": 1}, {"a": 2}]),
            {
                "@id": 2,
                "op": "window",
                "input": 1,
                "aggregations": [{"ref": "a", "expr": "sum(a)"}, {"ref": "b", "expr": "sum(a)"}],
            },
        ]
    )
    assert r.rows() == [{"a": 3, "b": 3}, {"a": 3, "b": 3}]
    # an aggregation that replaces the partition column does not repartition the next one
    rows = [{"g": "a"}, {"g": "b"}, {"g": "b"}, {"g": "c"}]
    r = run_plan(
        [
            values(1, rows),
            {
                "@id": 2,
                "op": "window",
                "input": 1,
                "withins": [{"ref": "g", "expr": "g"}],
                "aggregations": [
                    {"ref": "g", "expr": "count(1)"},
                    {"ref": "n", "expr": "count(1)"},
                ],
            },
        ]
    )
    assert sorted((x["g"], x["n"]) for x in r.rows()) == [(1, 1), (1, 1), (2, 2), (2, 2)]


def test_runningaggregate_aggregations_read_the_input_record(run_plan):
    r = run_plan(
        [
            values(1, [{"a": 1}, {"a": 2}], "constant"),
            {
                "@id": 2,
                "op": "runningaggregate",
                "input": 1,
                "aggregations": [{"ref": "a", "expr": "sum(a)"}, {"ref": "b", "expr": "sum(a)"}],
            },
        ]
    )
    assert r.rows() == [{"a": 1, "b": 1}, {"a": 3, "b": 3}]


# --- segments and collapsingaggregate --------------------------------------------------------


def test_segment_ref_shadowing_its_key_column(run_plan):
    q = console(
        {"op": "constant", "content": [{"x": i} for i in (1, 2, 3, 4)]},
        {"op": "segment", "ref": "x", "exprs": ["x / 2"]},
        {
            "op": "collapsingaggregate",
            "within": "x",
            "carryovers": ["x"],
            "aggregations": [{"ref": "n", "expr": "count(1)"}],
        },
    )
    got = run_plan(q, CONSOLE).rows()
    assert sorted((x["x"], x["n"]) for x in got) == [(0, 1), (1, 2), (2, 1)]


def test_collapsingaggregate_carries_over_the_last_record(run_plan):
    q = console(
        {
            "op": "constant",
            "content": [{"k": 1, "c": "first"}, {"k": 1, "c": "last"}, {"k": 2, "c": "only"}],
        },
        {"op": "segment", "ref": "s", "exprs": ["k"]},
        {
            "op": "collapsingaggregate",
            "within": "s",
            "carryovers": ["k", "c"],
            "aggregations": [{"ref": "n", "expr": "count(1)"}],
        },
    )
    got = run_plan(q, CONSOLE).rows()
    assert sorted((x["k"], x["c"], x["n"]) for x in got) == [(1, "last", 2), (2, "only", 1)]
    # the whole input as one segment, over many records in several partitions
    many = [{"c": i} for i in range(40)]
    q = console(
        {"op": "constant", "content": many},
        {"op": "order", "orderings": [{"order": "asc", "expr": "c"}]},
        {
            "op": "collapsingaggregate",
            "carryovers": ["c"],
            "aggregations": [{"ref": "n", "expr": "count(1)"}],
        },
    )
    assert run_plan(q, CONSOLE).rows() == [{"c": 39, "n": 40}]


def test_collapsingaggregate_carryover_wins_a_name_clash(run_plan):
    # CollapsingAggregateROP adds the aggregations to the output record, then the carryovers
    q = console(
        {"op": "constant", "content": [{"n": 7}, {"n": 8}]},
        {
            "op": "collapsingaggregate",
            "carryovers": ["n"],
            "aggregations": [{"ref": "n", "expr": "count(1)"}, {"ref": "s", "expr": "sum(n)"}],
        },
    )
    assert run_plan(q, CONSOLE).rows() == [{"n": 8, "s": 15}]


def test_collapsingaggregate_target_takes_the_last_matching_record(run_plan):
    rows = [
        {"k": 1, "c": "a", "t": True},
        {"k": 1, "c": "b", "t": True},
        {"k": 1, "c": "c", "t": False},
        {"k": 2, "c": "d", "t": False},
    ]
    q = console(
        {"op": "constant", "content": rows},
        {"op": "segment", "ref": "s", "exprs": ["k"]},
        {
            "op": "collapsingaggregate",
            "within": "s",
            "target": "t",
            "carryovers": ["c"],
            "aggregations": [{"ref": "n", "expr": "count(1)"}],
        },
    )
    assert run_plan(q, CONSOLE).rows() == [{"c": "b", "n": 3}]


# --- nested refs ------------------------------------------------------------------------------


def test_2013_transform_nested_refs_keep_every_level(run_plan):
    q = console(
        {"op": "constant", "content": [{"a": 1, "m": {"b": {"z": 2}}}]},
        {
            "op": "transform",
            "transforms": [
                {"ref": "n.b.c", "expr": "a"},
                {"ref": "n2.b.c.d", "expr": "a"},
                {"ref": "m.b.c.d", "expr": "a"},
                {"ref": "m.y.w", "expr": "a"},
            ],
        },
    )
    (row,) = run_plan(q, CONSOLE).rows()
    assert row["n"] == {"b": {"c": 1}}
    assert row["n2"] == {"b": {"c": {"d": 1}}}
    assert row["m"] == {"b": {"z": 2, "c": {"d": 1}}, "y": {"w": 1}}


# --- flatten ----------------------------------------------------------------------------------


def test_flatten_null_and_missing_give_no_rows_scalars_one(run_plan):
    rows = [{"id": 1, "v": 5}, {"id": 2, "v": None}]
    r = run_plan(
        [
            values(1, rows, "constant"),
            {"@id": 2, "op": "flatten", "input": 1, "expr": "v", "name": "e"},
        ]
    )
    assert [(x["id"], x["e"]) for x in r.rows()] == [(1, 5)]
    r = run_plan(
        [
            values(1, rows, "constant"),
            {"@id": 2, "op": "flatten", "input": 1, "expr": "nosuch", "name": "e"},
        ]
    )
    assert r.rows() == []


# --- set operators ----------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["Except", "intersect"])
def test_set_operators_refuse_inputs_with_different_fields(run_plan, op):
    a, b = [{"x": 1, "y": 2}], [{"x": 1, "z": 3}]
    with pytest.raises(Exception, match=rf"@3 \({op}\).*input 2.*\[y\].*\[z\]"):
        run_plan([values(1, a), values(2, b), {"@id": 3, "op": op, "inputs": [1, 2]}]).rows()


def test_translator_does_not_change_session_conf(spark):
    # drillspark.session() turns Spark's TIME type on when it builds the session; a session
    # without it gets a clear error for TIME, and its settings stay as they are
    key = "spark.sql.timeType.enabled"
    assert spark.conf.get(key) == "true"
    plan = {
        "head": {
            "type": "APACHE_DRILL_LOGICAL",
            "version": 1,
            "generator": {"type": "t", "info": ""},
        },
        "query": [
            values(1, [{"t": "10:11:12"}]),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [{"ref": "t", "expr": "cast(t as time)"}],
            },
        ],
    }
    assert str(drillspark.run(plan, spark=spark).rows()[0]["t"]) == "10:11:12"
    spark.conf.set(key, "false")
    try:
        with pytest.raises(Exception, match=r"@2 \(project\).*cast to TIME needs .*" + key):
            drillspark.run(plan, spark=spark)
        assert spark.conf.get(key) == "false"
    finally:
        spark.conf.set(key, "true")
