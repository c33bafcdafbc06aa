"""Drill's `json` format. Read by the extension's `drill` source (spark/storage/readers.py
`read_json`, the options table drillspark/rules/json_options.tsv), written by CTAS
(store.format `json`); this module owns its config, its read and its write."""

from __future__ import annotations

from typing import ClassVar

from pyspark.sql import DataFrame, SparkSession

from drillspark.formats.base import (
    FormatError,
    FormatPlugin,
    Option,
    ReadRequest,
    StoreFormat,
    WriteSpec,
)
from drillspark.rules import json_options

# Drill's JSONFormatConfig keys, every spelling the options table knows (default: the session's)
_OPTIONS = tuple(
    Option(spelling, None, (bool, str, int))
    for o in json_options()
    for spelling in dict.fromkeys((*o.spellings, o.option))
)


class JsonFormat(FormatPlugin):
    TYPE = "json"
    EXTENSIONS = ("json",)
    OPTIONS: ClassVar[tuple[Option, ...]] = _OPTIONS
    BOOTSTRAP = True
    STORE: ClassVar[tuple[StoreFormat, ...]] = (StoreFormat("json", "json"),)

    def read(self, spark: SparkSession, request: ReadRequest) -> DataFrame:
        """Through the `drill` source: the config's options under the source's names, the
        workspace it checks again, the columns the statement keeps."""
        from drillspark.spark.storage import readers

        try:
            options = readers.json_options(request.config)
        except readers.ReadError as e:
            raise FormatError(str(e)) from None
        options.update(request.source_options)
        return readers.read_json(spark, request.paths, options, request.implicit, request.keep)

    @classmethod
    def write_spec(cls, df: DataFrame, store: StoreFormat) -> WriteSpec:
        # Drill's store.json.writer.skip_null_fields (true): a NULL field is left out; dates
        # and times as Drill's writer puts them (Drill 1.22: '2024-03-05 01:02:03.000',
        # '10:11:12.000', '2024-03-05'; Spark's are ISO's 'T' and no milliseconds)
        return WriteSpec(df, "json", {"ignoreNullFields": "true", **_DRILL_TIMES})


_DRILL_TIMES = {
    "timestampFormat": "yyyy-MM-dd HH:mm:ss.SSS",
    "timestampNTZFormat": "yyyy-MM-dd HH:mm:ss.SSS",
    "timeFormat": "HH:mm:ss.SSS",
    "dateFormat": "yyyy-MM-dd",
}

FORMAT = JsonFormat()
