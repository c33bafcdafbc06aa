"""The operator set is defined once (plan.operators.BUILTIN_OPERATORS, each class with its
JSON mapping in plan.registry); every pass keyed by operator class handles each operator or
says where it is handled instead."""

from __future__ import annotations

from drillspark.plan.operators import BUILTIN_OPERATORS, CustomOperator
from drillspark.plan.registry import REGISTRY
from drillspark.spark.translator import ELSEWHERE, HANDLERS

OPERATORS = set(BUILTIN_OPERATORS.values())


def test_every_operator_has_a_reader_and_a_writer():
    assert set(REGISTRY) == OPERATORS
    assert {spec.op: cls for cls, spec in REGISTRY.items()} == BUILTIN_OPERATORS


def test_every_operator_is_translated_or_handled_elsewhere():
    assert set(HANDLERS) | set(ELSEWHERE) == OPERATORS | {CustomOperator}
    assert not set(HANDLERS) & set(ELSEWHERE)
