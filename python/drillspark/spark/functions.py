"""The one catalog of Drill functions: each Drill scalar or aggregate function name mapped to a
builder of a Spark Column with Drill's semantics.

Builders receive the already-compiled arguments (`Arg`: a Column plus, for literal arguments,
the Python value) and a context that can tell an argument's Spark type (needed where Drill's
result depends on the input type, such as integer division). Everything here builds native
Spark expressions: no Python runs per row.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.casts import cast_column, low_int, text_of, text_when_mixed
from drillspark.spark.drill_types import drill_type
from drillspark.spark.function_catalog import (
    DATETIME,
    FLOATING,
    INTEGRAL,
    INTERVAL,
    JAVA_REGEX_SPECIALS,
    Arg,
    Builder,
    Context,
    DrillFunction,
    FunctionArgumentError,
    FunctionCatalog,
    decimal_at,
    in_source,
    in_window,
    java_quote,
    lit_int,
    lit_scale,
    lit_str,
    over,
)
from drillspark.spark.row_errors import raise_row_error

# --------------------------------------------------------------------------------------------
# helpers


def _offset_fn(name: str) -> Builder:
    """lag/lead(expr [, offset [, default]]): the offset is a literal, 1 by default; the
    default may be any expression."""

    def build(a: list[Arg], ctx: Context) -> Column:
        offset = F.lit(lit_int(a[1], name, 2) if len(a) > 1 else 1)
        default = [a[2].col] if len(a) > 2 else []
        return F.call_function(name, a[0].col, offset, *default)

    return build


def _c(args: list[Arg]) -> list[Column]:
    return [a.col for a in args]


def _unary(f: Callable[[Column], Column]) -> Builder:
    return lambda a, c: f(a[0].col)


def _binary(f: Callable[[Column, Column], Column]) -> Builder:
    return lambda a, c: f(a[0].col, a[1].col)


def _decimal_digits(t: T.DataType) -> tuple[int, int] | None:
    """(precision, scale) of a DECIMAL, or of an integer as Drill widens it."""
    if isinstance(t, T.DecimalType):
        return t.precision, t.scale
    if isinstance(t, T.ByteType | T.ShortType | T.IntegerType):
        return 10, 0
    if isinstance(t, T.LongType):
        return 19, 0
    return None


def _int_sized(t: T.DataType) -> bool:
    return isinstance(t, T.ByteType | T.ShortType | T.IntegerType)


def _negative(a: list[Arg], ctx: Context) -> Column:
    x = a[0].col
    if _int_sized(ctx.type_of(x)):
        return low_int(-x.cast("long"))  # Drill: -(-2147483648) is -2147483648
    return -x


def _abs(a: list[Arg], ctx: Context) -> Column:
    x = a[0].col
    if _int_sized(ctx.type_of(x)):
        return low_int(F.abs(x.cast("long")))  # Drill: ABS(-2147483648) is -2147483648
    return F.abs(x)


# An INT sum or difference (its wrapped Column, by identity: a Column's == builds an
# expression) -> its exact BIGINT value, which an enclosing sum reads instead of widening the
# wrapped one again; an entry leaves with its Column
_EXACT_SUMS: dict[int, tuple[weakref.ref[Column], Column]] = {}


def _remember_exact(wrapped: Column, exact: Column) -> None:
    key = id(wrapped)
    _EXACT_SUMS[key] = (weakref.ref(wrapped, lambda _: _EXACT_SUMS.pop(key, None)), exact)


def _exact_long(col: Column) -> Column:
    """An INT operand of a sum as a BIGINT: a sum's exact value when it is one, else widened."""
    hit = _EXACT_SUMS.get(id(col))
    if hit is not None and hit[0]() is col:
        return hit[1]
    return col.cast("long")


def _decimal_arith(f: Callable[[Column, Column], Column], kind: str) -> Builder:
    """+, - and * with Drill's result types. A DECIMAL product is DECIMAL(p1 + p2, s1 + s2)
    (Spark's is one digit wider); a DECIMAL result wider than 38 digits takes Drill's scale:
    the exact scale less the digits over 38, down to 0 (Drill 1.22:
    `CAST(10.25 AS DECIMAL(38,2)) * 3` is 31, DECIMAL(38, 0)), where Spark keeps 6 places.
    Integer overflow is an error (Drill wraps around as Java does): wrapping needs each
    operand twice or a wider type per level, which grows a chain `a + 1 + 1 ...` past what
    Spark's analyzer and code generation can take (docs/drill-differences.md)."""

    def build(a: list[Arg], ctx: Context) -> Column:
        x, y = a[0].col, a[1].col
        lt, rt = ctx.type_of(x), ctx.type_of(y)
        if kind != "multiply":
            # text beside an interval is a TIMESTAMP, read by Drill's cast (Drill 1.22:
            # '2024-01-31' + INTERVAL '1' MONTH is 2024-02-29 00:00:00, a TIMESTAMP)
            if isinstance(lt, T.StringType) and isinstance(rt, _INTERVALS):
                x, lt = _text_timestamp(x, lt)
            if kind == "add" and isinstance(rt, T.StringType) and isinstance(lt, _INTERVALS):
                y, rt = _text_timestamp(y, rt)
        if kind == "multiply" and isinstance(rt, T.YearMonthIntervalType):
            x, y, lt, rt = y, x, rt, lt
        if (
            kind == "multiply"
            and isinstance(lt, T.YearMonthIntervalType)
            and isinstance(rt, T.DecimalType | T.DoubleType | T.FloatType)
        ):
            from drillspark.spark.functions_datetime import scale_year_month

            return scale_year_month(x, y, divide=False)
        if _float4(lt, rt):
            return f(x.cast("float"), y.cast("float"))
        if _int_sized(lt) and _int_sized(rt):
            # INT arithmetic wraps around as Java's does (Drill 1.22: 2147483647 + 1 is
            # -2147483648): exact in BIGINT, then its low 32 bits
            if kind == "multiply":  # a product of exact sums could pass 64 bits
                return low_int(f(x.cast("long"), y.cast("long")))
            # the low 32 bits of a sum are those of the sum of the operands' low 32 bits: a
            # chain `a + b + c ...` adds exactly in BIGINT (no overflow below 2**32 terms), each
            # level wrapping its own result only (re-widening each wrapped level took a
            # 500-term chain past the JVM's stack)
            exact = f(_exact_long(x), _exact_long(y))
            out = low_int(exact)
            _remember_exact(out, exact)
            return out
        out = f(x, y)  # a BIGINT overflow fails clearly (Drill wraps: drill-differences.md)
        if not (isinstance(lt, T.DecimalType) or isinstance(rt, T.DecimalType)):
            return out
        ld, rd = _decimal_digits(lt), _decimal_digits(rt)
        if ld is None or rd is None:
            return out
        if kind == "multiply":
            p, s = ld[0] + rd[0], ld[1] + rd[1]
            if p <= 38:
                return out.cast(T.DecimalType(p, s))
        else:
            s = max(ld[1], rd[1])
            p = max(ld[0] - ld[1], rd[0] - rd[1]) + s + 1
        if p <= 38:
            return out
        return out.cast(T.DecimalType(38, max(0, s - (p - 38))))

    return build


def _coalesce(a: list[Arg], ctx: Context) -> Column:
    cols = _c(a)
    if all(x.constant for x in a) and any(isinstance(x.literal, str) for x in a):
        cols = text_when_mixed(cols, [ctx.type_of(c) for c in cols])
    return F.coalesce(*cols)


_INTERVALS = (T.DayTimeIntervalType, T.YearMonthIntervalType, T.CalendarIntervalType)


def _text_timestamp(text: Column, t: T.DataType) -> tuple[Column, T.DataType]:
    """A text operand of date arithmetic as the TIMESTAMP Drill's cast reads, and its type."""
    target = drill_type("TIMESTAMP")
    return cast_column(text, t, target), target


def _divide_day_interval(x: Column, y: Column) -> Column:
    """Drill divides a day-time interval's days and its milliseconds separately, each
    truncated toward zero (`INTERVAL '1 12:00:00' DAY TO SECOND / 2` is 6 hours)."""
    x = x.cast(T.DayTimeIntervalType(0, 3))
    days = F.extract(F.lit("DAY"), x)
    millis = (
        F.extract(F.lit("HOUR"), x) * 3600000
        + F.extract(F.lit("MINUTE"), x) * 60000
        + F.extract(F.lit("SECOND"), x) * 1000
    )
    d = y.cast("double")
    return F.make_dt_interval(
        (days / d).cast("long").cast("int"),
        F.lit(0),
        F.lit(0),
        ((millis / d).cast("long") / 1000).cast("decimal(18,6)"),
    )


def _float4(lt: T.DataType, rt: T.DataType) -> bool:
    """Whether Drill computes `lt op rt` in FLOAT4: a FLOAT4 with an integer, a DECIMAL or
    another FLOAT4 (each converted to FLOAT4 first: Drill 1.22 answers FLOAT4 for
    `CAST(0.1 AS FLOAT) * 3` and `+ 1.5`, and 16777216.0 for `16777217 * CAST(1 AS FLOAT)`);
    with a DOUBLE it is FLOAT8. Spark's ANSI rules widen all of these to DOUBLE."""
    narrow = (*INTEGRAL, T.DecimalType, T.FloatType)
    return (isinstance(lt, T.FloatType) and isinstance(rt, narrow)) or (
        isinstance(rt, T.FloatType) and isinstance(lt, narrow)
    )


def _divide(a: list[Arg], ctx: Context) -> Column:
    # Drill: integer / integer is integer division (truncating, and by zero an error, as Java);
    # otherwise floating point.
    x, y = a[0].col, a[1].col
    lt, rt = ctx.type_of(x), ctx.type_of(y)
    if isinstance(lt, INTEGRAL) and isinstance(rt, INTEGRAL):
        quotient = F.call_function("div", x, y)  # truncates toward zero, like Java
        if not isinstance(lt, T.LongType) and not isinstance(rt, T.LongType):
            return quotient.cast("int")  # Drill 1.22: INT / INT is an INT
        return quotient
    if isinstance(lt, T.DayTimeIntervalType) and isinstance(rt, T.NumericType):
        return _divide_day_interval(x, y)
    if isinstance(lt, T.YearMonthIntervalType) and isinstance(rt, T.NumericType):
        from drillspark.spark.functions_datetime import scale_year_month

        return scale_year_month(x, y, divide=True)
    if _float4(lt, rt):  # in double, then rounded once: the FLOAT4 quotient
        x, y = x.cast("float"), y.cast("float")
        return F.when(y == 0, x * F.pow(y, F.lit(-1.0))).otherwise(x / y).cast("float")
    if isinstance(lt, FLOATING) or isinstance(rt, FLOATING):
        # Java: x / 0.0 is +-Infinity (NaN for 0/0) where Spark's ANSI division raises;
        # x * 0.0^-1 gives exactly that, the sign of a -0.0 divisor included.
        return F.when(y == 0, x * F.pow(y, F.lit(-1.0))).otherwise(x / y)
    ld, rd = _decimal_digits(lt), _decimal_digits(rt)
    if ld is None or rd is None:
        return x / y
    return x / y if (t := _decimal_quotient(ld, rd)) is None else (x / y).cast(t)


def _decimal_quotient(ld: tuple[int, int], rd: tuple[int, int]) -> T.DecimalType | None:
    """Drill's type of a DECIMAL quotient when wider than 38 digits, else None (Spark's is
    Drill's then). Both take scale max(6, s1 + p2 + 1) after p1 - s1 + s2 whole digits; past 38
    digits Spark keeps at least 6 places where Drill keeps what is left, down to 0 (Drill 1.22:
    DECIMAL(38, 4) / DECIMAL(38, 4) is DECIMAL(38, 0), so TPC-H Q8's market share is 0 and
    Q14's promotion revenue 16)."""
    whole = ld[0] - ld[1] + rd[1]
    scale = max(6, ld[1] + rd[0] + 1)
    if whole + scale <= 38:
        return None
    return T.DecimalType(38, max(0, 38 - whole))


def _mod(a: list[Arg], ctx: Context) -> Column:
    # Drill's MathFunctions: mod(x, 0) is x (Spark's ANSI remainder raises)
    x, y = a[0].col, a[1].col
    lt, rt = ctx.type_of(x), ctx.type_of(y)
    if _float4(lt, rt):
        x, y = x.cast("float"), y.cast("float")
        return F.when(y == 0, x).otherwise(x % y).cast("float")
    if isinstance(lt, T.DecimalType) or isinstance(rt, T.DecimalType):
        # a DECIMAL's mod(x, 0) is Drill's error (BigDecimal's remainder)
        zero = raise_row_error(F.lit("ArithmeticException: Division by zero"))
        return F.when(y == 0, zero).otherwise(x % y)
    return F.when(y == 0, x).otherwise(x % y)


def _round(a: list[Arg], ctx: Context) -> Column:
    x = a[0].col
    scale = lit_scale(a, "round")
    t = ctx.type_of(x)
    if isinstance(t, T.DecimalType):
        scale = max(scale, 0)  # Drill rounds a DECIMAL at scale 0 for a negative scale
        return decimal_at(F.round(x, scale), t, scale)
    if len(a) > 1 and isinstance(t, INTEGRAL):
        return F.round(x.cast("double"), scale)  # Drill: round(int, s) is a DOUBLE
    if isinstance(t, T.DoubleType | T.FloatType):
        # half away from zero from the exact binary value (ROUND(1.005, 2) is 1.0, as in
        # Drill 1.22; Spark's round starts from the shortest text, 1.01), a DOUBLE also for a
        # FLOAT; without a scale, round(NaN) = 0 and round(+-Infinity) = Long.MAX/MIN
        rounded = F.call_function("drill_round", x, F.lit(scale))
        if len(a) > 1:
            return rounded
        if isinstance(t, T.FloatType):  # Drill 1.22: a FLOAT, +-Infinity as Integer.MAX/MIN
            return (
                F.when(F.isnan(x), F.lit(0.0))
                .when(x == float("inf"), F.lit(2147483647.0))
                .when(x == float("-inf"), F.lit(-2147483648.0))
                .otherwise(rounded)
                .cast("float")
            )
        return (
            F.when(F.isnan(x), F.lit(0.0))
            .when(x == float("inf"), F.lit(9.223372036854776e18))
            .when(x == float("-inf"), F.lit(-9.223372036854776e18))
            .otherwise(rounded)
        )
    return F.round(x, scale)


def _concat(a: list[Arg], ctx: Context) -> Column:
    # Drill's concat() skips null arguments (never returns null).
    return F.concat_ws("", *[text_of(x.col, ctx.type_of(x.col)) for x in a])


def _trim(side: str) -> Builder:
    def build(a: list[Arg], ctx: Context) -> Column:
        chars = a[1].col if len(a) > 1 else None
        fn = {"both": F.btrim, "leading": F.ltrim, "trailing": F.rtrim}[side]
        return fn(a[0].col, chars) if chars is not None else fn(a[0].col)

    return build


def _log(a: list[Arg], ctx: Context) -> Column:
    if len(a) == 1:
        return F.ln(a[0].col)
    return F.call_function("log", a[0].col, a[1].col)  # log(base, x)


def _type_report(jvm_name: str) -> Builder:
    """typeof / drilltypeof / sqltypeof / modeof: the extension's drill_* function owns Drill's
    type names and modes (jvm/.../DrillTypeNames.scala, ResolveParquetModes), so
    drillspark.sql and spark.sql answer alike (a REQUIRED Parquet column reaches it with the
    `drill.required` metadata drillspark's reader sets). A missing column is an untyped NULL
    here (it combines with any type); the function sees it as the reader's typed NULL, as the
    extension's missing-column rule does."""

    def build(a: list[Arg], ctx: Context) -> Column:
        col = a[0].col
        if a[0].missing_type is not None:
            col = F.lit(None).cast(drill_type(a[0].missing_type))
        return F.call_function(jvm_name, col)

    return build


def _call(name: str) -> Builder:
    """A function of the drillspark extension (jvm/.../functions), called by name."""
    return lambda a, c: F.call_function(name, *_c(a))


_BE_WIDTH = {
    "TINYINT": 1,
    "SMALLINT": 2,
    "INT": 4,
    "BIGINT": 8,
    "UINT8": 8,
    "UINT4": 4,
    "UINT2": 2,
    "UINT1": 1,
}


def _to_bytes(x: Column, width: int, big_endian: bool) -> Column:
    digits = F.substring(F.lpad(F.hex(x.cast("long")), 16, "0"), 17 - 2 * width, 2 * width)
    if not big_endian:
        digits = F.array_join(F.reverse(F.regexp_extract_all(digits, F.lit("(..)"), 1)), "")
    return F.unhex(digits)


def _from_bytes(b: Column, width: int, big_endian: bool, target: str) -> Column:
    digits = F.hex(b)
    if not big_endian:
        digits = F.array_join(F.reverse(F.regexp_extract_all(digits, F.lit("(..)"), 1)), "")
    unsigned = F.conv(digits, 16, 10).cast("decimal(20,0)")
    bits = 8 * width
    half, full = (F.lit(str(v)).cast("decimal(20,0)") for v in (2 ** (bits - 1), 2**bits))
    signed = F.when(unsigned >= half, unsigned - full).otherwise(unsigned)
    return signed.cast(target)


def _convert_to(a: list[Arg], ctx: Context) -> Column:
    enc = lit_str(a[1], "convert_to", 2).upper()
    base, be = (enc[:-3], True) if enc.endswith("_BE") else (enc, False)
    if base in _BE_WIDTH:
        return _to_bytes(a[0].col, _BE_WIDTH[base], be)
    if base in ("UTF8", "UTF16"):
        return F.encode(a[0].col.cast("string"), "UTF-8" if base == "UTF8" else "UTF-16")
    if base in ("JSON", "SIMPLEJSON", "EXTENDEDJSON"):
        return F.call_function("drill_convert_to", a[0].col, F.lit(base))
    raise FunctionArgumentError(f"convert_to(): unsupported encoding {enc!r}")


def _convert_from(a: list[Arg], ctx: Context) -> Column:
    enc = lit_str(a[1], "convert_from", 2).upper()
    base, be = (enc[:-3], True) if enc.endswith("_BE") else (enc, False)
    if base in _BE_WIDTH:
        target = {1: "tinyint", 2: "smallint", 4: "int", 8: "bigint"}[_BE_WIDTH[base]]
        if base.startswith("UINT") and _BE_WIDTH[base] < 8:
            target = {1: "smallint", 2: "int", 4: "bigint"}[_BE_WIDTH[base]]
        return _from_bytes(a[0].col, _BE_WIDTH[base], be, target)
    if base in ("UTF8", "UTF16"):
        return F.decode(a[0].col, "UTF-8" if base == "UTF8" else "UTF-16")
    if base in ("JSON", "SIMPLEJSON", "EXTENDEDJSON"):
        return F.call_function("drill_convert_from", a[0].col, F.lit(base))
    raise FunctionArgumentError(f"convert_from(): unsupported encoding {enc!r}")


# EXTRACT units (Drill's Extract template): each a BIGINT except SECOND, a FLOAT8 holding the
# milliseconds. `dayofweek`/`dayofyear` are Drill's SQL spellings of `dow`/`doy`.
EXTRACT_UNITS = (
    "year",
    "quarter",
    "month",
    "week",
    "day",
    "dow",
    "dayofweek",
    "doy",
    "dayofyear",
    "epoch",
    "hour",
    "minute",
    "second",
)
_TIME_UNITS = ("hour", "minute", "second")


def _extract_column(unit: str, x: Column, t: T.DataType, fn: str) -> Column:
    if isinstance(t, T.DayTimeIntervalType | T.YearMonthIntervalType):
        return _extract_interval(unit, x, t)
    if isinstance(t, T.CalendarIntervalType):  # AGE's months-days-time interval
        if unit not in ("year", "month", "day", "hour", "minute", "second"):
            raise FunctionArgumentError(f"{fn}(): an interval has no {unit}")
        value = F.date_part(F.lit(unit.upper()), x)
        return (
            (F.floor(value * 1000) / 1000).cast("double")
            if unit == "second"
            else value.cast("long")
        )
    if type(t).__name__ == "TimeType" and unit not in _TIME_UNITS:
        raise FunctionArgumentError(f"{fn}(): a TIME has no {unit} (only hour, minute, second)")
    if unit == "second":
        if isinstance(t, T.DateType):
            return F.lit(0.0)
        # seconds with the fraction cut to milliseconds, as Drill's millisecond values
        seconds = F.date_part(F.lit("SECOND"), x)
        return (F.floor(seconds * 1000) / 1000).cast("double")
    if unit == "epoch":  # Drill: the value's milliseconds since 1970-01-01 UTC
        if isinstance(t, T.DateType):
            return F.unix_date(x).cast("long") * 86_400_000
        return F.unix_millis(x.cast("timestamp"))
    build = {
        "year": F.year,
        "month": F.month,
        "day": F.dayofmonth,
        "hour": F.hour,
        "minute": F.minute,
        "week": F.weekofyear,
        "doy": F.dayofyear,
        "dayofyear": F.dayofyear,
        # ISO day of the week: Monday = 1 ... Sunday = 7 (Spark's weekday is Monday = 0)
        "dow": lambda c: F.weekday(c) + 1,
        "dayofweek": lambda c: F.weekday(c) + 1,
        # Drill's formula, kept as is: month / 4 + 1 (so July gives 2, October 3)
        "quarter": lambda c: F.floor(F.month(c) / 4) + 1,
    }[unit]
    return build(x).cast("long")


def _extract_interval(unit: str, x: Column, t: T.DataType) -> Column:
    """Drill's interval rules: the field itself; units an interval type lacks are 0."""
    year_month = isinstance(t, T.YearMonthIntervalType)
    fields = ("year", "month") if year_month else ("day", "hour", "minute", "second")
    if unit not in fields:
        return F.lit(0.0) if unit == "second" else F.lit(0).cast("long")
    value = F.date_part(F.lit(unit.upper()), x)
    if unit == "second":
        return (F.floor(value * 1000) / 1000).cast("double")
    return value.cast("long")


def _extract(unit: str) -> Builder:
    return lambda a, c: _extract_column(unit, a[0].col, c.type_of(a[0].col), f"extract{unit}")


def _date_part(a: list[Arg], ctx: Context) -> Column:
    # Drill rewrites date_part('unit', x) to extract<Unit>(x)
    unit = lit_str(a[0], "date_part", 1).lower()
    if unit not in EXTRACT_UNITS:
        raise FunctionArgumentError(
            f"date_part(): unknown unit {unit!r} (units: {', '.join(EXTRACT_UNITS)})"
        )
    return _extract_column(unit, a[1].col, ctx.type_of(a[1].col), "date_part")


def _as_datetime(col: Column, t: T.DataType) -> tuple[Column, T.DataType]:
    """A string in a date position is read as a DATE (Drill's implicit cast)."""
    if isinstance(t, T.StringType):
        return col.cast("date"), T.DateType()
    return col, t


def _date_add(a: list[Arg], ctx: Context) -> Column:
    """Drill's date_add: DATE + days is a DATE; DATE or TIMESTAMP + interval is a TIMESTAMP
    (either argument order); an integer cannot be added to a TIMESTAMP."""
    x, y = a[0].col, a[1].col
    tx, ty = ctx.type_of(x), ctx.type_of(y)
    if isinstance(tx, INTERVAL + INTEGRAL) and not isinstance(ty, INTERVAL + INTEGRAL):
        x, y, tx, ty = y, x, ty, tx
    x, tx = _as_datetime(x, tx)
    if isinstance(ty, INTERVAL):
        return (x.cast("timestamp") if isinstance(tx, T.DateType) else x) + y
    _no_integer_on_timestamp(tx, "date_add", "add")
    return F.date_add(x, _days(y, ty))


def _date_sub(a: list[Arg], ctx: Context) -> Column:
    """Drill's date_sub and date_diff (one function under both names): DATE - DATE and
    TIMESTAMP - TIMESTAMP give an interval; DATE - days a DATE; minus an interval keeps the
    left side's type."""
    x, y = a[0].col, a[1].col
    (x, tx), (y, ty) = _as_datetime(x, ctx.type_of(x)), _as_datetime(y, ctx.type_of(y))
    if isinstance(ty, DATETIME):
        if isinstance(tx, T.DateType) and isinstance(ty, T.DateType):
            return x - y  # INTERVAL DAY
        return x.cast("timestamp") - y.cast("timestamp")  # INTERVAL DAY TO SECOND
    if isinstance(ty, INTERVAL):
        out = x - y
        return out.cast("date") if isinstance(tx, T.DateType) else out
    _no_integer_on_timestamp(tx, "date_sub", "subtract")
    return F.date_sub(x, _days(y, ty))


def _days(days: Column, t: T.DataType) -> Column:
    """A number of days as Spark's date_add takes it (an INT): Drill takes a BIGINT too (a JSON
    file's integers); one beyond INT's range fails Spark's checked cast, naming it."""
    return days.cast("int") if isinstance(t, T.LongType) else days


def _no_integer_on_timestamp(t: T.DataType, fn: str, verb: str) -> None:
    if isinstance(t, T.TimestampType | T.TimestampNTZType):
        to = "to" if verb == "add" else "from"
        raise FunctionArgumentError(
            f"{fn}(): cannot {verb} an integer {to} a TIMESTAMP; cast "
            "it to an interval (Drill's rule)"
        )


def _to_char(a: list[Arg], ctx: Context) -> Column:
    fmt = lit_str(a[1], "to_char", 2)
    t = ctx.type_of(a[0].col)
    if isinstance(t, T.NumericType):
        # Drill formats numbers with java.text.DecimalFormat(pattern); so does Spark's
        # format_number given a pattern string. Drill cuts the text at 100 characters.
        text = F.call_function("format_number", a[0].col, F.lit(fmt))
        return F.substring(text, 1, 100)
    return F.date_format(a[0].col, fmt)


def _agg_count(a: list[Arg], ctx: Context) -> Column:
    if not a:
        return F.count(F.lit(1))
    return F.count(a[0].col)


def _bool_agg(fn: str) -> Builder:
    """Drill's BOOL_AND / BOOL_OR skip NULLs: only NULLs give BOOL_AND's start value true
    (BOOL_OR's false); no rows at all give false for both."""

    def build(a: list[Arg], c: Context) -> Column:
        start = over(c, F.count(F.lit(1))) > 0 if fn == "bool_and" else F.lit(False)
        return F.coalesce(over(c, F.call_function(fn, a[0].col)), start)

    return build


def _statistic(f: Callable[[Column], Column]) -> Builder:
    """STDDEV / VARIANCE: DOUBLE, or for a DECIMAL argument a DECIMAL with scale 6 as in
    Drill."""

    def build(a: list[Arg], ctx: Context) -> Column:
        out = over(ctx, f(a[0].col))
        if isinstance(ctx.type_of(a[0].col), T.DecimalType):
            return out.cast(T.DecimalType(38, 6))
        return out

    return build


def _length(a: list[Arg], ctx: Context) -> Column:
    """length(s [, charset]): characters; the text is UTF-8, so only a UTF-8 charset is read."""
    if len(a) > 1:
        charset = lit_str(a[1], "length", 2)
        if charset.upper().replace("-", "") != "UTF8":
            raise FunctionArgumentError(
                f"length(): only the charset 'UTF8' is supported, not {charset!r}"
            )
    return F.length(a[0].col).cast("long")


def _sum(a: list[Arg], ctx: Context) -> Column:
    """SUM: a BIGINT sum wraps around on overflow as Drill's Java long addition does (Spark's
    ANSI sum fails, also when only a partial sum of a shuffled group overflows). Text is read
    as BIGINT first (Drill 1.22: SUM(CAST(id AS VARCHAR)) is a BIGINT; '80000.0' fails)."""
    t = ctx.type_of(a[0].col)
    if isinstance(t, T.StringType):
        return _long_sum(cast_column(a[0].col, t, T.LongType()), ctx)
    if isinstance(t, T.DecimalType):
        # Drill's SUM of a DECIMAL(p, s) is DECIMAL(38, s) (Spark's p + 10 digits): what a
        # quotient of sums keeps depends on it (Drill 1.22, TPC-H SF 0.01 lineitem:
        # sum(l_extendedprice) / sum(l_quantity) is 1401, not 1401.0493666669488)
        return over(ctx, F.sum(a[0].col)).cast(T.DecimalType(38, t.scale))
    if not isinstance(t, T.LongType):
        return over(ctx, F.sum(a[0].col))
    return _long_sum(a[0].col, ctx)


def _varchar_aggregate(
    spark_fn: Callable[[Column], Column],
    varchar_fn: str,
    text_fn: Callable[[Column], Column] | None = None,
) -> Builder:
    """MIN / MAX / ANY_VALUE: of a VARCHAR in a grouping operator the extension's
    drill_min_varchar / drill_max_varchar / drill_any_varchar, which Spark holds in a hash
    aggregate (its own min, max and first of a string plan a sort aggregate: every row of a task
    sorted by its group first); Spark's in a window and where a database answers the aggregate
    (its pushdown knows Spark's own): `text_fn` of a text when given, else `spark_fn`."""

    def build(a: list[Arg], ctx: Context) -> Column:
        x = a[0].col
        windowed = in_window(ctx) or in_source(ctx)
        if windowed and text_fn is None:
            return spark_fn(x)
        t = ctx.type_of(x)
        if not isinstance(t, T.StringType):
            return spark_fn(x)
        if not windowed and getattr(t, "collation", "UTF8_BINARY") == "UTF8_BINARY":
            return F.call_function(varchar_fn, x)
        return (text_fn or spark_fn)(x)

    return build


def _long_sum(x: Column, ctx: Context) -> Column:
    dec = T.DecimalType(38, 0)
    exact = over(ctx, F.sum(x.cast(dec)))
    half, whole = F.lit(str(2**63)).cast(dec), F.lit(str(2**64)).cast(dec)
    return (F.pmod(exact + half, whole) - half).cast("long")


def _avg(a: list[Arg], ctx: Context) -> Column:
    """AVG of a DECIMAL(p, s): Drill 1.22 answers DECIMAL(38, max(s, 6)) when its planner
    knows the argument is a DECIMAL (a CAST, a literal: `Arg.plan_typed`) and DECIMAL(38, s)
    when only the run time does (a Parquet column, arithmetic on one). Spark's own is
    DECIMAL(p + 4, s + 4). A BIGINT average is the (wrapping) BIGINT sum over the count."""
    t = ctx.type_of(a[0].col)
    if isinstance(t, T.LongType):  # Drill: the wrapping BIGINT sum over the count
        return _long_sum(a[0].col, ctx).cast("double") / over(ctx, F.count(a[0].col))
    if not isinstance(t, T.DecimalType):
        return over(ctx, F.avg(a[0].col))
    scale = max(t.scale, 6) if a[0].plan_typed else t.scale
    # widened first, so that Spark's average (scale + 4) has the digits to round from
    x = a[0].col.cast(T.DecimalType(min(38, t.precision + scale - t.scale), scale))
    return over(ctx, F.avg(x)).cast(T.DecimalType(38, scale))


def _collect_list(a: list[Arg], ctx: Context) -> Column:
    """collect_list('k1', v1, 'k2', v2, ...): the group's rows as a list of maps {k1: v1, ...}
    (a NULL value is an absent key); no rows at all give NULL (Drill 1.22)."""
    if len(a) % 2:
        raise FunctionArgumentError(
            "collect_list(): takes pairs of a key (a string literal) and a value"
        )
    fields = [a[i + 1].col.alias(lit_str(a[i], "collect_list", i + 1)) for i in range(0, len(a), 2)]
    rows = over(ctx, F.collect_list(F.struct(*fields)))
    return F.when(over(ctx, F.count(F.lit(1))) > 0, rows)


def _covariance(fn: str) -> Builder:
    """CORR / COVAR_POP / COVAR_SAMP as DOUBLE: where the statistic divides by zero (one pair,
    or no spread for CORR) Drill answers NaN, Spark NULL; no pairs at all are NULL in both."""

    def build(a: list[Arg], ctx: Context) -> Column:
        x, y = a[0].col.cast("double"), a[1].col.cast("double")
        pairs = over(ctx, F.count(F.when(x.isNotNull() & y.isNotNull(), F.lit(1))))
        value = over(ctx, F.call_function(fn, x, y))
        return F.when(pairs > 0, F.coalesce(value, F.lit(float("nan"))))

    return build


def _approx_count_dups(a: list[Arg], ctx: Context) -> Column:
    """APPROX_COUNT_DUPS: the non-NULL values that repeat an earlier one. Drill estimates it
    with a Bloom filter; the exact count is what it answers on small inputs (checked)."""
    x = a[0].col
    return (over(ctx, F.count(x)) - over(ctx, F.count_distinct(x))).cast("long")


def _every(a: list[Arg], ctx: Context) -> Column:
    """Drill's EVERY is MIN over the condition as a number: TINYINT 1/0, NULL without input."""
    x = a[0].col
    return over(ctx, F.min(F.when(x, 1).when(~x, 0))).cast("tinyint")


def _any_value(x: Column) -> Column:
    # Drill 1.22 keeps the last non-NULL value it reads, but of a VARCHAR the first (_any_text)
    return F.last(x, ignorenulls=True)


def _any_text(x: Column) -> Column:
    return F.first(x, ignorenulls=True)


def _median(a: list[Arg], ctx: Context) -> Column:
    """Drill's MEDIAN: the interpolated middle value as DOUBLE, truncated to BIGINT for
    integer input."""
    x = a[0].col
    out = over(ctx, F.median(x.cast("double")))
    t = ctx.type_of(x)
    return out.cast("bigint") if isinstance(t, T.IntegralType) else out


# --------------------------------------------------------------------------------------------


def _build_catalog() -> FunctionCatalog:
    cat = FunctionCatalog()

    def scalar(name: str, build: Builder, n: int | tuple[int, int | None], *aliases: str) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        cat.add(DrillFunction(name, "scalar", build, lo, hi), *aliases)

    def agg(
        name: str,
        build: Builder,
        n: int | tuple[int, int | None],
        *aliases: str,
        composite: bool = False,
    ) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        cat.add(DrillFunction(name, "aggregate", build, lo, hi, composite=composite), *aliases)

    def window(
        name: str,
        build: Builder,
        n: int | tuple[int, int | None],
        framed: bool = False,
        over_type: str | None = None,
    ) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        cat.add(DrillFunction(name, "window", build, lo, hi, framed, over_type))

    # window functions (only in the `window` operator); Drill's counters are BIGINT
    window("row_number", lambda a, c: F.row_number(), 0, over_type="bigint")
    window("rank", lambda a, c: F.rank(), 0, over_type="bigint")
    window("dense_rank", lambda a, c: F.dense_rank(), 0, over_type="bigint")
    window("percent_rank", lambda a, c: F.percent_rank(), 0)
    window("cume_dist", lambda a, c: F.cume_dist(), 0)
    window("ntile", lambda a, c: F.ntile(lit_int(a[0], "ntile", 1)), 1)
    window("lag", _offset_fn("lag"), (1, 3))
    window("lead", _offset_fn("lead"), (1, 3))
    window("first_value", lambda a, c: F.first(a[0].col), 1, framed=True)
    window("last_value", lambda a, c: F.last(a[0].col), 1, framed=True)

    # operators (FunctionNames: the names the expression grammar produces)
    scalar("add", _decimal_arith(lambda x, y: x + y, "add"), 2)
    scalar("subtract", _decimal_arith(lambda x, y: x - y, "subtract"), 2)
    scalar("multiply", _decimal_arith(lambda x, y: x * y, "multiply"), 2)
    scalar("divide", _divide, 2)
    scalar("modulo", _mod, 2, "mod")
    scalar("negative", _negative, 1)
    scalar("equal", _binary(lambda x, y: x == y), 2)
    scalar("not_equal", _binary(lambda x, y: x != y), 2)
    scalar("greater_than", _binary(lambda x, y: x > y), 2)
    scalar("greater_than_or_equal_to", _binary(lambda x, y: x >= y), 2)
    scalar("less_than", _binary(lambda x, y: x < y), 2)
    scalar("less_than_or_equal_to", _binary(lambda x, y: x <= y), 2)
    scalar("booleanand", lambda a, c: _fold(a, lambda x, y: x & y), (1, None), "and")
    scalar("booleanor", lambda a, c: _fold(a, lambda x, y: x | y), (1, None), "or")
    scalar("not", _unary(lambda x: ~x), 1)
    scalar("xor", _binary(lambda x, y: x.bitwiseXOR(y)), 2)
    scalar(
        "concatoperator", lambda a, c: F.concat(*[text_of(x.col, c.type_of(x.col)) for x in a]), 2
    )

    # null tests and conditionals
    scalar("isnull", _unary(lambda x: x.isNull()), 1, "is null")
    scalar("isnotnull", _unary(lambda x: x.isNotNull()), 1, "is not null")
    scalar("istrue", _unary(lambda x: F.coalesce(x, F.lit(False))), 1, "is true")
    scalar("isfalse", _unary(lambda x: F.coalesce(~x, F.lit(False))), 1, "is false")
    scalar("isnottrue", _unary(lambda x: ~F.coalesce(x, F.lit(False))), 1, "is not true")
    scalar("isnotfalse", _unary(lambda x: ~F.coalesce(~x, F.lit(False))), 1, "is not false")
    scalar("coalesce", _coalesce, (1, None))
    scalar("nullif", _binary(F.nullif), 2)
    scalar("greatest", lambda a, c: F.greatest(*_c(a)), (2, None))
    scalar("least", lambda a, c: F.least(*_c(a)), (2, None))

    # math
    scalar("abs", _abs, 1)
    scalar("round", _round, (1, 2))
    scalar("sqrt", _unary(F.sqrt), 1)
    scalar("cbrt", _unary(F.cbrt), 1)
    scalar("exp", _unary(F.exp), 1)
    scalar("log", _log, (1, 2))
    scalar("ln", _unary(F.ln), 1)
    scalar("log10", _unary(F.log10), 1)
    scalar("pow", _binary(F.pow), 2, "power")
    scalar("pi", lambda a, c: F.lit(3.141592653589793), 0)
    scalar("e", lambda a, c: F.lit(2.718281828459045), 0)
    scalar("degrees", _unary(F.degrees), 1)
    scalar("radians", _unary(F.radians), 1)
    for trig in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"):
        scalar(trig, _unary(getattr(F, trig)), 1)
    scalar("atan2", _binary(F.atan2), 2)
    scalar("random", lambda a, c: F.rand(), 0, "rand")
    scalar("lshift", lambda a, c: F.call_function("shiftleft", *_c(a)), 2)
    scalar("rshift", lambda a, c: F.call_function("shiftright", *_c(a)), 2)

    # strings
    scalar("concat", _concat, (1, None))
    # a drillspark extension (no Drill function): fails the query with its message when a
    # row reaches it; the SQL layer uses it for a scalar subquery returning several rows
    scalar("raise_error", _unary(raise_row_error), 1)
    scalar("lower", _unary(F.lower), 1, "lcase")
    scalar("upper", _unary(F.upper), 1, "ucase")
    scalar("length", _length, (1, 2), "char_length", "character_length")
    # BIGINT in Drill 1.22 (Spark's are INT)
    scalar("octet_length", _unary(lambda x: F.octet_length(x).cast("long")), 1)
    scalar("bit_length", _unary(lambda x: F.bit_length(x).cast("long")), 1)
    scalar("btrim", _trim("both"), (1, 2), "trim")
    scalar("ltrim", _trim("leading"), (1, 2))
    scalar("rtrim", _trim("trailing"), (1, 2))
    # Drill: an empty needle is found nowhere (0); Spark's instr finds it at 1
    # BIGINT in Drill 1.22 (Spark's are INT)
    scalar(
        "strpos",
        lambda a, c: (
            F.when((F.length(a[1].col) == 0) & a[0].col.isNotNull(), F.lit(0))
            .otherwise(F.call_function("instr", a[0].col, a[1].col))
            .cast("long")
        ),
        2,
    )
    scalar(
        "position",
        lambda a, c: (
            F.when((F.length(a[0].col) == 0) & a[1].col.isNotNull(), F.lit(0))
            .otherwise(F.call_function("locate", a[0].col, a[1].col))
            .cast("long")
        ),
        2,
    )
    scalar("replace", lambda a, c: F.replace(*_c(a)), 3)
    scalar("regexp_replace", lambda a, c: F.regexp_replace(*_c(a)), 3)
    scalar("regexp_matches", _regexp_matches, 2, "regex_like", "regexp_like")
    scalar("similar_to", _similar_to, (2, 3), "similar")
    scalar(
        "lpad",
        lambda a, c: F.lpad(a[0].col, a[1].col, a[2].col if len(a) > 2 else F.lit(" ")),
        (2, 3),
    )
    scalar(
        "rpad",
        lambda a, c: F.rpad(a[0].col, a[1].col, a[2].col if len(a) > 2 else F.lit(" ")),
        (2, 3),
    )
    scalar("reverse", _unary(F.reverse), 1)
    scalar("split", _split, 2)
    scalar("repeat", lambda a, c: F.repeat(a[0].col, a[1].col), 2, "repeatstr")
    scalar("ascii", _unary(F.ascii), 1)
    scalar("chr", _unary(F.char), 1)
    scalar("md5", _unary(F.md5), 1)
    scalar("sha1", _unary(F.sha1), 1)
    scalar("sha256", _unary(lambda x: F.sha2(x, 256)), 1)

    # date / time
    scalar("current_date", lambda a, c: F.current_date(), 0)
    scalar("date_add", _date_add, 2)
    scalar("date_sub", _date_sub, 2)
    scalar("date_part", _date_part, 2)
    for unit in EXTRACT_UNITS:
        scalar(f"extract{unit}", _extract(unit), 1)
    # Calcite's one-argument forms of EXTRACT (Drill 1.22 runs these; DAY(x) it refuses)
    for unit in (
        "year",
        "quarter",
        "month",
        "week",
        "dayofweek",
        "dayofyear",
        "hour",
        "minute",
        "second",
    ):
        scalar(unit, _extract(unit), 1)
    scalar("dayofmonth", _extract("day"), 1)
    scalar("to_char", _to_char, 2)

    # types and conversions
    scalar("typeof", _type_report("drill_typeof"), 1)
    scalar("drilltypeof", _type_report("drill_drilltypeof"), 1)
    scalar("sqltypeof", _type_report("drill_sqltypeof"), 1)
    scalar("modeof", _type_report("drill_modeof"), 1)
    scalar("convert_to", _convert_to, 2)
    scalar("convert_from", _convert_from, 2)

    # nested data: Spark built-ins where they agree with Drill, the extension's drill_* otherwise
    scalar("repeated_count", _call("drill_repeated_count"), 1)
    scalar("repeated_contains", _call("drill_repeated_contains"), 2)
    scalar("kvgen", _call("drill_kvgen"), 1, "mappify")
    scalar("flatten", _call("drill_flatten"), 1)

    # aggregates
    agg("count", _agg_count, (0, 1))
    agg("count_distinct", lambda a, c: F.count_distinct(a[0].col), 1)
    agg("sum", _sum, 1, composite=True)
    agg("avg", _avg, 1, composite=True)
    agg("min", _varchar_aggregate(F.min, "drill_min_varchar"), 1)
    agg("max", _varchar_aggregate(F.max, "drill_max_varchar"), 1)
    agg("any_value", _varchar_aggregate(_any_value, "drill_any_varchar", _any_text), 1)
    agg("median", _median, 1, composite=True)
    agg("stddev", _statistic(F.stddev_samp), 1, "stddev_samp", composite=True)
    agg("stddev_pop", _statistic(F.stddev_pop), 1, composite=True)
    agg("variance", _statistic(F.var_samp), 1, "var_samp", composite=True)
    agg("var_pop", _statistic(F.var_pop), 1, composite=True)
    agg("bool_and", _bool_agg("bool_and"), 1, composite=True)
    agg("every", _every, 1, composite=True)
    agg("bool_or", _bool_agg("bool_or"), 1, composite=True)
    agg("bit_and", _unary(F.bit_and), 1)
    agg("bit_or", _unary(F.bit_or), 1)
    agg("bit_xor", _unary(F.bit_xor), 1)
    agg("collect_list", _collect_list, (2, None), composite=True)
    agg("corr", _covariance("corr"), 2, composite=True)
    agg("covar_pop", _covariance("covar_pop"), 2, composite=True)
    agg("covar_samp", _covariance("covar_samp"), 2, composite=True)
    agg("approx_count_dups", _approx_count_dups, 1, composite=True)
    return cat


def _fold(a: list[Arg], op: Callable[[Column, Column], Column]) -> Column:
    # A balanced tree of the associative AND / OR: `x IN (5,000 literals)` arrives as one
    # n-ary OR, and a left-deep chain that long overflows the JVM stack in Catalyst.
    cols = [x.col for x in a]
    while len(cols) > 1:
        pairs = [op(cols[i], cols[i + 1]) for i in range(0, len(cols) - 1, 2)]
        cols = pairs + ([cols[-1]] if len(cols) % 2 else [])
    return cols[0]


def _split(a: list[Arg], ctx: Context) -> Column:
    # Drill: a single-character delimiter (Guava's Splitter.on(char)); a NULL string gives []
    d = a[1]
    if not d.is_literal or not isinstance(d.literal, str):
        raise FunctionArgumentError(
            "split(): argument 2 (the delimiter) must be a string literal of one character"
        )
    if len(d.literal) != 1:
        raise FunctionArgumentError(
            f"split(): only single character delimiters are supported, not {d.literal!r}"
        )
    parts = F.split(a[0].col, F.lit(java_quote(d.literal)), -1)
    return F.coalesce(parts, F.array().cast("array<string>"))


def _whole(pattern: Column) -> Column:
    # Drill uses Matcher.matches() (the whole string); Spark's rlike searches
    return F.concat(F.lit("\\A(?:"), pattern, F.lit(")\\z"))


def _regexp_matches(a: list[Arg], ctx: Context) -> Column:
    p = a[1]
    pattern = F.lit(f"\\A(?:{p.literal})\\z") if p.is_literal else _whole(p.col)
    return F.rlike(a[0].col, pattern)


def _similar_to(a: list[Arg], ctx: Context) -> Column:
    pattern = lit_str(a[1], "similar_to", 2)
    escape = lit_str(a[2], "similar_to", 3) if len(a) > 2 else ""
    if len(escape) > 1:
        raise FunctionArgumentError(f"similar_to(): the escape {escape!r} must be one character")
    regex = similar_to_regex(pattern, escape)
    return F.rlike(a[0].col, F.lit(f"\\A(?:{regex})\\z"))


_SIMILAR_SPECIALS = "[]()|^-+*_%?{}"
_CHAR_CLASSES = {
    "[:ALPHA:]": "\\p{Alpha}",
    "[:UPPER:]": "\\p{Upper}",
    "[:LOWER:]": "\\p{Lower}",
    "[:DIGIT:]": "\\d",
    "[:SPACE:]": " ",
    "[:WHITESPACE:]": "\\s",
    "[:ALNUM:]": "\\p{Alnum}",
}


def similar_to_regex(pattern: str, escape: str = "") -> str:
    """A SQL SIMILAR TO pattern as a Java regex, by the rules of Drill's
    RegexpUtil.sqlToRegexSimilar: `_` is any character, `%` any string, `[...]` a class
    (with `[:ALPHA:]`-style names), `$` and `\\` are literal, the other regex operators
    (`|`, `*`, `+`, `?`, `{}`, `()`) keep their meaning, and the escape character makes the
    next special character literal."""

    def bad(why: str) -> FunctionArgumentError:
        return FunctionArgumentError(
            f"similar_to(): invalid SIMILAR TO pattern {pattern!r} ({why})"
        )

    def escaped(i: int) -> str:
        """The character after the escape at `i`, as a regex literal."""
        ch = pattern[i + 1] if i + 1 < len(pattern) else ""
        if not ch or (ch not in _SIMILAR_SPECIALS and ch != escape):
            raise bad(f"the escape at position {i + 1} escapes nothing special")
        return "\\" + ch if ch in JAVA_REGEX_SPECIALS else ch

    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if escape and c == escape:
            out.append(escaped(i))
            i += 2
            continue
        if c == "[":
            i = _similar_class(pattern, i, escape, out, bad, escaped)
        elif c == "]":
            raise bad(f"unmatched ']' at position {i + 1}")
        else:
            out.append({"_": ".", "%": ".*", "\\": "\\\\", "$": "\\$"}.get(c, c))
        i += 1
    return "".join(out)


def _similar_class(
    pattern: str,
    start: int,
    escape: str,
    out: list[str],
    bad: Callable[[str], FunctionArgumentError],
    escaped: Callable[[int], str],
) -> int:
    """The character class opening at `start`, appended to `out`; returns its `]` index."""
    out.append("[")
    i, n = start + 1, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "]":
            out.append("]")
            return i
        if escape and c == escape:
            out.append(escaped(i))
            i += 2
            continue
        if c in "-^":
            out.append(c)
        elif pattern.startswith("[:", i):
            name = next(
                (k for k in _CHAR_CLASSES if pattern[i : i + len(k)] in (k, k.lower())), None
            )
            if name is None:
                raise bad(f"unknown character class at position {i + 1}")
            out.append(_CHAR_CLASSES[name])
            i += len(name)
            continue
        elif c in _SIMILAR_SPECIALS:
            raise bad(f"{c!r} inside [...] at position {i + 1}")
        else:
            out.append("\\\\" if c == "\\" else c)
        i += 1
    raise bad("unclosed '['")


CATALOG = _build_catalog()

# Larger groups of functions live in their own modules; they add to (or refine) the catalog.
from drillspark.spark import functions_datetime, functions_like, functions_scalar  # noqa: E402

functions_datetime.register(CATALOG)
functions_like.register(CATALOG)
functions_scalar.register(CATALOG)
from drillspark.spark import functions_hash  # noqa: E402

functions_hash.register(CATALOG)
