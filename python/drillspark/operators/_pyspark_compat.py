"""The few non-public PySpark helpers the operator glue needs, in one place.

PySpark has no public API for these three things, and rewriting them would mean copying
Spark's own type mapping and pickler set-up:

* `to_arrow_schema` / `from_arrow_schema` (pyspark.sql.pandas.types): the exact Arrow
  schema mapInArrow hands a Python worker for a Spark schema (time zone, large var types,
  VARIANT as a tagged struct), and back. The output schema must be known on the driver
  before Spark runs anything, and it has to match what Spark will do to the batches.
* `register_pickle_by_value` (pyspark.cloudpickle, the copy of cloudpickle PySpark ships
  and uses to send functions to workers): user operators defined in a script or test
  module must travel by value, since executors cannot import such modules.

These are internal to PySpark and may change between releases; if one moves, only this
module needs fixing. They are plain Python (no py4j, no JVM access), so they also work
on Spark Connect.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


def to_arrow_schema(
    schema: StructType, *, timezone: str | None, prefers_large_types: bool
) -> pa.Schema:
    """The Arrow schema of the batches mapInArrow gives a Python worker for `schema`."""
    from pyspark.sql.pandas.types import to_arrow_schema as convert

    return convert(schema, timezone=timezone, prefers_large_types=prefers_large_types)


def from_arrow_schema(schema: pa.Schema) -> StructType:
    """The Spark schema for batches of `schema` (timestamps without a zone as TIMESTAMP_NTZ)."""
    from pyspark.sql.pandas.types import from_arrow_schema as convert

    return convert(schema, prefer_timestamp_ntz=True)


def register_pickle_by_value(module: ModuleType) -> None:
    """Make PySpark's pickler send `module`'s code by value to the Python workers."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(module)
