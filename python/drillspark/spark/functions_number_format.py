"""TO_NUMBER(text, pattern): text read by a java.text.DecimalFormat pattern, as Drill does,
built from native Spark expressions (the pattern is a literal, read when the plan is compiled).

What Drill 1.22 answers (checked with real Drill): the number is read from the start of the
text and whatever follows it is ignored (`'12abc'` is 12), unless the pattern has a suffix,
which must follow the number (`'45'` with `'#%'` fails); the prefix must open the text (`' 12'`
fails). Grouping separators are read only when the pattern groups (`'987,966'` with
`'######'` is 987); the decimal point and an exponent (`E`, `E-`) are always read. The negative
form is the `;` sub-pattern's prefix and suffix, or `-` before the positive prefix. `%` / `‰`
divide by 100 / 1000. The DOUBLE is then rounded half up to the pattern's maximum fraction
digits (`'8.5'` with `'#'` is 9, `'45%'` with `'#%'` is 0). Text that does not parse fails the
query, naming the text and the pattern.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.casts import cast_column
from drillspark.spark.function_catalog import Arg, Context, FunctionArgumentError, lit_str
from drillspark.spark.row_errors import raise_row_error


@dataclass(frozen=True)
class NumberPattern:
    pos_prefix: str
    pos_suffix: str
    neg_prefix: str
    neg_suffix: str
    grouping: bool
    max_fraction: int
    multiplier: int


def _split_affixes(part: str, pattern: str) -> tuple[str, str, str]:
    """(prefix, number part, suffix) of one sub-pattern; quotes make pattern characters
    literal (`''` is a quote)."""
    prefix: list[str] = []
    number: list[str] = []
    suffix: list[str] = []
    i, n = 0, len(part)
    stage = 0  # 0 prefix, 1 number, 2 suffix
    while i < n:
        c = part[i]
        if c == "'":
            end = part.find("'", i + 1)
            if end < 0:
                raise FunctionArgumentError(
                    f"to_number(): unclosed quote in the pattern {pattern!r}"
                )
            text = "'" if end == i + 1 else part[i + 1 : end]
            if stage == 1:
                stage = 2
            (prefix if stage == 0 else suffix).append(text)
            i = end + 1
            continue
        if c in "#0,.E" and stage < 2:
            if c == "E" and stage == 0:
                prefix.append(c)
            else:
                stage = 1
                number.append(c)
        else:
            if stage == 1:
                stage = 2
            (prefix if stage == 0 else suffix).append(c)
        i += 1
    return "".join(prefix), "".join(number), "".join(suffix)


def parse_pattern(pattern: str) -> NumberPattern:
    """A DecimalFormat pattern's affixes, grouping, fraction digits and multiplier."""
    positive, _, negative = pattern.partition(";")
    pre, num, suf = _split_affixes(positive, pattern)
    if not any(ch in num for ch in "#0"):
        raise FunctionArgumentError(
            f"to_number(): the pattern {pattern!r} has no digits ('#' or '0')"
        )
    if negative:
        npre, _, nsuf = _split_affixes(negative, pattern)
    else:
        npre, nsuf = "-" + pre, suf
    mantissa = num.split("E")[0]
    fraction = mantissa.split(".")[1] if "." in mantissa else ""
    affixes = pre + suf
    multiplier = 100 if "%" in affixes else 1000 if "\u2030" in affixes else 1
    return NumberPattern(
        pre,
        suf,
        npre,
        nsuf,
        "," in mantissa.split(".")[0],
        sum(ch in "#0" for ch in fraction),
        multiplier,
    )


def _number_regex(p: NumberPattern, prefix: str, suffix: str) -> str:
    whole = r"\d[\d,]*" if p.grouping else r"\d+"
    number = rf"((?:{whole}(?:\.\d*)?|\.\d+)(?:E-?\d+)?)"
    return "^" + _quote(prefix) + number + _quote(suffix)


def _quote(text: str) -> str:
    return "" if not text else r"\Q" + text.replace(r"\E", r"\E\\E\Q") + r"\E"


def to_number(a: list[Arg], ctx: Context) -> Column:
    pattern = lit_str(a[1], "to_number", 2)
    p = parse_pattern(pattern)
    # other types as Drill's text of them (an interval: '23834 days 8:0:0.0')
    text = cast_column(a[0].col, ctx.type_of(a[0].col), T.StringType())
    pos = _number_regex(p, p.pos_prefix, p.pos_suffix)
    neg = _number_regex(p, p.neg_prefix, p.neg_suffix)

    def value(regex: str) -> Column:
        digits = F.regexp_replace(F.regexp_extract(text, regex, 1), ",", "")
        return digits.cast("double") / p.multiplier

    # DecimalFormat takes the longer of the two prefixes that match (the negative one when
    # it extends the positive one, as `-` does)
    tries = [(neg, -1), (pos, 1)]
    if len(p.pos_prefix) > len(p.neg_prefix):
        tries.reverse()
    fail = raise_row_error(
        F.concat(
            F.lit("to_number(): cannot parse '"), text, F.lit(f"' with the pattern {pattern!r}")
        )
    )
    out = F.when(text.isNull(), F.lit(None).cast("double"))
    for regex, sign in tries:
        out = out.when(text.rlike(regex), F.lit(sign) * value(regex))
    number = out.otherwise(fail.cast("double"))
    # half up from the double's exact binary value (TO_NUMBER('1.005', '#.##') is 1.0)
    return F.call_function("drill_round", number, F.lit(p.max_fraction))
