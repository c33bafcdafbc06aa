"""A DataFrame's answer as Arrow, collected by the jar's `compat.ArrowCollect` (#37).

pyspark's `toArrow()` and `_collect_as_arrow()` ask the JVM's `Dataset.collectAsArrowToPython`,
whose job function is a lambda Spark's closure cleaner reads Dataset's whole class for, on every
answer (11 % of a chart's JVM samples through `to_arrow()`). `compat.ArrowCollect` serves the
same stream (the same SQL execution, batches, writer and order) through a named function class,
and it is read here as pyspark reads its own. On Spark Connect (no JVM here) pyspark's own
collect runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa


def batches(df: Any, *, large: bool = False, split: bool = False) -> list[pa.RecordBatch]:
    """`df`'s answer as record batches in the answer's order (none for no rows), as
    `_collect_as_arrow(empty_list_if_zero_records=True)` gives them; `split` copies each column
    into its own allocation (for pyarrow's self-destruct). `large` is for Spark Connect's
    collect only: the JVM reads Spark's large-var-types setting itself."""
    jdf = getattr(df, "_jdf", None)
    jvm = getattr(df.sparkSession, "_jvm", None)
    if jdf is None or jvm is None:
        return list(
            df._collect_as_arrow(
                split_batches=split, empty_list_if_zero_records=True, prefers_large_var_types=large
            )
        )
    import pyarrow as pa
    from pyspark.errors.exceptions.captured import unwrap_spark_exception
    from pyspark.sql.pandas.serializers import ArrowCollectSerializer
    from pyspark.traceback_utils import SCCallSiteSync
    from pyspark.util import _load_from_socket

    with SCCallSiteSync(df.sparkSession.sparkContext):
        port, secret, server = jvm.org.apache.spark.sql.drillspark.compat.ArrowCollect.toPython(jdf)
    try:
        with _load_from_socket((port, secret), ArrowCollectSerializer()) as stream:
            if not split:
                out = list(stream)
            else:
                out = [
                    pa.RecordBatch.from_arrays([pa.concat_arrays([c]) for c in b], schema=b.schema)
                    for b in stream
                ]
    finally:
        with unwrap_spark_exception():  # the job's failure, as Spark's collect raises it
            server.getResult()
    return out


def table(df: Any) -> pa.Table:
    """`df`'s answer as a pyarrow Table, as `DataFrame.toArrow()` makes it (its Arrow schema,
    Spark's large var types and self-destruct settings)."""
    jconf = getattr(df.sparkSession, "_jconf", None)
    if getattr(df, "_jdf", None) is None or jconf is None:
        return df.toArrow()
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    large, destruct = (
        v == "true"
        for v in jconf.getConfs(
            [
                "spark.sql.execution.arrow.useLargeVarTypes",
                "spark.sql.execution.arrow.pyspark.selfDestruct.enabled",
            ]
        )
    )
    schema = to_arrow_schema(
        df.schema,
        error_on_duplicated_field_names_in_struct=True,
        timezone="UTC",
        prefers_large_types=large,
    )
    got = batches(df, large=large, split=destruct)
    if not got:
        return schema.empty_table()
    return pa.Table.from_batches(got).cast(schema)
