"""Drill's `xml` format (contrib/format-xml): XML documents, rows at the element depth
`dataLevel`, child elements as columns (text, maps, repeated ones concatenated) and attributes
in one `attributes` map, read by the extension's `drill-xml` source (jvm
drillspark/formats/xml/XmlFormat.scala; docs/formats.md)."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatError, FormatPlugin, Option


class XmlFormat(FormatPlugin):
    TYPE = "xml"
    EXTENSIONS = ("xml",)
    SOURCE = "drill-xml"
    BOOTSTRAP = True
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("dataLevel", 1, (int,), "the element depth that makes a row (1: the root)"),
        Option("allTextMode", True, (bool,), "every value VARCHAR (false: numbers as DOUBLE)"),
    )

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        if config["dataLevel"] < 1:
            raise FormatError(f"{where}option 'dataLevel' must be 1 or more")

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # as Drill 1.22 with its contrib plugins shows it in its bootstrap dfs
        return {"xml": {"type": "xml", "extensions": ["xml"], "dataLevel": 1, "allTextMode": True}}


FORMAT = XmlFormat()
