"""The fragment runner: drives a tree of operators over the Arrow batches of one partition.

    while root.next() not in (NONE, STOP): yield root.batch

as Drill's FragmentExecutor does, then closes every operator from root to leaf (its "normal
close"; docs/operators.md, The fragment runner). STOP raises the error the root carries (an `OperatorError` naming the
operator that failed and its input position).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import pyarrow as pa

from drillspark.operators.base import BatchSource, Operator, SingleInputOperator
from drillspark.operators.errors import ProtocolError
from drillspark.operators.limits import BatchLimits
from drillspark.operators.outcome import IterOutcome


def chain(source: Operator, operators: Sequence[SingleInputOperator]) -> Operator:
    """Bind `operators` one after the other on top of `source`; returns the root."""
    root = source
    for op in operators:
        root = op.bind(root)
    return root


def chain_output_schema(operators: Sequence[SingleInputOperator], schema: pa.Schema) -> pa.Schema:
    """Schema time: the output schema of `operators` applied in order to `schema`."""
    for op in operators:
        schema = op.output_schema(schema)
    return schema


def tree(root: Operator) -> list[Operator]:
    """Every operator under `root`, root first (the order in which they are closed)."""
    out: list[Operator] = []
    stack = [root]
    while stack:
        op = stack.pop()
        out.append(op)
        stack.extend(reversed(op.children))
    return out


class Fragment:
    """Runs one operator tree; `batches()` yields the root's batches, cut to `limits`."""

    def __init__(self, root: Operator, limits: BatchLimits | None = None):
        self.root = root
        self.limits = limits or BatchLimits()
        self.schemas: list[pa.Schema] = []  # every schema the root announced, in order

    def batches(self) -> Iterator[pa.RecordBatch]:
        try:
            while True:
                outcome = self.root.next()
                if outcome is IterOutcome.NONE:
                    return
                if outcome is IterOutcome.STOP:
                    raise self.root.error or ProtocolError("STOP without an error")
                if outcome is IterOutcome.OK_NEW_SCHEMA:
                    self.schemas.append(self.root.schema)
                batch = self.root.batch
                yield from self.limits.split(batch)
        finally:
            self.close()

    def close(self) -> None:
        """Close every operator, root to leaf; all are closed even if one fails."""
        failure: BaseException | None = None
        for op in tree(self.root):
            try:
                op.close()
            except Exception as exc:  # keep closing the others
                failure = failure or exc
        if failure is not None:
            raise failure


def run_fragment(
    batches: Iterable[pa.RecordBatch],
    operators: Sequence[SingleInputOperator],
    limits: BatchLimits | None = None,
) -> Iterator[pa.RecordBatch]:
    """Run `operators` (a chain, first applied first) over `batches`; yields output batches.
    Batches are cut to `limits` on the way in and on the way out."""
    limits = limits or BatchLimits()
    root = chain(BatchSource(batches, limits), operators)
    yield from Fragment(root, limits).batches()
