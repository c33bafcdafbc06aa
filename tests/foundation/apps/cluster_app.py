"""Runs on local-cluster[2,1,1024]: separate executor JVMs and Python workers must get both the
jar (a drill_ function evaluated per row on executors) and the Python package (imported inside
mapInArrow)."""

import sys

import pyarrow as pa
from pyspark.sql import SparkSession

import drillspark


def where_am_i(batches):
    import os

    import drillspark as executor_side

    for batch in batches:
        n = batch.num_rows
        yield pa.RecordBatch.from_pydict(
            {
                "pid": [os.getpid()] * n,
                "version": [executor_side.__version__] * n,
                "python": [sys.executable] * n,
            }
        )


builder = (
    SparkSession.builder.master("local-cluster[2,1,1024]")
    .config("spark.ui.enabled", "false")
    .config("spark.executor.memory", "512m")
)
spark = drillspark.configure(builder).getOrCreate()
df = spark.range(0, 8, numPartitions=4)
rows = df.mapInArrow(where_am_i, "pid long, version string, python string").collect()
print("PY_VERSIONS", sorted({r.version for r in rows}))
print("PY_PIDS", len({r.pid for r in rows}))
print("PYTHONS", sorted({r.python for r in rows}))
print("JVM_VERSION", spark.sql("SELECT drill_version()").first()[0])
spark.stop()
