"""Drill scalar functions beyond the core catalog (spark/functions.py) and the ones whose
result type Drill fixes differently from Spark's built-in: SIGN is an INT, CEIL/FLOOR keep
their argument's type, SPLIT_PART (3 and 4 arguments), IS [NOT] DISTINCT FROM, COT,
COLLECT_TO_LIST, ROW, BYTE_SUBSTR, TO_NUMBER (functions_number_format.py), LEFT/RIGHT with a
negative length, ISNUMERIC. Registered into the one catalog."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.function_catalog import (
    INTEGRAL,
    Arg,
    Context,
    DrillFunction,
    FunctionArgumentError,
    FunctionCatalog,
    decimal_at,
    java_quote,
    lit_scale,
    lit_str,
)
from drillspark.spark.functions_number_format import to_number
from drillspark.spark.row_errors import raise_row_error

_WHOLE = 2.0**52


def _rounding(fn: Callable[[Column], Column]) -> Callable[[list[Arg], Context], Column]:
    """CEIL / FLOOR: the argument's own type (Spark's are BIGINT for doubles and integers)."""

    def build(a: list[Arg], ctx: Context) -> Column:
        x = a[0].col
        t = ctx.type_of(x)
        if isinstance(t, T.DecimalType):
            return decimal_at(fn(x), t, 0)
        if isinstance(t, INTEGRAL):
            return x
        if isinstance(t, T.StringType):
            t, x = T.DoubleType(), x.cast("double")
        # a double past 2^52 is already whole, and NaN / infinities stay as they are (Drill);
        # Spark's ceil/floor of a double is a BIGINT, which those overflow
        return F.when(F.abs(x) < _WHOLE, fn(x).cast(t)).otherwise(x.cast(t))

    return build


def _split_part(a: list[Arg], ctx: Context) -> Column:
    """split_part(s, delimiter, start [, end]): the start-th part (1-based; '' past the end),
    or parts start..end joined by the delimiter."""
    d = a[1]
    if not d.is_literal or not isinstance(d.literal, str) or not d.literal:
        raise FunctionArgumentError(
            "split_part(): the delimiter must be a non-empty string literal"
        )
    both_negative = len(a) == 4 and all(
        x.is_literal and isinstance(x.literal, int) and x.literal < 0 for x in a[2:]
    )
    for i, arg in enumerate(a[2:], start=3):
        # Drill 1.22: a negative start (3 arguments), or a negative start and end (4), count
        # from the end; 0 is an error
        negative_ok = (
            len(a) == 3 and i == 3 and arg.is_literal and arg.literal != 0 or both_negative
        )
        if not negative_ok and arg.is_literal and isinstance(arg.literal, int) and arg.literal < 1:
            raise FunctionArgumentError(
                f"split_part(): argument {i} must be positive, not {arg.literal}"
            )
    parts = F.split(a[0].col, F.lit(java_quote(d.literal)), -1)
    start = a[2].col.cast("int")
    bad = raise_row_error(F.lit("Index in split_part must be positive"))
    none = F.lit(None).cast("string")  # a NULL text has no parts (Drill: NULL, not '')
    if len(a) == 3:
        out = F.coalesce(F.get(parts, start - 1), F.lit(""))
        from_end = F.coalesce(F.get(parts, F.size(parts) + start), F.lit(""))
        return (
            F.when(start == 0, bad.cast("string"))
            .when(a[0].col.isNull(), none)
            .when(start < 0, from_end)
            .otherwise(out)
        )
    end = a[3].col.cast("int")
    n = F.size(parts)
    if both_negative:  # -k is the k-th part from the end; a start before the first is 1
        start, end = F.greatest(n + start + 1, F.lit(1)), n + end + 1
        picked = F.when(end < 1, F.array().cast("array<string>")).otherwise(
            F.slice(parts, start, F.greatest(end - start + 1, F.lit(0)))
        )
        return F.when(a[0].col.isNull(), none).otherwise(F.array_join(picked, d.literal))
    picked = F.when(start > n, F.array().cast("array<string>")).otherwise(
        F.slice(parts, start, F.greatest(F.least(end, n) - start + 1, F.lit(0)))
    )
    out = F.array_join(picked, d.literal)
    return (
        F.when((start < 1) | (end < 1), bad.cast("string"))
        .when(a[0].col.isNull(), none)
        .when(
            end < start,
            raise_row_error(
                F.lit("End index in split_part must be greater or equal to start index")
            ).cast("string"),
        )
        .otherwise(out)
    )


_WORD_BREAKS = " \t\n\r\x0c\x0b!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def _initcap(a: list[Arg], ctx: Context) -> Column:
    """Each word's first letter upper-cased, the rest lower-cased; words end at whitespace and
    punctuation (Spark's initcap splits at spaces only)."""
    breaks = _WORD_BREAKS
    if len(a) > 1:
        if not a[1].is_literal or not isinstance(a[1].literal, str):
            raise FunctionArgumentError("initcap(): the delimiters must be a string literal")
        breaks = a[1].literal
    chars = F.split(a[0].col, "", -1)
    marks = F.array(*[F.lit(ch) for ch in breaks]) if breaks else F.array().cast("array<string>")
    word = F.transform(
        chars,
        lambda c, i: F.when(
            (i == 0) | F.array_contains(marks, F.element_at(chars, i)), F.upper(c)
        ).otherwise(F.lower(c)),
    )
    return F.array_join(word, "")


def _whole(arg: Arg, ctx: Context) -> Column:
    """A length or position argument as the INT Drill makes of it: a fractional one rounded
    half up (Drill 1.22: SUBSTR('abcdef', 2, 3.7) is 'bcde', LEFT('abcdef', 2.5) 'abc')."""
    t = ctx.type_of(arg.col)
    if isinstance(t, T.DecimalType | T.DoubleType | T.FloatType):
        return F.round(arg.col, 0).cast("int")
    return arg.col.cast("int")


def _substr(a: list[Arg], ctx: Context) -> Column:
    """substr(s, start [, length]): Drill gives '' for a start before the first character
    (Spark counts a negative start from the end). substr(s, pattern) is the first match of a
    regex (Drill 1.22: substr(n_name, 'UN.TE.') is 'UNITED'; '' without a match)."""
    if len(a) == 2 and isinstance(ctx.type_of(a[1].col), T.StringType):
        return F.regexp_extract(a[0].col, lit_str(a[1], "substr", 2), 0)
    start = _whole(a[1], ctx)
    length = _whole(a[2], ctx) if len(a) > 2 else F.lit(2**31 - 1)
    out = F.substring(a[0].col, start, length)
    return F.when(start < 1, F.when(a[0].col.isNotNull(), F.lit(""))).otherwise(out)


def _truncate(a: list[Arg], ctx: Context) -> Column:
    """trunc(x [, scale]): integers are already whole, decimals stay decimals."""
    x = a[0].col
    t = ctx.type_of(x)
    scale = lit_scale(a, "trunc")
    if isinstance(t, INTEGRAL):
        if len(a) == 1:
            return x
        x = x.cast("double")  # Drill: trunc(int, s) is a DOUBLE, like round(int, s)
    if isinstance(t, T.DecimalType):
        s = max(scale, 0)  # Drill cuts a decimal at scale 0 for a negative scale
        cut = F.when(x >= 0, F.floor(x, F.lit(s))).otherwise(F.ceil(x, F.lit(s)))
        return decimal_at(cut, t, s)
    factor = F.pow(F.lit(10.0), F.lit(scale))
    scaled = x * factor
    cut = F.when(x >= 0, F.floor(scaled)).otherwise(F.ceil(scaled)) / factor
    # NaN stays NaN, an infinity is NaN (Drill 1.22, with a scale and without)
    past = F.when(F.isnan(x), x).when(F.abs(x) == float("inf"), float("nan"))
    out = F.when(F.abs(scaled) < _WHOLE, cut).otherwise(past.otherwise(x))
    # a FLOAT stays a FLOAT without a scale (Drill 1.22), a DOUBLE with one
    return out.cast("float") if isinstance(t, T.FloatType) and len(a) < 2 else out


def _byte_substr(a: list[Arg], ctx: Context) -> Column:
    """byte_substr(s, start, length): the bytes start..start+length-1 (1-based) of the text's
    UTF-8 bytes (or of a VARBINARY), as VARBINARY; a length below 1 gives no bytes, and so does
    start 0 (Drill 1.22; a negative start counts from the end)."""
    data = a[0].col.cast("binary")
    start, length = _whole(a[1], ctx), _whole(a[2], ctx)
    empty = F.lit(bytearray()).cast("binary")
    return (
        F.when(data.isNull() | start.isNull() | length.isNull(), F.lit(None).cast("binary"))
        .when((length < 1) | (start == 0), empty)
        .otherwise(F.substring(data, start, length))
    )


# STRING_BINARY prints these bytes as themselves and every other byte as \\xHH (checked with
# Drill 1.22); BINARY_STRING reads that text back.
_BINARY_PRINTABLE = (
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    " `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?"
)


def _string_binary(a: list[Arg], ctx: Context) -> Column:
    pairs = F.regexp_extract_all(F.hex(a[0].col.cast("binary")), F.lit("(..)"), 1)
    printable = F.array(*[F.lit(ord(ch)) for ch in _BINARY_PRINTABLE])
    shown = F.transform(
        pairs,
        lambda h: F.when(
            F.array_contains(printable, F.conv(h, 16, 10).cast("int")), F.unhex(h).cast("string")
        ).otherwise(F.concat(F.lit("\\x"), h)),
    )
    return F.array_join(shown, "")


def _binary_string(a: list[Arg], ctx: Context) -> Column:
    tokens = F.regexp_extract_all(
        a[0].col.cast("string"), F.lit("(\\\\x[0-9A-Fa-f]{2}|[\\s\\S])"), 1
    )
    hexed = F.transform(
        tokens,
        lambda t: F.when(
            t.startswith("\\x") & (F.length(t) == 4), F.upper(F.substring(t, 3, 2))
        ).otherwise(F.hex(t)),
    )
    return F.unhex(F.array_join(hexed, ""))


def _regexp_extract(a: list[Arg], ctx: Context) -> Column:
    """regexp_extract(s, pattern): the pattern's capture groups at its first match, as an
    ARRAY of VARCHAR ([] for a pattern without groups); NULL where it does not match.
    regexp_extract(s, pattern, n): group n of the first match (0 the whole match), a VARCHAR
    (Drill 1.22: REGEXP_EXTRACT('abc123', '([a-z]+)([0-9]+)', 2) is '123'); NULL where it
    does not match (Drill fails such a row with a NullPointerException)."""
    pattern = lit_str(a[1], "regexp_extract", 2)
    n = _capture_groups(pattern)
    text = a[0].col
    if len(a) == 3:
        group = F.call_function("regexp_extract", text, F.lit(pattern), a[2].col.cast("int"))
        return F.when(text.rlike(pattern), group)
    groups = (
        F.array(*[F.regexp_extract(text, pattern, i) for i in range(1, n + 1)])
        if n
        else F.array().cast("array<string>")
    )
    return F.when(text.rlike(pattern), groups)


def _capture_groups(pattern: str) -> int:
    """The number of capturing groups of a Java regex: `(` not escaped, not in a class, not
    `(?...)` (named groups `(?<name>` capture)."""
    n, i, in_class = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(" and (
            not pattern.startswith("(?", i)
            or (pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"))
        ):
            n += 1
        i += 1
    return n


def _left(a: list[Arg], ctx: Context) -> Column:
    """LEFT(s, n): the first n characters; a negative n drops the last -n (Drill 1.22:
    LEFT('abcdef', -2) is 'abcd')."""
    s, n = a[0].col, _whole(a[1], ctx)
    keep = F.when(n >= 0, n).otherwise(F.greatest(F.length(s) + n, F.lit(0)))
    return F.when(s.isNotNull() & n.isNotNull(), F.substring(s, F.lit(1), keep))


def _right(a: list[Arg], ctx: Context) -> Column:
    """RIGHT(s, n): the last n characters; a negative n drops the first -n."""
    s, n = a[0].col, _whole(a[1], ctx)
    keep = F.when(n >= 0, F.least(n, F.length(s))).otherwise(F.greatest(F.length(s) + n, F.lit(0)))
    start = F.length(s) - keep + 1
    return F.when(s.isNotNull() & n.isNotNull(), F.substring(s, start, keep))


# ISNUMERIC: an optional sign, digits, an optional fraction (Drill 1.22: '3.14', '+5', '-3' and
# '007' are 1; '-1e5', ' 5', '5.', '.5', '1,000', 'NaN' and '' are 0)
_NUMERIC_TEXT = r"^[+-]?[0-9]+([.][0-9]+)?$"


def _isnumeric(a: list[Arg], ctx: Context) -> Column:
    return F.coalesce(a[0].col.cast("string").rlike(_NUMERIC_TEXT), F.lit(False)).cast("int")


def _row(a: list[Arg], ctx: Context) -> Column:
    # Calcite names the fields of ROW(...) EXPR$0, EXPR$1, ...
    return F.struct(*[x.col.alias(f"EXPR${i}") for i, x in enumerate(a)])


def register(cat: FunctionCatalog) -> None:
    def scalar(
        name: str,
        build: Callable[[list[Arg], Context], Column],
        n: int | tuple[int, int | None],
        *aliases: str,
    ) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        cat.add(DrillFunction(name, "scalar", build, lo, hi), *aliases)

    # Drill: SIGN(NaN) is 0
    scalar("sign", lambda a, c: F.nanvl(F.signum(a[0].col), F.lit(0.0)).cast("int"), 1)
    scalar("ceil", _rounding(F.ceil), 1, "ceiling")
    scalar("floor", _rounding(F.floor), 1)
    # 1 / tan as Java divides doubles: COT(0) is Infinity (Spark's ANSI division fails)
    scalar("cot", lambda a, c: F.pow(F.tan(a[0].col), F.lit(-1.0)), 1)
    scalar("split_part", _split_part, (3, 4))
    scalar("is_distinct_from", lambda a, c: ~a[0].col.eqNullSafe(a[1].col), 2)
    scalar("is_not_distinct_from", lambda a, c: a[0].col.eqNullSafe(a[1].col), 2)
    scalar("collect_to_list", lambda a, c: F.array(*[x.col for x in a]), (1, None))
    scalar("row", _row, (1, None))
    scalar("left", _left, 2)
    scalar("right", _right, 2)
    scalar("isnumeric", _isnumeric, 1)
    scalar("byte_substr", _byte_substr, 3)
    scalar("to_number", to_number, 2)
    scalar("string_binary", _string_binary, 1)
    scalar("regexp_extract", _regexp_extract, (2, 3))
    scalar("binary_string", _binary_string, 1)
    scalar("initcap", _initcap, (1, 2))
    scalar("substr", _substr, (2, 3), "substring")
    scalar("trunc", _truncate, (1, 2), "truncate")
