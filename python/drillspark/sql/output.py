"""Rendering result rows as a table (sqlline style), JSON lines or CSV, with Drill's text form
of values: maps as JSON objects without their null members, arrays as JSON arrays."""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import decimal
import io
import json
import math
from collections.abc import Iterable, Iterator, Sequence


def drill_value(value: object) -> object:
    """A value as Drill's JDBC getObject() shows it: maps drop null members, rows become
    maps, Spark Row objects become dicts."""
    if hasattr(value, "asDict"):
        value = value.asDict(recursive=False)  # type: ignore[union-attr]
    if isinstance(value, dict):
        return {str(k): drill_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [drill_value(v) for v in value]
    return value


def plain(value: object) -> object:
    """Spark Rows as dicts and tuples as lists, recursively (nulls kept)."""
    if hasattr(value, "asDict"):
        value = value.asDict(recursive=False)  # type: ignore[union-attr]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _json_default(value: object) -> object:
    if isinstance(value, decimal.Decimal):
        return float(value) if value != value.to_integral_value() else int(value)
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat(sep=" ") if isinstance(value, _dt.datetime) else value.isoformat()
    if isinstance(value, bytes | bytearray):
        return value.hex()
    return str(value)


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def text(value: object) -> str:
    """One cell as text: `null`, JSON for maps/arrays, Drill spellings of floats."""
    value = drill_value(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), default=_json_default,
                          allow_nan=True)
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, bytes | bytearray):
        return value.hex()
    return str(value)


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], max_width: int = 80) -> str:
    """A boxed table like sqlline's, cells cut at `max_width` characters."""
    cells = [[_cut(text(v), max_width) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def fmt(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) + " |"

    out = [line, fmt(list(columns)), line] + [fmt(r) for r in cells] + [line]
    n = len(cells)
    out.append(f"{n} row{'s' if n != 1 else ''} selected")
    return "\n".join(out)


def _cut(value: str, width: int) -> str:
    value = value.replace("\n", "\\n")
    return value if len(value) <= width else value[: width - 3] + "..."


def json_lines(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """One JSON object per row (NaN/Infinity spelled as in Drill's JSON)."""
    lines = []
    for row in rows:
        obj = {c: drill_value(v) for c, v in zip(columns, row, strict=True)}
        lines.append(json.dumps(obj, default=_json_default, allow_nan=True))
    return "\n".join(lines)


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else text(v) for v in row])
    return buf.getvalue().rstrip("\n")


FORMATS = {"table": table, "json": json_lines, "csv": csv_text}


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
    return columns, ([r.get(c) for c in columns] if isinstance(r, dict) else list(r)
                     for r in rows)


def _fetch(result: object, collect: bool) -> Iterator[list[object]]:
    fetching = getattr(result, "fetching", None)  # DrillResult: failures name the operator
    df = result.df  # type: ignore[attr-defined]
    with fetching() if fetching is not None else contextlib.nullcontext():
        for r in (df.collect() if collect else df.toLocalIterator()):
            yield [plain(v) for v in r]


def render(result: object, fmt: str = "table") -> str:
    raw = getattr(result, "text", None)
    if fmt == "table" and isinstance(raw, str):
        return raw
    columns, rows = stream(result)
    return FORMATS[fmt](columns, rows)
