"""Reading files into DataFrames, one function per format. JSON is read only by the
extension's `drill` source (`read_json`); every drillspark session has the jar."""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from drillspark.spark.scope import quote


class ReadError(ValueError):
    pass


# Drill JSON format-config keys (a plan's `selection.format`, a storage engine's
# `formats.json`, a SQL table function's options) -> the `drill` source's option names.
JSON_OPTIONS = {
    "allTextMode": "allTextMode",
    "readNumbersAsDouble": "readNumbersAsDouble",
    "nanInf": "nanInf",
    "allowNanInf": "nanInf",
    "skipMalformedJSONRecords": "skipInvalidRecords",
    "skipInvalidRecords": "skipInvalidRecords",
    "escapeAnyChar": "escapeAnyChar",
    "allowEscapeAnyChar": "escapeAnyChar",
    "extendedTypes": "extendedTypes",
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
        out[name] = _option_text(value)
    return out


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_json(spark: SparkSession, paths: Sequence[str],
              options: Mapping[str, str] | None = None) -> DataFrame:
    """Drill-style JSON through the extension's `drill` source: JSON lines, concatenated
    objects, or one top-level array per file; comments and unquoted field names allowed;
    Drill's type rules. `options` are the `drill` source's (see `json_options`)."""
    if not _has_source(spark, "drill"):
        raise ReadError(
            "cannot read JSON: the drillspark jar is not on the classpath: use "
            "drillspark.session() / drillspark.configure(builder), or start Spark (or the "
            "Spark Connect server) with --jars <drillspark.jar_path()> and "
            "spark.sql.extensions=drillspark.DrillSparkExtensions")
    return spark.read.format("drill").options(**dict(options or {})).load(list(paths))


# Per session, weakly held: an id() key could be reused by a later session.
_SOURCES: weakref.WeakKeyDictionary[SparkSession, dict[str, bool]] = \
    weakref.WeakKeyDictionary()


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
            known[name] = not ("DATA_SOURCE_NOT_FOUND" in text
                               or "Failed to find data source" in text)
    return known[name]


def read_parquet(spark: SparkSession, paths: Sequence[str],
                 columns: Sequence[str] | None = None) -> DataFrame:
    """Parquet with schema merging across files; `columns` a file lacks are filled with nulls
    (Drill's missing-column rule: nullable INT when no reader knows the type)."""
    files = _expand(paths, (".parquet",))
    if not files:
        raise ReadError(f"no parquet files at {', '.join(paths)}")
    df = spark.read.option("mergeSchema", "true").parquet(*files)
    if columns:
        have = {f.name.lower(): f.name for f in df.schema.fields}
        df = df.select(*[F.col(quote(have[c.lower()])).alias(c) if c.lower() in have
                         else F.lit(None).cast("int").alias(c) for c in columns])
    return df


def _split_outside_quotes(value: Column, delimiter: str, quote: str = '"') -> Column:
    d = "\\" + delimiter if delimiter in ".|^$*+?()[]{}\\" else delimiter
    if delimiter == "\t":
        d = "\\t"
    pattern = f"{d}(?=(?:[^{quote}]*{quote}[^{quote}]*{quote})*[^{quote}]*$)"
    parts = F.split(value, pattern, -1)
    # strip the quotes of quoted fields and unescape doubled quotes
    return F.transform(parts, lambda p: F.when(
        p.startswith(quote) & p.endswith(quote) & (F.length(p) >= 2),
        F.regexp_replace(p.substr(F.lit(2), F.length(p) - 2), quote * 2, quote),
    ).otherwise(p))


def read_text(spark: SparkSession, paths: Sequence[str], delimiter: str,
              header: bool = False, extensions: Sequence[str] = ()) -> DataFrame:
    """Drill's text reader: without a header every line becomes one `columns` array of strings;
    with a header the named columns are strings."""
    files = _expand(paths, tuple(extensions))
    if not files:
        raise ReadError(f"no text files at {', '.join(paths)}")
    if header:
        return (spark.read.option("header", "true").option("sep", delimiter)
                .option("inferSchema", "false").csv(files))
    lines = spark.read.text(files).where(F.length("value") > 0)
    return lines.select(_split_outside_quotes(F.col("value"), delimiter).alias("columns"))


def _expand(paths: Sequence[str], extensions: tuple[str, ...]) -> list[str]:
    """Files under `paths` (directories are read recursively, hidden files skipped, like Drill)."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
                for name in sorted(filenames):
                    if name.startswith((".", "_")):
                        continue
                    if not extensions or name.lower().endswith(extensions):
                        out.append(os.path.join(dirpath, name))
        elif os.path.exists(p):
            out.append(p)
        else:
            raise ReadError(f"file not found: {p}")
    return out
