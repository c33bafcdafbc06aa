"""Filtering nested values (docs/running-plans.md, Filtering nested values), with the rule's worked examples.

A Spark column has one type, so records whose `a` is a map in one and an array in another
cannot share a DataFrame: each shape of the example runs as its own stream (records 3 and 4
share a shape and run together). Maps compare with "absent member == null member"."""

from __future__ import annotations

from typing import Any

from .conftest import values


def strip_nulls(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: strip_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [strip_nulls(x) for x in v]
    return v


def _filter(run_plan, rows, expr="a.x > 3"):
    r = run_plan(
        [values(1, rows, "constant"), {"@id": 2, "op": "filter", "input": 1, "expr": expr}]
    )
    return [strip_nulls(x) for x in r.rows()]


def test_record_1_map_with_matching_scalar_is_kept_whole(run_plan):
    assert _filter(run_plan, [{"a": {"b": 1, "x": 5}, "c": 1}]) == [{"a": {"b": 1, "x": 5}, "c": 1}]


def test_record_2_array_keeps_only_matching_elements(run_plan):
    rows = [{"a": [{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}], "c": 2}]
    # {b:1} has no x; {z:{x:4}} has x one level too deep; {q:3, x:5} matches and keeps q
    assert _filter(run_plan, rows) == [{"a": [{"q": 3, "x": 5}], "c": 2}]


def test_records_3_and_4_scalar_arrays_are_pruned_and_empty_ones_drop_the_record(run_plan):
    rows = [{"a": {"b": 2, "x": [1, 2, 3, 4, 5]}, "c": 3}, {"a": {"b": 3, "x": [1, 2]}, "c": 4}]
    assert _filter(run_plan, rows) == [{"a": {"b": 2, "x": [4, 5]}, "c": 3}]


def test_nested_arrays_keep_their_nesting(run_plan):
    rows = [{"a": [[{"x": 1}, {"x": 4}], [{"x": 5}]]}]
    assert _filter(run_plan, rows) == [{"a": [[{"x": 4}], [{"x": 5}]]}]


def test_inner_arrays_with_no_match_disappear_and_compound_predicates(run_plan):
    rows = [{"a": [[{"x": 1}], [{"x": 4}, {"x": 9}]], "k": 1}, {"a": [[{"x": 2}]], "k": 2}]
    assert _filter(run_plan, rows, "a.x > 3 and a.x < 5") == [{"a": [[{"x": 4}]], "k": 1}]
