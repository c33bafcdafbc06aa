"""Drill's `parquet` format. Read in Python (spark/storage/parquet.py, readers.read_parquet),
written by CTAS (spark/storage/writers.py); this module owns its config."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatPlugin, Option


class ParquetFormat(FormatPlugin):
    TYPE = "parquet"
    EXTENSIONS = ("parquet",)
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("autoCorrectCorruptDates", True, (bool,)),
        Option("enableStringsSignedMinMax", False, (bool,)),
        Option("blockSize", None, (int,)),
        Option("pageSize", None, (int,)),
        Option("useSingleFSBlock", None, (bool,)),
        Option("writerCompressionType", None, (str,)),
        Option("writerLogicalTypeForDecimals", None, (str,)),
        Option("writerUsePrimitivesForDecimals", None, (bool,)),
        Option("writerFormatVersion", None, (str,)),
    )
    DIRS_FIRST = True
    BOOTSTRAP = True

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # Drill's bootstrap config lists parquet with its type alone (no extensions)
        return {"parquet": {"type": "parquet"}}


FORMAT = ParquetFormat()
