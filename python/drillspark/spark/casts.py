"""Drill's CAST rules where Spark's cast differs: a DECIMAL or floating value cast to an
integer type is rounded half away from zero (Spark truncates); a BIGINT cast to INT wraps; VARCHAR(n) cuts the text to n
characters; TIMESTAMP and TIME text keep their milliseconds; text is cast to an interval from
ISO period text."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)


def low_int(value: Column) -> Column:
    """The low 32 bits of a BIGINT as an INT, Java's `(int)`: shifted up and back down (an
    arithmetic shift keeps the sign), so the value is named once and nothing can overflow."""
    return F.shiftright(F.shiftleft(value, 32), 32).cast(T.IntegerType())


def cast_column(
    col: Column, source: T.DataType, target: T.DataType, length: int | None = None
) -> Column:
    if isinstance(target, _INTEGRAL) and isinstance(
        source, T.DecimalType | T.DoubleType | T.FloatType
    ):
        return F.round(col, 0).cast(target)
    if isinstance(target, T.IntegerType) and isinstance(source, T.LongType):
        # Java's (int) of a long keeps the low 32 bits: CAST(123456789012 AS INT) is
        # -1097262572 in Drill, where Spark's ANSI cast fails
        return low_int(col)
    if isinstance(target, T.BooleanType) and isinstance(source, _INTEGRAL):
        # Drill: only 0 and 1 are booleans (Spark takes any non-zero number as true)
        bad = F.raise_error(
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
    fail = F.raise_error(
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
