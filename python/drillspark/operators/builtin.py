"""The built-in Python operators; importing this module registers them by name."""

from drillspark.operators.nested_filter import NestedFilter

BUILTIN_OPERATORS = [NestedFilter]

__all__ = ["BUILTIN_OPERATORS", "NestedFilter"]
