"""Drill's `text` format (csv, csvh, tsv, psv: named configs of one type). Read in Python
(spark/storage/text.py, readers.read_text), written by CTAS; this module owns its config and
the named configs of Drill's bootstrap `dfs`."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatPlugin, Option


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

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        return {
            name: dict(conf, extensions=list(conf["extensions"]))
            for name, conf in cls.NAMED.items()
        }


FORMAT = TextFormat()
