"""`make demo`: drillspark on the bundled sample shop data (examples/data/shop): nested
orders with arrays of maps, fields that appear only in later files, and nulls."""

from __future__ import annotations

from pathlib import Path

import drillspark

DATA = Path(__file__).resolve().parent / "data" / "shop"


def banner(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


def main() -> None:
    spark = drillspark.session(master="local[2]", **{"spark.ui.enabled": "false",
                                                     "spark.sql.shuffle.partitions": "2"})
    banner("The extension is loaded")
    spark.sql("SELECT drill_version() AS drillspark_version").show()

    banner("Nested orders, schema discovered on read")
    orders = spark.read.option("recursiveFileLookup", "true").json(str(DATA))
    orders.printSchema()
    orders.select("order_id", "customer.name", "customer.city", "coupon.code").show(truncate=False)

    spark.stop()


if __name__ == "__main__":
    main()
