"""DrillResult: what `drillspark.run()` returns — the result DataFrame plus ways to fetch it,
including Drill's batch protocol (seed 000) over Arrow record batches."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from drillspark.operators.outcome import IterOutcome

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from pyspark.sql import DataFrame

    from drillspark.spark.storage import WriteReport

DEFAULT_BATCH_ROWS = 4096  # Drill's default rows per batch


def _plain(value: Any) -> Any:
    """Spark Rows to dicts/lists, recursively."""
    from pyspark.sql import Row

    if isinstance(value, Row):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class BatchStream:
    """Drill's `next()` protocol over Arrow batches: the first call gives `OK_NEW_SCHEMA` (with
    the first batch, or an empty batch carrying the schema for an empty result), then `OK` per
    further batch, then `NONE` for every later call. A failure gives `STOP`, with the error in
    `.error`. Iterating yields `(outcome, batch)` pairs up to and including NONE or STOP."""

    def __init__(self, df: DataFrame, batch_rows: int = DEFAULT_BATCH_ROWS):
        self._df = df
        self._batch_rows = max(1, int(batch_rows))
        self._rows: Iterator[Any] | None = None
        self._started = False
        self._done = False
        self.schema: pa.Schema | None = None
        self.error: BaseException | None = None

    def _next_batch(self) -> pa.RecordBatch | None:
        import pyarrow as pa

        assert self._rows is not None
        chunk = []
        for row in self._rows:
            chunk.append(_plain(row))
            if len(chunk) >= self._batch_rows:
                break
        if not chunk:
            return None
        return pa.RecordBatch.from_pylist(chunk, schema=self.schema)

    def next(self) -> tuple[IterOutcome, pa.RecordBatch | None]:
        if self.error is not None:
            return IterOutcome.STOP, None
        if self._done:
            return IterOutcome.NONE, None
        try:
            if not self._started:
                from pyspark.sql.pandas.types import to_arrow_schema

                self.schema = to_arrow_schema(self._df.schema)
                self._rows = self._df.toLocalIterator()
                self._started = True
                batch = self._next_batch()
                if batch is None:  # empty result: the schema still comes first
                    import pyarrow as pa

                    batch = pa.RecordBatch.from_pylist([], schema=self.schema)
                    self._done = True
                return IterOutcome.OK_NEW_SCHEMA, batch
            batch = self._next_batch()
        except Exception as e:  # the protocol reports failures as STOP, the error attached
            self.error = e
            return IterOutcome.STOP, None
        if batch is None:
            self._done = True
            return IterOutcome.NONE, None
        return IterOutcome.OK, batch

    def __iter__(self) -> Iterator[tuple[IterOutcome, pa.RecordBatch | None]]:
        while True:
            outcome, batch = self.next()
            yield outcome, batch
            if outcome in (IterOutcome.NONE, IterOutcome.STOP):
                return


class DrillResult:
    """The result of running a plan. `.df` is the Spark DataFrame of the result stream (for
    a plan whose sinks only write files: one row per written target). `.written` lists the
    `WriteReport`s of file stores (path, format, rows, files)."""

    def __init__(self, df: DataFrame, plan: Any = None, written: Sequence[WriteReport] = (),
                 plan_text: str | None = None):
        self.df = df
        self.plan = plan
        self.written = list(written)
        self._plan_text = plan_text

    def rows(self) -> list[dict[str, Any]]:
        """All result records as plain dicts (nested maps as dicts, arrays as lists)."""
        return [_plain(r) for r in self.df.collect()]

    def to_arrow(self) -> pa.Table:
        return self.df.toArrow()

    def to_pandas(self) -> pd.DataFrame:
        return self.df.toPandas()

    def show(self, n: int = 20, truncate: bool | int = False) -> None:
        self.df.show(n, truncate=truncate)

    def explain(self, print_it: bool = True) -> str:
        """The Drill plan followed by Spark's physical plan (returned, and printed unless
        `print_it` is false)."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.df.explain(mode="formatted")
        text = ""
        if self._plan_text:
            text += "== Drill logical plan ==\n" + self._plan_text.rstrip() + "\n\n"
        text += "== Spark plan ==\n" + buf.getvalue()
        if print_it:
            print(text)
        return text

    def batches(self, batch_rows: int = DEFAULT_BATCH_ROWS) -> BatchStream:
        return BatchStream(self.df, batch_rows)

    def __repr__(self) -> str:
        return f"DrillResult(columns={self.df.columns!r}, written={len(self.written)})"
