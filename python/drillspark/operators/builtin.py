"""The built-in Arrow operators: run inside Spark and looked up by name in drillspark.plugins,
like user operators; importing this module registers them (drillspark/__init__.py does). Not
the logical operators of a plan: those are plan.operators.BUILTIN_OPERATORS, each with its JSON
mapping in plan/registry.py (tests/plan/test_operator_registry.py keeps the two apart)."""

from drillspark.operators.nested_filter import NestedFilter

ARROW_OPERATORS = [NestedFilter]

__all__ = ["ARROW_OPERATORS", "NestedFilter"]
