"""Filtering nested values (docs/running-plans.md, Filtering nested values) with the Arrow `nested-filter` operator."""

from __future__ import annotations

import datetime as dt
import json
import random

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from drillspark.operators import OperatorPropertyError, run_fragment
from drillspark.operators.nested_filter import NestedFilter


def run(rows_or_batch, schema=None, **props):
    b = (
        rows_or_batch
        if isinstance(rows_or_batch, pa.RecordBatch)
        else pa.RecordBatch.from_pylist(rows_or_batch, schema=schema)
    )
    out = list(run_fragment([b], [NestedFilter(**props)]))
    return [row for part in out for row in part.to_pylist()]


# ---- the rule's worked example (docs) ----------------------------------------------------------
APPENDIX_INPUT = [
    {"a": {"b": 1, "x": 5}, "c": 1},
    {"a": [{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}], "c": 2},
    {"a": {"b": 2, "x": [1, 2, 3, 4, 5]}, "c": 3},
    {"a": {"b": 3, "x": [1, 2]}, "c": 4},
]
# The worked example's result (the design notes strike out the parts that go).
APPENDIX_OUTPUT = [
    {"a": {"b": 1, "x": 5}, "c": 1},
    {"a": [{"q": 3, "x": 5}], "c": 2},
    {"a": {"b": 2, "x": [4, 5]}, "c": 3},
]


def test_appendix_worked_example_over_json_text():
    # `a` is a map in some records and an array in others: the scan keeps such a column as
    # JSON text (its typeConflict=json default), which the operator parses and rewrites.
    rows = [{"a": json.dumps(r["a"]), "c": r["c"]} for r in APPENDIX_INPUT]
    out = run(rows, path="a.x", relationship=">", value=3)
    assert [{"a": json.loads(r["a"]), "c": r["c"]} for r in out] == APPENDIX_OUTPUT


def test_appendix_untouched_values_keep_their_text():
    text = '{"b": 1,   "x": 5}'
    out = run([{"a": text, "c": 1}], path="a.x", relationship=">", value=3)
    assert out == [{"a": text, "c": 1}]


def test_appendix_nested_arrays_keep_their_nesting_typed():
    schema = pa.schema([("a", pa.list_(pa.list_(pa.struct([("x", pa.int64())]))))])
    out = run(
        [{"a": [[{"x": 1}, {"x": 4}], [{"x": 5}]]}], schema, path="a.x", relationship=">", value=3
    )
    assert out == [{"a": [[{"x": 4}], [{"x": 5}]]}]


def test_appendix_nested_arrays_keep_their_nesting_json():
    out = run([{"a": '[[{"x":1},{"x":4}],[{"x":5}]]'}], path="a.x", relationship=">", value=3)
    assert json.loads(out[0]["a"]) == [[{"x": 4}], [{"x": 5}]]


def test_appendix_rows_with_a_typed_map_and_an_array_leaf():
    schema = pa.schema(
        [("a", pa.struct([("b", pa.int64()), ("x", pa.list_(pa.int64()))])), ("c", pa.int64())]
    )
    rows = [
        {"a": {"b": 2, "x": [1, 2, 3, 4, 5]}, "c": 3},
        {"a": {"b": 3, "x": [1, 2]}, "c": 4},
    ]
    assert run(rows, schema, path="a.x", relationship=">", value=3) == [
        {"a": {"b": 2, "x": [4, 5]}, "c": 3}
    ]


def test_appendix_array_of_maps_typed_one_level_too_deep_does_not_match():
    element = pa.struct(
        [
            ("b", pa.int64()),
            ("z", pa.struct([("x", pa.int64())])),
            ("q", pa.int64()),
            ("x", pa.int64()),
        ]
    )
    schema = pa.schema([("a", pa.list_(element)), ("c", pa.int64())])
    rows = [{"a": [{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}], "c": 2}]
    out = run(rows, schema, path="a.x", relationship=">", value=3)
    assert out == [{"a": [{"b": None, "z": None, "q": 3, "x": 5}], "c": 2}]


# ---- more cases, expected values worked out by hand ---------------------------------------
def test_siblings_of_the_path_stay_whole():
    rows = [{"a": [{"q": [1, 2], "x": 5}, {"q": [3], "x": 1}], "c": "keep"}]
    assert run(rows, path="a.x", relationship=">", value=3) == [
        {"a": [{"q": [1, 2], "x": 5}], "c": "keep"}
    ]


def test_three_levels_with_arrays_at_two():
    rows = [
        {"a": [{"b": [{"c": 1}, {"c": 7}]}, {"b": [{"c": 2}]}]},
        {"a": [{"b": [{"c": 3}]}]},
        {"a": [{"b": []}, {"b": None}, None]},
    ]
    assert run(rows, path="a.b.c", relationship=">", value=5) == [{"a": [{"b": [{"c": 7}]}]}]


def test_nulls_and_missing_values_never_pass():
    schema = pa.schema([("a", pa.list_(pa.struct([("x", pa.int64())])))])
    rows = [{"a": None}, {"a": []}, {"a": [None, {"x": None}]}, {"a": [{"x": 9}, None]}]
    assert run(rows, schema, path="a.x", relationship=">", value=3) == [{"a": [{"x": 9}]}]


def test_null_struct_parent_is_not_kept():
    schema = pa.schema([("a", pa.struct([("x", pa.int64())])), ("i", pa.int64())])
    rows = [{"a": None, "i": 1}, {"a": {"x": 4}, "i": 2}, {"a": {"x": 1}, "i": 3}]
    assert run(rows, schema, path="a.x", relationship=">=", value=4) == [{"a": {"x": 4}, "i": 2}]


def test_missing_field_or_column_keeps_nothing():
    rows = [{"a": {"x": 5}}]
    assert run(rows, path="a.y", relationship=">", value=3) == []
    assert run(rows, path="nope.x", relationship=">", value=3) == []


def test_scalar_where_the_path_goes_on_is_not_kept():
    assert run([{"a": 5}], path="a.x", relationship=">", value=3) == []


def test_names_match_case_insensitively():
    rows = [{"A": [{"X": 1}, {"X": 8}]}]
    assert run(rows, path="a.x", relationship="==", value=8) == [{"A": [{"X": 8}]}]


def test_backquoted_name_with_a_dot_is_one_name():
    rows = [{"a.b": [{"x": 1}, {"x": 8}]}]
    assert run(rows, path="`a.b`.x", relationship="!=", value=1) == [{"a.b": [{"x": 8}]}]


def test_large_lists_and_strings():
    schema = pa.schema([("a", pa.large_list(pa.struct([("s", pa.large_string())])))])
    rows = [{"a": [{"s": "apple"}, {"s": "pear"}]}, {"a": [{"s": "fig"}]}]
    assert run(rows, schema, path="a.s", relationship=">", value="g") == [{"a": [{"s": "pear"}]}]


def test_timestamp_literal_is_cast_to_the_column_type():
    ts = pa.timestamp("us", tz="UTC")
    schema = pa.schema([("e", pa.list_(pa.struct([("t", ts)])))])
    early = dt.datetime(2019, 5, 1, tzinfo=dt.UTC)
    late = dt.datetime(2021, 5, 1, tzinfo=dt.UTC)
    out = run(
        [{"e": [{"t": early}, {"t": late}]}],
        schema,
        path="e.t",
        relationship=">",
        value="2020-01-01",
    )
    assert out == [{"e": [{"t": late}]}]


def test_vectorized_predicate():
    rows = [{"a": [{"x": 1}, {"x": 2}, {"x": 3}, {"x": 4}]}]
    out = run(rows, path=["a", "x"], predicate=lambda v: pc.equal(pc.bit_wise_and(v, 1), 0))
    assert out == [{"a": [{"x": 2}, {"x": 4}]}]


def test_a_predicate_over_json_text_is_called_once_per_batch_on_arrow_arrays():
    calls = []

    def even(values):
        calls.append(values)
        return pc.equal(pc.bit_wise_and(values, 1), 0)

    rows = [
        {"a": json.dumps([{"x": 1}, {"x": 2}, {"x": [4, 5]}]), "c": 1},
        {"a": json.dumps({"x": 3}), "c": 2},
        {"a": None, "c": 3},
        {"a": json.dumps({"x": {"deeper": 6}, "y": 8}), "c": 4},  # a map at the leaf: no test
        {"a": json.dumps([{"x": 6}, {"z": 0}]), "c": 5},
    ]
    out = run(rows, path="a.x", predicate=even)
    assert [(r["c"], json.loads(r["a"])) for r in out] == [
        (1, [{"x": 2}, {"x": [4]}]),
        (5, [{"x": 6}]),
    ]
    assert len(calls) == 1  # one call for the batch, not one per value
    assert isinstance(calls[0], pa.Array)
    assert calls[0].to_pylist() == [1, 2, 4, 5, 3, 6]  # every leaf, in document order


def test_a_predicate_over_mixed_json_scalars_gets_one_array_per_kind():
    seen = []

    def long_or_big(values):
        seen.append(values.type)
        if pa.types.is_boolean(values.type):
            return pc.invert(values)  # True fails, False would pass
        if pa.types.is_string(values.type):
            return pc.greater(pc.utf8_length(values), 2)
        return pc.greater(values, 10)

    rows = [
        {"a": json.dumps([{"x": 5}, {"x": "abc"}, {"x": 11.5}, {"x": "z"}, {"x": True}])},
        {"a": json.dumps({"x": "ab"})},
    ]
    out = run(rows, path="a.x", predicate=long_or_big)
    assert [json.loads(r["a"]) for r in out] == [[{"x": "abc"}, {"x": 11.5}]]
    # 5 and 11.5 share one double array; the strings one; the boolean one.
    assert sorted(str(t) for t in seen) == ["bool", "double", "string"]


def test_sliced_input_is_handled():
    b = pa.RecordBatch.from_pylist([{"a": [{"x": i}, {"x": i + 10}]} for i in range(10)])
    out = run(b.slice(3, 4), path="a.x", relationship="<", value=6)
    assert out == [{"a": [{"x": 3}]}, {"a": [{"x": 4}]}, {"a": [{"x": 5}]}]


# ---- against an independent reference on random nested data -------------------------------
def reference(value, path, test):
    """The rule written directly from its text (docs/running-plans.md), on Python values."""
    if isinstance(value, list):
        kept = [r for r in (reference(e, path, test) for e in value) if r is not None]
        return kept or None
    if not path:
        return value if value is not None and not isinstance(value, dict) and test(value) else None
    if not isinstance(value, dict) or value.get(path[0]) is None:
        return None
    child = reference(value[path[0]], path[1:], test)
    return None if child is None else {**value, path[0]: child}


def test_random_nested_data_matches_the_reference():
    rng = random.Random(7)
    inner = pa.struct([("x", pa.int64()), ("y", pa.string())])
    schema = pa.schema(
        [
            ("id", pa.int64()),
            ("a", pa.list_(pa.struct([("b", pa.list_(inner)), ("k", pa.int64())]))),
        ]
    )

    def maybe(make, p=0.1):
        return None if rng.random() < p else make()

    def element():
        return {
            "b": maybe(
                lambda: [
                    maybe(lambda: {"x": maybe(lambda: rng.randint(0, 9)), "y": "s"})
                    for _ in range(rng.randint(0, 3))
                ]
            ),
            "k": 1,
        }

    rows = [
        {"id": i, "a": maybe(lambda: [maybe(element) for _ in range(rng.randint(0, 3))])}
        for i in range(2000)
    ]
    b = pa.RecordBatch.from_pylist(rows, schema=schema)
    got = run(b.slice(17), path="a.b.x", relationship=">", value=6)
    expected = []
    for row in b.slice(17).to_pylist():
        kept = reference(row, ("a", "b", "x"), lambda v: v > 6)
        if kept is not None:
            expected.append(kept)
    assert got == expected
    assert 100 < len(expected) < 1900  # the data exercises both outcomes


# ---- properties and schema-time checks ----------------------------------------------------
@pytest.mark.parametrize(
    "props, message",
    [
        ({"relationship": ">", "value": 3}, "missing property 'path'"),
        ({"path": "a.x", "value": 3}, "missing property 'relationship' (or 'predicate')"),
        (
            {"path": "a.x", "relationship": "=>", "value": 3},
            "property 'relationship' must be one of",
        ),
        ({"path": "a.x", "relationship": ">"}, "missing property 'value'"),
        ({"path": "a.x", "relationship": ">", "value": [3]}, "must be a scalar literal"),
        ({"path": "a..x", "relationship": ">", "value": 3}, "empty name at column 3"),
        (
            {"path": "a.x", "relationship": ">", "value": 3, "colour": "red"},
            "unknown property 'colour'",
        ),
        ({"path": "a.x", "relationship": ">", "value": 3, "predicate": len}, "not both"),
    ],
)
def test_bad_properties_are_listed(props, message):
    assert any(message in e for e in NestedFilter.validate_properties(props))
    with pytest.raises(OperatorPropertyError, match="nested-filter"):
        NestedFilter(props)


def test_schema_time_refuses_an_impossible_comparison():
    schema = pa.schema([("a", pa.list_(pa.struct([("x", pa.string())])))])
    with pytest.raises(ValueError, match=r"cannot compare a\.x \(string\) > 3"):
        NestedFilter(path="a.x", relationship=">", value=3).output_schema(schema)


def test_schema_time_refuses_a_path_ending_at_a_map():
    schema = pa.schema([("a", pa.struct([("x", pa.struct([("y", pa.int64())]))]))])
    with pytest.raises(ValueError, match=r"a\.x is a map"):
        NestedFilter(path="a.x", relationship=">", value=3).output_schema(schema)


def test_schema_time_keeps_the_input_schema():
    schema = pa.schema([("a", pa.list_(pa.struct([("x", pa.int64())]))), ("c", pa.string())])
    assert NestedFilter(path="a.x", relationship=">", value=3).output_schema(schema) == schema


# The conformance kit runs on this operator in test_kit.py (test_every_builtin_operator_conforms).
