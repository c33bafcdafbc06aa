"""The iterator protocol (docs/operators.md, The protocol) as the base class enforces it, on plain Arrow batches."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from drillspark.operators import (
    BatchLimits,
    BatchSource,
    Fragment,
    IterOutcome,
    OperatorError,
    OperatorPropertyError,
    ProtocolError,
    SingleInputOperator,
    chain,
    chain_output_schema,
    run_fragment,
)
from drillspark.operators.testing import SpySource

OK_NEW_SCHEMA, OK, NONE, STOP = (
    IterOutcome.OK_NEW_SCHEMA,
    IterOutcome.OK,
    IterOutcome.NONE,
    IterOutcome.STOP,
)


def batch(**columns) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict(columns)


class Doubler(SingleInputOperator):
    """Doubles column `v`; fails on a negative value."""

    def process(self, b: pa.RecordBatch) -> pa.RecordBatch:
        v = b.column("v")
        if pc.any(pc.less(v, 0)).as_py():
            raise ValueError("negative value")
        return b.set_column(b.schema.get_field_index("v"), "v", pc.multiply(v, 2))


class KeepPositive(SingleInputOperator):
    def process(self, b: pa.RecordBatch) -> pa.RecordBatch:
        return b.filter(pc.greater(b.column("v"), 0))


class Total(SingleInputOperator):
    """Blocking: holds everything back and emits one row at the end."""

    def output_schema(self, input_schema: pa.Schema) -> pa.Schema:
        return pa.schema([("total", pa.int64())])

    def configure(self) -> None:
        self.total = 0

    def process(self, b: pa.RecordBatch) -> None:
        self.total += pc.sum(b.column("v")).as_py() or 0
        return None

    def finish(self) -> pa.RecordBatch:
        return pa.RecordBatch.from_pydict(
            {"total": [self.total]}, schema=pa.schema([("total", pa.int64())])
        )


def drain(op):
    out = []
    while True:
        outcome = op.next()
        out.append((outcome, op.batch.num_rows if op.batch is not None else None))
        if outcome in (NONE, STOP):
            return out


def test_first_next_is_ok_new_schema_then_ok_then_none_forever():
    op = Doubler().bind(BatchSource([batch(v=[1, 2]), batch(v=[3])]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.column("v").to_pylist() == [2, 4]
    assert op.schema == pa.schema([("v", pa.int64())])
    assert op.next() is OK
    assert op.batch.column("v").to_pylist() == [6]
    assert [op.next() for _ in range(4)] == [NONE] * 4
    assert op.batch is None


def test_zero_row_first_batch_still_brings_the_schema():
    op = Doubler().bind(BatchSource([batch(v=pa.array([], pa.int64()))]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.num_rows == 0 and op.schema.names == ["v"]
    assert op.next() is NONE


def test_no_input_at_all_is_none_first():
    op = Doubler().bind(BatchSource([]))
    assert [op.next(), op.next()] == [NONE, NONE]


def test_filter_that_removes_everything_returns_schema_then_none():
    op = KeepPositive().bind(BatchSource([batch(v=[-1, -2]), batch(v=[-3])]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.num_rows == 0
    # Later empty batches with an unchanged schema are not passed on.
    assert op.next() is NONE


def test_empty_batches_in_the_middle_are_skipped():
    op = KeepPositive().bind(
        BatchSource([batch(v=[1]), batch(v=[-1]), batch(v=[-2]), batch(v=[5])])
    )
    assert drain(op) == [(OK_NEW_SCHEMA, 1), (OK, 1), (NONE, None)]


def test_schema_change_gives_ok_new_schema_with_the_new_schema():
    first = batch(v=[1])
    second = batch(v=[2], w=["x"])
    op = Doubler().bind(BatchSource([first, first, second, second, first]))
    outcomes = [o for o, _ in drain(op)]
    assert outcomes == [OK_NEW_SCHEMA, OK, OK_NEW_SCHEMA, OK, OK_NEW_SCHEMA, NONE]


def test_blocking_operator_emits_in_finish():
    op = Total().bind(BatchSource([batch(v=[1, 2]), batch(v=[3])]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.to_pylist() == [{"total": 6}]
    assert op.next() is NONE


def test_blocking_operator_with_no_input_at_all_is_none_without_finish():
    op = Total().bind(BatchSource([]))
    assert [op.next(), op.next()] == [NONE, NONE]
    # With an empty (schema-only) input it does run finish(): 0 is the total of no rows.
    op = Total().bind(BatchSource([batch(v=pa.array([], pa.int64()))]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.to_pylist() == [{"total": 0}]


def test_operator_that_emits_nothing_still_returns_its_schema_first():
    class Swallow(SingleInputOperator):
        def output_schema(self, s):
            return pa.schema([("n", pa.int32())])

        def process(self, b):
            return None

    op = Swallow().bind(BatchSource([batch(v=[1])]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.num_rows == 0 and op.schema.names == ["n"]
    assert op.next() is NONE


def test_own_failure_is_stop_with_operator_and_input_position():
    op = Doubler(op_id=4).bind(BatchSource([batch(v=[1, 2]), batch(v=[3, -4, 5])]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.next() is STOP
    error = op.error
    assert isinstance(error, OperatorError)
    assert (error.operator, error.op_id) == ("Doubler", 4)
    assert (error.position.batch, error.position.first_row, error.position.end_row) == (1, 2, 5)
    assert isinstance(error.cause, ValueError)
    assert (
        str(error)
        == "operator 'Doubler' @4 failed at input batch 1 (rows 2..4): ValueError: negative value"
    )
    assert [op.next(), op.next()] == [STOP, STOP]


def test_input_failure_propagates_the_same_error_upwards():
    source = SpySource([batch(v=[1]), batch(v=[2])], fail_after=1)
    lower = Doubler(op_id=1).bind(source)
    upper = KeepPositive(op_id=2).bind(lower)
    assert upper.next() is OK_NEW_SCHEMA
    assert upper.next() is STOP
    assert upper.error is lower.error is source.error
    assert upper.error.operator == "kit-source"
    assert str(upper.error.position) == "input batch 1 (starting at row 1)"


def test_close_is_idempotent_touches_no_neighbour_and_blocks_next():
    source = SpySource([batch(v=[1])])
    op = Doubler().bind(source)
    op.next()
    calls = list(source.calls)
    op.close()
    op.close()
    assert source.calls == calls
    assert op.closed and not source.closed
    with pytest.raises(ProtocolError, match="after close"):
        op.next()


def test_release_runs_once():
    class Holder(Doubler):
        released = 0

        def release(self):
            type(self).released += 1

    op = Holder().bind(BatchSource([batch(v=[1])]))
    op.close()
    op.close()
    assert Holder.released == 1


def test_declared_schema_must_match_what_process_returns():
    class Liar(SingleInputOperator):
        def output_schema(self, s):
            return pa.schema([("v", pa.string())])

        def process(self, b):
            return pa.RecordBatch.from_pydict({"v": [[1]]})

    op = Liar(op_id=7).bind(BatchSource([batch(v=[1])]))
    assert op.next() is STOP
    message = str(op.error)
    assert "operator 'Liar' @7" in message
    assert "column 'v' was declared string but the operator produced list<item: int64>" in message


def test_a_castable_wrong_type_is_an_error_not_a_cast():
    # String digits could be cast to int64; an operator must produce what it declared.
    class Digits(SingleInputOperator):
        def output_schema(self, s):
            return pa.schema([("v", pa.int64()), ("w", pa.string())])

        def process(self, b):
            return pa.RecordBatch.from_pydict({"v": ["1", "2"], "w": ["a", "b"]})

    op = Digits().bind(BatchSource([batch(v=[1, 2])]))
    assert op.next() is STOP
    assert "column 'v' was declared int64 but the operator produced string" in str(op.error)
    assert op.batch is None


def test_missing_or_renamed_columns_are_an_error():
    class Renamer(SingleInputOperator):
        def process(self, b):
            return b.rename_columns(["w"])

    op = Renamer().bind(BatchSource([batch(v=[1])]))
    assert op.next() is STOP
    assert "produced columns [w: int64] but declared [v: int64]" in str(op.error)


def test_nested_labels_are_relabelled_but_nested_types_are_not_cast():
    declared_type = pa.list_(pa.field("element", pa.struct([pa.field("x", pa.int64(), False)])))

    class Nested(SingleInputOperator):
        def output_schema(self, s):
            return pa.schema([("a", declared_type)])

        def process(self, b):
            return b

    good = pa.RecordBatch.from_pydict({"a": [[{"x": 1}]]})  # list<item: struct<x>>, nullable
    op = Nested().bind(BatchSource([good]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.batch.schema.field("a").type.equals(declared_type)
    assert op.batch.to_pydict() == {"a": [[{"x": 1}]]}
    wrong = pa.RecordBatch.from_pydict({"a": [[{"x": 1.5}]]})  # double where int64 declared
    op = Nested().bind(BatchSource([wrong]))
    assert op.next() is STOP
    assert "column 'a' was declared list<element: struct<x: int64 not null>>" in str(op.error)


def test_nullability_only_differences_are_relabelled():
    declared = pa.schema([pa.field("v", pa.int64(), nullable=False)])

    class Strict(SingleInputOperator):
        def output_schema(self, s):
            return declared

        def process(self, b):
            return b

    op = Strict().bind(BatchSource([batch(v=[1])]))
    assert op.next() is OK_NEW_SCHEMA
    assert op.schema.equals(declared)


def test_unbound_operator_stops_with_a_clear_error():
    op = Doubler()
    assert op.next() is STOP
    assert "has no input" in str(op.error)


def test_property_validation_happens_in_the_constructor():
    class Needy(SingleInputOperator):
        @classmethod
        def validate_properties(cls, props):
            return [] if "factor" in props else ["missing property 'factor'"]

    with pytest.raises(OperatorPropertyError) as info:
        Needy(op_id=7)
    assert info.value.errors == ["missing property 'factor'"]
    assert "'Needy' @7" in str(info.value)
    assert Needy({"factor": 2}).properties == {"factor": 2}
    assert Needy(factor=3).properties == {"factor": 3}


# ---- limits and the fragment runner ---------------------------------------------------------
def test_batch_limits_cut_by_rows():
    pieces = list(BatchLimits(rows=3).split(batch(v=list(range(10)))))
    assert [p.num_rows for p in pieces] == [3, 3, 3, 1]
    assert sum((p.column("v").to_pylist() for p in pieces), []) == list(range(10))


def test_batch_limits_cut_by_bytes_and_a_big_row_goes_alone():
    big = "x" * 5000
    b = batch(s=["a", "b", big, "c", "d"])
    pieces = list(BatchLimits(rows=100, bytes=1000).split(b))
    assert sum(p.num_rows for p in pieces) == 5
    assert all(p.nbytes <= 1000 or p.num_rows == 1 for p in pieces)
    assert [big] in [p.column("s").to_pylist() for p in pieces]


def test_default_limits_are_drills():
    assert BatchLimits() == BatchLimits(rows=4096, bytes=16 * 1024 * 1024)
    with pytest.raises(ValueError):
        BatchLimits(rows=0)


def test_run_fragment_chains_and_respects_limits():
    data = [batch(v=list(range(-5, 10_000)))]
    out = list(run_fragment(data, [KeepPositive(), Doubler()], BatchLimits(rows=4096)))
    # The input is cut at 4096 rows; the filter then drops -5..0 from the first piece.
    assert [b.num_rows for b in out] == [4090, 4096, 1813]
    values = sum((b.column("v").to_pylist() for b in out), [])
    assert values == [2 * v for v in range(1, 10_000)]


def test_fragment_closes_every_operator_root_to_leaf_even_on_failure():
    source = SpySource([batch(v=[1]), batch(v=[-1])])
    lower, upper = Doubler(), KeepPositive()
    root = chain(source, [lower, upper])
    fragment = Fragment(root)
    with pytest.raises(OperatorError, match="negative value"):
        list(fragment.batches())
    assert upper.closed and lower.closed and source.closed


def test_chain_output_schema_is_schema_time_only():
    schema = pa.schema([("v", pa.int64())])
    assert chain_output_schema([Doubler(), Total()], schema) == pa.schema([("total", pa.int64())])
