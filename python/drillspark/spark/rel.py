"""What translating one operator yields: its DataFrame plus stream facts later operators need."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.plan.expressions import Expr
from drillspark.spark.scope import quote

POS = "__drill_pos"  # a record's position in the input stream, added only where needed


class PlanExecutionError(ExecutionError, RuntimeError):
    """A plan that cannot run; the message names the operator (`@id`) and what went wrong."""


@dataclass(frozen=True)
class PendingSegment:
    """A `segment` whose records have not been brought together yet: a following operator
    that works per segment (`within` this ref) uses the key directly (a groupBy or window
    partition) instead of sorting first."""

    ref: str  # the column holding the segment key
    keys: tuple[Expr, ...]
    # the key computed from the input's columns (grouping by it needs no copy), or the ref
    # column itself when the ref replaced a field the key reads
    key: Column


@dataclass(frozen=True)
class Rel:
    df: DataFrame
    segment: PendingSegment | None = None
    # `df`'s schema when the operator knows it without asking Spark (a filter, sort or limit
    # keeps its input's): each new DataFrame's first `.schema` is a round trip, and a wide
    # JSON schema takes tens of milliseconds to send
    schema: T.StructType | None = None

    def materialized(self) -> DataFrame:
        """The stream with any pending segment's records together (stable: input order within
        a segment)."""
        if self.segment is None:
            return self.df
        df = self.df.withColumn(POS, F.monotonically_increasing_id())
        return df.orderBy(F.col(quote(self.segment.ref)).asc_nulls_first(), F.col(POS)).drop(POS)
