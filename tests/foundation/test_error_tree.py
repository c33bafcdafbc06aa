"""One error root: every exception class drillspark defines is a `drillspark.Error`, and a
failing plan's error says which operator failed as attributes, not only in its text."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import drillspark
from drillspark.errors import ExecutionError, PlanFailure, UsageError
from drillspark.sql.errors import SqlError

# Private control-flow signals, never raised to a caller: they stay outside the tree so an
# `except drillspark.Error` cannot swallow them.
CONTROL_FLOW = {
    "drillspark.plan.operator_reader.Stop",
    "drillspark.operators.base._InputStopped",
    "drillspark.operators.testing._KitFailure",
}
# Ctrl-C, reported: a KeyboardInterrupt, so neither `except drillspark.Error` nor
# `except Exception` swallows the user's interrupt.
INTERRUPTS = {"drillspark.result.QueryInterrupted"}


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(drillspark.__path__, "drillspark."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                cls.__module__ == info.name
                and issubclass(cls, BaseException)
                and not issubclass(cls, Warning)
            ):
                found.append(cls)
    return found


def test_every_exception_class_is_a_drillspark_error():
    classes = _exception_classes()
    assert len(classes) > 30  # the walk found the package's modules
    outside = [
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if not issubclass(c, drillspark.Error)
        and f"{c.__module__}.{c.__qualname__}" not in CONTROL_FLOW | INTERRUPTS
    ]
    assert outside == []


def test_every_error_belongs_to_one_family():
    families = (PlanFailure, SqlError, ExecutionError, UsageError)
    for cls in _exception_classes():
        if issubclass(cls, drillspark.Error) and cls not in (*families, drillspark.Error):
            assert sum(issubclass(cls, f) for f in families) <= 1, cls
            if cls.__name__ != "IntervalError":  # a SQL literal's error, turned into a SqlError
                assert any(issubclass(cls, f) for f in families), cls


def test_error_names_are_defined_once():
    names: dict[str, str] = {}
    for cls in _exception_classes():
        where = f"{cls.__module__}.{cls.__qualname__}"
        assert cls.__name__ not in names, f"{where} and {names[cls.__name__]}"
        names[cls.__name__] = where


def test_builtin_bases_are_kept():
    from drillspark.plan import PlanError
    from drillspark.spark.rel import PlanExecutionError

    assert issubclass(PlanError, ValueError) and issubclass(PlanError, PlanFailure)
    assert issubclass(PlanExecutionError, RuntimeError)


HEAD = {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "test", "info": ""}}
ROWS = [{"name": "ann", "pay": 10}]


def _run(spark, query):
    return drillspark.run({"head": HEAD, "storage": {}, "query": query}, spark=spark)


def test_a_failing_expression_carries_operator_and_property(spark):
    with pytest.raises(drillspark.Error) as caught:
        _run(
            spark,
            [
                {"@id": 1, "op": "values", "content": ROWS},
                {
                    "@id": 2,
                    "op": "project",
                    "input": 1,
                    "projections": [
                        {"ref": "x", "expr": "name"},
                        {"ref": "y", "expr": "sbustr(name, 1)"},
                    ],
                },
            ],
        )
    err = caught.value
    assert isinstance(err, ExecutionError)
    assert (err.op_id, err.op, err.property) == (2, "project", "projections[1].expr")
    assert err.detail.startswith("unknown function 'sbustr'")
    assert str(err).startswith("operator @2 (project) projections[1].expr")


def test_a_failing_operator_carries_its_id(spark):
    with pytest.raises(ExecutionError) as caught:
        _run(
            spark,
            [
                {"@id": 1, "op": "values", "content": ROWS},
                {"@id": 2, "op": "values", "content": [{"other": 1}]},
                {"@id": 7, "op": "intersect", "inputs": [1, 2]},
            ],
        )
    err = caught.value
    assert (err.op_id, err.op, err.property) == (7, "intersect", None)
    assert str(err) == f"operator @7 (intersect): {err.detail}"
    assert err.detail.startswith("input 2 has other fields than input 1")
