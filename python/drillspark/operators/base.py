"""Drill's runtime operator protocol (docs/operators.md, The protocol), enforced once for
every operator.

An operator is an iterator over Arrow record batches:

    outcome = op.next()      # IterOutcome
    op.schema                # pyarrow.Schema of the current batch
    op.batch                 # the current pyarrow.RecordBatch
    op.close()               # release everything; idempotent

`Operator.next()` holds the rules, so subclasses write only their own logic:

* the first `next()` returns OK_NEW_SCHEMA (also for a batch with zero rows), or NONE when
  there is no input at all, or STOP;
* later calls return OK while the schema holds and OK_NEW_SCHEMA when it changes; batches
  with zero rows and an unchanged schema are not passed on;
* after NONE every `next()` returns NONE; after STOP every `next()` returns STOP;
* STOP carries `op.error`, an `OperatorError` naming the failing operator and its input
  position (operators above the failing one carry the same error object);
* `close()` runs the `release()` hook once, calls nothing on parent or child operators,
  and allocates nothing.

Work is split in two (docs/operators.md, Schema time and read time): `output_schema(input_schema)`
is the schema-time part
(pure, needed before Spark runs anything), `setup` / `process` / `finish` the read-time part.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from enum import Enum
from typing import Any, ClassVar

import pyarrow as pa

from drillspark.operators.errors import (
    InputPosition,
    OperatorError,
    OperatorPropertyError,
    ProtocolError,
)
from drillspark.operators.limits import BatchLimits
from drillspark.operators.outcome import IterOutcome


class _State(Enum):
    NEW = "new"  # next() never called
    RUNNING = "running"
    DONE = "done"  # returned NONE
    FAILED = "failed"  # returned STOP


class _InputStopped(Exception):
    """Raised inside `_produce` when the input returned STOP; carries the input's error."""

    def __init__(self, error: OperatorError | None):
        super().__init__(str(error))
        self.error = error


class Operator:
    """Base of all runtime operators (see the module text for the protocol it enforces).

    Subclasses implement `_produce()`; user operators derive from `SingleInputOperator`.
    Properties arrive as a mapping and/or keywords; `validate_properties` (a classmethod the
    plan validator also calls) checks them before anything else happens, then `configure()`
    reads them. The constructor does no schema work (it cannot see the schema yet).
    """

    drill_name: ClassVar[str | None] = None  # set by @drillspark.operator("name")
    # the plan operator class this one runs as: "source" (no input) or "single" (one input);
    # the plan validator reads it by name (plan.operators.plugin_role)
    drill_role: ClassVar[str | None] = None

    def __init__(
        self, properties: Mapping[str, Any] | None = None, /, *, op_id: object = None, **kwargs: Any
    ):
        props = {**(properties or {}), **kwargs}
        errors = type(self).validate_properties(props)
        if errors:
            raise OperatorPropertyError(type(self).display_name(), errors, op_id)
        self.properties: dict[str, Any] = props
        self.op_id = op_id
        self.error: OperatorError | None = None
        self._state = _State.NEW
        self._closed = False
        self._schema: pa.Schema | None = None
        self._batch: pa.RecordBatch | None = None
        self.configure()

    # ---- things a subclass may define ------------------------------------------------
    @classmethod
    def validate_properties(cls, props: Mapping[str, Any]) -> list[str]:
        """Error messages for bad properties (empty when they are fine)."""
        return []

    def configure(self) -> None:
        """Read `self.properties` into attributes (no schema is known yet)."""

    def release(self) -> None:
        """Free what this operator holds (called once by `close()`); must not allocate."""

    @property
    def children(self) -> tuple[Operator, ...]:
        return ()

    def _produce(self) -> pa.RecordBatch | None:
        """The next output batch, or None at the end of the data."""
        raise NotImplementedError

    def _input_position(self) -> InputPosition:
        return InputPosition(-1, 0, 0)

    # ---- the protocol --------------------------------------------------------------------
    @classmethod
    def display_name(cls) -> str:
        return cls.drill_name or cls.__name__

    @property
    def schema(self) -> pa.Schema | None:
        return self._schema

    @property
    def batch(self) -> pa.RecordBatch | None:
        return self._batch

    @property
    def closed(self) -> bool:
        return self._closed

    def next(self) -> IterOutcome:
        if self._closed:
            raise ProtocolError(f"{self._where()}: next() called after close()")
        if self._state is _State.DONE:
            return IterOutcome.NONE
        if self._state is _State.FAILED:
            return IterOutcome.STOP
        first = self._state is _State.NEW
        self._state = _State.RUNNING
        try:
            while True:
                batch = self._produce()
                if batch is None:
                    return self._end()
                if not isinstance(batch, pa.RecordBatch):
                    raise ProtocolError(
                        f"produced {type(batch).__name__}, not a pyarrow.RecordBatch"
                    )
                changed = self._schema is None or not batch.schema.equals(self._schema)
                # An empty batch matters only when it brings a (new) schema.
                if batch.num_rows or changed or first:
                    break
        except _InputStopped as stopped:
            return self._fail(stopped.error)
        except Exception as exc:  # any failure of this operator's own logic
            return self._fail(
                OperatorError(self.display_name(), self._input_position(), exc, self.op_id)
            )
        self._batch = batch
        if changed or first:
            self._schema = batch.schema
            return IterOutcome.OK_NEW_SCHEMA
        return IterOutcome.OK

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._batch = None
        self.release()

    # ---- helpers ---------------------------------------------------------------------
    def _end(self) -> IterOutcome:
        self._state = _State.DONE
        # NONE carries no data; the last schema stays visible with zero rows (as Drill does).
        self._batch = None
        return IterOutcome.NONE

    def _fail(self, error: OperatorError | None) -> IterOutcome:
        self._state = _State.FAILED
        self._batch = None
        self.error = error or OperatorError(
            self.display_name(),
            self._input_position(),
            ProtocolError("input returned STOP without an error"),
            self.op_id,
        )
        return IterOutcome.STOP

    def _where(self) -> str:
        return f"operator '{self.display_name()}'" + (
            f" @{self.op_id}" if self.op_id is not None else ""
        )


class BatchSource(Operator):
    """The leaf of a fragment: the Arrow batches of one Spark partition (or any iterable),
    cut to the batch limits. No batches at all gives NONE on the first `next()`."""

    drill_name = "batch-source"
    drill_role = "source"

    def __init__(
        self,
        batches: Iterable[pa.RecordBatch],
        limits: BatchLimits | None = None,
        *,
        op_id: object = None,
    ):
        super().__init__(op_id=op_id)
        self._limits = limits or BatchLimits()
        self._pieces: Iterator[pa.RecordBatch] | None = self._split(iter(batches))
        self._index = -1  # the batch being produced (or last produced)
        self._rows_before = 0
        self._rows_now = 0

    def _split(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield from self._limits.split(batch)

    def _produce(self) -> pa.RecordBatch | None:
        if self._pieces is None:
            return None
        self._index += 1
        self._rows_before += self._rows_now
        self._rows_now = 0
        piece = next(self._pieces, None)
        if piece is None:
            return None
        self._rows_now = piece.num_rows
        return piece

    def _input_position(self) -> InputPosition:
        return InputPosition(self._index, self._rows_before, self._rows_before + self._rows_now)

    def release(self) -> None:
        self._pieces = None  # drop the reference only: the iterator belongs to the caller


class SingleInputOperator(Operator):
    """Base for operators with one input: write `output_schema` (schema time) and `process`
    (read time); `setup` and `finish` when the operator needs them.

    * `output_schema(input_schema)`: the output schema for an input schema. Pure; called
      before Spark runs and again (through `setup`) whenever the input schema changes.
    * `setup(input_schema)`: prepare for a new input schema; returns the output schema.
    * `process(batch)`: one input batch to an output batch, or None for nothing (yet).
    * `finish()`: called once at the end of the input; a blocking operator returns what it
      held back (None for nothing). Not called when there was no input at all (not even a
      schema): the operator then returns NONE at once.

    When the operator produced nothing at all but its input had a schema, the first `next()`
    still returns OK_NEW_SCHEMA with a zero-row batch of the output schema.
    """

    drill_role = "single"

    def __init__(
        self, properties: Mapping[str, Any] | None = None, /, *, op_id: object = None, **kwargs: Any
    ):
        self.input: Operator | None = None
        self._out_schema: pa.Schema | None = None
        self._emitted = False
        self._finished = False
        self._in_batches = 0
        self._in_rows_before = 0
        self._in_rows_now = 0
        super().__init__(properties, op_id=op_id, **kwargs)

    def bind(self, input: Operator) -> SingleInputOperator:
        """Attach the input operator (the fragment runner does this); returns self."""
        if self.input is not None and self.input is not input:
            raise ProtocolError(f"{self._where()} already has an input")
        self.input = input
        return self

    @property
    def children(self) -> tuple[Operator, ...]:
        return (self.input,) if self.input is not None else ()

    # ---- to override ---------------------------------------------------------------------
    def output_schema(self, input_schema: pa.Schema) -> pa.Schema:
        return input_schema

    def setup(self, input_schema: pa.Schema) -> pa.Schema:
        return self.output_schema(input_schema)

    def process(self, batch: pa.RecordBatch) -> pa.RecordBatch | None:
        raise NotImplementedError(f"{type(self).__name__} must define process(batch)")

    def finish(self) -> pa.RecordBatch | None:
        return None

    # ---- machinery -----------------------------------------------------------------------
    def _produce(self) -> pa.RecordBatch | None:
        if self.input is None:
            raise ProtocolError(f"{self._where()} has no input (bind() was not called)")
        while True:
            if self._finished:
                return None
            outcome = self.input.next()
            if outcome is IterOutcome.STOP:
                raise _InputStopped(self.input.error)
            if outcome is IterOutcome.NONE:
                self._finished = True
                if self._in_batches == 0:
                    return None  # no input at all: NONE, without finish() (docs/operators.md)
                out = self.finish()
                if out is None and not self._emitted and self._out_schema is not None:
                    out = pa.RecordBatch.from_pylist([], schema=self._out_schema)
                return self._emit(out) if out is not None else None
            if outcome is IterOutcome.NOT_YET:
                raise ProtocolError(f"{self._where()}: input returned NOT_YET (not supported)")
            batch = self.input.batch
            if batch is None:
                raise ProtocolError(f"input returned {outcome.name} without a batch")
            self._in_batches += 1
            self._in_rows_before += self._in_rows_now
            self._in_rows_now = batch.num_rows
            if outcome is IterOutcome.OK_NEW_SCHEMA or self._out_schema is None:
                self._out_schema = self.setup(batch.schema)
            out = self.process(batch)
            if out is not None:
                return self._emit(out)

    def _emit(self, out: pa.RecordBatch) -> pa.RecordBatch:
        declared = self._out_schema
        if declared is not None and not out.schema.equals(declared):
            out = conform(out, declared, self._where())
        self._emitted = True
        return out

    def _input_position(self) -> InputPosition:
        return InputPosition(
            self._in_batches - 1, self._in_rows_before, self._in_rows_before + self._in_rows_now
        )


def conform(batch: pa.RecordBatch, schema: pa.Schema, where: str = "operator") -> pa.RecordBatch:
    """`batch` relabelled with `schema` when they differ only in labels: field nullability,
    field metadata and the names of list items. Anything else is the operator's bug, reported
    as a ProtocolError naming the operator, the column and both types; nothing is cast (a
    cast would quietly turn, say, string digits into numbers)."""
    if batch.schema.names != schema.names:
        raise ProtocolError(
            f"{where} produced columns [{_brief(batch.schema)}] but declared [{_brief(schema)}]"
        )
    columns = []
    for column, produced, declared in zip(batch.columns, batch.schema, schema, strict=True):
        if not _same_but_labels(produced.type, declared.type):
            raise ProtocolError(
                f"{where}: column '{declared.name}' was declared {declared.type} but the "
                f"operator produced {produced.type}"
            )
        # A relabelling cast: the same physical layout, only field labels change.
        columns.append(column if column.type.equals(declared.type) else column.cast(declared.type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _same_but_labels(a: pa.DataType, b: pa.DataType) -> bool:
    """The two types hold the same values in the same layout: equal up to the nullability
    and metadata of nested fields and the names of list items."""
    if a.equals(b):
        return True
    if a.id != b.id or a.num_fields != b.num_fields or a.num_fields == 0:
        return False
    if pa.types.is_struct(a) and [f.name for f in a] != [f.name for f in b]:
        return False
    if pa.types.is_fixed_size_list(a) and a.list_size != b.list_size:
        return False
    if pa.types.is_map(a) and a.keys_sorted != b.keys_sorted:
        return False
    if pa.types.is_union(a) and (a.mode != b.mode or a.type_codes != b.type_codes):
        return False
    return all(_same_but_labels(a.field(i).type, b.field(i).type) for i in range(a.num_fields))


def _brief(schema: pa.Schema) -> str:
    return ", ".join(f"{f.name}: {f.type}" for f in schema)
