"""Answers as Arrow record batches (the QueryManager's `arrow` writer for Flight SQL).

A Spark answer's batches are the ones Spark's JVM writes (Arrow IPC, no Python object per
row), streamed from the tasks a batch at a time; an answer made without Spark (USE, SHOW
FILES, ...) is a few plain rows, built into Arrow column by column. Each column carries Flight SQL's column metadata (its Drill type
name, precision and scale), so JDBC's ResultSetMetaData names Drill's types.

Types as Arrow has them: Spark's map is an Arrow map, a struct (Drill's MAP) a struct, an array a
list, DECIMAL a decimal128, TIMESTAMP a timestamp in UTC (the server's session zone), an
INTERVAL DAY TO SECOND a duration. Spark writes no Arrow for INTERVAL YEAR TO MONTH: such a
column is cast by Spark to its months (an int) and sent as Arrow's month-day-nano interval
(months, 0 days, 0 ns), the interval type both ADBC (pyarrow) and the Flight SQL JDBC driver
read; nested in a struct, array or map it goes as its SQL text. A VARIANT (a schema-free value:
CONVERT_FROM(..., 'JSON')) goes as its JSON text, a VARCHAR."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from drillspark.server import values

TYPE_NAME = "ARROW:FLIGHT:SQL:TYPE_NAME"
PRECISION = "ARROW:FLIGHT:SQL:PRECISION"
SCALE = "ARROW:FLIGHT:SQL:SCALE"
READ_ONLY = "ARROW:FLIGHT:SQL:IS_READ_ONLY"


def _arrow_type(data_type: Any) -> Any:
    from pyspark.sql.pandas.types import to_arrow_type

    return to_arrow_type(data_type, timezone="UTC")


def _arrow_form(data_type: Any) -> Any:
    """The Arrow type of a Spark type, or None when Spark cannot write it as Arrow, or writes
    what no client reads: a VARIANT (CONVERT_FROM(..., 'JSON')) as its binary encoding."""
    if values.holds(data_type, "VariantType"):
        return None
    try:
        return _arrow_type(data_type)
    except Exception:  # noqa: BLE001 (pyspark's unsupported-type error)
        return None


def arrow_ready(df: Any) -> Any:
    """`df` with each year-month interval column as its months and each other column Spark
    cannot write as Arrow turned into its text: JSON where it holds a VARIANT (Spark's text of
    a struct has no keys), else Spark's text."""
    from pyspark.sql import functions as F

    df = values.months(df)
    if all(_arrow_form(f.dataType) is not None for f in df.schema.fields):
        return df
    cols = []
    for f in df.schema.fields:
        col = F.col(f"`{f.name.replace('`', '``')}`")
        if _arrow_form(f.dataType) is None:
            json = values.holds(f.dataType, "VariantType")
            col = (F.to_json(col) if json else col.cast("string")).alias(f.name)
        cols.append(col)
    return df.select(*cols)


def _described(field: pa.Field, drill_type: str) -> pa.Field:
    meta = {TYPE_NAME: drill_type, READ_ONLY: "1"}
    if pa.types.is_decimal(field.type):
        meta[PRECISION] = str(field.type.precision)
        meta[SCALE] = str(field.type.scale)
    return field.with_metadata(meta)


def spark_schema(struct: Any) -> pa.Schema:
    """The Arrow schema of an answer of Spark schema `struct` (as arrow_ready sends it), with
    Flight SQL's column metadata."""
    fields = []
    for f in struct.fields:
        arrow_type = _arrow_form(f.dataType)
        drill_type = values.metadata_name(f.dataType)
        if values.is_year_month(f.dataType):
            arrow_type = pa.month_day_nano_interval()
        elif arrow_type is None:
            arrow_type, drill_type = pa.string(), "VARCHAR"
        fields.append(_described(pa.field(f.name, arrow_type, nullable=f.nullable), drill_type))
    return pa.schema(fields)


def _plain_array(column: list[Any]) -> pa.Array:
    try:
        return pa.array(column)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):  # mixed values: their text
        return pa.array(
            [
                None
                if v is None
                else v
                if isinstance(v, str)
                else json.dumps(v, default=str, ensure_ascii=False)
                for v in column
            ],
            pa.string(),
        )


def plain_batch(columns: list[str], rows: list[list[Any]]) -> pa.RecordBatch:
    """Plain Python rows (an answer made without Spark) as one record batch."""
    arrays, fields = [], []
    for i, name in enumerate(columns):
        column = [r[i] for r in rows]
        array = _plain_array(column)
        if pa.types.is_null(array.type):
            array = array.cast(pa.string())
        arrays.append(array)
        fields.append(_described(pa.field(name, array.type), values.python_type(column)))
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def conform(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """`batch` under `schema` (its metadata, the declared nullability; a cast where the
    JVM's Arrow types differ from the declared ones)."""
    if batch.schema.equals(schema, check_metadata=True):
        return batch
    columns = [
        interval_of_months(c) if f.type == _MDN and pa.types.is_integer(c.type) else c
        for c, f in zip(batch.columns, schema, strict=True)
    ]
    batch = pa.RecordBatch.from_arrays(columns, names=batch.schema.names)
    if not batch.schema.equals(schema, check_metadata=False):
        plain = pa.schema([f.remove_metadata() for f in schema])
        try:
            batch = batch.cast(plain)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            batch = pa.Table.from_batches([batch]).cast(plain).combine_chunks().to_batches()[0]
    return pa.RecordBatch.from_arrays(batch.columns, schema=schema)


_MDN = pa.month_day_nano_interval()
# a month-day-nano value: months and days (int32), nanoseconds (int64), little-endian
_MDN_SLOT = np.dtype([("months", "<i4"), ("days", "<i4"), ("nanos", "<i8")])


def interval_of_months(array: pa.Array) -> pa.Array:
    """An int array of months as month-day-nano intervals (0 days, 0 ns), built from its
    buffers (no Python object per value)."""
    if array.offset:
        array = pa.concat_arrays([array])  # a slice: its own buffers from 0
    slots = np.zeros(len(array), dtype=_MDN_SLOT)
    slots["months"] = array.fill_null(0).to_numpy(zero_copy_only=False)
    validity = array.buffers()[0] if array.null_count else None
    return pa.Array.from_buffers(
        _MDN, len(array), [validity, pa.py_buffer(slots.tobytes())], array.null_count
    )


# the job properties of the thread that reads an answer (the query's group, its cancel, its
# pool): each partition's job thread takes them over
_JOB_PROPERTIES = (
    "spark.jobGroup.id",
    "spark.job.description",
    "spark.job.interruptOnCancel",
    "spark.scheduler.pool",
)


def write(
    df: Any, columns: list[str], rows: list[list[Any]] | None, whole: bool = False
) -> Iterator[Any]:
    """The QueryManager's `arrow` writer: the answer's Arrow schema, then its record batches
    under it, streamed from the tasks as Spark's JVM encodes them (collected whole when
    `whole`: a small answer) when the second item is asked for (the query's Spark jobs run
    then, in the asking thread's job group)."""
    if df is None:
        batch = plain_batch(columns, rows or [])
        yield batch.schema
        if batch.num_rows:
            yield batch
        return
    schema = spark_schema(df.schema)  # a year-month interval's type: before arrow_ready
    df = arrow_ready(df)
    yield schema
    from drillspark.server.partition_stream import large_var_types

    for batch in _batches(df, large_var_types(df.sparkSession), whole):
        if batch.num_rows:
            yield conform(batch, schema)


def _batches(df: Any, large: bool, whole: bool) -> Iterator[pa.RecordBatch]:
    """The answer's record batches, partition after partition. On classic Spark each batch
    comes from its task as the JVM wrote it, sent from the JVM (partition_stream.stream_arrow):
    the driver holds a batch at a time, whatever a partition's size, and the first leaves once
    the first partition's task made it. Without it (Spark Connect), or for a small answer
    (`whole`), the answer is collected whole in Spark's Arrow stream (spark/arrow_collect.py)."""
    from drillspark.server.partition_stream import stream_arrow
    from drillspark.spark import arrow_collect

    if getattr(df, "_jdf", None) is None or whole:
        yield from arrow_collect.batches(df, large=large)
        return
    sc = df.sparkSession.sparkContext
    inherited = {k: sc.getLocalProperty(k) for k in _JOB_PROPERTIES}

    def in_job() -> None:
        for key, value in inherited.items():
            sc.setLocalProperty(key, value)

    yield from stream_arrow(df, large, in_job)
