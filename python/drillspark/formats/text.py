"""Drill's `text` format (csv, csvh, tsv, psv: named configs of one type): its config, the
named configs of Drill's bootstrap `dfs`, the extensions each selects, and the `store.format`
values CTAS writes (csv, tsv, psv with Drill's delimiters and file extensions). Its files are
read by the extension's `drill-text` source (jvm/.../formats/text/TextFormat.scala: Drill's
record rules, headers, the provided schema, strict UTF-8), the one reader Spark's own door
uses too."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark import rules
from drillspark.formats.base import FormatPlugin, Option, ReadRequest, StoreFormat, WriteSpec
from drillspark.spark.scope import TEXT_COLUMN, quote

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"'}


def unescape(text: str) -> str:
    """Java escapes in a table function's text, as Drill reads them once: '\\t' is a tab,
    '\\u0009' too, '\\\\' a backslash; an unknown or unfinished escape stays as written."""
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


def _named(conf: rules.TextNamedConfig) -> dict[str, Any]:
    """A text config as Drill's bootstrap `dfs` shows it."""
    out: dict[str, Any] = {
        "type": "text",
        "extensions": list(conf.extensions),
        "lineDelimiter": "\n",
        "fieldDelimiter": conf.field_delimiter,
        "quote": '"',
        "escape": '"',
        "comment": "#",
    }
    if conf.extract_header:
        out["extractHeader"] = True
    return out


class TextFormat(FormatPlugin):
    TYPE = "text"
    EXTENSIONS = ("txt",)
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("lineDelimiter", "\n", (str,)),
        Option("fieldDelimiter", ",", (str,)),
        Option("quote", '"', (str,)),
        Option("escape", '"', (str,)),
        Option("comment", "#", (str,)),
        Option("skipFirstLine", False, (bool,)),
        Option("extractHeader", False, (bool,)),
        Option("schema", None, (str,)),
        # drillspark's plan selections' older name of fieldDelimiter
        Option("delimiter", None, (str,)),
    )
    SOURCE = "drill-text"
    BOOTSTRAP = True
    # Drill's bootstrap `dfs` formats of this type, by name (`psv` reads *.tbl), from the table
    # the extension reads too (rules/text_formats.tsv): Spark's door gives a file the same
    # defaults without drillspark's Python
    NAMED: ClassVar[dict[str, dict[str, Any]]] = {c.name: _named(c) for c in rules.text_formats()}
    # drillspark reads *.psv as Drill's psv config too (Drill's bootstrap reads only *.tbl)
    EXTRA_EXTENSIONS: ClassVar[dict[str, str]] = {
        ext: c.name for c in rules.text_formats() for ext in c.also
    }
    # Drill's text writer: store.format csv, tsv, psv (whose files are *.tbl), with a header
    STORE: ClassVar[tuple[StoreFormat, ...]] = (
        StoreFormat("csv", "csv", ","),
        StoreFormat("tsv", "tsv", "\t"),
        StoreFormat("psv", "tbl", "|"),
    )

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        # a plan selection's `delimiter` is fieldDelimiter's older name: it wins
        older = config.pop("delimiter", None)
        if older is not None:
            config["fieldDelimiter"] = older

    def loaded(self, df: DataFrame, request: ReadRequest) -> DataFrame:
        """Columns a `SELECT *` names elsewhere that the files lack: '' (Drill's text reader)."""
        have = {c.lower() for c in df.columns}
        extra = [n for n in request.named if n.lower() not in have]
        if not extra:
            return df
        return df.select(
            *[F.col(quote(c)) for c in df.columns],
            *[F.lit("").alias(n, metadata={TEXT_COLUMN: True}) for n in extra],
        )

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        return {
            name: dict(conf, extensions=list(conf["extensions"]))
            for name, conf in cls.NAMED.items()
        }

    @classmethod
    def write_spec(cls, df: DataFrame, store: StoreFormat) -> WriteSpec:
        options = {
            "header": "true",
            "sep": store.delimiter or ",",
            "escape": '"',  # a quote inside a quoted field is doubled, as Drill writes it
        }
        if len(df.columns) == 1:
            # a NULL is an empty field, and a row of one empty field an empty line, which
            # the CSV writer (and readers) skip: write it as "" so the row survives
            options["nullValue"] = '""'
        return WriteSpec(_nested_as_json(df), "csv", options)


def _nested_as_json(df: DataFrame) -> DataFrame:
    """Maps and arrays in a text table are their JSON text (Drill's text writer)."""
    nested = (T.StructType, T.ArrayType, T.MapType)
    if not any(isinstance(f.dataType, nested) for f in df.schema.fields):
        return df
    return df.select(
        *[
            F.to_json(F.col(quote(f.name))).alias(f.name)
            if isinstance(f.dataType, nested)
            else F.col(quote(f.name))
            for f in df.schema.fields
        ]
    )


FORMAT = TextFormat()
