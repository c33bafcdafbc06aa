"""drillspark's own session under spark-submit: it keeps spark-submit's --master (and the rest
of its settings) instead of starting the embedded local[*] default."""

import drillspark

spark = drillspark.session()
rows = drillspark.sql("SELECT drill_version() v FROM (VALUES(1))").rows()
print(f"RESULT master={spark.sparkContext.master} "
      f"cores={spark.sparkContext.defaultParallelism} version={rows[0][0]}")
spark.stop()
