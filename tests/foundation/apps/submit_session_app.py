"""drillspark's own session under spark-submit: it keeps spark-submit's --master (and the rest
of its settings) instead of starting the embedded local[*] default."""

import drillspark

spark = drillspark.session()
version = spark.sql("SELECT drill_version()").first()[0]  # the extension is on
rows = drillspark.sql("SELECT 1 + 1 AS two FROM (VALUES(1))").rows()  # Drill SQL runs
print(
    f"RESULT master={spark.sparkContext.master} "
    f"cores={spark.sparkContext.defaultParallelism} version={version} two={rows[0]['two']}"
)
spark.stop()
