"""Plugin operators in plans, and the `drillspark explain` / `drillspark validate` commands."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drillspark import plugins
from drillspark.cli.main import main
from drillspark.operators.base import BatchSource, SingleInputOperator
from drillspark.plan import CustomOperator, LogicalPlan, PlanError, Values, explain, parse, validate


class Sample:
    """A user operator whose properties must hold a fraction between 0 and 1."""

    @classmethod
    def validate_properties(cls, props: dict) -> list[str]:
        fraction = props.get("fraction")
        if not isinstance(fraction, int | float) or not 0 < fraction <= 1:
            return [f"fraction must be a number in (0, 1], not {fraction!r}"]
        return []


class Broken:
    @classmethod
    def validate_properties(cls, props: dict) -> list[str]:
        raise RuntimeError("boom")


@pytest.fixture
def registered():
    plugins.operator("sample")(Sample)
    plugins.operator("zip_all")(type("ZipAll", (), {}))
    plugins.operator("broken")(Broken)
    yield
    for name in ("sample", "zip_all", "broken"):
        plugins.unregister(name)


PLAN = """{
  query: [
    {@id: 1, op: "values", content: [{a: 1}, {a: 2}]},
    {@id: 2, op: "sample", input: 1, fraction: 0.5, seed: 7},
    {@id: 3, op: "zip_all", inputs: [1, 2], mode: "longest"},
    {@id: 4, op: "store", input: 3, storageEngine: "--SCREEN--"}
  ]
}"""


def test_plugin_operators_become_custom_nodes(registered):
    plan = parse(PLAN)
    sample = plan.node(2)
    assert sample == CustomOperator(
        id=2, op_name="sample", inputs=(1,), properties={"fraction": 0.5, "seed": 7}
    )
    assert sample.op == "sample" and sample.role == "single"
    zip_all = plan.node(3)
    assert zip_all.inputs == (1, 2) and zip_all.role == "multi" and not zip_all.single_input
    assert [op.id for op in plan.inputs_of(3)] == [1, 2]
    written = plan.to_json()
    assert written["query"][1] == {"op": "sample", "@id": 2, "input": 1, "fraction": 0.5, "seed": 7}
    assert written["query"][2] == {"op": "zip_all", "@id": 3, "inputs": [1, 2], "mode": "longest"}
    assert parse(written) == plan
    assert "sample @2: " in explain(plan, "text")


def test_plugin_validate_properties_messages_are_errors_on_the_operator(registered):
    text = PLAN.replace("fraction: 0.5", "fraction: 5").replace('"zip_all"', '"broken"')
    with pytest.raises(PlanError) as caught:
        parse(text)
    got = [(e.op_id, e.path, e.line, e.column, e.message) for e in caught.value.errors]
    assert got == [
        (2, "$.query[1]", 4, 5, "sample: fraction must be a number in (0, 1], not 5"),
        (3, "$.query[2]", 5, 5, "Broken.validate_properties failed: RuntimeError: boom"),
    ]


def test_unregistered_operator_is_unknown_with_a_suggestion(registered):
    with pytest.raises(PlanError) as caught:
        parse(PLAN.replace('"sample"', '"sampel"'))
    (err,) = caught.value.errors
    assert err.message == "unknown operator 'sampel'; did you mean 'sample'?"
    assert (err.op_id, err.path, err.line, err.column) == (2, "$.query[1].op", 4, 18)


# --- input shapes of plugin operators: the role comes from the registered class -------------------


class Thin(SingleInputOperator):
    """A runtime single-input operator: its plan node needs exactly one `input`."""


class Feed(BatchSource):
    """A runtime leaf: its plan node reads no input."""


@pytest.fixture
def runtime_registered():
    plugins.operator("thin")(Thin)
    plugins.operator("feed")(Feed)
    plugins.operator("zip_all")(type("ZipAll", (), {}))
    yield
    for name in ("thin", "feed", "zip_all"):
        plugins.unregister(name)


def shape_errors(*ops: str):
    text = (
        '{query: [\n  {@id: 1, op: "values", content: [{a: 1}]},\n  ' + ",\n  ".join(ops) + "\n]}"
    )
    with pytest.raises(PlanError) as caught:
        parse(text)
    return [(e.op_id, e.path, e.line, e.column, e.message) for e in caught.value.errors]


def test_single_input_plugin_without_input_is_an_error(runtime_registered):
    assert shape_errors('{@id: 2, op: "thin"}') == [
        (
            2,
            "$.query[1]",
            3,
            3,
            "thin: missing property 'input' (the @id of the operator it reads; "
            "thin is a single-input operator)",
        ),
    ]


def test_single_input_plugin_given_inputs_is_an_error(runtime_registered):
    assert shape_errors('{@id: 2, op: "thin", inputs: [1]}') == [
        (
            2,
            "$.query[1].inputs",
            3,
            24,
            "thin reads exactly one input, given as 'input' (one @id), not 'inputs'",
        ),
    ]


def test_input_and_inputs_together_are_an_error_not_a_silent_drop(runtime_registered):
    assert shape_errors(
        '{@id: 2, op: "thin", input: 1, inputs: [1]}',
        '{@id: 3, op: "zip_all", input: 1, inputs: [1, 2]}',
    ) == [
        (
            2,
            "$.query[1].inputs",
            3,
            34,
            "both 'input' and 'inputs' given to thin; it reads exactly one input: keep 'input' (one @id)",
        ),
        (
            3,
            "$.query[2].inputs",
            4,
            37,
            "both 'input' and 'inputs' given to zip_all; use 'input' for one @id or 'inputs' for a list",
        ),
    ]


def test_source_plugin_reads_no_input(runtime_registered):
    assert shape_errors('{@id: 2, op: "feed", input: 1}') == [
        (
            2,
            "$.query[1].input",
            3,
            24,
            "feed is a source operator: it reads no input, so 'input' is not allowed",
        ),
    ]
    plan = parse('{query: [{@id: 1, op: "feed"}, {@id: 2, op: "thin", input: 1, k: 3}]}')
    assert plan.node(1).role == "source" and plan.node(2).inputs == (1,)
    assert parse(plan.to_json()) == plan


def test_sequence_rules_know_plugin_roles(runtime_registered):
    # a single-input plugin cannot start a sequence without input
    text = '{query: [{op: "sequence", do: [{op: "thin"}, {op: "store", storageengine: "s"}]}]}'
    with pytest.raises(PlanError) as caught:
        parse(text, dialect="2013")
    assert [(e.path, e.message) for e in caught.value.errors][0] == (
        "$.query[0].do[0]",
        "the first step of a sequence without 'input' must be a source operator (scan, constant), not 'thin'",
    )


def test_validate_checks_plugin_input_shapes_of_plans_built_in_code(runtime_registered):
    values = Values(id=1, content=[{"a": 1}])
    bad = [
        CustomOperator(id=2, op_name="thin", inputs=(), properties={}),
        CustomOperator(id=3, op_name="thin", inputs=(1, 1), single_input=False),
        CustomOperator(id=4, op_name="zip_all", inputs=(1, 1), single_input=True),
        CustomOperator(id=5, op_name="feed", inputs=(1,)),
    ]
    with pytest.raises(PlanError) as caught:
        validate(LogicalPlan((values, *bad)))
    assert [(e.op_id, e.path, e.message) for e in caught.value.errors] == [
        (
            2,
            "$.query[1].input",
            "thin reads exactly one input, given as 'input' (one @id); got 0 as 'input'",
        ),
        (
            3,
            "$.query[2].inputs",
            "thin reads exactly one input, given as 'input' (one @id); got 2 as 'inputs'",
        ),
        (
            4,
            "$.query[3].input",
            "zip_all has 2 inputs but single_input=True ('input' holds one @id); "
            "use single_input=False",
        ),
        (5, "$.query[4].input", "feed is a source operator: it reads no input, got 1"),
    ]


# --- CLI --------------------------------------------------------------------------------------------


@pytest.fixture
def plan_file(logical_dir: Path) -> Path:
    return logical_dir / "drill-0.1.0" / "join" / "simple_join.json"


def test_validate_valid_plan_exits_0(plan_file, capsys):
    assert main(["validate", str(plan_file)]) == 0
    assert capsys.readouterr().out == "valid (2013 dialect, 4 operators)\n"


def test_validate_invalid_plan_exits_2_and_prints_every_error(tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text(
        '{query: [\n  {@id: 1, op: "scan", storageengine: "x"},\n  {@id: 2, op: "filter", input: 1, expr: "a >"}\n]}'
    )
    assert main(["validate", str(f)]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"{f}:2:39: @id 1 $.query[0].storageengine: unknown storage engine 'x' (defined in storage: none)",
        f"{f}:3:46: @id 2 $.query[1].expr: expression syntax error at column 4: unexpected end of expression in 'a >'",
    ]
    assert captured.err == "2 errors\n"


def test_explain_formats(plan_file, capsys):
    assert main(["explain", str(plan_file)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        'store @4: queue {"number":0}',
        "  join @3: INNER on employees.deptId == departments.deptId",
        '    left: scan @1: cp {"path":"/join/employees.json","type":"JSON"} as employees',
        '    right: scan @2: cp {"path":"/join/departments.json","type":"JSON"} as departments',
    ]
    assert main(["explain", str(plan_file), "--format", "json"]) == 0
    assert parse(capsys.readouterr().out) == parse(plan_file)
    assert main(["explain", str(plan_file), "--format", "dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph logical_plan {")
    assert 'op1 -> op3 [label="left"];' in dot and 'op2 -> op3 [label="right"];' in dot
    assert "op3 -> op4;" in dot


def test_explain_svg_uses_dot_or_says_how_to_get_it(plan_file, capsys, tmp_path):
    out = tmp_path / "plan.svg"
    code = main(["explain", str(plan_file), "--format", "svg", "-o", str(out)])
    captured = capsys.readouterr()
    if shutil.which("dot"):
        assert code == 0 and "<svg" in out.read_text()
    else:
        assert code == 1 and not out.exists()
        assert "apt-get install graphviz" in captured.err


def test_explain_invalid_plan_exits_2(tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text('{query: [{@id: 1, op: "nope"}]}')
    assert main(["explain", str(f)]) == 2
    assert "unknown operator 'nope'" in capsys.readouterr().err


def test_text_tree_shows_shared_inputs_once():
    plan = parse(
        '{query: [{@id: 1, op: "values", content: [{a: 1}]},'
        ' {@id: 2, op: "union", inputs: [1, 1], distinct: true},'
        ' {@id: 3, op: "store", input: 2}]}'
    )
    assert explain(plan, "text").splitlines() == [
        "store @3: (result)",
        "  union @2: distinct",
        "    values @1: 1 record(s)",
        "    values @1 (see above)",
    ]
