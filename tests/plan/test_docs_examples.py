"""Every operator example in docs/logical-plans.md is a real, readable operator."""

from __future__ import annotations

import re
from pathlib import Path

from drillspark import plugins
from drillspark.plan import BUILTIN_OPERATORS, PlanError, parse

DOC = Path(__file__).resolve().parents[2] / "docs" / "logical-plans.md"


def examples() -> list[str]:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    return [b for b in blocks if '"op"' in b]


def read(block: str):
    try:
        return parse(block, validate=False)
    except PlanError:
        # a 2013 step written without input: read it as the second step of a sequence
        seq = '{"op": "sequence", "do": [{"op": "constant", "content": [{}]}, ' + block + "]}"
        return parse(seq, validate=False)


def test_every_documented_operator_example_parses():
    plugins.operator("sample")(type("Sample", (), {}))  # the plugin example's operator
    try:
        seen = set()
        for block in examples():
            plan = read(block)
            seen.update(op.op for op in plan.operators)
    finally:
        plugins.unregister("sample")
    assert seen >= set(BUILTIN_OPERATORS)
    assert "sample" in seen
