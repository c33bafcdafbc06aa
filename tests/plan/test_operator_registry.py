"""The operator set is defined once (plan.operators.BUILTIN_OPERATORS, each class with its
JSON mapping in plan.registry); every pass keyed by operator class handles each operator or
says where it is handled instead, and a class no pass knows is refused by name and @id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from drillspark.plan.explainer import DESCRIBERS, describe
from drillspark.plan.operators import BUILTIN_OPERATORS, CustomOperator, Operator
from drillspark.plan.registry import REGISTRY, UnregisteredOperator
from drillspark.plan.serialize import operator_to_json
from drillspark.plan.validate import CHECKS, GENERIC_ONLY
from drillspark.spark.translator import ELSEWHERE, HANDLERS

OPERATORS = set(BUILTIN_OPERATORS.values())
ALL = OPERATORS | {CustomOperator}


@dataclass(frozen=True, kw_only=True)
class Mystery(Operator):
    """An operator class registered nowhere."""

    OP: ClassVar[str] = "mystery"
    ROLE = "source"


def test_every_operator_has_a_reader_and_a_writer():
    # CustomOperator is read by OperatorProps.custom (name looked up in plugins) and written
    # by operator_writer.write_custom
    assert set(REGISTRY) == OPERATORS
    assert {spec.op: cls for cls, spec in REGISTRY.items()} == BUILTIN_OPERATORS


def test_every_operator_has_its_checks_or_only_the_generic_ones():
    # generic for every operator: unique @id, inputs exist and are no sink, no cycles,
    # one-name refs in today's dialect
    assert set(CHECKS) | GENERIC_ONLY == ALL
    assert not set(CHECKS) & GENERIC_ONLY


def test_every_operator_is_explained():
    # the text tree and DOT shapes are generic (op name, @id, role, input ids)
    assert set(DESCRIBERS) == ALL


def test_every_operator_is_translated_or_handled_elsewhere():
    assert set(HANDLERS) | set(ELSEWHERE) == ALL
    assert not set(HANDLERS) & set(ELSEWHERE)


def test_the_built_in_arrow_operators_are_plugins_named_apart_from_the_logical_ones():
    # two different sets: logical operator classes (above) and Arrow operators run by name
    from drillspark import plugins
    from drillspark.operators.builtin import ARROW_OPERATORS

    logical = {name.lower() for name in BUILTIN_OPERATORS} | {"sequence"}
    for cls in ARROW_OPERATORS:
        assert cls.drill_name is not None
        assert plugins.registered_operator(cls.drill_name) is cls
        assert cls.drill_name.lower() not in logical  # the parser would never reach it


def test_an_unregistered_operator_is_refused_by_name_and_id():
    op = Mystery(id=7)
    with pytest.raises(UnregisteredOperator, match=r"cannot write operator @7 \(mystery\)"):
        operator_to_json(op)
    assert describe(op) == ""  # explain still draws it, without a detail line
