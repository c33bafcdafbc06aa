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
    """TIMESTAMPADD(unit, n, x): a DATE stays a DATE for day units and up (a TIMESTAMP for
    smaller ones), a TIME stays a TIME, a TIMESTAMP a TIMESTAMP."""
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
        return out.cast("date") if unit in _DAY_UNITS else out
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
    return F.to_timestamp_ntz(a[0].col, F.lit(joda_pattern(lit_str(a[1], "to_timestamp", 2))))


def _to_date(a: list[Arg], ctx: Context) -> Column:
    if len(a) == 1:
        t = ctx.type_of(a[0].col)
        if isinstance(t, T.NumericType):  # milliseconds since the epoch
            return F.timestamp_millis(a[0].col.cast("long")).cast("timestamp_ntz").cast("date")
        return F.to_date(a[0].col)
    return F.to_date(a[0].col, joda_pattern(lit_str(a[1], "to_date", 2)))


def _to_time(a: list[Arg], ctx: Context) -> Column:
    if len(a) == 1:
        t = ctx.type_of(a[0].col)
        if isinstance(t, T.NumericType):  # milliseconds of the day
            return _time_of_seconds(a[0].col.cast("decimal(20,3)") / 1000)
        return a[0].col.cast(_TIME3)
    fmt = joda_pattern(lit_str(a[1], "to_time", 2))
    return F.to_time(a[0].col, F.lit(fmt)).cast(_TIME3)


def joda_pattern(fmt: str) -> str:
    """A Joda-Time pattern (Drill's TO_CHAR / TO_DATE / TO_TIMESTAMP) as a Spark pattern: the
    letters agree except Joda's `e` (day-of-week number) and `C` (century of era), which
    Spark lacks."""
    for bad in ("e", "C", "x", "Y", "w"):
        if bad in _unquoted(fmt):
            raise FunctionArgumentError(
                f"the Joda pattern letter {bad!r} in {fmt!r} is not supported"
            )
    return fmt


def _unquoted(fmt: str) -> str:
    return re.sub(r"'[^']*'", "", fmt)


# SQL-style pattern elements (Drill's SQL_TO_* functions, PostgreSQL's formats) -> Java's
_SQL_ELEMENTS = [
    ("HH24", "HH"),
    ("HH12", "hh"),
    ("HH", "hh"),
    ("MI", "mm"),
    ("SS", "ss"),
    ("MS", "SSS"),
    ("US", "SSSSSS"),
    ("AM", "a"),
    ("PM", "a"),
    ("am", "a"),
    ("pm", "a"),
    ("A.M.", "a"),
    ("P.M.", "a"),
    ("YYYY", "yyyy"),
    ("yyyy", "yyyy"),
    ("YY", "yy"),
    ("yy", "yy"),
    ("MONTH", "MMMM"),
    ("Month", "MMMM"),
    ("month", "MMMM"),
    ("MON", "MMM"),
    ("Mon", "MMM"),
    ("mon", "MMM"),
    ("MM", "MM"),
    ("mm", "MM"),
    ("DAY", "EEEE"),
    ("Day", "EEEE"),
    ("day", "EEEE"),
    ("DY", "EEE"),
    ("Dy", "EEE"),
    ("dy", "EEE"),
    ("DDD", "DDD"),
    ("ddd", "DDD"),
    ("DD", "dd"),
    ("dd", "dd"),
    ("TZ", "z"),
    ("tz", "z"),
]


def sql_pattern(fmt: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        for src, dst in _SQL_ELEMENTS:
            if fmt.startswith(src, i):
                out.append(dst)
                i += len(src)
                break
        else:
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
    return "".join(out)


def _sql_to(kind: str) -> Callable[[list[Arg], Context], Column]:
    def build(a: list[Arg], ctx: Context) -> Column:
        fmt = sql_pattern(lit_str(a[1], f"sql_to_{kind}", 2))
        text = a[0].col
        if kind == "date":
            return F.to_date(text, fmt)
        if kind == "time":
            return F.to_time(text, F.lit(fmt)).cast(_TIME3)
        return F.to_timestamp_ntz(text, F.lit(fmt))

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


def _unix_timestamp(a: list[Arg], ctx: Context) -> Column:
    if not a:
        return F.unix_timestamp()
    fmt = joda_pattern(lit_str(a[1], "unix_timestamp", 2)) if len(a) > 1 else "yyyy-MM-dd HH:mm:ss"
    return F.unix_timestamp(F.to_timestamp_ntz(a[0].col, F.lit(fmt)).cast("timestamp"))


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


def register(cat: FunctionCatalog) -> None:
    def scalar(
        name: str,
        build: Callable[[list[Arg], Context], Column],
        n: int | tuple[int, int | None],
        *aliases: str,
    ) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        cat.add(DrillFunction(name, "scalar", build, lo, hi), *aliases)

    # date-time operands first, numbers by the core operators (integer wrap, DECIMAL types)
    core = {n: cat.functions[n].build for n in ("add", "subtract")}
    scalar("add", lambda a, c: _add(a, c, core["add"]), 2)
    scalar("subtract", lambda a, c: _subtract(a, c, core["subtract"]), 2)
    core_add, core_sub = cat.functions["date_add"], cat.functions["date_sub"]
    scalar("date_add", _date_add_fn(core_add.build, 1), 2, "adddate")
    scalar("date_sub", _date_add_fn(core_sub.build, -1), 2, "subdate", "date_diff", "datediff")
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
