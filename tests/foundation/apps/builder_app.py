"""The library usage: SparkSession.builder passed through drillspark.configure()."""

import pyspark.sql.functions as F
from pyspark.sql import SparkSession

import drillspark

builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
spark = drillspark.configure(builder).getOrCreate()
print("RESULT", spark.range(1).select(F.call_function("drill_version")).first()[0])
print("JARS", spark.conf.get("spark.jars"))
spark.stop()
