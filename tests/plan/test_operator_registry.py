"""The operator set is defined once (plan.operators.BUILTIN_OPERATORS); every pass keyed by
operator class handles each operator or says where it is handled instead."""

from __future__ import annotations

from drillspark.plan.operator_reader import _BUILDERS
from drillspark.plan.operators import BUILTIN_OPERATORS, CustomOperator
from drillspark.spark.translator import ELSEWHERE, HANDLERS

OPERATORS = set(BUILTIN_OPERATORS.values())


def test_every_operator_has_a_builder():
    assert set(_BUILDERS) == OPERATORS


def test_every_operator_is_translated_or_handled_elsewhere():
    assert set(HANDLERS) | set(ELSEWHERE) == OPERATORS | {CustomOperator}
    assert not set(HANDLERS) & set(ELSEWHERE)
