"""Drill's text form of values (maps as JSON objects without their null members, arrays as
JSON arrays, Drill's spellings of floats) and the renderings of rows built on it: a boxed table
(sqlline style), JSON lines, CSV and an HTML table for notebooks. A leaf module: every result
type (drillspark.result) and every front end (CLI, shell, server) prints through it."""

from __future__ import annotations

import csv
import datetime as _dt
import decimal
import html
import io
import json
import math
from collections.abc import Iterable, Sequence


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


def json_text(value: object, compact: bool = False) -> str:
    """`value` as JSON: a DECIMAL as the number it is, every digit and its scale (`1.50`; a
    float would keep 16 digits of 12345678901234567.25), NaN/Infinity spelled as in Drill's
    JSON, other values as `_json_default` writes them; `compact` without spaces."""
    comma, colon = (",", ":") if compact else (", ", ": ")
    if isinstance(value, decimal.Decimal):
        return str(value) if value.is_finite() else json.dumps(str(value))
    if isinstance(value, dict):
        members = (f"{json.dumps(str(k))}{colon}{json_text(v, compact)}" for k, v in value.items())
        return "{" + comma.join(members) + "}"
    if isinstance(value, list | tuple):
        return "[" + comma.join(json_text(v, compact) for v in value) + "]"
    return json.dumps(value, default=_json_default, allow_nan=True)


def _json_default(value: object) -> object:
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
        return json_text(value, compact=True)
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, bytes | bytearray):
        return value.hex()
    return str(value)


def table(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    max_width: int = 80,
    footer: str | None = None,
) -> str:
    """A boxed table like sqlline's, cells cut at `max_width` characters; the last line is
    `footer`, else `N rows selected`."""
    cells = [[_cut(text(v), max_width) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def fmt(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) + " |"

    out = [line, fmt(list(columns)), line] + [fmt(r) for r in cells] + [line]
    n = len(cells)
    out.append(footer if footer is not None else f"{n} row{'s' if n != 1 else ''} selected")
    return "\n".join(out)


def _cut(value: str, width: int) -> str:
    value = value.replace("\n", "\\n")
    return value if len(value) <= width else value[: width - 3] + "..."


def html_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    note: str | None = None,
    max_width: int = 200,
) -> str:
    """An HTML table of the cells' text (escaped, cut at `max_width`), `note` below it (e.g.
    that only the first rows are shown)."""

    def cell(tag: str, value: str) -> str:
        return f"<{tag}>{html.escape(_cut(value, max_width))}</{tag}>"

    head = "".join(cell("th", str(c)) for c in columns)
    body = "".join("<tr>" + "".join(cell("td", text(v)) for v in row) + "</tr>" for row in rows)
    out = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if note:
        out += f"<p>{html.escape(note)}</p>"
    return out


def json_lines(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """One JSON object per row (NaN/Infinity spelled as in Drill's JSON)."""
    lines = []
    for row in rows:
        obj = {c: drill_value(v) for c, v in zip(columns, row, strict=True)}
        lines.append(json_text(obj))
    return "\n".join(lines)


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else text(v) for v in row])
    return buf.getvalue().rstrip("\n")


FORMATS = {"table": table, "json": json_lines, "csv": csv_text}
