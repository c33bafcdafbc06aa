"""Every real Drill logical plan file parses and round-trips, or is refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drillspark.plan import BUILTIN_OPERATORS, Constant, PlanError, parse
from drillspark.plan.operators import OPERATORS_2013

# Plans Drill itself cannot read any more, with the exact problems reported.
REFUSED = {
    "head/common/src/test/resources/dsort-logical.json": [
        (None, "$.head.type", 2, 19, "head.type 'apache_drill_logical_plan' is not a plan type"),
        (None, "$.query[0]", 4, 13, "sequence: missing property 'do'"),
        (
            None,
            "$.query[0].sequence",
            4,
            33,
            "unknown property 'sequence' of sequence; the steps of a sequence go in 'do'",
        ),
    ],
    "head/common/src/test/resources/simple_plan.json": [
        (None, "$.head.type", 3, 12, "head.type 'apache_drill_logical_plan' is not a plan type"),
        (None, "$.storage[0]", 11, 5, 'needs a "name"'),
        (1, "$.query[0].storageengine", 40, 23, "unknown storage engine 'local-logs'"),
        (14, "$.query[6]", 124, 5, "store: missing property 'storageengine'"),
    ],
    "head/exec/java-exec/src/test/resources/logical_group.json": [
        (3, "$.query[2]", 43, 6, "segment: missing property 'ref'"),
        (
            3,
            "$.query[2].name",
            48,
            5,
            "unknown property 'name' of segment; the segment key name goes in 'ref'",
        ),
        (6, "$.query[5].storageEngine", 89, 23, "unknown storage engine 'queue'"),
    ],
    "head/exec/java-exec/src/test/resources/logical_json_scan.json": [
        (
            1,
            "$.query[0].files",
            22,
            5,
            "unknown property 'files' of scan; the files go in 'selection'",
        ),
        (2, "$.query[1].storageEngine", 33, 23, "unknown storage engine 'queue'"),
    ],
    "head/exec/java-exec/src/test/resources/logical_order.json": [
        (
            4,
            "$.query[3].storageEngine",
            56,
            23,
            "unknown storage engine 'queue' (defined in storage: 'parquet-local')",
        ),
    ],
    "head/exec/java-exec/src/test/resources/logical_string_filter.json": [
        (4, "$.query[3].storageEngine", 51, 23, "unknown storage engine 'queue'"),
    ],
}
DATA_FILES = {"donuts.json", "employees.json", "departments.json"}


def plan_files(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*.json") if p.name not in DATA_FILES
    )


def test_every_plan_file_is_covered(logical_dir: Path, shared: Path):
    files = plan_files(logical_dir)
    assert len(files) == 24
    cases = [json.loads(line) for line in (shared / "conformance" / "logical_cases.jsonl").open()]
    listed = {c["plan"].split("logical/", 1)[1] for c in cases}
    assert listed <= set(files)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_stale_head_plans_are_refused_with_the_reason(logical_dir: Path, name: str):
    with pytest.raises(PlanError) as caught:
        parse(logical_dir / name)
    got = [(e.op_id, e.path, e.line, e.column, e.message) for e in caught.value.errors]
    want = REFUSED[name]
    assert len(got) == len(want), got
    for (op_id, path, line, col, msg), expected in zip(got, want, strict=True):
        assert (op_id, path, line, col) == expected[:4]
        assert expected[4] in msg
    assert all(e.file == str(logical_dir / name) for e in caught.value.errors)


def test_all_other_plans_parse_and_round_trip(logical_dir: Path):
    parsed = 0
    for name in plan_files(logical_dir):
        if name in REFUSED:
            continue
        plan = parse(logical_dir / name)
        written = plan.to_json()
        assert parse(written) == plan, name
        assert parse(json.dumps(written, indent=1)) == plan, name
        assert_todays_shape(plan, written, name)
        parsed += 1
    assert parsed == 18


# 2013-only operators without a counterpart today: written as drillspark extensions
EXTENSIONS = {"segment", "windowframe", "collapsingaggregate"}
TODAYS_NAMES = set(BUILTIN_OPERATORS) - OPERATORS_2013


def refs_in(op: dict) -> list:
    out = []
    for key in ("projections", "transforms", "aggregations", "keys", "exprs", "withins"):
        out += [item["ref"] for item in op.get(key) or () if isinstance(item, dict)]
    keys = {
        "segment": ("ref",),
        "scan": ("ref",),
        "collapsingaggregate": ("within", "target"),
        "flatten": ("name",),
    }
    for key in keys.get(op["op"], ()) + ("within",):
        if op.get(key) is not None:
            out.append(op[key])
    if op["op"] == "windowframe":
        out += [op["ref"]["segment"], op["ref"]["position"]]
    return out + list(op.get("carryovers") or ())


def assert_todays_shape(plan, written: dict, name: str) -> None:
    """The written JSON is today's format: today's names and keys wherever Drill has the
    thing, extensions only for what it has not, the dialect option only for 2013 plans."""
    ops = written["query"]
    assert [op["@id"] for op in ops] == [op.id for op in plan.operators], name
    for op, node in zip(ops, plan.operators, strict=True):
        assert op["op"] in TODAYS_NAMES | EXTENSIONS, (name, op["op"])
        assert op["op"] == ("values" if isinstance(node, Constant) else node.op), name
        assert "nullCollation" not in json.dumps(op), name
        if op["op"] == "store":
            assert "storageengine" not in op, name
        if "input" in op:
            assert isinstance(op["input"], int), name
        for ref in refs_in(op):
            # one-name refs are today's backquoted names; only 2013 plans keep dotted paths
            assert ref.startswith("`") or (plan.dialect == "2013" and "." in ref), (name, ref)
    options = written["head"].get("options") or {}
    assert (options.get("drillspark.dialect") == "2013") == (plan.dialect == "2013"), name
