"""The 2013 logical-plan document's examples (docs/logical-plans.md): operators, sequences and
the nested filter (docs/running-plans.md, Filtering nested values)."""

from __future__ import annotations

import json

import pytest

from drillspark.plan import (
    CollapsingAggregate,
    Constant,
    FieldPath,
    Filter,
    Flatten,
    FrameRef,
    FunctionCall,
    Join,
    JoinCondition,
    Limit,
    Literal,
    NamedExpression,
    Order,
    Ordering,
    PlanError,
    Project,
    RunningAggregate,
    Scan,
    Segment,
    Store,
    Transform,
    Union,
    WindowFrame,
    parse,
    parse_expression,
)


def p(*segments):
    return FieldPath(tuple(segments))


def test_constant_example_as_printed_is_not_json_and_fixed_parses():
    # The seed writes `content: { [ ... ] }` (an object holding a bare array): not JSON.
    printed = '{ @id: 1, op: "constant", content: { [ { c1: 1, c2: "iamastr" } ] } }'
    with pytest.raises(PlanError) as caught:
        parse(printed)
    (err,) = caught.value.errors
    assert (err.line, err.column) == (1, 38)
    assert printed[err.column - 1] == "["
    assert err.message == "JSON syntax error: expected a field name"
    plan = parse('{ @id: 1, op: "constant", content: [ { c1: 1, c2: "iamastr" } ] }')
    assert plan.operators == (Constant(id=1, content=[{"c1": 1, "c2": "iamastr"}]),)
    assert plan.dialect == "2013"


# Every operator of the seed in one 2013 plan, written the way the seed writes them.
SEED_PLAN = """{
  head: {type: "APACHE_DRILL_LOGICAL", version: 1, generator: {type: "manual", info: "na"}},
  storage: {
    donuts: {type: "classpath"},   // the engines clause
    out: {type: "console"}
  },
  query: [
    {@id: 1, op: "scan", storageengine: "donuts", selection: {path: "/donuts.json"}, ref: "donuts"},
    {@id: 2, op: "scan", storageengine: "donuts", selection: {path: "/sales.json"}, ref: "purchases"},
    {@id: 3, op: "join", left: 1, right: 2, type: "left",
      conditions: [{relationship: "==", left: "donuts.id", right: "purchases.donut_id"}]},
    {@id: 4, op: "union", distinct: false, inputs: [1, 2]},
    {@id: 5, op: "project", input: 3, projections: [{ref: "output", expr: "sum(donuts.sales)"}]},
    /* a sequence: each step reads the previous one; its @id names the last step */
    {@id: 20, op: "sequence", input: 4, do: [
      {op: "filter", expr: "donuts.ppu > 3"},
      {op: "transform", transforms: [{ref: "donuts.total", expr: "donuts.ppu * donuts.sales"}]},
      {op: "order", within: "donuts.kind",
        orderings: [{order: "desc", expr: "donuts.ppu", nullCollation: "last"}]},
      {op: "limit", first: 0, last: 1},
      {op: "segment", ref: "seg", exprs: ["donuts.kind"]},
      {op: "windowframe", within: "seg", start: -2, end: 0,
        ref: {segment: "w.segment", position: "w.position"}},
      {op: "collapsingaggregate", within: "seg", target: "donuts.best",
        carryovers: ["donuts.kind"], aggregations: [{ref: "donuts.n", expr: "count(1)"}]},
      {op: "runningaggregate", within: "seg",
        aggregations: [{ref: "donuts.running", expr: "sum(donuts.n)"}]},
      {op: "flatten", ref: "donuts.topping", expr: "donuts.toppings", drop: true}
    ]},
    {@id: 21, op: "store", input: 20, storageengine: "out", target: {pipe: "STD_OUT"}},
    {@id: 22, op: "store", input: 5, storageengine: "out", target: {pipe: "STD_OUT"}}
  ]
}"""


def test_every_seed_operator_parses_into_the_model():
    plan = parse(SEED_PLAN)
    assert plan.dialect == "2013"
    assert plan.node(1) == Scan(
        id=1, storage_engine="donuts", selection={"path": "/donuts.json"}, ref=p("donuts")
    )
    assert plan.node(3) == Join(
        id=3,
        left=1,
        right=2,
        type="LEFT",
        conditions=(JoinCondition("==", p("donuts", "id"), p("purchases", "donut_id")),),
    )
    assert plan.node(4) == Union(id=4, inputs=(1, 2), distinct=False)
    # the seed's project example: {ref: "output", expr: "sum(donuts.sales)"}
    assert plan.node(5) == Project(
        id=5,
        input=3,
        projections=(NamedExpression(p("output"), FunctionCall("sum", (p("donuts", "sales"),))),),
    )
    steps = [op for op in plan.operators if op.id not in (1, 2, 3, 4, 5, 21, 22)]
    assert [type(op) for op in steps] == [
        Filter,
        Transform,
        Order,
        Limit,
        Segment,
        WindowFrame,
        CollapsingAggregate,
        RunningAggregate,
        Flatten,
    ]
    # steps are chained, the first reads the sequence's input, the last carries its @id
    assert steps[0].input == 4
    assert all(b.input == a.id for a, b in zip(steps, steps[1:], strict=False))
    assert steps[-1].id == 20
    assert plan.node(21).input == 20
    assert steps[2] == Order(
        id=steps[2].id,
        input=steps[1].id,
        within=p("donuts", "kind"),
        orderings=(Ordering(p("donuts", "ppu"), "DESC", "LAST"),),
    )
    assert steps[3] == Limit(id=steps[3].id, input=steps[2].id, first=0, last=1)
    assert steps[5] == WindowFrame(
        id=steps[5].id,
        input=steps[4].id,
        within=p("seg"),
        start=-2,
        end=0,
        ref=FrameRef(p("w", "segment"), p("w", "position")),
    )
    assert steps[6].target == p("donuts", "best") and steps[6].carryovers == (p("donuts", "kind"),)
    assert steps[8] == Flatten(
        id=20,
        input=steps[7].id,
        name=p("donuts", "topping"),
        expr=p("donuts", "toppings"),
        drop=True,
    )
    assert {s.id for s in plan.sinks()} == {21, 22}
    assert all(isinstance(s, Store) for s in plan.sinks())
    # round trip through today's JSON (sequence expanded, ids explicit)
    written = plan.to_json()
    assert [op["op"] for op in written["query"]].count("sequence") == 0
    # today's keys where Drill has them (nullDirection, store storageEngine)
    stores = [op for op in written["query"] if op["op"] == "store"]
    assert [op.get("storageEngine") for op in stores] == ["out", "out"]
    assert all("storageengine" not in op for op in stores)
    assert "nullCollation" not in json.dumps(written)
    (order,) = [op for op in written["query"] if op["op"] == "order"]
    assert order["orderings"][0]["nullDirection"] == "LAST"
    assert parse(written) == plan


def test_windowframe_range_follows_the_example_not_the_sentence():
    # The seed's sentence says start >= end, but its example is start -2, end 0.
    ok = SEED_PLAN
    bad = SEED_PLAN.replace("start: -2, end: 0", "start: 0, end: -2")
    assert parse(ok)
    with pytest.raises(PlanError) as caught:
        parse(bad)
    (err,) = caught.value.errors
    assert err.path == "$.query[5].do[5].start"
    assert err.line == 22 and bad.split("\n")[21][err.column - 1 :].startswith("0, end: -2")


def test_constant_defaults_and_nulls_first_default_of_2013_orderings():
    plan = parse(SEED_PLAN.replace(', nullCollation: "last"', ""))
    order = next(op for op in plan.operators if isinstance(op, Order))
    assert order.orderings[0].null_direction == "FIRST"  # the seed's default
    today = parse(
        '{query: [{@id: 1, op: "values", content: [{a: 1}]},'
        ' {@id: 2, op: "order", input: 1, orderings: [{order: "DESC", expr: "a"}]}]}'
    )
    ordering = today.node(2).orderings[0]
    assert ordering.null_direction == "UNSPECIFIED" and ordering.nulls_first  # nulls sort high


def test_appendix_a_filter_expression():
    assert parse_expression("a.x > 3") == FunctionCall(
        "greater_than", (p("a", "x"), Literal(3, "INT"))
    )
