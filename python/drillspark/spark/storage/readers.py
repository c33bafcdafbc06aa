"""Reading files into DataFrames, one function per format. JSON reading lives in exactly one
function (`read_json`) so the switch to the extension's `drill` source is a one-place change."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T


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
    """Drill-style JSON: JSON lines, concatenated objects, or one top-level array per file;
    comments and unquoted field names allowed; integers BIGINT, floats DOUBLE. `options` are
    the `drill` source's (see `json_options`)."""
    options = dict(options or {})
    if _drill_source_available(spark):
        # the extension's `drill` source reads Drill's JSON dialect natively (type rules,
        # conflicts, directories, compressed files)
        return spark.read.format("drill").options(**options).load(list(paths))
    return _read_json_with_spark(spark, paths, options)


def _read_json_with_spark(spark: SparkSession, paths: Sequence[str],
                          drill_options: Mapping[str, str]) -> DataFrame:
    """Without the extension's source (e.g. a Connect server without the jar): Spark's reader,
    with files that are not JSON lines normalised to JSON lines first."""
    options = {"allowComments": "true", "allowUnquotedFieldNames": "true",
               "allowNonNumericNumbers": "true", "mode": "FAILFAST"}
    for name, value in drill_options.items():
        if name == "allTextMode":
            options["primitivesAsString"] = value
        elif name == "nanInf":
            options["allowNonNumericNumbers"] = value
        elif name == "escapeAnyChar":
            options["allowBackslashEscapingAnyCharacter"] = value
        elif name == "skipInvalidRecords":
            options["mode"] = "DROPMALFORMED" if value == "true" else "FAILFAST"
        elif value != "false":
            raise ReadError(f"JSON option {name} needs the extension's `drill` source "
                            "(the drillspark jar is not loaded)")
    lines_paths = [_as_json_lines(p) for p in _expand(paths, (".json",))]
    if not lines_paths:
        raise ReadError(f"no JSON files at {', '.join(paths)}")
    if all(os.path.getsize(p) == 0 for p in lines_paths):
        return spark.createDataFrame([], T.StructType([]))
    try:  # FAILFAST: schema inference reads every record now, so bad input fails here
        return spark.read.options(**options).json(lines_paths)
    except Exception as e:
        from drillspark.errors import describe

        raise ReadError(f"{', '.join(paths)}: invalid JSON ({describe(e)})") from None


# Per session, weakly held: an id() key could be reused by a later session.
_DRILL_SOURCE: weakref.WeakKeyDictionary[SparkSession, bool] = weakref.WeakKeyDictionary()


def _drill_source_available(spark: SparkSession) -> bool:
    if spark not in _DRILL_SOURCE:
        try:
            spark.read.format("drill").schema("x string").load(os.devnull)
            _DRILL_SOURCE[spark] = True
        except Exception as e:  # only a missing format means "not available"
            text = str(e)
            _DRILL_SOURCE[spark] = not ("DATA_SOURCE_NOT_FOUND" in text
                                        or "Failed to find data source" in text)
    return _DRILL_SOURCE[spark]


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
        df = df.select(*[F.col(f"`{have[c.lower()]}`").alias(c) if c.lower() in have
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


_NORMALISED: dict[tuple[str, float], str] = {}


@atexit.register
def _remove_normalised() -> None:
    for path in _NORMALISED.values():
        with contextlib.suppress(OSError):
            os.remove(path)


def _as_json_lines(path: str) -> str:
    """`path` itself when it is JSON lines, else a temporary JSON-lines copy of its records."""
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
    if not first or _is_whole_value(first):
        return path
    key = (path, os.path.getmtime(path))
    if key in _NORMALISED and os.path.exists(_NORMALISED[key]):
        return _NORMALISED[key]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    records = _decode_all(text, path)
    fd, out = tempfile.mkstemp(prefix="drillspark-json-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as w:
        for r in records:
            w.write(json.dumps(r) + "\n")
    _NORMALISED[key] = out
    return out


def _is_whole_value(line: str) -> bool:
    try:
        json.loads(line)
        return True
    except ValueError:
        return False


def _decode_all(text: str, path: str) -> list[object]:
    decoder = json.JSONDecoder()
    records: list[object] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n:
            break
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            line = text.count("\n", 0, e.pos) + 1
            raise ReadError(f"{path}:{line}: invalid JSON ({e.msg})") from None
        if isinstance(value, list):
            records.extend(value)
        else:
            records.append(value)
    return records
