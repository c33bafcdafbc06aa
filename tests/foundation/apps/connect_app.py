"""Spark Connect: a local Connect server with the jar; the client reaches the extension only by
name (SQL, F.call_function), as drillspark's Python front end does."""

import pyspark.sql.functions as F
from pyspark.sql import SparkSession

import drillspark

spark = (
    SparkSession.builder.remote("local[2]")
    .config("spark.jars", drillspark.jar_path())
    .config("spark.ui.enabled", "false")
    .getOrCreate()
)
print("RESULT", spark.sql("SELECT drill_version()").first()[0],
      spark.range(1).select(F.call_function("drill_version")).first()[0])
spark.stop()
