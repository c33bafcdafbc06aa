"""Drill's `text` format (csv, csvh, tsv, psv: named configs of one type): its config, the
named configs of Drill's bootstrap `dfs`, the extensions each selects, and the `store.format`
values CTAS writes (csv, tsv, psv with Drill's delimiters and file extensions). Its files are
parsed by `text_reader` (Drill's rules, not Spark's CSV reader's), called through
spark/storage/readers.read_text."""

from __future__ import annotations

from typing import Any, ClassVar

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.formats.base import FormatPlugin, Option, StoreFormat, WriteSpec
from drillspark.spark.scope import quote


def _named(ext: str, delimiter: str, header: bool = False) -> dict[str, Any]:
    """A text config as Drill's bootstrap `dfs` shows it."""
    out: dict[str, Any] = {
        "type": "text",
        "extensions": [ext],
        "lineDelimiter": "\n",
        "fieldDelimiter": delimiter,
        "quote": '"',
        "escape": '"',
        "comment": "#",
    }
    if header:
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
    BOOTSTRAP = True
    # Drill's bootstrap `dfs` formats of this type, by name (`psv` reads *.tbl)
    NAMED: ClassVar[dict[str, dict[str, Any]]] = {
        "csvh": _named("csvh", ",", header=True),
        "psv": _named("tbl", "|"),
        "tsv": _named("tsv", "\t"),
        "csv": _named("csv", ","),
    }
    # drillspark reads *.psv as Drill's psv config too (Drill's bootstrap reads only *.tbl)
    EXTRA_EXTENSIONS: ClassVar[dict[str, str]] = {"psv": "psv"}
    # Drill's text writer: store.format csv, tsv, psv (whose files are *.tbl), with a header
    STORE: ClassVar[tuple[StoreFormat, ...]] = (
        StoreFormat("csv", "csv", ","),
        StoreFormat("tsv", "tsv", "\t"),
        StoreFormat("psv", "tbl", "|"),
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
