"""Drill's `parquet` format: its config, its read and its write (store.format `parquet`, the
CTAS default). Its files are read by the extension's `drill-parquet` source, the `dfs`
catalog's table (jvm/.../formats/parquet: Drill's TIME columns, pre-1.9 dates, type widening
across files), called through spark/storage/readers.read_parquet."""

from __future__ import annotations

from typing import Any, ClassVar

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.formats.base import (
    FormatError,
    FormatPlugin,
    Option,
    ReadRequest,
    StoreFormat,
    WriteSpec,
)
from drillspark.spark.scope import quote


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
    STORE: ClassVar[tuple[StoreFormat, ...]] = (StoreFormat("parquet", "parquet"),)

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # Drill's bootstrap config lists parquet with its type alone (no extensions)
        return {"parquet": {"type": "parquet"}}

    def read(self, spark: SparkSession, request: ReadRequest) -> DataFrame:
        """The `drill-parquet` source with Drill's corrections (readers.read_parquet); the
        config's other options are Drill's writer's and change no read."""
        from drillspark.spark.storage import readers

        corrected = request.config.get("autoCorrectCorruptDates", True)
        try:
            return readers.read_parquet(
                spark, request.paths, request.columns, request.implicit, bool(corrected)
            )
        except readers.ReadError as e:
            raise FormatError(str(e)) from None

    @classmethod
    def write_spec(cls, df: DataFrame, store: StoreFormat) -> WriteSpec:
        return WriteSpec(_nulls_as_int(df), "parquet", {})


def _nulls_as_int(df: DataFrame) -> DataFrame:
    """A column of NULL literals (`SELECT 'a', null`) written as a nullable INT, as Drill 1.22
    writes and reads it back: Parquet has no null type, so Spark's would be unreadable."""
    typed = [_null_free(f.dataType) for f in df.schema.fields]
    if all(t == f.dataType for t, f in zip(typed, df.schema.fields, strict=True)):
        return df
    return df.select(
        *[
            F.col(quote(f.name)).cast(t).alias(f.name) if t != f.dataType else F.col(quote(f.name))
            for t, f in zip(typed, df.schema.fields, strict=True)
        ]
    )


def _null_free(t: T.DataType) -> T.DataType:
    if isinstance(t, T.NullType):
        return T.IntegerType()
    if isinstance(t, T.ArrayType):
        return T.ArrayType(_null_free(t.elementType), t.containsNull)
    if isinstance(t, T.MapType):
        return T.MapType(_null_free(t.keyType), _null_free(t.valueType), t.valueContainsNull)
    if isinstance(t, T.StructType):
        return T.StructType(
            [T.StructField(f.name, _null_free(f.dataType), f.nullable) for f in t.fields]
        )
    return t


FORMAT = ParquetFormat()
