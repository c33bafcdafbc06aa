"""Drill's hash functions: `hash32` / `hash` / `hash32AsDouble` (MurmurHash3 x86_32) and
`hash64` / `hash64AsDouble` (the first 64 bits of MurmurHash3 x64_128), seed 0 unless given.
The hashing itself is the extension's `drill_hash32` / `drill_hash64` (which bytes each type
hashes is described there); this module checks the arguments Drill accepts and makes the
`AsDouble` forms hash a DECIMAL as its DOUBLE value, the one type where they differ."""

from __future__ import annotations

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
)

_HASHABLE = (
    T.NumericType,
    T.NullType,
    T.BooleanType,
    T.StringType,
    T.BinaryType,
    T.DateType,
    T.TimestampType,
    T.TimestampNTZType,
    T.TimeType,
)


def _seed(name: str, a: list[Arg], ctx: Context) -> Column:
    if len(a) < 2:
        return F.lit(0)
    seed = a[1]
    if seed.is_literal:
        # Drill refuses a NULL seed (no HASH64(CHAR, INTEGER:OPTIONAL) signature)
        if not isinstance(seed.literal, int) or isinstance(seed.literal, bool):
            raise FunctionArgumentError(
                f"{name}(): the seed must be an INT or BIGINT, not {seed.literal!r}"
            )
        # Drill keeps the low 32 bits of a BIGINT seed
        low = seed.literal & 0xFFFFFFFF
        return F.lit(low - (1 << 32) if low >= 1 << 31 else low)
    t = ctx.type_of(seed.col)
    if not isinstance(t, INTEGRAL):
        raise FunctionArgumentError(
            f"{name}(): the seed must be an INT or BIGINT, not {t.simpleString()}"
        )
    return seed.col


def _hash(name: str, bits: int, as_double: bool):
    def build(a: list[Arg], ctx: Context) -> Column:
        x = a[0].col
        t = ctx.type_of(x)
        if not isinstance(t, _HASHABLE):
            raise FunctionArgumentError(
                f"{name}() of a {t.simpleString()} value is not "
                "supported (numbers, text, binary, dates and times)"
            )
        seeded = len(a) > 1
        if isinstance(t, T.DecimalType):
            if as_double:
                x = x.cast("double")
            elif seeded and bits == 64:
                # Drill hashes a DECIMAL differently once a seed is given, in a way its
                # answers did not reveal (docs/drill-differences.md)
                raise FunctionArgumentError(
                    f"{name}() of a DECIMAL with a seed is not "
                    "supported; cast the value to DOUBLE or VARCHAR"
                )
        if isinstance(t, T.NullType):
            x = x.cast("int")
        return F.call_function(f"drill_hash{bits}", x, _seed(name, a, ctx))

    return build


def register(cat: FunctionCatalog) -> None:
    for name, bits, as_double in (
        ("hash", 32, False),
        ("hash32", 32, False),
        ("hash32asdouble", 32, True),
        ("hash64", 64, False),
        ("hash64asdouble", 64, True),
    ):
        cat.add(DrillFunction(name, "scalar", _hash(name, bits, as_double), 1, 2))
