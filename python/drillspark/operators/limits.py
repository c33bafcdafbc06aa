"""Batch size limits in rows and bytes, as for the scan (Drill's result set loader):
at most 4096 rows and about 16 MiB per batch; a single row larger than the byte limit
travels alone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

DEFAULT_BATCH_ROWS = 4096
DEFAULT_BATCH_BYTES = 16 * 1024 * 1024
MAX_BATCH_ROWS = 65536  # Drill's ValueVector.MAX_ROW_COUNT


@dataclass(frozen=True)
class BatchLimits:
    rows: int = DEFAULT_BATCH_ROWS
    bytes: int = DEFAULT_BATCH_BYTES

    def __post_init__(self) -> None:
        if not 1 <= self.rows <= MAX_BATCH_ROWS:
            raise ValueError(f"batch row limit must be in 1..{MAX_BATCH_ROWS}, not {self.rows}")
        if self.bytes < 1:
            raise ValueError(f"batch byte limit must be positive, not {self.bytes}")

    def split(self, batch: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
        """`batch` cut into zero-copy slices that respect both limits (an empty batch is
        yielded as is, so its schema still travels)."""
        n = batch.num_rows
        if n == 0:
            yield batch
            return
        start = 0
        while start < n:
            rows = min(self.rows, n - start)
            piece = batch.slice(start, rows)
            # Shrink by the average row size until the piece fits; one row always goes.
            while rows > 1 and piece.nbytes > self.bytes:
                per_row = piece.nbytes / rows
                rows = max(1, min(rows - 1, int(self.bytes / per_row)))
                piece = batch.slice(start, rows)
            yield piece
            start += rows
