"""Fuzzing the plan expression parser (`parse_expression`, both dialects): expressions from
the grammar and mutations of them; only ExpressionErrors may come out, and an expression
that is read prints as text that reads back the same tree."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz import checks, inputs
from tests.fuzz.conftest import long, short

DIALECTS = st.sampled_from(["drill", "2013"])


@short(300)
@given(inputs.expressions(), DIALECTS)
def test_generated_expressions(text, dialect):
    checks.expression(text, dialect)


@short(300)
@given(inputs.mutated_expressions(), DIALECTS)
def test_mutated_expressions(text, dialect):
    checks.expression(text, dialect)


@short(100)
@given(st.text(), DIALECTS)
def test_raw_text(text, dialect):
    checks.expression(text, dialect)


@pytest.mark.fuzz
@long(10000)
@given(inputs.expressions(), DIALECTS)
def test_generated_expressions_long(text, dialect):
    checks.expression(text, dialect)


@pytest.mark.fuzz
@long(10000)
@given(inputs.mutated_expressions(), DIALECTS)
def test_mutated_expressions_long(text, dialect):
    checks.expression(text, dialect)
