"""`make demo` (SQL part): Drill SQL over the bundled sample shop data (examples/data/shop),
run through the Drill logical plan like every drillspark query."""

from __future__ import annotations

from pathlib import Path

import drillspark
from drillspark.errors import describe
from drillspark.sql import SqlEngine, SqlError, SqlSession
from drillspark.sql.output import render

EXAMPLES = Path(__file__).resolve().parent

QUERIES = [
    ("Orders per month directory (dir0) and who ordered",
     "SELECT dir0 AS month, o.order_id, o.customer.name AS customer, o.customer.city "
     "FROM dfs.`data/shop` o ORDER BY o.order_id"),
    ("FLATTEN: one row per line item, revenue per SKU",
     "SELECT i.item.sku AS sku, SUM(i.item.qty) AS qty, "
     "ROUND(SUM(i.item.qty * i.item.price), 2) AS revenue "
     "FROM (SELECT FLATTEN(o.items) AS item FROM dfs.`data/shop` o) i "
     "GROUP BY i.item.sku ORDER BY revenue DESC"),
    ("Fields that exist only in later files are NULL elsewhere",
     "SELECT o.order_id, o.coupon.code, o.customer.vip FROM dfs.`data/shop` o "
     "WHERE o.order_id > 1004 ORDER BY 1"),
    ("REPEATED_COUNT, REPEATED_CONTAINS and TYPEOF on arrays",
     "SELECT o.order_id, REPEATED_COUNT(o.tags) AS n_tags, "
     "REPEATED_CONTAINS(o.tags, 'web') AS web, TYPEOF(o.items) AS items_type "
     "FROM dfs.`data/shop` o WHERE o.order_id IN (1001, 1002, 1006)"),
    ("EXPLAIN PLAN FOR shows the Drill logical plan",
     "EXPLAIN PLAN FOR SELECT FLATTEN(o.tags) AS tag FROM dfs.`data/shop` o"),
]


def main() -> None:
    spark = drillspark.session(master="local[2]", **{"spark.ui.enabled": "false",
                                                     "spark.sql.shuffle.partitions": "2"})
    engine = SqlEngine(spark, SqlSession(workspaces={"root": str(EXAMPLES)}))
    try:
        for title, sql in QUERIES:
            print(f"\n=== {title} " + "=" * max(0, 66 - len(title)))
            print(f"drillspark> {sql};")
            try:
                (result,) = engine.execute(sql)
            except SqlError as e:
                print(e.render())
                continue
            except Exception as e:  # a run-time error: one paragraph
                print(f"Error: {describe(e)}")
                continue
            text = render(result)
            print(text if len(text) < 4000 else text[:4000] + "\n...")
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
