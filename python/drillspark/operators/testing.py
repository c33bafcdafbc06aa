"""The protocol conformance kit: run any single-input operator through the protocol's rules
(docs/operators.md, The protocol).

    from drillspark.operators.testing import assert_conforms

    def test_my_operator_conforms():
        assert_conforms(lambda: MyOp(factor=2), sample_batch)

`check_operator` returns a report of every case; `assert_conforms` fails with all the
failures listed. The cases:

* first_batch: the first next() is OK_NEW_SCHEMA; every batch has the schema that schema
  time (`output_schema`) gives for the input batch last read; NONE at the end.
* repeated_none: next() after NONE keeps returning NONE.
* empty_input: one zero-row batch in: OK_NEW_SCHEMA with the output schema (zero rows for
  a filter; a blocking aggregate may emit its row for no data), then NONE.
* no_input: no batches at all: NONE at once, and again.
* schema_change: batches of two input schemas: OK_NEW_SCHEMA exactly when the input
  schema changed in a way that changes `output_schema`, OK otherwise; each batch with the
  schema `output_schema` gives for its input. The expected outcomes come from the input
  stream and `output_schema`, not from the batches the operator returns, so an operator
  that ignores an input schema change (or announces one that did not happen) fails.
* input_error: the input fails after one batch: STOP, the error names the input operator
  and its position, STOP again on the next call.
* own_error (when a `bad_batch` is given): the operator's own failure: STOP with an error
  naming this operator.
* close: close() twice is fine, touches neither the input's next() nor its close(), and
  a closed operator refuses next().
* schema_time: `output_schema` gives the same answer twice without seeing data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from drillspark.operators.base import BatchSource, Operator, SingleInputOperator
from drillspark.operators.errors import ProtocolError
from drillspark.operators.outcome import IterOutcome

OK_NEW_SCHEMA, OK, NONE, STOP = (
    IterOutcome.OK_NEW_SCHEMA,
    IterOutcome.OK,
    IterOutcome.NONE,
    IterOutcome.STOP,
)


@dataclass
class CaseResult:
    name: str
    passed: bool
    message: str = ""


@dataclass
class ConformanceReport:
    operator: str
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def failures(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.passed]

    @property
    def passed(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        lines = [f"conformance of operator '{self.operator}':"]
        lines += [
            f"  {'pass' if c.passed else 'FAIL'}  {c.name}"
            + (f": {c.message}" if c.message else "")
            for c in self.cases
        ]
        return "\n".join(lines)


class _KitFailure(AssertionError):
    pass


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _KitFailure(message)


class SpySource(BatchSource):
    """A source that counts the calls it receives and can fail after some batches."""

    drill_name = "kit-source"

    def __init__(self, batches: Iterable[pa.RecordBatch], fail_after: int | None = None):
        self.calls: list[str] = []
        self.last_schema: pa.Schema | None = None  # schema of the input batch last handed on
        super().__init__(self._failing(list(batches), fail_after))

    @staticmethod
    def _failing(batches: list[pa.RecordBatch], fail_after: int | None) -> Iterable[pa.RecordBatch]:
        for i, batch in enumerate(batches):
            if fail_after is not None and i >= fail_after:
                raise RuntimeError("kit: the input failed on purpose")
            yield batch

    def next(self) -> IterOutcome:
        self.calls.append("next")
        outcome = super().next()
        if self.batch is not None:
            self.last_schema = self.batch.schema
        return outcome

    def close(self) -> None:
        self.calls.append("close")
        super().close()


def _drain(op: Operator, limit: int = 100_000) -> list[tuple[IterOutcome, pa.RecordBatch | None]]:
    seen = []
    for _ in range(limit):
        outcome = op.next()
        seen.append((outcome, op.batch))
        if outcome in (NONE, STOP):
            return seen
    raise _KitFailure(f"no NONE after {limit} calls to next()")


def _with_extra_column(batch: pa.RecordBatch) -> pa.RecordBatch:
    extra = pa.array(range(batch.num_rows), type=pa.int64())
    return pa.RecordBatch.from_arrays(
        [*batch.columns, extra], names=[*batch.schema.names, "kit_extra"]
    )


def _check_stream(
    make: Callable[[], SingleInputOperator], inputs: Sequence[pa.RecordBatch]
) -> list[tuple[IterOutcome, pa.RecordBatch | None]]:
    """Run `inputs` through a fresh operator, checking each outcome and schema against what
    schema time says for the input batch last read: `output_schema(that input's schema)`.

    The expected outcome is derived from the input side only: OK_NEW_SCHEMA when that
    expected output schema differs from the one last announced (or on the first call), OK
    otherwise. So the check does not repeat the base class's own rule (which looks at the
    output batches) and catches an operator whose output does not follow its input."""
    op = make()
    source = SpySource(inputs)
    op.bind(source)
    schema_time = make()
    announced: pa.Schema | None = None
    seen: list[tuple[IterOutcome, pa.RecordBatch | None]] = []
    for call in range(1, 100_001):
        outcome = op.next()
        batch = op.batch
        seen.append((outcome, batch))
        if outcome in (NONE, STOP):
            break
        _expect(batch is not None, f"call {call}: {outcome.name} without a batch")
        assert batch is not None and source.last_schema is not None
        want_schema = schema_time.output_schema(source.last_schema)
        want = OK_NEW_SCHEMA if announced is None or not want_schema.equals(announced) else OK
        _expect(
            outcome is want,
            f"call {call}: returned {outcome.name}, expected {want.name} (the input schema "
            f"[{_brief(source.last_schema)}] gives output_schema() [{_brief(want_schema)}], "
            f"last announced [{_brief(announced) if announced is not None else 'none'}])",
        )
        _expect(
            batch.schema.equals(want_schema),
            f"call {call}: batch schema [{_brief(batch.schema)}] is not what output_schema() "
            f"gives for its input: [{_brief(want_schema)}]",
        )
        announced = want_schema
    else:
        raise _KitFailure("no NONE after 100000 calls to next()")
    _expect(seen[-1][0] is NONE, f"ended with {seen[-1][0].name}, not NONE ({_error(op)})")
    _expect(len(seen) > 1, "returned NONE on the first next() although input batches came")
    op.close()
    return seen


def _brief(schema: pa.Schema) -> str:
    return ", ".join(f"{f.name}: {f.type}" for f in schema)


def _error(op: Operator) -> str:
    return str(op.error) if op.error is not None else "no error"


def check_operator(
    make: Callable[[], SingleInputOperator],
    sample: pa.RecordBatch | Sequence[pa.RecordBatch],
    *,
    changed: Sequence[pa.RecordBatch] | None = None,
    bad_batch: pa.RecordBatch | None = None,
) -> ConformanceReport:
    """Run every case on operators made by `make()` (a fresh one per case).

    `sample`: input batches the operator accepts (at least one, with rows). `changed`:
    batches with a different schema for the schema-change case (default: the sample plus a
    column `kit_extra`). `bad_batch`: an input that makes the operator itself fail."""
    samples = [sample] if isinstance(sample, pa.RecordBatch) else list(sample)
    if not samples or not any(b.num_rows for b in samples):
        raise ValueError("the conformance kit needs sample batches with rows")
    first = make()
    report = ConformanceReport(first.display_name())
    schema = samples[0].schema

    def case(name: str, body: Callable[[], None]) -> None:
        try:
            body()
        except _KitFailure as failure:
            report.cases.append(CaseResult(name, False, str(failure)))
        except Exception as exc:  # the operator raised instead of returning STOP
            report.cases.append(CaseResult(name, False, f"raised {type(exc).__name__}: {exc}"))
        else:
            report.cases.append(CaseResult(name, True))

    def first_batch() -> None:
        seen = _check_stream(make, samples)
        _expect(seen[0][0] is OK_NEW_SCHEMA, f"first next() returned {seen[0][0].name}")

    def repeated_none() -> None:
        op = make()
        op.bind(SpySource(samples))
        _drain(op)
        again = [op.next() for _ in range(3)]
        _expect(all(o is NONE for o in again), f"after NONE: {[o.name for o in again]}")
        _expect(op.batch is None or op.batch.num_rows == 0, "NONE came with data")
        op.close()

    def empty_input() -> None:
        op = make()
        op.bind(SpySource([samples[0].slice(0, 0)]))
        outcome = op.next()
        _expect(outcome is OK_NEW_SCHEMA, f"first next() on a zero-row batch: {outcome.name}")
        _expect(op.batch is not None, "OK_NEW_SCHEMA without a batch")
        want = make().output_schema(schema)
        _expect(
            op.schema is not None and op.schema.equals(want), "schema differs from output_schema()"
        )
        # A filter gives zero rows here; a blocking aggregate may give its row for no data.
        rest = _drain(op)
        _expect(rest[-1][0] is NONE, f"ended with {rest[-1][0].name}, not NONE")
        _expect(all(o is OK for o, _ in rest[:-1]), "the schema changed without new input")
        op.close()

    def no_input() -> None:
        op = make()
        op.bind(SpySource([]))
        got = [op.next() for _ in range(3)]
        _expect(all(o is NONE for o in got), f"with no input: {[o.name for o in got]}")
        op.close()

    def schema_change() -> None:
        other = list(changed) if changed is not None else [_with_extra_column(b) for b in samples]
        _check_stream(make, [*samples, *other, *samples])

    def input_error() -> None:
        op = make()
        source = SpySource(samples * 2, fail_after=1)
        op.bind(source)
        seen = _drain(op)
        _expect(seen[-1][0] is STOP, f"a failing input gave {seen[-1][0].name}, not STOP")
        error = op.error
        _expect(error is not None, "STOP without op.error")
        assert error is not None
        _expect(error.operator == source.display_name(), f"error names '{error.operator}'")
        _expect(error.position.batch == 1, f"error position is {error.position}")
        _expect(op.next() is STOP, "next() after STOP did not return STOP")
        op.close()

    def own_error() -> None:
        assert bad_batch is not None
        op = make()
        op.bind(SpySource([bad_batch]))
        seen = _drain(op)
        _expect(seen[-1][0] is STOP, f"a bad batch gave {seen[-1][0].name}, not STOP")
        _expect(
            op.error is not None and op.error.operator == op.display_name(),
            f"the error does not name this operator: {_error(op)}",
        )
        op.close()

    def close_twice() -> None:
        op = make()
        source = SpySource(samples)
        op.bind(source)
        op.next()
        before = list(source.calls)
        op.close()
        op.close()
        _expect(source.calls == before, f"close() called the input: {source.calls[len(before) :]}")
        _expect(op.closed, "closed is False after close()")
        try:
            op.next()
        except ProtocolError:
            pass
        else:
            raise _KitFailure("next() after close() did not raise ProtocolError")
        fresh = make()
        fresh.close()
        fresh.close()

    def schema_time() -> None:
        op = make()
        a, b = op.output_schema(schema), op.output_schema(schema)
        _expect(isinstance(a, pa.Schema), f"output_schema returned {type(a).__name__}")
        _expect(a.equals(b), "output_schema gave two different answers")

    case("first_batch", first_batch)
    case("repeated_none", repeated_none)
    case("empty_input", empty_input)
    case("no_input", no_input)
    case("schema_change", schema_change)
    case("input_error", input_error)
    if bad_batch is not None:
        case("own_error", own_error)
    case("close", close_twice)
    case("schema_time", schema_time)
    return report


def assert_conforms(
    make: Callable[[], SingleInputOperator],
    sample: pa.RecordBatch | Sequence[pa.RecordBatch],
    **options: object,
) -> ConformanceReport:
    """`check_operator`, failing with the whole report when any case fails."""
    report = check_operator(make, sample, **options)  # type: ignore[arg-type]
    if not report.passed:
        raise AssertionError(str(report))
    return report
