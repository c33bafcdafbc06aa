"""Rendering a result (DrillResult or StatementResult) with the formatters of
drillspark.display. The text is whole before any of it is printed (a table's column widths
need every row), so the rows are fetched whole too, in one Spark job: a DrillResult that reads
its JSON tables from a sample reads them in one pass (spark/single_pass.py) and, on a misfit,
again with full discovery before anything is printed."""

from __future__ import annotations

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
from drillspark.result import Result, StatementResult


def columns_and_rows(result: Result) -> tuple[list[str], list[list[object]]]:
    """Column names and rows (lists of cells) of a result, all at once."""
    columns, rows = _fetched(result)
    return columns, list(rows)


def _fetched(result: Result) -> tuple[list[str], Iterator[list[object]]]:
    """The columns, taken after the fetch (those of the read that answered), and the rows as
    cells, converted as they are consumed."""
    if isinstance(result, StatementResult):
        return result.columns, (list(r) for r in result.data)
    rows = result.collect()
    return result.columns, ([plain(v) for v in r] for r in rows)


def render(result: Result, fmt: str = "table") -> str:
    raw = getattr(result, "text", None)
    if fmt == "table" and isinstance(raw, str):
        return raw
    columns, rows = _fetched(result)
    return FORMATS[fmt](columns, rows)
