"""Drill's hash32 / hash32AsDouble / hash (MurmurHash3 x86_32, seed 0 unless given) of numbers,
which Drill hashes as the 8 bytes of their DOUBLE value. Spark's `hash` is the same
MurmurHash3 over a DOUBLE's 8 bytes, but with seed 42 and no way to pass another; its
several-column form hashes each column with the previous hash as seed, so a first constant
whose hash (from 42) is the wanted seed makes the second column hash with that seed. The
constant comes from running MurmurHash3's steps backwards (each is invertible)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.spark.functions import (
    Arg,
    Context,
    DrillFunction,
    FunctionArgumentError,
    FunctionCatalog,
)

_M = 0xFFFFFFFF
_C1, _C2 = 0xCC9E2D51, 0x1B873593
_F1, _F2 = 0x85EBCA6B, 0xC2B2AE35
_SPARK_SEED = 42


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def _inv(a: int) -> int:
    return pow(a, -1, 1 << 32)


def _hash_int(value: int, seed: int) -> int:
    """Spark's Murmur3_x86_32.hashInt (for checking the inversion)."""
    k = _rotl((value * _C1) & _M, 15) * _C2 & _M
    h = (_rotl(seed ^ k, 13) * 5 + 0xE6546B64) & _M
    h ^= 4
    h ^= h >> 16
    h = h * _F1 & _M
    h ^= h >> 13
    h = h * _F2 & _M
    h ^= h >> 16
    return h


def seed_constant(seed: int) -> int:
    """The INT whose hash from Spark's seed 42 is `seed` (as an unsigned 32-bit value)."""
    h = seed & _M
    h ^= h >> 16
    h = h * _inv(_F2) & _M
    h ^= (h >> 13) ^ (h >> 26)
    h = h * _inv(_F1) & _M
    h ^= h >> 16
    h ^= 4
    h = ((h - 0xE6546B64) * _inv(5)) & _M
    k = _rotl(h, 32 - 13) ^ _SPARK_SEED
    k = _rotl(k * _inv(_C2) & _M, 32 - 15) * _inv(_C1) & _M
    assert _hash_int(k, _SPARK_SEED) == seed & _M
    return k - (1 << 32) if k >= 1 << 31 else k


def _hash32(name: str):
    def build(a: list[Arg], ctx: Context) -> Column:
        x = a[0].col
        t = ctx.type_of(x)
        if not isinstance(t, T.NumericType | T.NullType):
            raise FunctionArgumentError(f"{name}() of a {t.simpleString()} value is not "
                                        "supported (only numbers)")
        seed = 0
        if len(a) > 1:
            if not a[1].is_literal or not isinstance(a[1].literal, int):
                raise FunctionArgumentError(f"{name}(): the seed must be an integer literal")
            seed = a[1].literal
        value = x.cast("double")
        # Drill hashes -0.0 and 0.0 alike? Spark does; NULL hashes to 0 in Drill
        return F.when(value.isNull(), F.lit(0)).otherwise(
            F.hash(F.lit(seed_constant(seed)), value))

    return build


def register(cat: FunctionCatalog) -> None:
    for name in ("hash32", "hash32asdouble", "hash"):
        cat.add(DrillFunction(name, "scalar", _hash32(name), 1, 2))
