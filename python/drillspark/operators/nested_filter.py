"""Filtering nested values (the rule: docs/running-plans.md, Filtering nested values),
vectorized over Arrow.

A record is kept when the value at the path satisfies the test somewhere; on the way:

* a map (struct) is kept whole when its child on the path is kept; that child is filtered
  the same way, the other children stay as they are;
* an array (list) is kept when at least one element is kept, and only the kept elements
  stay, each filtered the same way; arrays may appear anywhere on the path, nested too, so
  `a.x > 3` over `{a:[[{x:1},{x:4}],[{x:5}]]}` gives `{a:[[{x:4}],[{x:5}]]}`;
* a scalar where the path wants a map, a map where it wants a scalar, a missing field and
  a null are not kept.

Typed columns (structs and lists at any depth) are pruned with Arrow kernels and offset
arithmetic, never per row in Python. A string column met where the path goes on is taken
as JSON text (how the scan keeps values whose type conflicts, e.g. a map in one record and
an array in another, as in the rule's worked example); such values are parsed, pruned
and written back as JSON text, value by value. A user `predicate` is still called on Arrow
arrays there: the leaf values of the whole batch are collected first and tested in one call
(one per kind of JSON scalar present: numbers, strings, booleans).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from drillspark.names import fold
from drillspark.operators.base import SingleInputOperator
from drillspark.operators.paths import PathError, field_index, format_path, parse_path
from drillspark.plugins import operator

_COMPARE: dict[str, Callable[..., Any]] = {
    ">": pc.greater,
    ">=": pc.greater_equal,
    "<": pc.less,
    "<=": pc.less_equal,
    "==": pc.equal,
    "=": pc.equal,
    "!=": pc.not_equal,
    "<>": pc.not_equal,
}
_PY_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b,
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<>": lambda a, b: a != b,
}


class LeafTest:
    """The test applied where the path ends: `<leaf> <op> <value>`, or any vectorized
    `predicate(pa.Array) -> boolean array`. Nulls never pass."""

    def __init__(self, op: str | None, value: Any, predicate: Callable[[pa.Array], Any] | None):
        self.op = op
        self.value = value
        self.predicate = predicate

    def literal_for(self, type_: pa.DataType) -> Any:
        value = self.value
        is_temporal = pa.types.is_temporal(type_)
        if not (isinstance(value, str) and is_temporal):
            return value
        tz = getattr(type_, "tz", None)
        if not tz:
            return pa.scalar(value).cast(type_)
        try:
            return pa.scalar(value).cast(type_)  # the text carries its own offset
        except pa.ArrowInvalid:  # a local time: read it in the column's time zone
            naive = pa.array([value]).cast(pa.timestamp(type_.unit))
            return pc.assume_timezone(naive, tz)[0]

    def mask(self, values: pa.Array) -> np.ndarray:
        if self.predicate is not None:
            result = self.predicate(values)
        else:
            assert self.op is not None
            result = _COMPARE[self.op](values, self.literal_for(values.type))
        return _to_mask(result, len(values))

    def check_type(self, type_: pa.DataType, where: str) -> str | None:
        """An error message when the leaf type cannot be tested (schema time)."""
        if self.predicate is not None:
            return None
        try:
            self.mask(pa.array([], type=type_))
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
            return f"cannot compare {where} ({type_}) {self.op} {self.value!r}: {exc}"
        return None

    def python(self, value: Any) -> bool:
        """The same test on one parsed JSON value (relationship form only: a predicate is
        run on all leaves of a batch at once, see `answered`)."""
        if value is None or isinstance(value, (dict, list)):
            return False
        assert self.op is not None, "predicate tests run per batch (LeafTest.answered)"
        literal = self.value
        numeric = (int, float)
        if isinstance(value, bool) or isinstance(literal, bool):
            if not (isinstance(value, bool) and isinstance(literal, bool)):
                return False
        elif isinstance(value, numeric) != isinstance(literal, numeric) or (
            isinstance(value, float) and math.isnan(value)
        ):
            return False
        try:
            return bool(_PY_COMPARE[self.op](value, literal))
        except TypeError:
            return False

    def answered(self, leaves: list[Any]) -> _Answers:
        """The predicate run once over `leaves` (the testable JSON scalars of a batch, in the
        order `prune_value` visits them), as a test that hands the answers out in that order.
        JSON scalars of different kinds cannot share an Arrow array, so each kind present
        (number, string, boolean) is one vectorized call."""
        assert self.predicate is not None
        answers = np.zeros(len(leaves), dtype=bool)
        groups: dict[str, list[int]] = {}
        for i, value in enumerate(leaves):
            groups.setdefault(_json_kind(value), []).append(i)
        for indices in groups.values():
            values = pa.array([leaves[i] for i in indices])
            answers[indices] = _to_mask(self.predicate(values), len(indices))
        return _Answers(answers)


class _Answers:
    """A leaf test whose answers were computed beforehand, handed out in visiting order."""

    def __init__(self, answers: np.ndarray):
        self._next = iter(answers.tolist()).__next__

    def python(self, value: Any) -> bool:
        if value is None or isinstance(value, (dict, list)):
            return False  # not a testable leaf: never collected (see collect_leaves)
        return self._next()


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, (int, float)) else type(value).__name__


def _to_mask(result: Any, length: int) -> np.ndarray:
    if isinstance(result, pa.ChunkedArray):
        result = result.combine_chunks()
    if isinstance(result, pa.Array):
        result = pc.fill_null(result, False).to_numpy(zero_copy_only=False)
    mask = np.asarray(result, dtype=bool)
    if mask.shape != (length,):
        raise ValueError(f"predicate returned {mask.shape[0]} values for {length} inputs")
    return mask


def _is_variant(type_: pa.DataType) -> bool:
    """Spark's VARIANT in Arrow: struct<value: binary, metadata: binary>, the metadata field
    tagged `variant: true` (pyspark.sql.pandas.types.to_arrow_type)."""
    if not pa.types.is_struct(type_) or type_.num_fields != 2:
        return False
    index = type_.get_field_index("metadata")
    return index >= 0 and (type_.field(index).metadata or {}).get(b"variant") == b"true"


def _is_list(type_: pa.DataType) -> bool:
    return pa.types.is_list(type_) or pa.types.is_large_list(type_)


class NestedPruner:
    """The nested-filter rule over Arrow arrays for one path and leaf test."""

    def __init__(self, path: tuple[str, ...], test: LeafTest, json_text: bool | None = None):
        self.path = path
        self.test = test
        self.json_text = json_text  # None: strings are JSON text only where the path goes on

    # ---- schema time ---------------------------------------------------------------------
    def check(self, schema: pa.Schema) -> list[str]:
        """Problems with applying the path to `schema` (empty when it applies)."""
        index = field_index(schema, self.path[0])
        if index is None:
            return []  # a missing column is null: no record passes (Drill's rule)
        return self._check_field(schema.field(index), 1)

    def _check_field(self, field: pa.Field, depth: int) -> list[str]:
        type_ = field.type
        rest = self.path[depth:]
        where = format_path(self.path[:depth])
        if _is_variant(type_):
            return [
                f"{where} is a VARIANT; the nested filter reads conflicting values as JSON "
                f"text: give it to_json({where}) (or read with typeConflict=json)"
            ]
        if _is_list(type_):
            return self._check_field(type_.value_field, depth)
        if self._is_json(type_, bool(rest)):
            return []
        if pa.types.is_fixed_size_list(type_) or pa.types.is_map(type_):
            return [f"{where} is {type_}, which the nested filter cannot cross"]
        if pa.types.is_struct(type_):
            if not rest:
                return [f"{where} is a map ({type_}); the path must end at a scalar"]
            index = field_index(type_, rest[0])
            return [] if index is None else self._check_field(type_.field(index), depth + 1)
        if rest:
            return []  # a scalar where the path goes on: never kept, not an error
        problem = self.test.check_type(type_, where)
        return [problem] if problem else []

    def _is_json(self, type_: pa.DataType, path_goes_on: bool) -> bool:
        if not (pa.types.is_string(type_) or pa.types.is_large_string(type_)):
            return False
        return path_goes_on if self.json_text is None else self.json_text

    # ---- read time -----------------------------------------------------------------------
    def filter_batch(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        index = field_index(batch.schema, self.path[0])
        if index is None:
            return batch.slice(0, 0)
        keep, pruned = self.prune(batch.column(index), 1)
        columns = list(batch.columns)
        columns[index] = pruned
        rebuilt = pa.RecordBatch.from_arrays(columns, schema=batch.schema)
        if keep.all():
            return rebuilt
        return rebuilt.filter(pa.array(keep))

    def prune(self, arr: pa.Array, depth: int) -> tuple[np.ndarray, pa.Array]:
        """(kept mask, array with kept children pruned) for values reached after
        `depth` names of the path."""
        type_ = arr.type
        rest = self.path[depth:]
        if _is_list(type_):
            return self._prune_list(arr, depth)
        if self._is_json(type_, bool(rest)):
            return self._prune_json(arr, depth)
        if pa.types.is_struct(type_) and rest:
            return self._prune_struct(arr, depth)
        if rest or pa.types.is_struct(type_) or pa.types.is_nested(type_):
            return np.zeros(len(arr), dtype=bool), arr
        return self.test.mask(arr), arr

    def _prune_list(self, arr: pa.Array, depth: int) -> tuple[np.ndarray, pa.Array]:
        values = arr.flatten()  # honours the slice offset and skips null lists' contents
        counts = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
        child_keep, child = self.prune(values, depth)
        bounds = np.zeros(len(arr) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        kept_before = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(child_keep, out=kept_before[1:])
        kept = kept_before[bounds[1:]] - kept_before[bounds[:-1]]
        offset_type = np.int64 if pa.types.is_large_list(arr.type) else np.int32
        offsets = np.zeros(len(arr) + 1, dtype=offset_type)
        np.cumsum(kept, out=offsets[1:])
        new_values = child if child_keep.all() else child.filter(pa.array(child_keep))
        array_class = pa.LargeListArray if pa.types.is_large_list(arr.type) else pa.ListArray
        rebuilt = array_class.from_arrays(
            pa.array(offsets),
            new_values,
            type=arr.type,
            mask=arr.is_null() if arr.null_count else None,
        )
        return kept > 0, rebuilt

    def _prune_struct(self, arr: pa.StructArray, depth: int) -> tuple[np.ndarray, pa.Array]:
        index = field_index(arr.type, self.path[depth])
        if index is None:
            return np.zeros(len(arr), dtype=bool), arr
        children = arr.flatten()  # honours the slice offset and the struct's own nulls
        child_keep, children[index] = self.prune(children[index], depth + 1)
        keep = child_keep & arr.is_valid().to_numpy(zero_copy_only=False)
        rebuilt = pa.StructArray.from_arrays(
            children, fields=list(arr.type), mask=arr.is_null() if arr.null_count else None
        )
        return keep, rebuilt

    def _prune_json(self, arr: pa.Array, depth: int) -> tuple[np.ndarray, pa.Array]:
        rest = self.path[depth:]
        texts = arr.to_pylist()
        values = [_parse(text) for text in texts]
        test: LeafTest | _Answers = self.test
        if self.test.predicate is not None:  # one vectorized call for the whole batch
            leaves: list[Any] = []
            for text, value in zip(texts, values, strict=True):
                if text is not None:
                    collect_leaves(value, rest, leaves)
            test = self.test.answered(leaves)
        keep = np.zeros(len(arr), dtype=bool)
        out: list[str | None] = []
        for i, (text, value) in enumerate(zip(texts, values, strict=True)):
            if text is None:
                out.append(None)
                continue
            ok, pruned = prune_value(value, rest, test)
            keep[i] = ok
            out.append(text if pruned is value else json.dumps(pruned, separators=(",", ":")))
        return keep, pa.array(out, type=arr.type)


def _parse(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text  # not JSON: a plain string


def collect_leaves(value: Any, path: tuple[str, ...], out: list[Any]) -> None:
    """Append to `out` the values `prune_value(value, path, test)` would test, in the order
    it tests them (it visits every element of every array, so nothing is skipped)."""
    if isinstance(value, list):
        for element in value:
            collect_leaves(element, path, out)
    elif not path:
        if value is not None and not isinstance(value, dict):
            out.append(value)
    elif isinstance(value, dict):
        key = _dict_key(value, path[0])
        if key is not None:
            collect_leaves(value[key], path[1:], out)


def prune_value(value: Any, path: tuple[str, ...], test: LeafTest | _Answers) -> tuple[bool, Any]:
    """The nested-filter rule on one parsed JSON value; returns (kept, pruned value), the pruned
    value being `value` itself when nothing under it was removed."""
    if isinstance(value, list):
        kept = []
        changed = False
        for element in value:
            ok, pruned = prune_value(element, path, test)
            if ok:
                kept.append(pruned)
                changed = changed or pruned is not element
            else:
                changed = True
        return bool(kept), (kept if changed else value)
    if not path:
        return test.python(value), value
    if not isinstance(value, dict):
        return False, value
    key = _dict_key(value, path[0])
    if key is None:
        return False, value
    ok, pruned = prune_value(value[key], path[1:], test)
    if not ok:
        return False, value
    if pruned is value[key]:
        return True, value
    return True, {**value, key: pruned}


def _dict_key(value: Mapping[str, Any], name: str) -> str | None:
    if name in value:
        return name
    key = fold(name)
    return next((k for k in value if fold(k) == key), None)


@operator("nested-filter")
class NestedFilter(SingleInputOperator):
    """Keep records, and elements of arrays on the path, whose value at `path` passes the
    test (docs/running-plans.md, Filtering nested values).

    Properties: `path` ("a.x" or ["a", "x"]); `relationship` (one of > >= < <= == = != <>,
    named as in Drill's join conditions, since `op` names the operator in a plan node) and
    `value` (a JSON literal), or `predicate` (Python only: a vectorized function from a
    pyarrow array of leaf values to booleans); `json_text` (optional: true = every string
    on the path is JSON text, false = never, default = only where the path goes on).
    """

    @classmethod
    def validate_properties(cls, props: Mapping[str, Any]) -> list[str]:
        errors: list[str] = []
        known = {"path", "relationship", "value", "predicate", "json_text"}
        errors += [f"unknown property '{k}'" for k in sorted(set(props) - known)]
        if "path" not in props:
            errors.append("missing property 'path'")
        else:
            try:
                parse_path(props["path"])
            except (PathError, TypeError) as exc:
                errors.append(f"property 'path': {exc}")
        has_predicate = props.get("predicate") is not None
        if has_predicate:
            if not callable(props["predicate"]):
                errors.append("property 'predicate' must be callable")
            if "relationship" in props or "value" in props:
                errors.append("give either 'predicate' or 'relationship' and 'value', not both")
        else:
            op = props.get("relationship")
            if op is None:
                errors.append("missing property 'relationship' (or 'predicate')")
            elif op not in _COMPARE:
                errors.append(
                    f"property 'relationship' must be one of {' '.join(_COMPARE)}, not {op!r}"
                )
            if "value" not in props:
                errors.append("missing property 'value'")
            elif props["value"] is None or isinstance(props["value"], (dict, list)):
                errors.append(f"property 'value' must be a scalar literal, not {props['value']!r}")
        if props.get("json_text") not in (None, True, False):
            errors.append("property 'json_text' must be true, false or absent")
        return errors

    def configure(self) -> None:
        props = self.properties
        test = LeafTest(props.get("relationship"), props.get("value"), props.get("predicate"))
        self.pruner = NestedPruner(parse_path(props["path"]), test, props.get("json_text"))

    def output_schema(self, input_schema: pa.Schema) -> pa.Schema:
        problems = self.pruner.check(input_schema)
        if problems:
            raise ValueError(f"{self._where()}: " + "; ".join(problems))
        return input_schema

    def process(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        return self.pruner.filter_batch(batch)
