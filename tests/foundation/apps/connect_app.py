"""Spark Connect: a local Connect server with the jar. The client reaches the extension only by
name (SQL, F.call_function), and drillspark's front end uses only the public DataFrame API, so
logical plans, Drill SQL and Python operators (tests/operators' connect check) run here too."""

import sys
from pathlib import Path

import pyspark.sql.functions as F
from pyspark.sql import SparkSession

import drillspark

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "operators"))
import connect_check  # noqa: E402

spark = drillspark.configure(
    SparkSession.builder.remote("local[2]").config("spark.ui.enabled", "false")
).getOrCreate()
try:
    print(
        "RESULT",
        spark.sql("SELECT drill_version()").first()[0],
        spark.range(1).select(F.call_function("drill_version")).first()[0],
    )

    plan = ROOT / "examples" / "plans" / "shop_revenue.json"
    revenue = drillspark.run(plan, spark=spark, classpath=[str(ROOT / "examples")]).rows()
    print("PLAN_ROWS", [(r["sku"], r["qty"]) for r in revenue])

    shop = ROOT / "examples" / "data" / "shop"
    rows = drillspark.sql(
        f"SELECT o.order_id, FLATTEN(o.tags) AS tag FROM dfs.`{shop}` o "
        "WHERE o.order_id = 1006 ORDER BY tag",
        spark=spark,
    ).rows()
    print("SQL_ROWS", [(r["order_id"], r["tag"]) for r in rows])
    # MAX / MIN / ANY_VALUE of a VARCHAR: the extension's aggregates, called by name
    names = drillspark.sql(
        f"SELECT max(o.customer.name) AS mx, min(o.customer.name) AS mn, "
        f"any_value(o.customer.name) AS av, count(*) AS n FROM dfs.`{shop}` o",
        spark=spark,
    ).rows()
    print("NAME_ROWS", [(r["mx"], r["mn"], r["av"] is not None, r["n"]) for r in names])

    for problem in connect_check.check(spark):
        print("OPERATOR_PROBLEM", problem)
finally:
    spark.stop()
