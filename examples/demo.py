"""`make demo`: a tour of drillspark on the bundled sample shop data (examples/data/shop):
nested orders with arrays of maps, fields that appear only in later files, and nulls, in two
month directories. One Spark session; three ways in: the extension from plain Spark, a Drill
logical plan, and Drill SQL. Any failure fails the demo."""

from __future__ import annotations

from pathlib import Path

import drillspark
from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.output import render

EXAMPLES = Path(__file__).resolve().parent
DATA = EXAMPLES / "data" / "shop"
PLAN = EXAMPLES / "plans" / "shop_revenue.json"

SQL_QUERIES = [
    (
        "Orders per month directory (dir0) and who ordered",
        "SELECT dir0 AS month, o.order_id, o.customer.name AS customer, o.customer.city "
        "FROM dfs.`data/shop` o ORDER BY o.order_id",
    ),
    (
        "FLATTEN: one row per line item, revenue per SKU",
        "SELECT i.item.sku AS sku, SUM(i.item.qty) AS qty, "
        "ROUND(SUM(i.item.qty * i.item.price), 2) AS revenue "
        "FROM (SELECT FLATTEN(o.items) AS item FROM dfs.`data/shop` o) i "
        "GROUP BY i.item.sku ORDER BY revenue DESC",
    ),
    (
        "Fields that exist only in later files are NULL elsewhere",
        "SELECT o.order_id, o.coupon.code, o.customer.vip FROM dfs.`data/shop` o "
        "WHERE o.order_id > 1004 ORDER BY 1",
    ),
    (
        "REPEATED_COUNT, REPEATED_CONTAINS and TYPEOF on arrays",
        "SELECT o.order_id, REPEATED_COUNT(o.tags) AS n_tags, "
        "REPEATED_CONTAINS(o.tags, 'web') AS web, TYPEOF(o.items) AS items_type "
        "FROM dfs.`data/shop` o WHERE o.order_id IN (1001, 1002, 1006)",
    ),
    (
        "EXPLAIN PLAN FOR shows the Drill logical plan",
        "EXPLAIN PLAN FOR SELECT FLATTEN(o.tags) AS tag FROM dfs.`data/shop` o",
    ),
]


def banner(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


def extension_from_plain_spark(spark) -> None:
    banner("1. The extension, from plain Spark")
    spark.sql("SELECT drill_version() AS drillspark_version").show()
    orders = spark.read.format("drill").load(str(DATA))
    print("Schema discovered on read (no schema declared; `coupon` and `vip` appear late):")
    orders.printSchema()
    banner("The dfs catalog and drill_flatten in Spark SQL")
    spark.sql(
        f"SELECT o.order_id, drill_flatten(o.tags) AS tag FROM dfs.`{DATA}` o ORDER BY order_id"
    ).show()


def logical_plan(spark) -> None:
    banner(f"2. A Drill logical plan: {PLAN.relative_to(EXAMPLES)}")
    result = drillspark.run(PLAN, spark=spark, classpath=[str(EXAMPLES)])
    result.show()


def drill_sql(spark) -> None:
    banner("3. Drill SQL (parsed into the same logical plan)")
    engine = SqlEngine(spark, SqlSession(workspaces={"root": str(EXAMPLES)}))
    for title, query in SQL_QUERIES:
        banner(title)
        print(f"drillspark> {query};")
        (result,) = engine.execute(query)
        text = render(result)
        print(text if len(text) < 4000 else text[:4000] + "\n...")


def main() -> None:
    spark = drillspark.session(
        master="local[2]", **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"}
    )
    try:
        extension_from_plain_spark(spark)
        logical_plan(spark)
        drill_sql(spark)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
