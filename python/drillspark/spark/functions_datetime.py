"""Drill's date-time functions and date-time arithmetic, registered into the one catalog
(spark/functions.py): `+`/`-` with intervals, TIMESTAMPADD/TIMESTAMPDIFF, DATE_TRUNC,
LAST_DAY, AGE, TO_TIME, SQL_TO_DATE/TIME/TIMESTAMP (SQL-style patterns), the niladic
current-time functions, and casts of text to intervals. Result types follow Drill's (checked
against Drill 1.22): DATE + interval is a TIMESTAMP but DATE - interval a DATE, TIME +
interval stays a TIME (wrapping at midnight), DATE_TRUNC keeps its argument's type."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.function_catalog import (
    DATETIME,
    INTEGRAL,
    INTERVAL,
    Arg,
    Builder,
    Context,
    DrillFunction,
    FunctionArgumentError,
    FunctionCatalog,
    lit_str,
)

# PySpark can only collect a YEAR TO MONTH interval as its month count with this set (the
# value Drill's INTERVALYEAR stands for); it is read when rows are collected.
os.environ.setdefault("PYSPARK_YM_INTERVAL_LEGACY", "1")

_TIME3 = "time(3)"


def _is_time(t: T.DataType) -> bool:
    return type(t).__name__ == "TimeType"


def _is_ts(t: T.DataType) -> bool:
    return isinstance(t, T.TimestampType | T.TimestampNTZType)


def _time_seconds(x: Column) -> Column:
    """A TIME as seconds since midnight (a decimal with the fraction)."""
    return (F.hour(x) * 3600 + F.minute(x) * 60).cast("decimal(12,6)") + F.date_part(
        F.lit("SECOND"), x
    ).cast("decimal(12,6)")


def _time_of_seconds(s: Column) -> Column:
    """Seconds (any number) as a TIME of day, wrapped into [0, 24h) as Drill's TIME
    arithmetic does (it works on the milliseconds of the day)."""
    s = F.pmod(s.cast("decimal(20,6)"), F.lit(86400))
    h = F.floor(s / 3600)
    m = F.floor((s - h * 3600) / 60)
    return F.make_time(
        h.cast("int"), m.cast("int"), (s - h * 3600 - m * 60).cast("decimal(16,6)")
    ).cast(_TIME3)


def _interval_seconds(y: Column) -> Column:
    return (
        F.date_part(F.lit("DAY"), y).cast("decimal(20,6)") * 86400
        + F.date_part(F.lit("HOUR"), y) * 3600
        + F.date_part(F.lit("MINUTE"), y) * 60
        + F.date_part(F.lit("SECOND"), y)
    )


def _as_datetime(col: Column, t: T.DataType) -> tuple[Column, T.DataType]:
    if isinstance(t, T.StringType):
        return col.cast("date"), T.DateType()
    return col, t


def shift(x: Column, tx: T.DataType, y: Column, ty: T.DataType, sign: int) -> Column:
    """A DATE / TIME / TIMESTAMP plus (sign 1) or minus (-1) an interval, typed as Drill."""
    if _is_time(tx):
        if isinstance(ty, T.YearMonthIntervalType):
            return x  # a TIME has no months
        secs = _interval_seconds(y)
        return _time_of_seconds(_time_seconds(x) + (secs if sign > 0 else -secs))
    if isinstance(tx, T.DateType):
        ts = x.cast("timestamp_ntz")
        # Drill: DATE + interval is a TIMESTAMP, DATE - interval a DATE
        return ts + y if sign > 0 else (ts - y).cast("date")
    return x + y if sign > 0 else x - y


def _add(a: list[Arg], ctx: Context, numeric: Builder) -> Column:
    x, y = a[0].col, a[1].col
    tx, ty = ctx.type_of(x), ctx.type_of(y)
    if isinstance(tx, INTERVAL) and not isinstance(ty, INTERVAL + INTEGRAL + (T.NullType,)):
        x, y, tx, ty = y, x, ty, tx
    if isinstance(ty, INTERVAL) and (isinstance(tx, DATETIME) or _is_time(tx)):
        return shift(x, tx, y, ty, 1)
    if isinstance(tx, T.DateType) and isinstance(ty, INTEGRAL):
        return F.date_add(x, y)
    if isinstance(ty, T.DateType) and isinstance(tx, INTEGRAL):
        return F.date_add(y, x)
    if isinstance(tx, T.DateType) and _is_time(ty) or _is_time(tx) and isinstance(ty, T.DateType):
        # Drill 1.22: DATE '2024-01-01' + TIME '10:00:00' is that day at that time
        day, time = (x, y) if isinstance(tx, T.DateType) else (y, x)
        return F.to_timestamp_ntz(F.concat(day.cast("string"), F.lit(" "), time.cast("string")))
    return numeric(a, ctx)


def _subtract(a: list[Arg], ctx: Context, numeric: Builder) -> Column:
    x, y = a[0].col, a[1].col
    tx, ty = ctx.type_of(x), ctx.type_of(y)
    if isinstance(ty, INTERVAL) and (isinstance(tx, DATETIME) or _is_time(tx)):
        return shift(x, tx, y, ty, -1)
    if isinstance(tx, T.DateType) and isinstance(ty, INTEGRAL):
        return F.date_sub(x, y)
    if isinstance(tx, T.DateType) and _is_ts(ty) or _is_ts(tx) and isinstance(ty, T.DateType):
        return x.cast("timestamp_ntz") - y.cast("timestamp_ntz")
    return numeric(a, ctx)


def _date_add_fn(
    core: Callable[[list[Arg], Context], Column], sign: int
) -> Callable[[list[Arg], Context], Column]:
    """date_add / date_sub: with an interval, the same typing as `+` / `-` (TIMESTAMP for a
    DATE plus an interval, a TIMESTAMP without a zone); days keep the core catalog's rules."""

    def build(a: list[Arg], ctx: Context) -> Column:
        x, y = a[0].col, a[1].col
        tx, ty = ctx.type_of(x), ctx.type_of(y)
        if sign > 0 and isinstance(tx, INTERVAL) and not isinstance(ty, INTERVAL):
            x, y, tx, ty = y, x, ty, tx
        if (
            isinstance(ty, INTERVAL)
            and not isinstance(tx, T.StringType)
            and (isinstance(tx, DATETIME) or _is_time(tx))
        ):
            return shift(x, tx, y, ty, sign)
        return core(a, ctx)

    return build


# --------------------------------------------------------------- TIMESTAMPADD / TIMESTAMPDIFF
_DAY_UNITS = ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR")
_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
_SECONDS = {
    "NANOSECOND": 1e-9,
    "MICROSECOND": 1e-6,
    "MILLISECOND": 1e-3,
    "SECOND": 1,
    "MINUTE": 60,
    "HOUR": 3600,
    "DAY": 86400,
    "WEEK": 7 * 86400,
}


def _unit(arg: Arg, fn: str) -> str:
    unit = lit_str(arg, fn, 1).upper()
    if unit not in _MONTHS and unit not in _SECONDS:
        raise FunctionArgumentError(f"{fn}(): unknown time unit {unit!r}")
    return unit


def _timestampadd(a: list[Arg], ctx: Context) -> Column:
    """TIMESTAMPADD(unit, n, x): a TIME stays a TIME, a TIMESTAMP a TIMESTAMP; a DATE gives a
    TIMESTAMP, except that a call on constants alone, which Drill's planner folds, stays a
    DATE for day units and up (Drill 1.22: TIMESTAMPADD(DAY, 1, DATE '2023-01-01') is a DATE,
    TIMESTAMPADD(DAY, 1, CAST(d AS DATE)) or TIMESTAMPADD(DAY, id, DATE '2023-01-01') a
    TIMESTAMP)."""
    unit = _unit(a[0], "timestampadd")
    n, x = a[1].col, a[2].col
    tx = ctx.type_of(x)
    x, tx = _as_datetime(x, tx)
    if isinstance(tx, T.NullType):
        return F.lit(None).cast("timestamp_ntz")
    if unit in _MONTHS:
        iv = F.make_ym_interval(F.lit(0), (n * _MONTHS[unit]).cast("int"))
    else:
        secs = n.cast("decimal(38,9)") * F.lit(_SECONDS[unit]).cast("decimal(38,9)")
        iv = F.make_dt_interval(F.lit(0), F.lit(0), F.lit(0), secs.cast("decimal(18,6)"))
    if isinstance(tx, T.DateType):
        out = x.cast("timestamp_ntz") + iv
        folded = a[1].constant and a[2].constant
        return out.cast("date") if unit in _DAY_UNITS and folded else out
    if _is_time(tx):
        if unit in _MONTHS:
            return x
        return _time_of_seconds(_time_seconds(x) + n * F.lit(_SECONDS[unit]))
    return x + iv


def _as_timestamp(x: Column, t: T.DataType) -> Column:
    if _is_time(t):  # a TIME is that time on 1970-01-01
        return F.to_timestamp_ntz(F.concat(F.lit("1970-01-01 "), x.cast("string")))
    if isinstance(t, T.StringType | T.DateType | T.TimestampType):
        return x.cast("timestamp_ntz")
    return x


def _timestampdiff(a: list[Arg], ctx: Context) -> Column:
    """Whole units from a to b, truncated toward zero (months by calendar, as java.time)."""
    unit = _unit(a[0], "timestampdiff")
    x = _as_timestamp(a[1].col, ctx.type_of(a[1].col))
    y = _as_timestamp(a[2].col, ctx.type_of(a[2].col))
    if unit in ("MILLISECOND", "NANOSECOND"):
        micros = F.timestamp_diff("MICROSECOND", x, y)
        return micros * 1000 if unit == "NANOSECOND" else (micros / 1000).cast("long")
    return F.timestamp_diff(unit, x, y).cast("long")


# --------------------------------------------------------------- DATE_TRUNC, LAST_DAY, AGE
_TRUNC_UNITS = (
    "MILLENNIUM",
    "CENTURY",
    "DECADE",
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
)


def _date_trunc(a: list[Arg], ctx: Context) -> Column:
    unit = lit_str(a[0], "date_trunc", 1).upper()
    if unit not in _TRUNC_UNITS:
        raise FunctionArgumentError(
            f"date_trunc(): unknown unit {unit!r} (units: {', '.join(_TRUNC_UNITS)})"
        )
    x = a[1].col
    t = ctx.type_of(x)
    x, t = _as_datetime(x, t)
    if _is_time(t):
        if unit in ("HOUR", "MINUTE", "SECOND"):
            return F.time_trunc(F.lit(unit), x).cast(_TIME3)
        return F.lit("00:00:00").cast(_TIME3)
    if isinstance(t, INTERVAL):
        raise FunctionArgumentError("date_trunc() of an interval is not supported")
    year = F.year(x)
    if unit in ("MILLENNIUM", "CENTURY", "DECADE"):
        if unit == "DECADE":
            y = F.floor(year / 10) * 10
        else:
            size = 1000 if unit == "MILLENNIUM" else 100
            y = F.floor((year - 1) / size) * size + 1
        d = F.make_date(y.cast("int"), F.lit(1), F.lit(1))
    elif isinstance(t, T.DateType) and unit in ("YEAR", "QUARTER", "MONTH", "WEEK"):
        d = F.trunc(x, unit)
    elif isinstance(t, T.DateType):
        d = x
    else:
        return F.date_trunc(unit, x).cast("timestamp_ntz")
    return d if isinstance(t, T.DateType) else d.cast("timestamp_ntz")


def _last_day(a: list[Arg], ctx: Context) -> Column:
    x, t = _as_datetime(a[0].col, ctx.type_of(a[0].col))
    return F.last_day(x.cast("date") if not isinstance(t, T.DateType) else x)


# --------------------------------------------------------------- NEARESTDATE (time buckets)
# Drill's nearestDate (contrib udfs, what Superset's Drill time grains call): the start of the
# bucket a timestamp falls in. Units whose bucket Spark's date_trunc knows map to it; weeks
# start on the given day; the half and quarter units floor the minutes or seconds.
_NEAREST_UNITS = (
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK_SUNDAY",
    "WEEK_MONDAY",
    "DAY",
    "HOUR",
    "HALF_HOUR",
    "QUARTER_HOUR",
    "MINUTE",
    "HALF_MINUTE",
    "QUARTER_MINUTE",
    "SECOND",
)
_NEAREST_TRUNC = {
    "YEAR": "YEAR",
    "QUARTER": "QUARTER",
    "MONTH": "MONTH",
    "WEEK_MONDAY": "WEEK",
    "DAY": "DAY",
    "HOUR": "HOUR",
    "MINUTE": "MINUTE",
    "SECOND": "SECOND",
}
# unit -> (the part floored, the coarser unit it is floored within, the bucket size)
_NEAREST_STEPS = {
    "HALF_HOUR": ("MINUTE", "HOUR", 30),
    "QUARTER_HOUR": ("MINUTE", "HOUR", 15),
    "HALF_MINUTE": ("SECOND", "MINUTE", 30),
    "QUARTER_MINUTE": ("SECOND", "MINUTE", 15),
}


def _nearest_date(a: list[Arg], ctx: Context) -> Column:
    given = lit_str(a[-1], "nearestdate", len(a))
    unit = given.upper()
    if unit not in _NEAREST_UNITS:
        raise FunctionArgumentError(
            f"nearestdate(): [{given}] is not a valid time statement. "
            f"Expecting: [{', '.join(_NEAREST_UNITS)}]"
        )
    if len(a) == 3:  # (text, Java date-time pattern, unit)
        x = F.to_timestamp_ntz(a[0].col, F.lit(lit_str(a[1], "nearestdate", 2)))
    else:
        x = a[0].col.cast("timestamp_ntz")
    if unit in _NEAREST_TRUNC:
        return F.date_trunc(_NEAREST_TRUNC[unit], x).cast("timestamp_ntz")
    if unit == "WEEK_SUNDAY":  # dayofweek: Sunday is 1
        return F.date_trunc("DAY", x).cast("timestamp_ntz") - F.make_dt_interval(
            days=F.dayofweek(x) - 1
        )
    part, within, size = _NEAREST_STEPS[unit]
    n = (F.floor(F.date_part(F.lit(part), x) / size) * size).cast("int")
    step = F.make_dt_interval(mins=n) if part == "MINUTE" else F.make_dt_interval(secs=n)
    return F.date_trunc(within, x).cast("timestamp_ntz") + step


# --------------------------------------------------------------- parsing and formatting
def _millis_timestamp(x: Column) -> Column:
    # Drill keeps milliseconds: the fraction past them is cut (a narrow decimal first, so
    # the product cannot overflow Spark's decimal(38))
    millis = x.cast("decimal(28,9)") * F.lit(1000)
    return F.timestamp_millis(millis.cast("long")).cast("timestamp_ntz")


def _to_timestamp(a: list[Arg], ctx: Context) -> Column:
    if len(a) == 1:
        t = ctx.type_of(a[0].col)
        if isinstance(t, T.StringType):  # Drill reads a string as seconds since the epoch
            return _millis_timestamp(a[0].col.cast("decimal(38,9)"))
        return _millis_timestamp(a[0].col)
    return parse_datetime(a[0].col, joda_pattern(lit_str(a[1], "to_timestamp", 2), parsing=True))


def _to_date(a: list[Arg], ctx: Context) -> Column:
    if len(a) == 1:
        t = ctx.type_of(a[0].col)
        if isinstance(t, T.NumericType):  # milliseconds since the epoch
            return F.timestamp_millis(a[0].col.cast("long")).cast("timestamp_ntz").cast("date")
        return F.to_date(a[0].col)
    fmt = joda_pattern(lit_str(a[1], "to_date", 2), parsing=True)
    return parse_datetime(a[0].col, fmt).cast("date")


def _to_time(a: list[Arg], ctx: Context) -> Column:
    if len(a) == 1:
        t = ctx.type_of(a[0].col)
        if isinstance(t, T.NumericType):  # milliseconds of the day
            return _time_of_seconds(a[0].col.cast("decimal(20,3)") / 1000)
        return a[0].col.cast(_TIME3)
    fmt = joda_pattern(lit_str(a[1], "to_time", 2), parsing=True)
    return F.to_time(a[0].col, F.lit(fmt)).cast(_TIME3)


def joda_pattern(fmt: str, parsing: bool = False) -> str:
    """A Joda-Time pattern (Drill's TO_CHAR / TO_DATE / TO_TIMESTAMP) as a Spark pattern. The
    letters agree except Joda's `Y` (year of era: `y` here), and `e` (day-of-week number), `C`
    (century of era), `x` (week year), `w` (week), which Spark lacks. For parsing, a two-letter
    number field between separators reads one or two digits, as Joda reads '2008-2-3' with
    'yyyy-MM-dd' (Spark's `MM` wants two)."""
    for bad in ("e", "C", "x", "w"):
        if bad in _unquoted(fmt):
            raise FunctionArgumentError(
                f"the Joda pattern letter {bad!r} in {fmt!r} is not supported"
            )
    out: list[str] = []
    for quoted, text in _pattern_parts(fmt):
        if quoted:
            out.append(text)
            continue
        text = text.replace("Y", "y")
        # Joda: four or more letters of a text field are its full form (MMMMM: February),
        # where Spark refuses five
        text = re.sub(r"M{5,}", "MMMM", re.sub(r"E{5,}", "EEEE", text))
        if parsing:  # Joda reads `Z` for a zero offset as `Z` / `ZZ` (Spark's `X` / `XXX`)
            text = re.sub(r"Z+", lambda m: "XX" if len(m[0]) == 1 else "XXX", text)
        else:  # Joda writes `ZZ` +00:00 (Spark's `xxx`), `ZZZ` the zone's id: UTC, the
            # zone of drillspark's wall-clock times (Spark's `VV` would say Etc/UTC)
            text = re.sub(r"Z+", lambda m: {1: "Z", 2: "xxx"}.get(len(m[0]), "'UTC'"), text)
        out.append(text)
    return _short_numbers("".join(out)) if parsing else "".join(out)


def _pattern_parts(fmt: str) -> list[tuple[bool, str]]:
    """`fmt` split into (quoted, text) runs; quoted runs keep their quotes."""
    return [(part.startswith("'"), part) for part in re.split(r"('(?:[^']|'')*')", fmt) if part]


def _unquoted(fmt: str) -> str:
    return re.sub(r"'[^']*'", "", fmt)


# Day names carry nothing a date needs, and Spark cannot parse them: a pattern's day-name
# element and the first day name of the text are both dropped before parsing.
_DAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun"


def _without_day_names(text: Column, fmt: str) -> tuple[Column, str]:
    if not re.search(r"E", _unquoted(fmt)):
        return text, fmt
    parts = [(q, t if q else re.sub(r"E+", "", t)) for q, t in _pattern_parts(fmt)]
    stripped = F.regexp_replace(text, rf"(?i)^(.*?)\b(?:{_DAY_NAMES})\b", "$1")
    return stripped, "".join(t for _, t in parts)


# SQL-style pattern elements (Drill's SQL_TO_* functions, PostgreSQL's formats), matched
# without regard to case, -> Java's. `Y`, `YYY` and `YYYY` read a year, `YY` too (two digits
# are the nearest such year to today, four a year: Drill 1.22 reads '2017' with 'YY' as 2017);
# FM / FX / TM prefixes change nothing when parsing.
_SQL_ELEMENTS = [
    ("FM", ""),
    ("FX", ""),
    ("TM", ""),
    ("HH24", "HH"),
    ("HH12", "hh"),
    ("HH", "hh"),
    ("MI", "mm"),
    ("SS", "ss"),
    ("MS", "SSS"),
    ("US", "SSSSSS"),
    ("A.M.", "a"),
    ("P.M.", "a"),
    ("AM", "a"),
    ("PM", "a"),
    ("YYYY", "yyyy"),
    ("YYY", "yyyy"),
    ("YY", "y"),
    ("Y", "yyyy"),
    ("MONTH", "MMMM"),
    ("MON", "MMM"),
    ("MM", "MM"),
    ("DAY", "EEEE"),
    ("DY", "EEE"),
    ("DDD", "DDD"),
    ("DD", "dd"),
    ("TZ", "z"),
]
# PostgreSQL elements Spark cannot parse (week numbers, ISO years, day-of-week numbers)
_SQL_UNSUPPORTED = ("IYYY", "IYY", "IW", "WW", "W", "D", "J", "Q", "CC", "RM")


def sql_pattern(fmt: str) -> str:
    out: list[str] = []
    i = 0
    upper = fmt.upper()
    while i < len(fmt):
        for src, dst in _SQL_ELEMENTS:
            if upper.startswith(src, i):
                out.append(dst)
                i += len(src)
                break
        else:
            bad = next((e for e in _SQL_UNSUPPORTED if upper.startswith(e, i)), None)
            if bad is not None:
                raise FunctionArgumentError(
                    f"the SQL pattern element {fmt[i : i + len(bad)]!r} in {fmt!r} is not supported"
                )
            ch = fmt[i]
            if ch.isalpha():
                out.append(f"'{ch}'")
            elif ch == "'":
                out.append("''")
            elif ch == '"':  # "quoted text" is literal in SQL patterns
                end = fmt.find('"', i + 1)
                end = len(fmt) if end < 0 else end
                out.append("'" + fmt[i + 1 : end].replace("'", "''") + "'")
                i = end
            else:
                out.append(ch)
            i += 1
    # between separators, a two-letter number reads one or two digits ('5/12/2016' with
    # 'DD/MM/YYYY'); run together ('YYYYMMDD') each keeps its width
    return _short_numbers("".join(out))


def _short_numbers(fmt: str) -> str:
    out: list[str] = []
    for quoted, text in _pattern_parts(fmt):
        if not quoted:
            text = re.sub(
                r"(?<![A-Za-z])(MM|dd|HH|hh|mm|ss|kk|KK)(?![A-Za-z])",
                lambda m: m.group(1)[0],
                text,
            )
        out.append(text)
    return "".join(out)


def _two_digit_years(ts: Column, fmt: str) -> Column:
    """A two-digit year read as the one within 80 years before and 20 after today (Drill
    1.22: sql_to_date('99-291', 'yy-ddd') is 1999-10-18, '30-01-01' is 2030); Spark's `yy`
    reads 2000-2099, its `y` the year 99."""
    letters = _unquoted(fmt)
    if "y" not in letters.replace("yyyy", ""):
        return ts
    year, this_year = F.year(ts), F.year(F.current_date())
    if "yy" in letters.replace("yyyy", ""):  # 2000-2099
        return F.when(year > this_year + 20, F.add_months(ts, -1200)).otherwise(ts)
    shift = F.when(year + 2000 > this_year + 20, 1900).otherwise(2000)
    return F.when(year < 100, F.add_months(ts, shift * 12)).otherwise(ts)


def parse_datetime(text: Column, fmt: str) -> Column:
    """`text` read with the Spark pattern `fmt` as a TIMESTAMP (day names skipped, two-digit
    years as Drill reads them)."""
    text, fmt = _without_day_names(text, fmt)
    if "X" in _unquoted(fmt):
        # an offset in the text: the instant it names, in UTC, as Drill gives it
        # ('14:07:09+0100' is 13:07:09); a wall-clock parse would drop the offset
        instant = F.to_timestamp(text, fmt).cast("timestamp_ntz")
        ts = F.convert_timezone(F.current_timezone(), F.lit("UTC"), instant)
    else:
        ts = F.to_timestamp_ntz(text, F.lit(fmt))
    return _two_digit_years(ts, fmt)


def _sql_to(kind: str) -> Callable[[list[Arg], Context], Column]:
    def build(a: list[Arg], ctx: Context) -> Column:
        fmt = sql_pattern(lit_str(a[1], f"sql_to_{kind}", 2))
        text = a[0].col.cast("string")
        if kind == "time":
            return F.to_time(text, F.lit(fmt)).cast(_TIME3)
        ts = parse_datetime(text, fmt)
        return ts.cast("date") if kind == "date" else ts

    return build


def _age(a: list[Arg], ctx: Context) -> Column:
    """AGE(a [, b]): b (default: today) to a as months, days and time (an INTERVAL mixing
    both, Spark's CalendarInterval); EXTRACT reads its fields."""
    x = a[0].col.cast("timestamp_ntz")
    y = a[1].col.cast("timestamp_ntz") if len(a) > 1 else F.current_date().cast("timestamp_ntz")
    months = F.timestamp_diff("MONTH", y, x)
    rest = x - F.timestamp_add("MONTH", months, y)
    days = F.date_part(F.lit("DAY"), rest)
    secs = _interval_seconds(rest) - days * 86400
    return F.make_interval(
        F.lit(0),
        months.cast("int"),
        F.lit(0),
        days.cast("int"),
        F.lit(0),
        F.lit(0),
        secs.cast("decimal(18,6)"),
    )


def period_text(x: Column) -> Column:
    """A months-days-time interval (AGE's, a year-month interval divided) as the Joda period
    text Drill's JDBC gives for it (`P107M30DT82800S`, `P2M15D`, `PT0S`): Spark cannot hand
    such an interval to Python, so a result column of that type is this text."""
    months = F.date_part(F.lit("YEAR"), x) * 12 + F.date_part(F.lit("MONTH"), x)
    days = F.date_part(F.lit("DAY"), x)
    secs = (
        F.date_part(F.lit("HOUR"), x) * 3600
        + F.date_part(F.lit("MINUTE"), x) * 60
        + F.date_part(F.lit("SECOND"), x).cast("decimal(20,6)")
    )
    millis = (secs * 1000).cast("long")
    whole = (millis / 1000).cast("long")
    frac = F.abs(millis - whole * 1000)
    sign = F.when((millis < 0) & (whole == 0), F.lit("-")).otherwise(F.lit(""))
    sec_text = F.concat(
        sign,
        whole.cast("string"),
        F.when(frac != 0, F.concat(F.lit("."), F.lpad(frac.cast("string"), 3, "0"))).otherwise(
            F.lit("")
        ),
        F.lit("S"),
    )
    text = F.concat(
        F.lit("P"),
        F.when(months != 0, F.concat(months.cast("string"), F.lit("M"))).otherwise(F.lit("")),
        F.when(days != 0, F.concat(days.cast("string"), F.lit("D"))).otherwise(F.lit("")),
        F.when(millis != 0, F.concat(F.lit("T"), sec_text)).otherwise(F.lit("")),
    )
    return F.when(x.isNotNull(), F.when(text == "P", F.lit("PT0S")).otherwise(text))


def scale_year_month(x: Column, y: Column, divide: bool) -> Column:
    """A year-month interval divided by (or multiplied by a fraction of) a number, as Drill
    does it: the months' fraction carries into days of 30 and their fraction into
    milliseconds, each cut toward zero, in double arithmetic (INTERVAL '5' MONTH / 2 is
    P2M15D, INTERVAL '1' YEAR / 5 is P2M11DT86399.999S, INTERVAL '7' MONTH * 1.5 P10M15D).
    The result mixes months and days: a CalendarInterval."""
    months = (F.date_part(F.lit("YEAR"), x) * 12 + F.date_part(F.lit("MONTH"), x)).cast("double")
    q = months / y.cast("double") if divide else months * y.cast("double")
    whole = q.cast("long")
    day_q = (q - whole) * 30
    days = day_q.cast("long")
    ms = ((day_q - days) * 86400000).cast("long")
    return F.make_interval(
        F.lit(0),
        whole.cast("int"),
        F.lit(0),
        days.cast("int"),
        F.lit(0),
        F.lit(0),
        (ms / 1000).cast("decimal(18,6)"),
    )


def _unix_timestamp(a: list[Arg], ctx: Context) -> Column:
    if not a:
        return F.unix_timestamp()
    fmt = (
        joda_pattern(lit_str(a[1], "unix_timestamp", 2), parsing=True)
        if len(a) > 1
        else "yyyy-MM-dd HH:mm:ss"
    )
    return F.unix_timestamp(parse_datetime(a[0].col, fmt).cast("timestamp"))


# --------------------------------------------------------------- registration


# ISDATE reads three digit runs with one separator (any non-digit) between them at the start
# of the text, as year, month and day; whatever follows is ignored. Checked with Drill 1.22:
# '2023/1/5', '2023x01x15', '12023-01-15' and '2023-01-15 25:00:00' are dates; ' 2023-01-15',
# '20230115', '2023--01-15', '2023-02-29' and NULL are not.
_ISDATE_PREFIX = r"^(\d+)\D(\d+)\D(\d+)"


def _isdate(a: list[Arg], ctx: Context) -> Column:
    text = a[0].col.cast("string")

    def part(i: int) -> Column:
        return F.regexp_extract(text, _ISDATE_PREFIX, i).try_cast("bigint")

    y, m, d = part(1), part(2), part(3)
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    days = (
        F.when(m == 2, F.when(leap, 29).otherwise(28)).when(m.isin(4, 6, 9, 11), 30).otherwise(31)
    )
    valid = text.rlike(_ISDATE_PREFIX) & m.between(1, 12) & d.between(F.lit(1), days)
    return F.coalesce(valid, F.lit(False))


def _to_char(core: Builder) -> Builder:
    """TO_CHAR of a date, time or timestamp with a Joda pattern (numbers: the core catalog's
    DecimalFormat rules). A TIME is formatted as that time of 1970-01-01, as Joda does."""

    def build(a: list[Arg], ctx: Context) -> Column:
        t = ctx.type_of(a[0].col)
        if isinstance(t, T.NumericType | T.StringType | T.NullType):
            return core(a, ctx)
        fmt = joda_pattern(lit_str(a[1], "to_char", 2))
        x = _as_timestamp(a[0].col, t) if _is_time(t) else a[0].col
        return F.date_format(x, fmt)

    return build


def register(cat: FunctionCatalog) -> None:
    def scalar(
        name: str,
        build: Callable[[list[Arg], Context], Column],
        n: int | tuple[int, int | None],
        *aliases: str,
    ) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        cat.add(DrillFunction(name, "scalar", build, lo, hi), *aliases)

    def layer(name: str, build: Callable[[list[Arg], Context], Column], *aliases: str) -> None:
        """`name` in place of the core catalog's, whose builder `build` calls."""
        core = cat.functions[name]
        cat.replace(DrillFunction(name, "scalar", build, core.min_args, core.max_args), *aliases)

    # date-time operands first, numbers by the core operators (integer wrap, DECIMAL types)
    core = {n: cat.functions[n].build for n in ("add", "subtract")}
    layer("add", lambda a, c: _add(a, c, core["add"]))
    layer("subtract", lambda a, c: _subtract(a, c, core["subtract"]))
    core_add, core_sub = cat.functions["date_add"], cat.functions["date_sub"]
    layer("date_add", _date_add_fn(core_add.build, 1), "adddate")
    layer("date_sub", _date_add_fn(core_sub.build, -1), "subdate", "date_diff", "datediff")
    layer("to_char", _to_char(cat.functions["to_char"].build))
    scalar("timestampadd", _timestampadd, 3)
    scalar("timestampdiff", _timestampdiff, 3)
    scalar("date_trunc", _date_trunc, 2)
    scalar("last_day", _last_day, 1)
    scalar("nearestdate", _nearest_date, (2, 3), "nearest_date")
    scalar("isdate", _isdate, 1)
    scalar("age", _age, (1, 2))
    scalar("to_timestamp", _to_timestamp, (1, 2))
    scalar("to_date", _to_date, (1, 2))
    scalar("to_time", _to_time, (1, 2))
    scalar("sql_to_date", _sql_to("date"), 2)
    scalar("sql_to_time", _sql_to("time"), 2)
    scalar("sql_to_timestamp", _sql_to("timestamp"), 2)
    scalar("unix_timestamp", _unix_timestamp, (0, 2))
    # the current instant, as wall-clock values (Drill's session time zone is UTC here)
    scalar(
        "now",
        lambda a, c: F.current_timestamp().cast("timestamp_ntz"),
        0,
        "current_timestamp",
        "localtimestamp",
        "statement_timestamp",
        "transaction_timestamp",
    )
    scalar(
        "current_time",
        lambda a, c: (
            F.current_timestamp().cast("timestamp_ntz").cast("string").substr(12, 12).cast(_TIME3)
        ),
        0,
        "localtime",
    )
    scalar(
        "timeofday",
        lambda a, c: F.date_format(F.current_timestamp(), "yyyy-MM-dd HH:mm:ss.SSS 'UTC'"),
        0,
    )
