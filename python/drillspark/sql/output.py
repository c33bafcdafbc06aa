"""Rendering a result (DrillResult or statement result) with the formatters of
drillspark.display: the rows are streamed from Spark a partition at a time."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from drillspark.display import (  # noqa: F401 - the formatters' long-standing import path
    FORMATS,
    csv_text,
    drill_value,
    json_lines,
    plain,
    table,
    text,
)


def columns_and_rows(result: object) -> tuple[list[str], list[list[object]]]:
    """Column names and rows (lists of cells) of a RowsResult or a DrillResult, all at once
    (one Spark job: for callers that need every row anyway)."""
    columns, rows = stream(result, collect=True)
    return columns, list(rows)


def stream(result: object, collect: bool = False) -> tuple[list[str], Iterator[list[object]]]:
    """Column names and an iterator over the rows of a RowsResult or a DrillResult; a
    DrillResult's rows come from Spark a partition at a time (toLocalIterator), so printing
    a large result never holds all of its Rows in the driver."""
    data = getattr(result, "data", None)
    columns = getattr(result, "columns", None)
    if columns is None and hasattr(result, "df"):
        columns = result.df.columns  # type: ignore[attr-defined]
    columns = list(columns or [])
    if isinstance(data, list):
        return columns, (list(r) for r in data)
    if hasattr(result, "df"):
        return columns, _fetch(result, collect)
    rows = result.rows()  # type: ignore[attr-defined]
    return columns, ([r.get(c) for c in columns] if isinstance(r, dict) else list(r) for r in rows)


def _fetch(result: object, collect: bool) -> Iterator[list[object]]:
    fetching = getattr(result, "fetching", None)  # DrillResult: failures name the operator
    df = result.df  # type: ignore[attr-defined]
    with fetching() if fetching is not None else contextlib.nullcontext():
        for r in df.collect() if collect else df.toLocalIterator():
            yield [plain(v) for v in r]


def render(result: object, fmt: str = "table") -> str:
    raw = getattr(result, "text", None)
    if fmt == "table" and isinstance(raw, str):
        return raw
    columns, rows = stream(result)
    return FORMATS[fmt](columns, rows)
