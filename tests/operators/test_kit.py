"""The conformance kit passes good operators and catches each kind of protocol breach."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from drillspark.operators import IterOutcome, SingleInputOperator
from drillspark.operators.builtin import ARROW_OPERATORS, NestedFilter
from drillspark.operators.testing import assert_conforms, check_operator

SAMPLE = pa.RecordBatch.from_pydict({"v": [1, 2, 3]})


class Identity(SingleInputOperator):
    def process(self, batch):
        return batch


def failed(report):
    return {c.name for c in report.failures}


def test_a_plain_operator_passes_every_case():
    report = assert_conforms(Identity, SAMPLE)
    assert [c.name for c in report.cases] == [
        "first_batch",
        "repeated_none",
        "empty_input",
        "no_input",
        "schema_change",
        "input_error",
        "close",
        "schema_time",
    ]


# Per built-in operator: (make, sample, kit options) runs. A new built-in operator without an
# entry here fails test_every_builtin_operator_conforms.
_APPENDIX_A = [
    {"a": {"b": 1, "x": 5}, "c": 1},
    {"a": [{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}], "c": 2},
    {"a": {"b": 2, "x": [1, 2, 3, 4, 5]}, "c": 3},
    {"a": {"b": 3, "x": [1, 2]}, "c": 4},
]
KIT_RUNS = {
    "nested-filter": [
        (  # typed nested columns, with a leaf of the wrong type for the own-error case
            lambda: NestedFilter(path="a.x", relationship=">", value=3),
            pa.RecordBatch.from_pylist(
                [{"a": [{"x": 1}, {"x": 5}], "c": 1}, {"a": [{"x": 2}], "c": 2}]
            ),
            {"bad_batch": pa.RecordBatch.from_pylist([{"a": [{"x": "text"}]}])},
        ),
        (  # conflicting types held as JSON text (the nested-filter worked example)
            lambda: NestedFilter(path="a.x", relationship=">", value=3),
            pa.RecordBatch.from_pylist(
                [{"a": json.dumps(r["a"]), "c": r["c"]} for r in _APPENDIX_A]
            ),
            {},
        ),
        (  # a user predicate over JSON text
            lambda: NestedFilter(path="a.x", predicate=lambda v: pc.greater(v, 3)),
            pa.RecordBatch.from_pylist(
                [{"a": json.dumps(r["a"]), "c": r["c"]} for r in _APPENDIX_A]
            ),
            {},
        ),
    ],
}


@pytest.mark.parametrize("name", [op.drill_name for op in ARROW_OPERATORS])
def test_every_builtin_operator_conforms(name):
    if name not in KIT_RUNS:
        pytest.fail(f"built-in operator '{name}' has no conformance-kit sample in KIT_RUNS")
    for make, sample, options in KIT_RUNS[name]:
        report = assert_conforms(make, sample, **options)
        assert report.operator == name
        assert "own_error" in {c.name for c in report.cases} or "bad_batch" not in options


def test_raising_instead_of_stop_is_caught():
    class Raiser(Identity):
        def next(self):
            outcome = super().next()
            if outcome is IterOutcome.STOP:
                raise self.error
            return outcome

    report = check_operator(Raiser, SAMPLE)
    assert failed(report) == {"input_error"}
    assert "raised OperatorError" in str(report)


def test_always_new_schema_is_caught():
    class Noisy(Identity):
        def next(self):
            outcome = super().next()
            return IterOutcome.OK_NEW_SCHEMA if outcome is IterOutcome.OK else outcome

    assert "first_batch" in failed(check_operator(Noisy, [SAMPLE, SAMPLE]))


def test_data_after_none_is_caught():
    class Zombie(Identity):
        def next(self):
            outcome = super().next()
            if outcome is IterOutcome.NONE and getattr(self, "seen_none", False):
                return IterOutcome.OK
            self.seen_none = outcome is IterOutcome.NONE
            return outcome

    assert failed(check_operator(Zombie, SAMPLE)) == {"repeated_none", "no_input"}


def test_close_that_touches_the_input_is_caught():
    class Meddler(Identity):
        def release(self):
            self.input.close()

    assert failed(check_operator(Meddler, SAMPLE)) == {"close"}


def test_schema_that_differs_from_output_schema_is_caught():
    class Liar(Identity):
        def output_schema(self, schema):
            return pa.schema([("other", pa.int64())])

        def setup(self, schema):
            return schema  # read time disagrees with schema time

    assert "first_batch" in failed(check_operator(Liar, SAMPLE))


class Sticky(Identity):
    """Broken on purpose: keeps the columns of the first input schema it saw, so its output
    never changes schema although `output_schema` (identity) says it follows the input. The
    base class, looking only at the output batches, honestly returns OK for them."""

    def configure(self):
        self.first = None

    def setup(self, schema):
        self.first = self.first or schema
        return self.first

    def process(self, batch):
        return batch.select(self.first.names)


def test_an_operator_that_ignores_an_input_schema_change_is_caught():
    report = check_operator(Sticky, SAMPLE)
    assert failed(report) == {"schema_change"}
    message = next(c.message for c in report.failures)
    assert "returned OK, expected OK_NEW_SCHEMA" in message
    assert "kit_extra: int64" in message  # names the input schema that changed


def test_an_outcome_that_misses_a_schema_change_is_caught():
    class Deaf(Identity):
        """Right batches, wrong outcome: reports OK where the schema changed."""

        def next(self):
            outcome = super().next()
            if outcome is IterOutcome.OK_NEW_SCHEMA and getattr(self, "started", False):
                return IterOutcome.OK
            self.started = True
            return outcome

    report = check_operator(Deaf, SAMPLE)
    assert failed(report) == {"schema_change"}
    assert "returned OK, expected OK_NEW_SCHEMA" in str(report)


def test_a_projection_that_keeps_its_output_schema_is_fine():
    class KeepV(Identity):
        """Output schema independent of extra input columns: OK across that change."""

        def output_schema(self, schema):
            return pa.schema([schema.field("v")])

        def process(self, batch):
            return batch.select(["v"])

    assert_conforms(KeepV, SAMPLE)


def test_own_error_case_needs_the_operator_to_name_itself():
    class Picky(Identity):
        def process(self, batch):
            if pc.any(pc.equal(batch.column(0), 0)).as_py():
                raise ValueError("zero")
            return batch

    bad = pa.RecordBatch.from_pydict({"v": [0]})
    report = assert_conforms(Picky, SAMPLE, bad_batch=bad)
    assert "own_error" in {c.name for c in report.cases}
    assert failed(check_operator(Identity, SAMPLE, bad_batch=bad)) == {"own_error"}


def test_kit_needs_rows():
    with pytest.raises(ValueError, match="sample batches with rows"):
        check_operator(Identity, SAMPLE.slice(0, 0))


class Sum(SingleInputOperator):
    """Blocking: holds everything back and emits the total at the end."""

    SCHEMA = pa.schema([("total", pa.int64())])

    def output_schema(self, input_schema):
        return self.SCHEMA

    def configure(self):
        self.total = 0

    def process(self, batch):
        self.total += pc.sum(batch.column("v")).as_py() or 0

    def finish(self):
        return pa.RecordBatch.from_pydict({"total": [self.total]}, schema=self.SCHEMA)


def test_a_blocking_operator_passes_every_case():
    assert_conforms(Sum, SAMPLE)


def test_a_zero_row_filter_result_still_passes():
    class DropAll(Identity):
        def process(self, batch):
            return batch.slice(0, 0)

    assert_conforms(DropAll, SAMPLE)
