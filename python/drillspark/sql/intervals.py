"""SQL INTERVAL literals (`INTERVAL '1 02:00:00' DAY TO SECOND`, `INTERVAL '1-2' YEAR TO
MONTH`, `INTERVAL '90' MINUTE`) read into Drill's period text, which the plan carries as
`cast('P1DT7200S' as intervalday)` / `cast('P1Y2M' as intervalyear)` (Drill casts VARCHAR to
an interval from that ISO text)."""

from __future__ import annotations

import re
from decimal import Decimal

from drillspark.errors import Error

YEAR_MONTH = ("YEAR", "MONTH")
DAY_TIME = ("DAY", "HOUR", "MINUTE", "SECOND")
_SECONDS = {"DAY": 86400, "HOUR": 3600, "MINUTE": 60, "SECOND": 1}


class IntervalError(Error, ValueError):
    pass


def _fields(start: str, end: str) -> tuple[str, ...]:
    for group in (YEAR_MONTH, DAY_TIME):
        if start in group and end in group and group.index(start) <= group.index(end):
            return group[group.index(start) : group.index(end) + 1]
    raise IntervalError(f"INTERVAL {start} TO {end} is not an interval qualifier")


def interval_literal(
    text: str, start: str, end: str | None = None, precision: int = 2
) -> tuple[str, str]:
    """(Drill type `intervalday`/`intervalyear`, period text) of INTERVAL 'text' start
    [(precision)] [TO end]; the leading field has at most `precision` digits (SQL's default
    2; Drill 1.22: INTERVAL '100' DAY(3) is 100 days)."""
    start = start.upper().rstrip("S") if start.upper() != "SECONDS" else "SECOND"
    end = end.upper() if end else start
    fields = _fields(start, end)
    body = text.strip()
    sign = 1
    if body[:1] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:].strip()
    # the separators between the fields: YEAR-MONTH, DAY HOUR, HOUR:MINUTE:SECOND
    parts = re.split(r"[-: ]", body) if len(fields) > 1 else [body]
    seps = {("YEAR", "MONTH"): "-", ("DAY", "HOUR"): " "}
    expect = "".join(seps.get((a, b), ":") for a, b in zip(fields, fields[1:], strict=False))
    got = "".join(ch for ch in body if ch in "-: ")
    number = r"\d+(\.\d+)?" if fields[-1] == "SECOND" else r"\d+"
    if (
        len(parts) != len(fields)
        or got != expect
        or not all(re.fullmatch(r"\d+", p) for p in parts[:-1])
        or not re.fullmatch(number, parts[-1])
    ):
        qual = start if start == end else f"{start} TO {end}"
        raise IntervalError(f"Illegal interval literal format '{text}' for INTERVAL {qual}")
    values = dict(zip(fields, parts, strict=True))
    lead = values[fields[0]]
    if len(lead.split(".")[0]) > precision:
        raise IntervalError(
            f"Interval field value {int(lead)} exceeds precision of {fields[0]}({precision}) field"
        )
    if fields[0] == "YEAR" or fields == ("MONTH",):
        months = sign * (12 * int(values.get("YEAR", 0)) + int(values.get("MONTH", 0)))
        return "intervalyear", year_month_text(months)
    seconds = Decimal(sum(Decimal(v) * _SECONDS[f] for f, v in values.items()) * sign)
    return "intervalday", day_time_text(seconds)


def year_month_text(months: int) -> str:
    y, m = divmod(abs(months), 12)
    sign = "-" if months < 0 else ""
    return f"P{sign}{y}Y{sign}{m}M"


def day_time_text(seconds: Decimal) -> str:
    """Period text as Drill's JDBC gives it: days, then the rest in seconds (millis kept)."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds).quantize(Decimal("0.001"))
    days, rest = divmod(seconds, 86400)
    out = f"P{sign}{int(days)}D"
    if rest:
        text = f"{rest:f}".rstrip("0").rstrip(".")
        out += f"T{sign}{text}S"
    return out
