"""LogicalPlan helpers, plans built in code, to_json, dialect detection, relaxed JSON."""

from __future__ import annotations

import json

import pytest

from drillspark.plan import (
    FieldPath,
    Filter,
    Join,
    LateralJoin,
    LogicalPlan,
    NamedExpression,
    PlanError,
    PlanWarning,
    Project,
    Scan,
    SemiJoin,
    StorageConfig,
    Store,
    Unnest,
    Values,
    detect_dialect,
    parse,
    parse_expression,
    to_text,
    validate,
)
from drillspark.plan.relaxed_json import loads

# Operators listed out of order, one without @id: the plan is still a DAG in topological order.
TEXT = """{
  "head": {"type": "APACHE_DRILL_LOGICAL", "version": "1"},
  "storage": {"dfs": {"type": "named", "name": "dfs"}},
  "query": [
    {"op": "store", "@id": 6, "input": 5, "storageEngine": "--SCREEN--"},
    {"op": "join", "@id": 5, "left": 2, "right": "4", "type": "INNER",
     "conditions": [{"relationship": "==", "left": "`a.b`", "right": "x[0].y"}]},
    {"op": "filter", "@id": "2", "input": 1, "expr": "a > 1"},
    {"op": "scan", "@id": 1, "storageengine": "dfs", "selection": {"files": ["/x.json"]}},
    {"op": "values", "@id": 3, "content": [{"x": [{"y": 1}]}]},
    {"op": "project", "@id": 4, "input": 3, "projections": [{"ref": "output.deptId", "expr": "x"}]},
    {"op": "store", "input": 2, "target": null}
  ]
}"""


def test_plan_helpers():
    plan = parse(TEXT)
    assert plan.dialect == "drill"
    ids = [op.id for op in plan.operators]
    assert ids == [1, 2, 3, 4, 5, 6, 7]  # topological, ties in source order; store got @id 7
    assert plan.node(5).left == 2 and plan.node(5).right == 4
    assert [op.id for op in plan.inputs_of(5)] == [2, 4]
    assert [op.id for op in plan.inputs_of(plan.node(4))] == [3]
    assert [op.id for op in plan.consumers_of(2)] == [5, 7]
    assert [op.id for op in plan.sources()] == [1, 3]
    assert [op.id for op in plan.sinks()] == [6, 7]
    assert [op.id for op in plan.roots()] == [6, 7]
    assert plan.storage == {"dfs": StorageConfig("named", {"name": "dfs"})}
    assert plan.node(6).storage_engine == "--SCREEN--" and plan.node(7).storage_engine is None
    assert plan.source.explicit_ids == frozenset({1, 2, 3, 4, 5, 6})
    with pytest.raises(KeyError, match="no operator with @id 99"):
        plan.node(99)
    # today's refs are single names; expressions are parsed
    assert plan.node(4).projections[0].ref == FieldPath(("output.deptId",))
    assert plan.node(5).conditions[0].left == FieldPath(("a.b",))
    assert plan.node(5).conditions[0].right == FieldPath(("x", 0, "y"))


def test_to_json_is_todays_dialect_and_round_trips():
    plan = parse(TEXT)
    written = plan.to_json()
    assert [op["@id"] for op in written["query"]] == [1, 2, 3, 4, 5, 6, 7]
    assert written["query"][3]["projections"] == [{"ref": "`output.deptId`", "expr": "x"}]
    assert written["query"][4]["conditions"][0] == {
        "relationship": "==",
        "left": "`a.b`",
        "right": "x[0].y",
    }
    assert written["query"][1]["expr"] == "(a > 1)"
    assert parse(written) == plan
    assert parse(plan.to_json_text()) == plan
    assert json.loads(plan.to_json_text()) == written


def test_an_empty_memo_is_written_and_read_back():
    # an empty memo was dropped by to_json and read back as no memo (found by
    # tests/fuzz/test_plan_fuzz.py): the plan read back is the same plan
    plan = LogicalPlan(
        (
            Store(id=2, input=1, memo="", storage_engine="--SCREEN--"),
            Values(id=1, memo=None, content=[{"a": 1}]),
        )
    )
    written = {op["@id"]: op for op in plan.to_json()["query"]}
    assert written[2]["memo"] == "" and "memo" not in written[1]
    assert parse(plan.to_json()) == plan
    assert parse(plan.to_json_text()) == plan


def test_plan_built_in_code_validates_and_serializes():
    a = FieldPath.name("a")
    plan = LogicalPlan(
        (
            Store(id=3, input=2, storage_engine="--SCREEN--"),
            Filter(id=2, input=1, expr=parse_expression("a > 1")),
            Values(id=1, content=[{"a": 1}, {"a": 2}]),
        ),
    )
    assert [op.id for op in plan.operators] == [1, 2, 3]
    assert validate(plan) is plan
    assert parse(plan.to_json()) == plan
    bad = LogicalPlan(
        (
            Values(id=1, content=[{"a": 1}]),
            Project(id=2, input=1, projections=(NamedExpression(FieldPath.of("a", "b"), a),)),
            Scan(id=4, storage_engine="nowhere"),
            Join(id=5, left=1, right=9, type="INNER"),
        )
    )
    with pytest.raises(PlanError) as caught:
        validate(bad)
    got = [(e.op_id, e.path, e.line, e.message) for e in caught.value.errors]
    assert got == [
        (
            2,
            "$.query[1].projections[0].ref",
            None,
            "ref 'a.b' has 2 segments; in today's dialect a ref is one name (nested refs exist only in 2013 plans)",
        ),
        (
            4,
            "$.query[2].storageengine",
            None,
            "unknown storage engine 'nowhere' (defined in storage: none)",
        ),
        (5, "$.query[3].right", None, "input 9 is not the @id of any operator (known: 1, 2, 4, 5)"),
    ]


def test_replace_operator_keeps_the_rest():
    plan = parse(TEXT)
    new = plan.replace_operator(Filter(id=2, input=1, expr=parse_expression("a < 0")))
    assert new.node(2).expr == parse_expression("a < 0")
    assert new.node(5) == plan.node(5) and new != plan


def test_validate_false_skips_graph_checks_but_not_syntax():
    text = '{query: [{@id: 1, op: "filter", input: 5, expr: "a"}]}'
    with pytest.raises(PlanError):
        parse(text)
    plan = parse(text, validate=False)
    assert plan.node(1).input == 5
    with pytest.raises(PlanError):
        parse('{query: [{@id: 1, op: "filter", input: 5, expr: "a +"}]}', validate=False)


@pytest.mark.parametrize(
    "plan, dialect",
    [
        ({"query": [{"op": "scan", "storageengine": "x"}]}, "drill"),
        ({"query": [{"op": "scan", "storageengine": "x", "ref": "d"}]}, "2013"),
        ({"query": [{"op": "scan", "storageengine": "x", "ref": None}]}, "drill"),
        ({"storage": [], "query": []}, "2013"),
        ({"query": [{"op": "sequence", "do": []}]}, "2013"),
        ({"query": [{"op": "join", "type": "outer"}]}, "2013"),
        (
            {"query": [{"op": "order", "orderings": [{"expr": "a", "nullCollation": "first"}]}]},
            "2013",
        ),
        ({"head": {"options": {"drillspark.dialect": "2013"}}, "query": []}, "2013"),
        ({"op": "constant", "content": []}, "2013"),
        ({"query": 5}, "drill"),  # not a list: parse says so, detection must not fail first
        ({"query": [{"op": "values"}, {"op": "segment"}, {"op": "constant"}]}, "2013"),
        ({"query": [{"op": "values"}, {"op": "window"}, {"op": "segment"}]}, "drill"),
        ({"query": [{"op": "window"}, {"op": "segment"}]}, "drill"),  # a tie: today's
        ({"query": [{"op": "sequence", "do": [{"op": "values"}, {"op": "window"}]}]}, "2013"),
    ],
)
def test_dialect_detection(plan, dialect):
    assert detect_dialect(plan) == dialect


def test_a_2013_plan_is_written_in_todays_format_with_documented_extensions():
    plan = parse("""{
  storage: [{name: "cp", type: "classpath"}],
  query: [
    {@id: 1, op: "constant", content: [{a: {b: 1}}]},
    {@id: 2, op: "project", input: 1, projections: [{ref: "output.x", expr: "a.b"}]},
    {@id: 3, op: "segment", input: 2, ref: "s", exprs: ["x"]},
    {@id: 4, op: "order", input: 3, orderings: [{order: "desc", expr: "x", nullCollation: "last"}]},
    {@id: 5, op: "join", left: 4, right: 1, type: "outer",
     conditions: [{relationship: "==", left: "x", right: "a.b"}]},
    {@id: 6, op: "store", input: 5, storageengine: "cp", target: {t: 1}, partition: {p: 1}}
  ]
}""")
    assert plan.dialect == "2013"
    assert plan.node(2).projections[0].ref == FieldPath(("output", "x"))
    written = plan.to_json()
    assert written["head"]["options"] == {"drillspark.dialect": "2013"}
    assert written["storage"] == {"cp": {"type": "classpath"}}
    assert written["query"] == [
        # constant -> today's values
        {"op": "values", "@id": 1, "content": [{"a": {"b": 1}}]},
        # a multi-segment 2013 ref stays a dotted path (extension; the head option says so)
        {
            "op": "project",
            "@id": 2,
            "input": 1,
            "projections": [{"ref": "output.x", "expr": "a.b"}],
        },
        # no counterpart today: kept as an extension operator; its one-name ref is today's
        {"op": "segment", "@id": 3, "input": 2, "ref": "`s`", "exprs": ["x"]},
        # nullCollation last -> nullDirection LAST
        {
            "op": "order",
            "@id": 4,
            "input": 3,
            "orderings": [{"order": "DESC", "expr": "x", "nullDirection": "LAST"}],
        },
        # outer -> FULL
        {
            "op": "join",
            "@id": 5,
            "left": 4,
            "right": 1,
            "type": "FULL",
            "conditions": [{"relationship": "==", "left": "x", "right": "a.b"}],
        },
        # storageEngine as today's Drill writes it; partition is an extension
        {
            "op": "store",
            "@id": 6,
            "input": 5,
            "storageEngine": "cp",
            "target": {"t": 1},
            "partition": {"p": 1},
        },
    ]
    again = parse(written)
    assert again == plan and again.dialect == "2013" and "options" not in again.head
    assert parse(json.dumps(written)) == plan


def test_2013_orderings_take_one_null_key():
    with pytest.raises(PlanError) as caught:
        parse(
            '{head: {options: {"drillspark.dialect": "2013"}}, query: [{@id: 1, op: "constant", '
            'content: [{}]}, {@id: 2, op: "order", input: 1, orderings: [{expr: "a", '
            'nullCollation: "last", nullDirection: "LAST"}]}]}'
        )
    (err,) = caught.value.errors
    assert (err.op_id, err.path) == (2, "$.query[1].orderings[0].nullDirection")
    assert err.message == "both 'nullCollation' and 'nullDirection' given; use one"


def test_relaxed_json_positions_and_comments():
    doc = loads('// leading\n{ a: 1, /* note */ "b" : [true, {c: "x\\"y"}] }')
    assert doc.value == {"a": 1, "b": [True, {"c": 'x"y'}]}
    assert (doc.positions[("a",)].line, doc.positions[("a",)].column) == (2, 6)
    assert (doc.key_positions[("b",)].line, doc.key_positions[("b",)].column) == (2, 20)
    c = doc.positions[("b", 1, "c")]
    assert (c.line, c.column) == (2, 37)
    # offset 2 of the decoded 'x"y' is 'y', after the two-character escape
    loc = doc.location_in_string(("b", 1, "c"), 2)
    assert (loc.line, loc.column) == (2, 41)


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("{a: 'x'}", 1, 5, "single-quoted strings are not JSON (Drill's plan reader rejects them)"),
        ('{"a": 1,, }', 1, 9, "expected a field name"),
        ("{\n  a: 1\n  b: 2}", 3, 3, "expected ',' or '}' in object"),
        ('{a: "open', 1, 5, "unterminated string"),
        ("{a: 1} x", 1, 8, "unexpected 'x' after the end of the JSON value"),
        ("{a: 1 /* x", 1, 7, "unterminated /* comment"),
    ],
)
def test_json_syntax_errors_name_line_and_column(text, line, column, message):
    with pytest.raises(PlanError) as caught:
        parse(text)
    (err,) = caught.value.errors
    assert (err.line, err.column) == (line, column)
    assert err.message == f"JSON syntax error: {message}"


def test_plan_file_errors_name_the_file(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(
        '{query: [{@id: 1, op: "values", content: [{a: 1}]},\n {@id: 2, op: "limt", input: 1}]}'
    )
    with pytest.raises(PlanError) as caught:
        parse(f)
    (err,) = caught.value.errors
    assert (
        str(err) == f"{f}:2:15: @id 2 $.query[1].op: unknown operator 'limt'; did you mean 'limit'?"
    )
    with pytest.raises(PlanError, match="cannot read plan file"):
        parse(tmp_path / "missing.json")


def test_lateral_join_unnest_and_semi_join():
    plan = parse(
        '{query: [{@id: 1, op: "scan", storageengine: "dfs", selection: {}},'
        ' {@id: 2, op: "unnest", column: "orders.items[0]"},'
        ' {@id: 3, op: "lateral-join", left: 1, right: 2},'
        ' {@id: 4, op: "semi-join", left: 3, right: 1, type: "inner",'
        '  conditions: [{relationship: "==", left: "a", right: "b"}]},'
        ' {@id: 5, op: "store", input: 4}], storage: {dfs: {type: "file"}}}'
    )
    assert plan.node(2) == Unnest(id=2, column=FieldPath(("orders", "items", 0)))
    assert plan.node(3) == LateralJoin(id=3, left=1, right=2)
    assert isinstance(plan.node(4), SemiJoin) and isinstance(plan.node(4), Join)
    assert [op.id for op in plan.inputs_of(3)] == [1, 2]
    assert [op.id for op in plan.sources()] == [1, 2]
    assert parse(plan.to_json()) == plan


def test_repeated_field_names_last_wins_with_a_warning():
    # Jackson (Drill's plan reader) accepts a repeated name and keeps the last value.
    text = """{
  query: [
    {@id: 1, op: "values", content: [{a: 1}], content: [{a: 2}, {a: 3}]},
    {@id: 2, op: "filter", input: 1, expr: "a > 1",
     expr: "a > 2"}
  ]
}"""
    with pytest.warns(PlanWarning) as caught:
        plan = parse(text, file="dup.json")
    assert plan.node(1).content == [{"a": 2}, {"a": 3}]
    assert to_text(plan.node(2).expr) == "(a > 2)"
    notes = [(w.path, w.line, w.column, w.message) for w in plan.warnings]
    assert notes == [
        (
            "$.query[0].content",
            3,
            47,
            "duplicate field 'content' (first at line 3, column 28); the last value wins, as in Drill",
        ),
        (
            "$.query[1].expr",
            5,
            6,
            "duplicate field 'expr' (first at line 4, column 38); the last value wins, as in Drill",
        ),
    ]
    assert [str(w.message) for w in caught] == [str(n) for n in plan.warnings]
    assert str(plan.warnings[0]).startswith("dup.json:3:47: $.query[0].content: duplicate field")


def test_repeated_field_errors_point_at_the_value_that_won():
    # The first value was an object with nested positions; the error must name the last one.
    text = """{
  query: [
    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "project", input: 1, projections: [{ref: "x", expr: "a"}],
     projections: [{ref: "x", expr: "a +"}]}
  ]
}"""
    with pytest.warns(PlanWarning), pytest.raises(PlanError) as caught:
        parse(text)
    (err,) = caught.value.errors
    assert (err.op_id, err.path, err.line) == (2, "$.query[1].projections[0].expr", 5)


MIXED = """{
  query: [
    {@id: 1, op: "values", content: [{a: 1, b: 2}]},
    {@id: 2, op: "segment", input: 1, ref: "s", exprs: ["a"]},
    {@id: 3, op: "groupingaggregate", input: 2, keys: [{ref: "a", expr: "a"}],
     exprs: [{ref: "n", expr: "count(b)"}]},
    {@id: 4, op: "order", input: 3,
     orderings: [{expr: "a", order: "ASC", nullDirection: "LAST"}]},
    {@id: 5, op: "scan", storageengine: "cp", selection: {}, ref: "d"},
    {@id: 6, op: "store", input: 4, storageEngine: "--SCREEN--"}
  ]
}"""


def test_a_stray_2013_operator_in_a_todays_plan_is_blamed_not_the_plan():
    # Not forced: detection sees today's values/groupingaggregate/nullDirection (3) against
    # 2013's segment and scan ref (2), so the plan is today's and only the strays are errors.
    with pytest.raises(PlanError) as caught:
        parse(MIXED)
    rest = "values @1, groupingaggregate @3, order @4"
    assert [(e.op_id, e.path, e.line, e.column, e.message) for e in caught.value.errors] == [
        (
            2,
            "$.query[1].op",
            4,
            18,
            "plan mixes dialects: operator 'segment' is 2013-only, but the rest "
            f"of the plan uses today's dialect ({rest}); today's plans use 'groupingaggregate'",
        ),
        (
            5,
            "$.query[4].ref",
            9,
            62,
            "plan mixes dialects: scan 'ref' is 2013-only, but the rest "
            f"of the plan uses today's dialect ({rest})",
        ),
    ]
    assert detect_dialect(parse_relaxed(MIXED)) == "drill"


def test_a_stray_todays_operator_in_a_2013_plan_is_blamed():
    text = """{
  storage: [{name: "cp", type: "classpath"}],
  query: [
    {@id: 1, op: "constant", content: [{a: 1}]},
    {@id: 2, op: "window", input: 1, aggregations: [{ref: "n", expr: "count(a)"}]},
    {@id: 3, op: "segment", input: 1, ref: "s", exprs: ["a"]}
  ]
}"""
    with pytest.raises(PlanError) as caught:
        parse(text)
    assert [(e.op_id, e.path, e.line, e.column, e.message) for e in caught.value.errors] == [
        (
            2,
            "$.query[1].op",
            5,
            18,
            "plan mixes dialects: operator 'window' is only in today's Drill, "
            "but the rest of the plan uses the 2013 dialect (storage, constant @1, segment @3)",
        ),
    ]
    assert detect_dialect(parse_relaxed(text)) == "2013"


def parse_relaxed(text: str):
    return loads(text).value
