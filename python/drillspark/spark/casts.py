"""Drill's CAST rules where Spark's cast differs (each checked with Drill 1.22): a DECIMAL or
floating value cast to an integer type is rounded half away from zero (Spark truncates), a
floating one saturates; a BIGINT cast to INT wraps; text is read by Drill's stricter rules
(no spaces or `+` in an integer, no ISO `T` in a TIMESTAMP, seconds in a TIME) and its looser
ones (`2023/5/6`, three-digit years); a number cast to a DATE / TIMESTAMP / TIME is
milliseconds; BOOLEAN to a number is refused; a DECIMAL's integer digits are checked before it
is rounded; a FLOAT is read from its own text; a VARBINARY from its bytes' text; VARCHAR(n)
cuts the text to n characters; TIMESTAMPs keep milliseconds; text is cast to an interval from
ISO period text."""

from __future__ import annotations

import decimal

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.spark.row_errors import raise_row_error

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_LIMITS: dict[type[T.DataType], tuple[int, int]] = {
    T.ByteType: (-(2**7), 2**7 - 1),
    T.ShortType: (-(2**15), 2**15 - 1),
    T.IntegerType: (-(2**31), 2**31 - 1),
    T.LongType: (-(2**63), 2**63 - 1),
}


class CastRefused(ExecutionError, ValueError):
    """A cast Drill refuses when it plans the query (BOOLEAN to a number)."""


def _is_time(t: T.DataType) -> bool:
    return type(t).__name__ == "TimeType"


def _drill_name(t: T.DataType) -> str:
    names: dict[type[T.DataType], str] = {
        T.ByteType: "TINYINT",
        T.ShortType: "SMALLINT",
        T.IntegerType: "INTEGER",
        T.LongType: "BIGINT",
        T.FloatType: "FLOAT",
        T.DoubleType: "DOUBLE",
    }
    return names.get(type(t), t.simpleString().upper())


def _refuse(text: Column, error: str) -> Column:
    """Drill's error for a text a cast cannot read, naming the text as Drill's message does."""
    return raise_row_error(F.concat(F.lit(error), text))


def _double_to_integral(col: Column, target: T.DataType) -> Column:
    """The cast Drill makes of a DOUBLE / FLOAT to an integer type: rounded half away from
    zero, saturating at the type's bounds as Java's (int) / (long) of a double does
    (CAST(1e10 AS INT) is 2147483647), NaN is 0."""
    lo, hi = _LIMITS[type(target)]
    rounded = F.round(col.cast("double"), 0)
    return (
        F.when(F.isnan(rounded), F.lit(0))
        .when(rounded >= float(hi), F.lit(hi))
        .when(rounded <= float(lo), F.lit(lo))
        .otherwise(rounded)
        .cast(target)
    )


def _decimal_to_integral(col: Column, target: T.DataType) -> Column:
    """A DECIMAL to an integer type as Drill casts it: rounded half away from zero, then the
    low bits of the whole number, as Java's BigDecimal.intValue / longValue keep them (Drill
    1.22: CAST(999999999999999999999999999.92 AS INT) is -402653184)."""
    lo, hi = _LIMITS[type(target)]
    whole = T.DecimalType(38, 0)
    n = F.round(col, 0).cast(whole)
    half, span = F.lit(str(-lo)).cast(whole), F.lit(str(hi - lo + 1)).cast(whole)
    return (F.pmod(n + half, span) - half).cast(target)


def _text_to_integral(col: Column, target: T.DataType) -> Column:
    """Drill reads an integer from text with Java's Integer/Long.parseLong rules less the sign
    `+`: digits with an optional leading minus; spaces, a `+`, a fraction, a line break or an
    empty text fail. `drill_integer_text` checks it without a regex (a CSV scan casts every
    row; jvm/.../functions/CastFunctions.scala)."""
    text = col.cast("string")
    readable = F.call_function("drill_integer_text", text)
    return F.when(readable | text.isNull(), text.cast(target)).otherwise(
        _refuse(text, "NumberFormatException: ").cast(target)
    )


def _to_decimal(
    col: Column, source: T.DataType, target: T.DecimalType, literal: object = None
) -> Column:
    """Drill checks the integer digits against DECIMAL(p, s) before it rounds, so a carry may
    make one digit more: CAST(9.999 AS DECIMAL(3,2)) is 10.00. Only a constant's carry is
    known when the plan is built: its type is then one digit wider (Spark's DECIMAL(3,2)
    cannot hold 10.00); a column keeps DECIMAL(p, s), and a carry past it fails. A FLOAT is
    read from its own text (Drill: 100.06, not the double 100.05999755859375); text must be
    a plain number (no spaces, as Drill's BigDecimal reads it)."""
    p, s = target.precision, target.scale
    if isinstance(source, T.DoubleType):  # NaN and the infinities are no decimal (Drill's error)
        bad = raise_row_error(
            F.concat(
                F.lit("NumberFormatException: Character "),
                F.regexp_extract(col.cast("string"), "[A-Za-z]", 0),
                F.lit(' is neither a decimal digit number, decimal point, nor "e" notation '),
                F.lit("exponential mark."),
            )
        )
        col = F.when(F.isnan(col) | (F.abs(col) == float("inf")), bad.cast("double")).otherwise(col)
    if isinstance(source, T.FloatType):
        col, source = col.cast("string"), T.StringType()
    if isinstance(source, T.StringType):
        text = col.cast("string")
        # a plain number as Drill's BigDecimal reads it (no spaces, no line break after it)
        readable = F.call_function("drill_decimal_text", text)
        col = F.when(readable | text.isNull(), text).otherwise(
            _refuse(text, "NumberFormatException: ").cast("string")
        )
    if p < 38 and _carries(literal, p, s):
        return col.cast(T.DecimalType(min(38, p - s + 18), 18)).cast(T.DecimalType(p + 1, s))
    return col.cast(target)


def _carries(value: object, p: int, s: int) -> bool:
    """Whether the constant `value` fits DECIMAL(p, s)'s integer digits but its rounding to
    s places makes one more; a constant with too many integer digits is Drill's planning
    error."""
    if value is None or isinstance(value, bool):
        return False
    try:
        exact = decimal.Decimal(str(value).strip())
        rounded = exact.quantize(decimal.Decimal(1).scaleb(-s), rounding=decimal.ROUND_HALF_UP)
    except (decimal.InvalidOperation, ValueError):
        return False
    limit = decimal.Decimal(10) ** (p - s)
    if abs(exact) >= limit:
        raise CastRefused(f"Value {value} overflows specified precision {p} with scale {s}")
    return abs(rounded) >= limit


def millis(ts: Column) -> Column:
    """A TIMESTAMP cut to whole milliseconds, as Drill keeps it."""
    return F.date_trunc("MILLISECOND", ts).cast("timestamp_ntz")


# Drill's text forms of dates (`y-m-d`, `y/m/d`, `y.m.d`; a year below 100 is the nearest such
# year to today, as java.text.SimpleDateFormat reads two digits: '99-1-3' and '0097-02-16' are
# 1999 and 1997 as DATEs, Drill 1.22; a DATE ignores a time after it), timestamps (`y-m-d`,
# then optionally one space and `h:m:s[.f]`; a TIMESTAMP keeps year 97) and times (`h:m:s[.f]`)
# are read by the jar's drill_date_part, drill_timestamp_part and drill_time_part
# (jvm/.../functions/CastFunctions.scala), without a regex


def _field(function: str, text: Column, k: int) -> Column:
    """Field `k` of `text` as the jar's `function` (drill_date_part, drill_timestamp_part,
    drill_time_part) reads it, NULL when the text is not of its form."""
    return F.call_function(function, text, F.lit(k))


def text_to_date(col: Column) -> Column:
    """Drill's cast of text to a DATE (`2023-5-6`, `2023/05/06`, `900-2-3`, a time after it
    ignored); other text fails with Drill's message."""
    text = col.cast("string")
    year, month, day = (_field("drill_date_part", text, k) for k in range(1, 4))
    this_year = F.year(F.current_date())
    pivot = F.when(year + 2000 > this_year + 20, year + 1900).otherwise(year + 2000)
    # day: NULL when the text starts with no date
    date = F.make_date(F.when(year < 100, pivot).otherwise(year), month, day)
    bad = _refuse(text, "IllegalArgumentException: Invalid format: ")
    return (
        F.when(year > 9999, _year_out_of_range(year).cast("date"))
        .when(day.isNotNull() | text.isNull(), date)
        .otherwise(bad.cast("date"))
    )


def _year_out_of_range(year: Column) -> Column:
    """Drill's error for a year its DATE cannot hold (Drill 1.22 refuses CAST('10000-01-01' AS
    DATE) so; past Spark's own range `make_date` would fail on an overflow)."""
    return raise_row_error(
        F.concat(
            F.lit("IllegalArgumentException: Year out of range: ["), year.cast("string"), F.lit("]")
        )
    )


def _seconds(second: Column, milli: Column) -> Column:
    """A second and its milliseconds as the DECIMAL(16,6) Spark's make_time and
    make_timestamp_ntz take; Drill refuses a second past 59 (Spark's functions take 60 as the
    next minute)."""
    exact = (second.cast("long") * 1000 + milli).cast("decimal(12,0)") / 1000
    past = raise_row_error(
        F.concat(
            F.lit("DateTimeException: Invalid value for SecondOfMinute (valid values 0 - 59): "),
            second.cast("string"),
        )
    )
    return F.when(second > 59, past).otherwise(exact).cast("decimal(16,6)")


def _text_to_time(col: Column, target: T.DataType) -> Column:
    """`h:m:s[.f]` as a TIME, the fraction cut to milliseconds; Drill refuses `10:20` and
    hours past 23."""
    text = col.cast("string")
    hour, minute, second, milli = (_field("drill_time_part", text, k) for k in range(1, 5))
    out = F.make_time(hour, minute, _seconds(second, milli))  # hour: NULL when not a time
    bad = _refuse(text, "DateTimeParseException: could not parse the TIME ")
    return F.when(hour.isNotNull() | text.isNull(), out.cast(target)).otherwise(bad.cast(target))


# the last whole year of a Spark timestamp (its range ends in 294247)
_TIMESTAMP_YEARS = 294246


def _text_to_timestamp(col: Column, target: T.DataType) -> Column:
    """A date, or a date, one space and a full time of day (`2023-05-06 7:8:9.5`), cut to
    milliseconds; Drill refuses ISO's `T`, a time without seconds and a second space."""
    text = col.cast("string")
    year, month, day, hour, minute, second, milli = (
        _field("drill_timestamp_part", text, k) for k in range(1, 8)
    )
    # year: NULL when the text is not a timestamp; Drill keeps year 12345 (its text
    # '+12345-01-01 00:00:00.000'), a year past a Spark timestamp's range is refused
    out = F.make_timestamp_ntz(year, month, day, hour, minute, _seconds(second, milli))
    out = F.when(year > _TIMESTAMP_YEARS, _year_out_of_range(year).cast("timestamp_ntz")).otherwise(
        out
    )
    bad = _refuse(text, "DateTimeParseException: could not parse the TIMESTAMP ")
    return F.when(year.isNotNull() | text.isNull(), out).otherwise(bad.cast("timestamp_ntz"))


def text_when_mixed(cols: list[Column], types: list[T.DataType]) -> list[Column]:
    """Constant values of CASE or COALESCE, each as text when text and another type meet:
    Drill's planner types `CASE WHEN c THEN 'a' ELSE 2 END` and `COALESCE(1, 'a')` VARCHAR
    (Drill 1.22: 'a' and '1'), where Spark casts the text to the number and fails. Beside a
    column's value the text is cast to its type instead, as both do (`CASE ... THEN id ELSE
    '7' END` is a BIGINT)."""
    texts = [isinstance(t, T.StringType) for t in types]
    if not any(texts) or all(isinstance(t, T.StringType | T.NullType) for t in types):
        return cols
    return [
        c if text or isinstance(t, T.NullType) else cast_column(c, t, T.StringType())
        for c, t, text in zip(cols, types, texts, strict=True)
    ]


def text_of(col: Column, source: T.DataType) -> Column:
    """`col` as the text Drill writes of it where text is wanted (a cast, CONCAT, `||`): a
    DECIMAL as Java's BigDecimal.toString, which writes a number below 10^-6 in scientific
    notation (CAST(CAST(0.0000001 AS DECIMAL(20, 10)) AS VARCHAR) is 1.000E-7 in Drill 1.22,
    0E-10 a zero of that scale); Spark writes every number plainly."""
    if not isinstance(source, T.DecimalType) or source.scale <= 6:
        return col.cast("string")  # a scale of 6 or less never reaches 10^-7: plain
    scale = source.scale
    # the unscaled digits (no leading zeros) and the exponent of the first of them
    digits = F.regexp_replace(F.regexp_replace(F.abs(col).cast("string"), r"\.", ""), "^0+", "")
    digits = F.when(digits == "", F.lit("0")).otherwise(digits)
    exponent = F.length(digits) - 1 - scale
    mantissa = F.concat(
        F.substring(digits, 1, 1),
        F.when(
            F.length(digits) > 1, F.concat(F.lit("."), F.substring(digits, 2, 1 << 30))
        ).otherwise(F.lit("")),
    )
    sign = F.when(col < 0, F.lit("-")).otherwise(F.lit(""))
    scientific = F.concat(sign, mantissa, F.lit("E"), exponent.cast("string"))
    return F.when(exponent < -6, scientific).otherwise(col.cast("string"))


def low_int(value: Column) -> Column:
    """The low 32 bits of a BIGINT as an INT, Java's `(int)`: shifted up and back down (an
    arithmetic shift keeps the sign), so the value is named once and nothing can overflow."""
    return F.shiftright(F.shiftleft(value, 32), 32).cast(T.IntegerType())


def cast_column(
    col: Column,
    source: T.DataType,
    target: T.DataType,
    length: int | None = None,
    literal: object = None,
) -> Column:
    """`col` (of type `source`) cast to `target` by Drill's rules; `literal` is the value when
    `col` is a constant (some answers depend on it: a DECIMAL's carry)."""
    if isinstance(source, T.BinaryType) and not isinstance(target, T.BinaryType):
        # Drill reads a VARBINARY (a Parquet binary without a UTF8 annotation) as its text
        # when cast: CAST(c_date AS DATE) over such a column parses the bytes' text
        col, source = col.cast("string"), T.StringType()
    if isinstance(source, T.BooleanType) and isinstance(target, T.NumericType):
        raise CastRefused(
            f"cannot cast BOOLEAN to {_drill_name(target)} (Drill 1.22 refuses it: "
            f"Failure while materializing expression CAST(true):{_drill_name(target)})"
        )
    if isinstance(target, _INTEGRAL) and isinstance(source, T.DoubleType | T.FloatType):
        return _double_to_integral(col, target)
    if isinstance(target, _INTEGRAL) and isinstance(source, T.DecimalType):
        return _decimal_to_integral(col, target)
    if isinstance(target, _INTEGRAL) and isinstance(source, T.StringType):
        return _text_to_integral(col, target)
    if isinstance(target, T.DecimalType):
        return _to_decimal(col, source, target, literal)
    if isinstance(target, T.DateType | T.TimestampType | T.TimestampNTZType) and isinstance(
        source, _INTEGRAL
    ):
        # Drill: a number is milliseconds since 1970-01-01 (CAST(86400000 AS DATE) is 1970-01-02)
        out = F.timestamp_millis(col.cast("long")).cast("timestamp_ntz")
        return out.cast(target)
    if _is_time(target) and isinstance(source, T.DateType):
        # a date's time of day: midnight (Drill 1.22), where Spark refuses the cast
        return F.when(col.isNotNull(), F.lit("00:00:00")).cast(target)
    if _is_time(target) and isinstance(source, _INTEGRAL):
        # milliseconds of the day: CAST(1000 AS TIME) is 00:00:01
        return F.timestamp_millis(col.cast("long")).cast("timestamp_ntz").cast(target)
    if isinstance(source, T.StringType) and isinstance(target, T.DateType):
        return text_to_date(col)
    if isinstance(source, T.StringType) and isinstance(
        target, T.TimestampType | T.TimestampNTZType
    ):
        return _text_to_timestamp(col, target)
    if isinstance(source, T.StringType) and _is_time(target):
        return _text_to_time(col, target)
    if isinstance(target, T.TimestampType | T.TimestampNTZType) and _is_time(source):
        # a time of day on 1970-01-01 (Drill 1.22), not on the current date as Spark's cast
        day = F.to_timestamp_ntz(F.concat(F.lit("1970-01-01 "), col.cast("string")))
        return millis(day.cast(target))
    if isinstance(target, T.TimestampType | T.TimestampNTZType) and not isinstance(
        source, T.DateType
    ):
        return millis(col.cast(target))
    if isinstance(target, T.IntegerType) and isinstance(source, T.LongType):
        # Java's (int) of a long keeps the low 32 bits: CAST(123456789012 AS INT) is
        # -1097262572 in Drill, where Spark's ANSI cast fails
        return low_int(col)
    if isinstance(target, T.BooleanType) and isinstance(source, T.NumericType):
        # Drill: only 0 and 1 are booleans (Spark takes any non-zero number as true)
        bad = raise_row_error(
            F.concat(
                F.lit("IllegalArgumentException: Invalid value for boolean: "), col.cast("string")
            )
        )
        return F.when(col.isNull() | col.isin(0, 1), col != 0).otherwise(bad.cast(target))
    if isinstance(target, T.DayTimeIntervalType | T.YearMonthIntervalType):
        return cast_to_interval(col, source, target)
    if isinstance(target, T.StringType):
        if isinstance(source, T.DayTimeIntervalType | T.YearMonthIntervalType):
            out = interval_text(col, source)
        elif isinstance(source, T.TimestampType | T.TimestampNTZType):
            out = F.date_format(col, "yyyy-MM-dd HH:mm:ss.SSS")
        elif type(source).__name__ == "TimeType":
            out = F.date_format(
                F.to_timestamp_ntz(F.concat(F.lit("1970-01-01 "), col.cast("string"))),
                "HH:mm:ss.SSS",
            )
        elif isinstance(source, T.FloatType):
            # Java's Float.toString: the float's own shortest text (100.06, 1.0E-5)
            out = col.cast(target)
        elif isinstance(source, T.DecimalType):
            out = text_of(col, source)
        else:
            out = col.cast(target)
        if length is not None and length < 65536:
            out = F.substring(out, 1, length)
        return out
    return col.cast(target)


def _counted(n: Column, one: str, many: str) -> Column:
    return F.concat(n.cast("string"), F.when(F.abs(n) == 1, F.lit(one)).otherwise(F.lit(many)))


def interval_text(col: Column, source: T.DataType) -> Column:
    """Drill's text of an interval: `1 day 12:0:0.0`, `0 days 1:30:5.500` (fields unpadded,
    milliseconds 3 digits unless 0), `1 year 2 months ` (with its trailing space)."""
    if isinstance(source, T.YearMonthIntervalType):
        months = col.cast(T.YearMonthIntervalType(0, 1))
        total = F.extract(F.lit("YEAR"), months) * 12 + F.extract(F.lit("MONTH"), months)
        years = (total / 12).cast("int")
        return F.concat(
            _counted(years, " year ", " years "),
            _counted((total - years * 12).cast("int"), " month ", " months "),
        )
    x = col.cast(T.DayTimeIntervalType(0, 3))
    sec = F.extract(F.lit("SECOND"), x)
    whole = sec.cast("int")
    millis = F.round((sec - whole) * 1000).cast("int")
    return F.concat(
        _counted(F.extract(F.lit("DAY"), x), " day ", " days "),
        F.extract(F.lit("HOUR"), x).cast("string"),
        F.lit(":"),
        F.extract(F.lit("MINUTE"), x).cast("string"),
        F.lit(":"),
        whole.cast("string"),
        F.lit("."),
        F.when(millis == 0, F.lit("0")).otherwise(F.lpad(F.abs(millis).cast("string"), 3, "0")),
    )


_PERIOD_SQL = (
    r"^(-)?P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?"
    r"(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$"
)


def cast_to_interval(col: Column, source: T.DataType, target: T.DataType) -> Column:
    """Drill's cast of ISO period text ('P1Y2M', 'P1DT7200S') or a number to an interval."""
    if isinstance(source, _INTEGRAL):  # Drill: a number of days / months
        if isinstance(target, T.YearMonthIntervalType):
            return F.make_ym_interval(F.lit(0), col.cast("int"))
        return F.make_dt_interval(col.cast("int"))
    if not isinstance(source, T.StringType | T.NullType):
        return col.cast(target)
    text = F.trim(col.cast("string"))

    def grp(i: int) -> Column:
        return F.coalesce(F.nullif(F.regexp_extract(text, _PERIOD_SQL, i), F.lit("")), F.lit("0"))

    sign = F.when(F.regexp_extract(text, _PERIOD_SQL, 1) == "-", -1).otherwise(1)
    bad = ~text.rlike(_PERIOD_SQL) | (text == "P")
    fail = raise_row_error(
        F.concat(F.lit('IllegalArgumentException: Invalid format: "'), text, F.lit('"'))
    )
    if isinstance(target, T.YearMonthIntervalType):
        months = sign * (grp(2).cast("int") * 12 + grp(3).cast("int"))
        value = F.make_ym_interval(F.lit(0), months)
    else:
        days = grp(4).cast("int") * 7 + grp(5).cast("int")
        secs = (
            grp(6).cast("decimal(20,6)") * 3600
            + grp(7).cast("decimal(20,6)") * 60
            + grp(8).cast("decimal(20,6)")
        )
        value = F.make_dt_interval(
            (sign * days).cast("int"), F.lit(0), F.lit(0), (sign * secs).cast("decimal(18,6)")
        )
    return (
        F.when(text.isNull(), F.lit(None).cast(target))
        .when(bad, fail.cast(target))
        .otherwise(value)
    )
