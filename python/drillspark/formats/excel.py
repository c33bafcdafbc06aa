"""Drill's `excel` format (contrib): .xlsx workbooks, read by the extension's `drill-excel`
source (jvm drillspark/formats/excel/, Apache POI with the streaming reader Drill 1.22 uses);
options with Drill's names and defaults (docs/formats.md)."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatError, FormatPlugin, Option


class ExcelFormat(FormatPlugin):
    TYPE = "excel"
    EXTENSIONS = ("xlsx",)
    SOURCE = "drill-excel"
    METADATA_COLUMNS = (
        "_sheets",
        "_creator",
        "_title",
        "_last_modified_by",
        "_created_date",
        "_modified_date",
        "_category",
        "_content_status",
        "_description",
        "_keywords",
        "_subject",
        "_revision",
        "_manager",
        "_company",
    )
    BOOTSTRAP = True
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("headerRow", 0, (int,), "the row of column names (0-based); -1: none"),
        Option("lastRow", 1048576, (int,), "the last row read"),
        Option("firstColumn", 0, (int,), "the first column read (1-based; 0: the first)"),
        Option("lastColumn", 0, (int,), "the last column read (0: the last)"),
        Option("allTextMode", False, (bool,), "every column VARCHAR"),
        Option("sheetName", "", (str,), "the sheet read (empty: the first)"),
        Option("ignoreErrors", True, (bool,), "skip a bad row instead of failing"),
        Option("maxArraySize", -1, (int,), "POI's largest byte array (-1: POI's default)"),
        Option("thresholdBytesForTempFiles", -1, (int,), "zip entries larger go to temp files"),
    )

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # as Drill 1.22 with the contrib plugin shows it (DESCRIBE SCHEMA dfs): non-defaults only
        return {
            "excel": {
                "type": "excel",
                "extensions": ["xlsx"],
                "lastRow": 1048576,
                "ignoreErrors": True,
                "maxArraySize": -1,
                "thresholdBytesForTempFiles": -1,
            }
        }

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        for name in ("lastRow", "firstColumn", "lastColumn"):
            if config.get(name) is not None and config[name] < 0:
                raise FormatError(f"{where}option '{name}' must not be negative")


FORMAT = ExcelFormat()
