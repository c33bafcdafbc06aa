"""Drill's `ltsv` format (contrib/format-ltsv): Labeled Tab-separated Values, read by the
extension's `drill-ltsv` source (jvm drillspark/formats/logs/LtsvFormat.scala): every label a
VARCHAR column, in Drill's column order (docs/formats.md)."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatPlugin, Option


class LtsvFormat(FormatPlugin):
    TYPE = "ltsv"
    EXTENSIONS = ("ltsv",)
    SOURCE = "drill-ltsv"
    BOOTSTRAP = True
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("parseMode", "lenient", (str,), "lenient or strict (Drill 1.22 reads both alike)"),
        Option("escapeCharacter", None, (str,), "kept for Drill's config"),
        Option("kvDelimiter", None, (str,), "between a label and its value (default ':')"),
        Option("entryDelimiter", None, (str,), "between entries (default a tab)"),
        Option("lineEnding", None, (str,), "kept for Drill's config (lines end at \\n or \\r\\n)"),
        Option("quoteChar", None, (str,), "kept for Drill's config"),
    )

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # as Drill 1.22 with its contrib plugins shows it in its bootstrap dfs
        return {
            "ltsv": {
                "type": "ltsv",
                "extensions": ["ltsv"],
                "parseMode": "lenient",
                "escapeCharacter": None,
                "kvDelimiter": None,
                "entryDelimiter": None,
                "lineEnding": None,
                "quoteChar": None,
            }
        }


FORMAT = LtsvFormat()
