"""The registry of user operators and functions."""

from __future__ import annotations

import pytest

import drillspark
from drillspark import plugins
from drillspark.operators import SingleInputOperator
from drillspark.operators.nested_filter import NestedFilter
from drillspark.operators.spark import (
    UnknownOperatorError,
    UnknownPluginFunctionError,
    function_column,
    make_operator,
)


@pytest.fixture
def clean():
    names = []
    yield names
    for name in names:
        plugins.unregister(name)


def test_decorators_are_exported_at_top_level():
    assert drillspark.operator is plugins.operator
    assert drillspark.function is plugins.function


def test_builtins_are_registered_on_first_lookup():
    assert plugins.registered_operator("NESTED-FILTER") is NestedFilter
    assert "nested-filter" in plugins.operator_names()


def test_operator_registration_is_case_insensitive_and_names_the_class(clean):
    clean.append("my-op")

    @drillspark.operator("My-Op")
    class MyOp(SingleInputOperator):
        def process(self, batch):
            return batch

    assert plugins.registered_operator("my-op") is MyOp
    assert MyOp.drill_name == "My-Op"
    assert make_operator("MY-OP", {}, op_id=2).op_id == 2
    plugins.unregister("my-op")
    assert plugins.registered_operator("my-op") is None


def test_function_registration(clean):
    clean.append("drill_twice")

    @drillspark.function("drill_Twice", kind="scalar", returns="long")
    def twice(x):
        return x

    entry = plugins.registered_function("DRILL_TWICE")
    assert (entry.name, entry.kind, entry.impl, entry.options) == (
        "drill_twice",
        "scalar",
        twice,
        {"returns": "long"},
    )
    assert "drill_twice" in plugins.function_names()


def test_bad_registrations_are_refused():
    with pytest.raises(ValueError, match="kind must be"):
        drillspark.function("f", kind="window")
    with pytest.raises(ValueError, match="style must be"):
        drillspark.function("f", style="numpy")
    with pytest.raises(ValueError, match="non-empty string"):
        drillspark.operator("")


def test_unknown_names_suggest_close_ones():
    with pytest.raises(UnknownOperatorError, match="did you mean nested-filter"):
        make_operator("nested-filtr")
    with pytest.raises(UnknownPluginFunctionError, match="no function named 'drill_nope'"):
        function_column("drill_nope", "x")


def test_a_class_that_is_not_an_operator_is_refused(clean):
    clean.append("not-an-op")
    drillspark.operator("not-an-op")(dict)
    with pytest.raises(TypeError, match="not a drillspark operator class"):
        make_operator("not-an-op")


def test_function_without_result_type_cannot_run(clean):
    clean.append("drill_untyped")
    drillspark.function("drill_untyped")(lambda x: x)
    with pytest.raises(ValueError, match="registered without `returns`"):
        function_column("drill_untyped", "x")
