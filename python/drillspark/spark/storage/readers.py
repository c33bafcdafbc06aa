"""Reading JSON and Parquet files into DataFrames, for their format plugins (formats/json.py,
formats/parquet.py `read`). JSON is read only by the extension's `drill` source (`read_json`),
Parquet by its `drill-parquet` source (`read_parquet`, the `dfs` catalog's table);
every drillspark session has the jar. Text is read by the extension's `drill-text` source
(formats/text.py)."""

from __future__ import annotations

import json
import os
import re
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from drillspark import rules
from drillspark.errors import ExecutionError, describe
from drillspark.formats.base import PATH_COLUMN as PATH_COL
from drillspark.formats.base import walk_folder
from drillspark.spark import single_pass
from drillspark.spark.scope import IMPLICIT_COLUMN, quote
from drillspark.spark.storage import filesystems
from drillspark.spark.storage import stamps as file_stamps
from drillspark.spark.storage.implicit import FILE_COLUMNS, dir_depth, with_implicit


class ReadError(ExecutionError, ValueError):
    pass


# Drill JSON format-config keys (a plan's `selection.format`, a storage engine's
# `formats.json`, a SQL table function's options) -> the `drill` source's option names, from
# the table the extension reads too (drillspark/rules/json_options.tsv). `schema` is a provided
# schema: `inline=(a int, ...)` or the source's DDL text.
JSON_OPTIONS = {
    spelling: o.option for o in rules.json_options() for spelling in (o.option, *o.spellings)
}
# Format-config keys that say which files are JSON, not how to read them.
_JSON_FORMAT_KEYS = {"type", "extensions"}


def json_options(config: Mapping[str, Any], where: str = "") -> dict[str, str]:
    """The `drill` source options for a Drill JSON format config (case-insensitive keys);
    an unknown key is refused so a misspelt option is never silently ignored."""
    by_lower = {k.lower(): v for k, v in JSON_OPTIONS.items()}
    out: dict[str, str] = {}
    for key, value in config.items():
        if key in _JSON_FORMAT_KEYS or value is None:
            continue
        name = by_lower.get(key.lower())
        if name is None:
            known = ", ".join(sorted(JSON_OPTIONS))
            raise ReadError(f"{where}unknown JSON format option {key!r} (known: {known})")
        out[name] = _inline_schema(value) if name == "schema" else _option_text(value)
    return out


def _inline_schema(value: Any) -> str:
    """A table function's `schema => 'inline=(a int, b varchar)'` as the source's DDL text."""
    m = re.match(r"^\s*inline\s*=\s*\((.*)\)\s*$", str(value), re.IGNORECASE | re.DOTALL)
    return m.group(1) if m else str(value)


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_json(
    spark: SparkSession,
    paths: Sequence[str],
    options: Mapping[str, str] | None = None,
    implicit: Sequence[str] = (),
    keep: Sequence[str] | None = None,
) -> DataFrame:
    """Drill-style JSON through the extension's `drill` source: JSON lines, concatenated
    objects, or one top-level array per file; comments and unquoted field names allowed;
    Drill's type rules. `options` are the `drill` source's (see `json_options`); `keep`
    names the top-level columns the table keeps (any case; names the files lack are no
    columns), None all."""
    if not _has_source(spark, "drill"):
        raise ReadError(
            "cannot read JSON: the drillspark jar is not on the classpath: use "
            "drillspark.session() / drillspark.configure(builder), or start Spark (or the "
            "Spark Connect server) with --jars <drillspark.jar_path()> and "
            "spark.sql.extensions=drillspark.DrillSparkExtensions"
        )
    # a statement whose result is fetched whole reads from a sample (single_pass)
    opts = single_pass.json_options(spark, tuple(paths), options or {}, bool(implicit))
    df = _json_table(spark, paths, opts, keep)
    # the source's file columns are metadata columns: present only when selected
    wanted = [n for n in dict.fromkeys(x.lower() for x in implicit) if n in FILE_COLUMNS]
    have = {c.lower() for c in df.columns} if wanted else set()
    extra = [n for n in wanted if n not in have]
    if extra:
        df = df.select(
            *[F.col(quote(c)) for c in df.columns],
            *[F.col(n).alias(n, metadata={IMPLICIT_COLUMN: True}) for n in extra],
        )
    return df


# The `drill` source's DataFrame of a JSON table read with full discovery is kept per session
# while nothing under its paths changed (stamps.py, as Parquet's below): a BI tool's
# chart sent again skips the source's schema discovery (a pass over the files) and Spark's
# analysis of the load, about 25 ms of a 0.25 s chart (#37). A sampled read (single_pass) is
# kept too, under its own options: the same files give the same sample, and a misfit reads
# again with other options, another shape.
def _json_table(
    spark: SparkSession,
    paths: Sequence[str],
    options: Mapping[str, str],
    keep: Sequence[str] | None,
) -> DataFrame:
    def read() -> DataFrame:
        reader = spark.read.format("drill").options(**options)
        if keep is not None:
            reader = reader.option("keepColumns", json.dumps([str(c) for c in keep]))
        return reader.load(list(paths))

    found = file_stamps.tree_stamps(paths)
    kept = None if keep is None else tuple(keep)
    shape = ("drill", tuple(paths), tuple(sorted(options.items())), kept)
    return file_stamps.kept(spark, shape, found, read)


# Per session, weakly held: an id() key could be reused by a later session.
_SOURCES: weakref.WeakKeyDictionary[SparkSession, dict[str, bool]] = weakref.WeakKeyDictionary()


def _has_source(spark: SparkSession, name: str) -> bool:
    """Whether the session knows the data source `name`. `.schema` forces analysis, which
    resolves the source (on Spark Connect `load()` alone is lazy and never fails)."""
    known = _SOURCES.setdefault(spark, {})
    if name not in known:
        try:
            spark.read.format(name).schema("x string").load(os.devnull).schema  # noqa: B018
            known[name] = True
        except Exception as e:  # only a missing source means "not available"
            text = str(e)
            known[name] = not (
                "DATA_SOURCE_NOT_FOUND" in text or "Failed to find data source" in text
            )
    return known[name]


def read_parquet(
    spark: SparkSession,
    paths: Sequence[str],
    columns: Sequence[str] | None = None,
    implicit: Sequence[str] = (),
    auto_correct: bool = True,
) -> DataFrame:
    """Parquet through the extension's `drill-parquet` source, the `dfs` catalog's table (jvm/
    .../formats/parquet: schema merging, TIME columns, pre-1.9 Drill dates, REQUIRED columns;
    `auto_correct`: Drill's autoCorrectCorruptDates), dirN columns first and the `implicit`
    file columns; `columns` a file lacks are filled with nulls (Drill's missing-column rule:
    nullable INT when no reader knows the type)."""
    files = _expand(paths, (".parquet",))
    if not files:
        raise ReadError(f"no parquet files at {', '.join(paths)}")
    # each row's file only where a column comes from it (dirN, filename, ...)
    with_path = dir_depth(paths, files) > 0 or any(n.lower() in FILE_COLUMNS for n in implicit)
    base = read_parquet_files(spark, files, auto_correct, with_path)
    shape = (tuple(paths), tuple(files), tuple(implicit), tuple(columns or ()))
    with _DERIVED_LOCK:
        kept = _DERIVED.setdefault(base, {})
        df = kept.get(shape)
    if df is None:
        df = _parquet_columns(base, paths, files, columns, implicit)
        with _DERIVED_LOCK:
            if len(kept) >= _DERIVED_KEPT:
                kept.pop(next(iter(kept)))
            kept[shape] = df
    return df


def read_parquet_files(
    spark: SparkSession,
    files: Sequence[str],
    auto_correct_dates: bool = True,
    with_path: bool = True,
) -> DataFrame:
    """The `drill-parquet` table of `files` (kept while they are unchanged); with `with_path`
    the last column, `PATH_COL`, is each row's file URI (for the implicit columns)."""
    # kept per session while none of the files changed (stamps.py): a warm query skips the
    # source's footer reads and Spark's analysis of the load
    found = file_stamps.tree_stamps(files)
    shape = ("drill-parquet", auto_correct_dates, with_path, tuple(files))
    return file_stamps.kept(
        spark, shape, found, lambda: _parquet(spark, files, auto_correct_dates, with_path)
    )


def _parquet(
    spark: SparkSession, files: Sequence[str], auto_correct_dates: bool, with_path: bool
) -> DataFrame:
    reader = spark.read.format("drill-parquet").option(
        "autoCorrectCorruptDates", "true" if auto_correct_dates else "false"
    )
    try:
        df = reader.load(list(files))
        df.schema  # noqa: B018 - the footers' refusal here, not at the first action
    except Exception as e:  # noqa: BLE001 - the source's refusal, as one paragraph
        raise ReadError(describe(e)) from None
    if not with_path:
        return df
    # the file Spark's scan is reading (set by its file reader, also under the grouped and
    # converting scans); only when asked, as it stops filters below it
    return df.select(*[F.col(quote(n)) for n in df.columns], F.input_file_name().alias(PATH_COL))


# The table as a query sees it (implicit columns, the named columns) per DataFrame `parquet`
# keeps: building it again costs a py4j round trip or three per column and Spark's analysis of
# a select, for every table of every statement. Dropped with the base DataFrame (weak keys).
_DERIVED: weakref.WeakKeyDictionary[DataFrame, dict[tuple, DataFrame]] = weakref.WeakKeyDictionary()
_DERIVED_KEPT = 16
_DERIVED_LOCK = threading.Lock()


def _parquet_columns(
    df: DataFrame,
    paths: Sequence[str],
    files: Sequence[str],
    columns: Sequence[str] | None,
    implicit: Sequence[str],
) -> DataFrame:
    df = with_implicit(
        df, F.col(quote(PATH_COL)), paths, files, implicit, dirs_first=True, drop=PATH_COL
    )
    if columns:
        have = {f.name.lower(): f.name for f in df.schema.fields}
        df = df.select(
            *[
                F.col(quote(have[c.lower()])).alias(c)
                if c.lower() in have
                else F.lit(None).cast("int").alias(c)
                for c in columns
            ]
        )
    return df


def _expand(paths: Sequence[str], extensions: tuple[str, ...]) -> list[str]:
    """Files under `paths` (directories are read recursively, hidden files skipped, like Drill)."""
    out: list[str] = []
    for p in paths:
        if filesystems.is_remote(p):  # a file plugin on s3a:// or hdfs://: Hadoop lists it
            out += filesystems.list_files(SparkSession.active(), p, extensions)
        elif os.path.isdir(p):
            out += walk_folder(p, extensions)
        elif os.path.exists(p):
            out.append(p)
        else:
            raise ReadError(f"file not found: {p}")
    return out
