"""The reader of Drill's parquet format (formats/parquet.py): Parquet as Drill reads it, on
Spark's Parquet source.

Two things Spark does not do by itself:

* `TIME(MILLIS)` / `TIME(MICROS)` columns (Drill writes TIME as INT32 TIME_MILLIS) are refused
  by Spark's schema converter. Such files are read with a schema that types those columns as
  integers (taken from the footers), then turned into Drill's TIME (Spark `TIME(3)`).
* Drill before 1.9 wrote DATE values shifted by twice the Julian day of the Unix epoch
  (DRILL-4203). Like Drill (format option `autoCorrectCorruptDates`, default true), dates of
  such files are shifted back: files whose `drill.version` is older than 1.9, and files of
  older Drill writers that did not record it (`created_by` plain `parquet-mr` or a `-drill`
  parquet-mr build), whose values are past the year 5000.
"""

from __future__ import annotations

import datetime
import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.formats.base import PATH_COLUMN as PATH_COL
from drillspark.spark.scope import REQUIRED_COLUMN, quote
from drillspark.spark.storage.implicit import local_path

CORRUPT_DATE_SHIFT = 2 * 2440588  # days: twice the Julian day number of 1970-01-01
CORRUPT_DATE_THRESHOLD = (datetime.date(5000, 1, 1) - datetime.date(1970, 1, 1)).days


class ParquetReadError(ExecutionError, ValueError):
    pass


@dataclass
class Footer:
    path: str
    fields: list[tuple[str, T.DataType]]
    times: dict[str, str] = field(default_factory=dict)  # column -> "ms" / "us" / "ns"
    dates: list[str] = field(default_factory=list)
    corrupt_dates: bool = False
    required: set[str] = field(default_factory=set)  # REQUIRED (NOT NULL) top-level columns


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def _maybe_corrupt_dates(created_by: str | None, kv: dict[bytes, bytes]) -> bool:
    drill_version = kv.get(b"drill.version")
    if drill_version is not None:
        fixed = (
            kv.get(b"is.date.correct", b"").lower() == b"true"
            or int(kv.get(b"drill-writer.version", b"1") or 1) >= 2
        )
        return not fixed and _version(drill_version.decode("utf-8", "replace")) < (1, 9)
    created = (created_by or "").strip()
    return created in ("", "parquet-mr") or ("parquet-mr" in created and "drill" in created)


def _spark_type(t: object, where: str) -> T.DataType:
    import pyarrow as pa

    assert isinstance(t, pa.DataType)
    simple = [
        (pa.types.is_boolean, T.BooleanType()),
        (pa.types.is_int8, T.ByteType()),
        (pa.types.is_int16, T.ShortType()),
        (pa.types.is_int32, T.IntegerType()),
        (pa.types.is_int64, T.LongType()),
        (pa.types.is_uint8, T.ShortType()),
        (pa.types.is_uint16, T.IntegerType()),
        (pa.types.is_uint32, T.LongType()),
        (pa.types.is_float32, T.FloatType()),
        (pa.types.is_float64, T.DoubleType()),
        (pa.types.is_string, T.StringType()),
        (pa.types.is_large_string, T.StringType()),
        # Arrow's view layouts (pyarrow and tpchgen-cli store them in the file's Arrow schema):
        # in Parquet they are plain BYTE_ARRAY columns, as Drill reads them
        (pa.types.is_string_view, T.StringType()),
        (pa.types.is_binary_view, T.BinaryType()),
        (pa.types.is_binary, T.BinaryType()),
        (pa.types.is_large_binary, T.BinaryType()),
        (pa.types.is_fixed_size_binary, T.BinaryType()),
        (pa.types.is_date32, T.DateType()),
    ]
    for test, st in simple:
        if test(t):
            return st
    if pa.types.is_uint64(t):
        return T.DecimalType(20, 0)
    if pa.types.is_decimal(t):
        return T.DecimalType(t.precision, t.scale)
    if pa.types.is_timestamp(t):
        return T.TimestampType() if t.tz is not None or t.unit == "ns" else T.TimestampNTZType()
    if pa.types.is_time32(t):
        return T.IntegerType()
    if pa.types.is_time64(t):
        return T.LongType()
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return T.ArrayType(_spark_type(t.value_type, where))
    if pa.types.is_struct(t):
        return T.StructType(
            [
                T.StructField(t.field(i).name, _spark_type(t.field(i).type, where))
                for i in range(t.num_fields)
            ]
        )
    if pa.types.is_map(t):
        return T.MapType(_spark_type(t.key_type, where), _spark_type(t.item_type, where))
    raise ParquetReadError(f"{where}: Parquet type {t} is not supported")


def footer(path: str) -> Footer:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    md = pf.metadata
    schema = pf.schema_arrow
    foot = Footer(path, [], corrupt_dates=_maybe_corrupt_dates(md.created_by, md.metadata or {}))
    for f in schema:
        t = f.type
        if pa.types.is_time32(t) or pa.types.is_time64(t):
            foot.times[f.name] = t.unit
        if pa.types.is_date32(t):
            foot.dates.append(f.name)
        foot.fields.append((f.name, _spark_type(t, f"{path}: column {f.name!r}")))
        if not f.nullable and not (pa.types.is_list(t) or pa.types.is_large_list(t)):
            foot.required.add(f.name)  # (a list's mode is ARRAY whatever its repetition)
    return foot


# The DataFrame read from a set of Parquet files, per session, while none of the files changed:
# a warm query skips reading every footer again and Spark's schema-merging job (0.3 s of the
# 0.7 s a TPC-H q1 took to become a DataFrame), as the `drill` source caches a JSON file's
# schema. Keyed by each file's stat (size, modification and change time, inode: a rewrite,
# even with its modification time set back, changes the change time); the newest 64 sets kept.
_READS: weakref.WeakKeyDictionary[SparkSession, OrderedDict[tuple, DataFrame]] = (
    weakref.WeakKeyDictionary()
)
_READS_KEPT = 64
_READS_LOCK = threading.Lock()


def _stamps(files: Sequence[str]) -> tuple | None:
    """Each file's stat, or None when one cannot be read (then nothing is cached)."""
    try:
        return tuple(
            (f, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            for f, st in ((f, os.stat(f)) for f in files)
        )
    except (OSError, ValueError):
        return None


def read_parquet(
    spark: SparkSession,
    files: Sequence[str],
    auto_correct_dates: bool = True,
    with_path: bool = True,
) -> DataFrame:
    """`files` with Spark's schema merging, TIME columns and corrupt dates as Drill reads them;
    with `with_path` (and where the reading needs it anyway) the last column, `PATH_COL`, is
    each row's file (for the implicit columns)."""
    stamps = _stamps(files)
    if stamps is None:
        return _read_parquet(spark, files, auto_correct_dates, with_path)
    key = (auto_correct_dates, with_path, stamps)
    with _READS_LOCK:
        kept = _READS.setdefault(spark, OrderedDict())
        df = kept.get(key)
        if df is not None:
            kept.move_to_end(key)
            return df
    df = _read_parquet(spark, files, auto_correct_dates, with_path)
    with _READS_LOCK:
        kept[key] = df
        while len(kept) > _READS_KEPT:
            kept.popitem(last=False)
    return df


def _read_parquet(
    spark: SparkSession, files: Sequence[str], auto_correct_dates: bool, with_path: bool
) -> DataFrame:
    if any("://" in f and not f.startswith("file:") for f in files):
        # a file plugin's object store (s3a://): Spark's reader alone; the footers the local
        # reading checks for TIME columns and corrupt dates are not fetched (docs/storage.md)
        df = spark.read.option("mergeSchema", "true").parquet(*files)
        if with_path:
            df = df.select(
                *[F.col(quote(n)) for n in df.columns],
                F.col("_metadata.file_path").alias(PATH_COL),
            )
        return df
    feet = [footer(f) for f in files]
    times: dict[str, str] = {}
    for ft in feet:
        times.update(ft.times)
    if _disagree(feet):
        return _read_groups(spark, files, feet, auto_correct_dates)
    corrupt = [
        os.path.realpath(ft.path)
        for ft in feet
        if auto_correct_dates and ft.corrupt_dates and ft.dates
    ]
    # only when asked: once a select names `_metadata.file_path`, Spark keeps the whole
    # `_metadata` struct (a row index included) in the plan even after the column is dropped,
    # a quarter of a TPC-H q1's time (docs/performance.md)
    path = [F.col("_metadata.file_path").alias(PATH_COL)] if with_path or corrupt else []
    if not times:
        df = spark.read.option("mergeSchema", "true").parquet(*files)
        if path:
            df = df.select(*[F.col(quote(n)) for n in df.columns], *path)
    else:
        merged: dict[str, tuple[str, T.DataType]] = {}
        for ft in feet:
            for name, t in ft.fields:
                merged.setdefault(name.lower(), (name, t))
        schema = T.StructType([T.StructField(n, t) for n, t in merged.values()])
        df = spark.read.schema(schema).parquet(*files)
        df = df.select(
            *[_time(n, times[n]) if n in times else F.col(quote(n)) for n in df.columns],
            *path,
        )
    if corrupt:
        dates = {d for ft in feet if ft.corrupt_dates for d in ft.dates}
        in_corrupt = local_path(F.col(quote(PATH_COL))).isin(corrupt)
        df = df.select(
            *[_fixed_date(n, in_corrupt) if n in dates else F.col(quote(n)) for n in df.columns]
        )
    required = set.intersection(*(ft.required for ft in feet)) if feet else set()
    if required:  # NOT NULL in Drill's modeof (Spark reads every file column as nullable)
        df = df.select(
            *[
                F.col(quote(n)).alias(n, metadata={REQUIRED_COLUMN: True})
                if n in required
                else F.col(quote(n))
                for n in df.columns
            ]
        )
    return df


def _disagree(feet: Sequence[Footer]) -> bool:
    """Files that give one column different types (DECIMAL in some, DOUBLE in others), which
    Spark's schema merging refuses; Drill reads each file with its own types."""
    seen: dict[str, T.DataType] = {}
    for ft in feet:
        for name, t in ft.fields:
            if seen.setdefault(name.lower(), t) != t:
                return True
    return False


def _common(a: T.DataType, b: T.DataType) -> T.DataType:
    """One type for a column the files type differently: numbers widen (to DOUBLE once a
    DECIMAL meets a float or another DECIMAL), anything else is read as its text."""
    if a == b:
        return a
    ints = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
    if isinstance(a, ints) and isinstance(b, ints):
        return T.LongType()
    nums = (*ints, T.FloatType, T.DoubleType, T.DecimalType)
    if isinstance(a, nums) and isinstance(b, nums):
        return T.DoubleType()
    return T.StringType()


def _read_groups(
    spark: SparkSession, files: Sequence[str], feet: Sequence[Footer], auto_correct_dates: bool
) -> DataFrame:
    """Files whose schemas disagree: each group of files with one schema read alone, the
    disagreeing columns cast to one type, then the groups unioned by name."""
    groups: dict[tuple[tuple[str, str], ...], list[int]] = {}
    for i, ft in enumerate(feet):
        groups.setdefault(tuple((n.lower(), t.simpleString()) for n, t in ft.fields), []).append(i)
    types: dict[str, T.DataType] = {}
    names: dict[str, str] = {}
    differ: set[str] = set()
    for ft in feet:
        for n, t in ft.fields:
            names.setdefault(n.lower(), n)
            if types.setdefault(n.lower(), t) != t:
                differ.add(n.lower())
                types[n.lower()] = _common(types[n.lower()], t)
    out: DataFrame | None = None
    for idx in groups.values():
        df = read_parquet(spark, [files[i] for i in idx], auto_correct_dates)
        df = df.select(
            *[
                F.col(quote(c)).cast(types[c.lower()]).alias(names[c.lower()])
                if c.lower() in differ
                else F.col(quote(c))
                for c in df.columns
            ]
        )
        out = df if out is None else out.unionByName(df, allowMissingColumns=True)
    assert out is not None
    # the file-path column last, as the single read gives it
    cols = [c for c in out.columns if c != PATH_COL] + [PATH_COL]
    return out.select(*[F.col(quote(c)) for c in cols])


def _time(name: str, unit: str) -> F.Column:
    c = F.col(quote(name))
    if unit == "ms":
        value = F.call_function("time_from_millis", c)
    elif unit == "us":
        value = F.call_function("time_from_micros", c)
    else:
        value = F.call_function("time_from_micros", F.floor(c / 1000))
    return value.cast("time(3)").alias(name)


def _fixed_date(name: str, in_corrupt: F.Column) -> F.Column:
    c = F.col(quote(name))
    shifted = F.date_sub(c, CORRUPT_DATE_SHIFT)
    return (
        F.when(in_corrupt & (F.unix_date(c) > CORRUPT_DATE_THRESHOLD), shifted)
        .otherwise(c)
        .alias(name)
    )
