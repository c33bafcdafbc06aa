"""The reader of Drill's text format (formats/text.py: csv, csvh, tsv, psv/.tbl, and
`type => 'text'` table functions).

Records are parsed here, not by Spark's CSV reader, because Drill's rules differ from it:
an empty line is a record with no fields (`columns` is `[]`), a trailing delimiter adds an
empty field, a `\\r` before the `\\n` line delimiter stays in the last field, a line starting
with the comment character is skipped, and a quote that does not end a quoted field (one not
followed by a delimiter or line end) is kept as text. Each file is read whole by Spark's
`text` source (so compressed files work) and parsed by `mapInArrow` on the executors.

Files are UTF-8. A file with bytes that are not (a Latin-1 `é`, a cut multi-byte character)
fails the query with an error naming the file, the line and column, and the bytes: Drill 1.22
reads each such byte as U+FFFD, which loses what was there without saying so.

Without a header every record is one `columns` array of strings; with `extractHeader` the
first record names VARCHAR columns (empty names become `column_<n>`, repeated ones `<name>_2`).
A provided schema (`schema => 'inline=(a int, ...)'`) types columns by name with a header and
by position without one; its columns come first, in its order.
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.spark.drill_types import UnknownTypeError, drill_type
from drillspark.spark.row_errors import raise_row_error
from drillspark.spark.scope import TEXT_COLUMN
from drillspark.spark.scope import quote as quote_name

PATH_COL = "$file"  # the file each record comes from (for implicit columns), dropped later
ERROR_COL = "$error"  # a file that cannot be read: its one row carries why (raised, then dropped)
_MARK = {TEXT_COLUMN: True}  # a missing column next to these is '' (scope.Scope.text_default)


class TextFormatError(ExecutionError, ValueError):
    pass


def truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


def _char(value: Any, key: str, allow_empty: bool = False) -> str:
    text = str(value)
    if not text and not allow_empty:
        raise TextFormatError(f"text format option {key!r} must not be empty")
    return text


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"'}


def unescape(text: str) -> str:
    """Java escapes in a delimiter option, as Drill reads them: '\\t' is a tab, '\\u0009'
    too, '\\\\' a backslash; an unknown or unfinished escape stays as written."""
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if c == "\\" and nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif c == "\\" and nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        else:
            out.append(c)
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class ProvidedColumn:
    name: str
    type: T.DataType
    type_name: str
    not_null: bool = False
    default: str | None = None


@dataclass(frozen=True)
class TextOptions:
    """Drill's text format config (`TextFormatConfig`) with its defaults."""

    delimiter: str = ","
    quote: str = '"'
    escape: str = '"'
    comment: str = "#"
    line_delimiter: str = "\n"
    extract_header: bool = False
    skip_first_line: bool = False
    schema: tuple[ProvidedColumn, ...] = field(default=())

    # format-config key (lower case) -> field; `delimiter` is the plan selection's old name
    _KEYS = {
        "fielddelimiter": "delimiter",
        "delimiter": "delimiter",
        "quote": "quote",
        "escape": "escape",
        "comment": "comment",
        "linedelimiter": "line_delimiter",
        "extractheader": "extract_header",
        "skipfirstline": "skip_first_line",
        "schema": "schema",
    }
    # keys of a format config that say which files are text, not how to read them
    _IGNORED = {"type", "extensions"}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TextOptions:
        """From a format config / table-function options (case-insensitive keys); an unknown
        option is refused so a misspelt one is never silently ignored."""
        values: dict[str, Any] = {}
        for key, value in config.items():
            if key.lower() in cls._IGNORED or value is None:
                continue
            name = cls._KEYS.get(key.lower())
            if name is None:
                known = (
                    "fieldDelimiter, quote, escape, comment, lineDelimiter, "
                    "extractHeader, skipFirstLine, schema"
                )
                raise TextFormatError(f"unknown text format option {key!r} (known: {known})")
            if name in ("extract_header", "skip_first_line"):
                values[name] = truthy(value)
            elif name == "schema":
                values[name] = parse_inline_schema(str(value))
            elif name == "delimiter":  # Drill uses the first character of a longer one
                values[name] = _char(unescape(str(value)), key)[0]
            elif name == "line_delimiter":
                values[name] = _char(unescape(str(value)), key)
            else:
                values[name] = _char(value, key, allow_empty=name == "comment")
        return cls(**values)


# ------------------------------------------------------------------ provided (inline) schema


def _split_top(text: str) -> list[str]:
    """Split on commas outside (), quotes and backquotes."""
    out, cur, depth, q = [], [], 0, ""
    for c in text:
        if q:
            cur.append(c)
            if c == q:
                q = ""
        elif c in "'\"`":
            q = c
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return [s.strip() for s in out if s.strip()]


_COLUMN_RE = re.compile(
    r"^(?:`(?P<q>(?:[^`]|``)+)`|(?P<n>[^\s`]+))\s+(?P<type>.+?)"
    r"(?P<notnull>\s+not\s+null)?(?:\s+default\s+'(?P<default>(?:[^']|'')*)')?"
    r"(?:\s+format\s+'(?:[^']|'')*')?(?:\s+properties\s*\{.*\})?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def parse_inline_schema(text: str) -> tuple[ProvidedColumn, ...]:
    """`inline=(a int not null default '0', b varchar)` -> the provided columns."""
    body = text.strip()
    m = re.match(r"^inline\s*=\s*\((.*)\)\s*$", body, re.IGNORECASE | re.DOTALL)
    if not m:
        raise TextFormatError(f"schema {text!r} is not of the form inline=(name type, ...)")
    cols = []
    for part in _split_top(m.group(1)):
        c = _COLUMN_RE.match(part)
        if not c:
            raise TextFormatError(f"provided schema column {part!r} cannot be parsed")
        name = c.group("q").replace("``", "`") if c.group("q") else c.group("n")
        type_name = c.group("type").strip()
        try:
            spark_type = drill_type(type_name, schema=True)
        except UnknownTypeError as e:
            raise TextFormatError(f"provided schema column {part!r}: {e}") from None
        default = c.group("default")
        cols.append(
            ProvidedColumn(
                name,
                spark_type,
                type_name.upper(),
                bool(c.group("notnull")),
                default.replace("''", "'") if default is not None else None,
            )
        )
    return tuple(cols)


# ------------------------------------------------------------------ parsing


def parse_records(text: str, fmt: TextOptions) -> Iterator[list[str]]:
    """The records of one file's text, each a list of field strings (Drill's rules, above)."""
    if fmt.line_delimiter not in ("", "\n"):
        # Drill: a newline ends a line whatever lineDelimiter says, and the delimiter itself
        # (`\r\n`, `\r`) ends one too: both become one newline
        text = text.replace(fmt.line_delimiter, "\n")
        fmt = dataclasses.replace(fmt, line_delimiter="\n")
    ld, delim, q = fmt.line_delimiter, fmt.delimiter, fmt.quote
    n, i = len(text), 0
    while i < n:
        if fmt.comment and text.startswith(fmt.comment, i):
            j = text.find(ld, i)
            i = n if j < 0 else j + len(ld)
            continue
        j = text.find(ld, i)
        end = n if j < 0 else j
        line = text[i:end]
        if not q or q not in line:  # the common case: no quoting on this line
            yield line.split(delim) if line else []
            i = end + len(ld) if j >= 0 else n
            continue
        record, i = _parse_record(text, i, fmt)
        yield record


def _parse_record(text: str, i: int, fmt: TextOptions) -> tuple[list[str], int]:
    n = len(text)
    ld, delim, q, esc = fmt.line_delimiter, fmt.delimiter, fmt.quote, fmt.escape
    fields: list[str] = []
    while True:
        if text.startswith(q, i):
            i += len(q)
            buf: list[str] = []
            while i < n:
                if esc != q and text.startswith(esc + q, i):
                    buf.append(q)
                    i += len(esc) + len(q)
                elif text.startswith(q, i):
                    after = i + len(q)
                    if esc == q and text.startswith(q, after):  # a doubled quote
                        buf.append(q)
                        i = after + len(q)
                    elif after >= n or text.startswith(delim, after) or text.startswith(ld, after):
                        i = after
                        break
                    else:  # not the end of the field: Drill keeps the quote as text
                        buf.append(q)
                        i = after
                else:
                    buf.append(text[i])
                    i += 1
            fields.append("".join(buf))
        else:
            ends = [e for e in (text.find(delim, i), text.find(ld, i)) if e >= 0]
            end = min(ends) if ends else n
            fields.append(text[i:end])
            i = end
        if i >= n:
            return fields, n
        if text.startswith(delim, i):
            i += len(delim)
            if i >= n:
                fields.append("")
                return fields, n
            continue
        return fields, i + len(ld)  # at the line delimiter


def clean_header_name(raw: str) -> str:
    """A header field as Drill 1.22 names its column: trimmed, every character that is not a
    letter or digit made `_`, and `col_` in front (after any leading `_`) when the name does
    not start with a letter: `first name` is `first_name`, `5200.5` is `col_5200_5`, `_x` is
    `col_x`; an empty field is '' (the caller numbers it)."""
    name = "".join(ch if ch.isalpha() or ch.isdigit() else "_" for ch in raw.strip())
    if name and not name[0].isalpha():
        name = "col_" + name.lstrip("_")
    return name


def header_names(record: Sequence[str]) -> list[str]:
    """Column names from a header record, as Drill cleans them (`clean_header_name`) and makes
    them unique (case-insensitively, `<name>_2`) and non-empty (`column_<n>`)."""
    names: list[str] = []
    seen: set[str] = set()
    for k, raw in enumerate(record):
        name = clean_header_name(raw) or f"column_{k + 1}"
        base, n = name, 1
        while name.lower() in seen:
            n += 1
            name = f"{base}_{n}"
        seen.add(name.lower())
        names.append(name)
    return names


def decode(data: bytes, shown: str) -> str:
    """A text file's bytes as UTF-8, else TextFormatError naming the file (`shown`), the line
    and column of the first bytes that are not UTF-8, and those bytes."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TextFormatError(not_utf8(data, e.start, shown)) from None


def not_utf8(data: bytes, start: int, shown: str) -> str:
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", "replace")) + 1
    # the run of bad bytes from `start` (a few at most)
    escaped = data[start : start + 16].decode("utf-8", "backslashreplace")
    run = re.match(r"(?:\\x[0-9a-f]{2})+", escaped)
    count = len(run.group(0)) // 4 if run else 1
    bad = " ".join(f"{b:02X}" for b in data[start : start + count])
    return (
        f"drill: file {shown} line {line}, column {column} (byte {start}): the bytes {bad} "
        "(hex) are not UTF-8; text files are read as UTF-8, and drillspark stops rather than "
        "replace them (Drill 1.22 reads each as U+FFFD, losing what was there): convert the "
        "file to UTF-8 (e.g. iconv -f latin1 -t utf-8)"
    )


def _remote(path: str) -> bool:
    from drillspark.spark.storage import filesystems

    return filesystems.is_remote(path)


def _open_text(path: str, shown: str) -> str:
    lower = path.lower()
    if _remote(path):  # a file plugin's object store: its bytes through Hadoop
        from pyspark.sql import SparkSession

        from drillspark.spark.storage import filesystems

        data = filesystems.read_bytes(SparkSession.active(), path)
        if lower.endswith(".gz"):
            data = gzip.decompress(data)
        elif lower.endswith(".bz2"):
            data = bz2.decompress(data)
        return decode(data, shown)
    if lower.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return decode(f.read(), shown)
    if lower.endswith(".bz2"):
        with bz2.open(path, "rb") as f:
            return decode(f.read(), shown)
    with open(path, "rb") as f:
        return decode(f.read(), shown)


def _first_record(path: str, fmt: TextOptions, shown: str) -> list[str]:
    return next(parse_records(_open_text(path, shown), fmt), [])


def _base_of(files: Sequence[str]) -> str:
    """The folder errors name the files from: the table's own folder (a file's, a folder
    table's), so messages never show where the table lies on this machine."""
    folders = [os.path.dirname(os.path.abspath(f)) for f in files]
    return os.path.commonpath(folders) if folders else ""


def shown_name(path: str, base: str) -> str:
    """`path` as an error shows it: relative to `base` (the table's folder)."""
    path = os.path.abspath(path)
    if base and (path == base or path.startswith(base.rstrip(os.sep) + os.sep)):
        return os.path.relpath(path, base)
    return os.path.basename(path)


# ------------------------------------------------------------------ Spark


def read_text(spark: SparkSession, files: Sequence[str], fmt: TextOptions) -> DataFrame:
    """The records of `files` as a DataFrame (see the module doc), with the `PATH_COL` of each."""
    headers: dict[str, list[str]] = {}
    names: list[str] = []
    base = _base_of(files)
    if fmt.extract_header:
        for f in files:
            headers[f] = header_names(_first_record(f, fmt, shown_name(f, base)))
            low = {n.lower() for n in names}
            names.extend(n for n in headers[f] if n.lower() not in low)
    provided = {c.name.lower(): c for c in fmt.schema}
    if fmt.extract_header:
        out_names = [c.name for c in fmt.schema] + [n for n in names if n.lower() not in provided]
    elif fmt.schema:
        out_names = [c.name for c in fmt.schema]
    else:
        out_names = ["columns"]
    if fmt.extract_header or fmt.schema:
        # a header column is VARCHAR NOT NULL in Drill (a short line fills ''), when every
        # file's header has it
        everywhere = (
            set.intersection(*({n.lower() for n in h} for h in headers.values()))
            if headers
            else set()
        )
        fields = [
            T.StructField(n, T.StringType(), n.lower() not in everywhere, _MARK) for n in out_names
        ]
    else:
        fields = [T.StructField("columns", T.ArrayType(T.StringType(), False), True, _MARK)]
    schema = T.StructType(
        [*fields, T.StructField(PATH_COL, T.StringType()), T.StructField(ERROR_COL, T.StringType())]
    )
    # (a remote file, s3a:// or hdfs://, is its URI as Spark gives it)
    by_uri = {f if _remote(f) else os.path.realpath(f): h for f, h in headers.items()}
    # a file reached through a symlinked folder: Spark's _metadata names it by the link's
    # path, not the file's own (a key for a remote URI is never asked for)
    by_uri.update({os.path.abspath(f): h for f, h in headers.items()})
    # the file's bytes as they are (Spark's text source does not check UTF-8; the parser does)
    raw = spark.read.text(list(files), wholetext=True).select(
        F.col("value").cast("binary").alias("value"), F.col("_metadata.file_path").alias(PATH_COL)
    )
    df = raw.mapInArrow(_parser(fmt, out_names, by_uri, base), schema)
    # a file that is not UTF-8 fails the query with its error (a filter: never pruned away)
    failed = raise_row_error(F.col(quote_name(ERROR_COL))).cast("boolean")
    df = df.where(F.when(F.col(quote_name(ERROR_COL)).isNull(), F.lit(True)).otherwise(failed))
    df = df.drop(ERROR_COL)
    if fmt.schema:
        df = df.select(
            *[
                _typed(c) if c in provided.values() else F.col(quote_name(n))
                for n in out_names
                for c in [provided.get(n.lower())]
            ],
            F.col(quote_name(PATH_COL)),
        )
    return df


def local_path(uri: str) -> str:
    """The local path of a `file:` URI as Spark's `_metadata.file_path` gives it."""
    from urllib.parse import unquote

    return re.sub(r"^file:/*", "/", unquote(uri))


def _typed(c: ProvidedColumn | None) -> Any:
    assert c is not None
    col = F.col(quote_name(c.name))
    if not isinstance(c.type, T.StringType):
        col = F.when(F.length(col) == 0, F.lit(None)).otherwise(col).cast(c.type)
    if c.not_null and c.default is not None:
        col = F.coalesce(col, F.lit(c.default).cast(c.type))
    return col.alias(c.name)


def _parser(
    fmt: TextOptions, out_names: list[str], headers: dict[str, list[str]], base: str
) -> Any:
    """The mapInArrow function: whole files in, one row per record out (a file that is not
    UTF-8: one row with its error in ERROR_COL)."""
    import pyarrow as pa

    header = fmt.extract_header
    positional = [c.name for c in fmt.schema] if fmt.schema and not header else None
    index = {n.lower(): k for k, n in enumerate(out_names)}
    named = header or positional is not None

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for data, uri in zip(
                batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
            ):
                try:
                    text = decode(data or b"", shown_name(local_path(uri), base))
                except TextFormatError as e:
                    # the one row of a failed file; its (empty) values are never read
                    empty: list[Any] = [""] * len(out_names) if named else []
                    yield _batch([empty], out_names, named, uri, str(e))
                    return
                records = parse_records(text, fmt)
                names = None
                if header:  # (skipFirstLine does not apply with a header, as in Drill)
                    next(records, None)
                    names = headers.get(local_path(uri))
                    if names is None:  # a file the driver did not list: say so, never an NPE
                        empty = [""] * len(out_names)
                        where = shown_name(local_path(uri), base)
                        yield _batch([empty], out_names, named, uri, f"{where}: no header read")
                        return
                elif fmt.skip_first_line:
                    next(records, None)
                rows: list[Any] = []
                for rec in records:
                    if names is not None:
                        row: list[Any] = [None] * len(out_names)
                        for k, name in enumerate(names):  # a missing field is '' (Drill)
                            row[index[name.lower()]] = rec[k] if k < len(rec) else ""
                        rows.append(row)
                    elif positional is not None:
                        rows.append(
                            [rec[k] if k < len(rec) else None for k in range(len(positional))]
                        )
                    else:
                        rows.append(rec)
                    if len(rows) >= 4096:
                        yield _batch(rows, out_names, named, uri)
                        rows = []
                if rows:
                    yield _batch(rows, out_names, named, uri)

    return run


def _batch(
    rows: list[Any], names: list[str], named: bool, uri: str, error: str | None = None
) -> Any:
    """The record batch of `rows` (with `error`: the one row of a file that failed)."""
    import pyarrow as pa

    tail = [pa.array([uri] * len(rows), pa.string()), pa.array([error] * len(rows), pa.string())]
    if named:
        cols = [pa.array([r[k] for r in rows], pa.string()) for k in range(len(names))]
        return pa.RecordBatch.from_arrays([*cols, *tail], names=[*names, PATH_COL, ERROR_COL])
    return pa.RecordBatch.from_arrays(
        [pa.array(rows, pa.list_(pa.field("element", pa.string(), False))), *tail],
        names=["columns", PATH_COL, ERROR_COL],
    )
