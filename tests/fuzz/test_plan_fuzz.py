"""Fuzzing the plan reader and validator (`drillspark.plan.parse`): plans built from every
registered operator, real plans mutated as JSON trees and as text, raw text and bytes. Each
input is read as text and (when it is JSON) as a dict; only PlanErrors may come out, and a
plan that is read explains and round-trips (tests/fuzz/checks.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz import checks, inputs
from tests.fuzz.conftest import long, short

from drillspark.plan.registry import SPECS


def both_ways(value) -> None:
    checks.plan_source(value)
    checks.plan_source(json.dumps(value))


def test_every_registered_operator_has_examples_to_build_plans_from():
    templates = inputs.operator_templates()
    assert set(templates) == {s.op for s in SPECS}
    assert all(templates.values()), [op for op, found in templates.items() if not found]


@short(150)
@given(inputs.generated_plans())
def test_generated_plans(plan):
    both_ways(plan)


@short(150)
@given(inputs.mutated_plan_trees())
def test_mutated_real_plans(plan):
    both_ways(plan)


@short(200)
@given(inputs.mutated_text(inputs.plan_texts(), inputs.JSON_PIECES))
def test_mutated_plan_text(text):
    checks.plan_source(text)


@short(100)
@given(
    st.one_of(
        st.text(),
        st.text().map(lambda t: "{" + t),
        st.binary(),
        st.binary().map(lambda b: b"{" + b),
    )
)
def test_raw_text_and_bytes(source):
    checks.plan_source(source)


@pytest.mark.fuzz
@long(3000)
@given(inputs.generated_plans())
def test_generated_plans_long(plan):
    both_ways(plan)


@pytest.mark.fuzz
@long(3000)
@given(inputs.mutated_plan_trees())
def test_mutated_real_plans_long(plan):
    both_ways(plan)


@pytest.mark.fuzz
@long(5000)
@given(inputs.mutated_text(inputs.plan_texts(), inputs.JSON_PIECES))
def test_mutated_plan_text_long(text):
    checks.plan_source(text)


@pytest.mark.fuzz
@long(2000)
@given(
    st.one_of(
        st.text(),
        st.text().map(lambda t: "{" + t),
        st.binary(),
        st.binary().map(lambda b: b"{" + b),
    )
)
def test_raw_text_and_bytes_long(source):
    checks.plan_source(source)
