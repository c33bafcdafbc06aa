"""An application as a user would spark-submit it: plain SparkSession, jar given with --jars."""

import pyspark.sql.functions as F
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("drillspark-submit-check").getOrCreate()
sql_version = spark.sql("SELECT drill_version()").first()[0]
api_version = spark.range(1).select(F.call_function("drill_version")).first()[0]
print(f"RESULT sql={sql_version} api={api_version}")
spark.stop()
