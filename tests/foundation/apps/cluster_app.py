"""Runs on local-cluster[2,1,1024]: separate executor JVMs, each with its own Python workers.
Proves that the jar (the drill source and drill_ functions evaluated on executors), the Python
package (imported inside mapInArrow), plugin operators and functions (tests/operators'
cluster check) and a whole logical plan all work off the driver."""

import os
import sys
from pathlib import Path

import pyarrow as pa

import drillspark

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "operators"))
import cluster_check  # noqa: E402


def where_am_i(batches):
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


spark = drillspark.session(
    master="local-cluster[2,1,1024]",
    app_name="drillspark-cluster-check",
    **{
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "4",
        **cluster_check.session_conf(),
    },
)
try:
    rows = (
        spark.range(0, 8, numPartitions=4)
        .mapInArrow(where_am_i, "pid long, version string, python string")
        .collect()
    )
    print("PY_VERSIONS", sorted({r.version for r in rows}))
    print("PY_PIDS", len({r.pid for r in rows}))
    print("PYTHONS", sorted({r.python for r in rows}))
    print("JVM_VERSION", spark.sql("SELECT drill_version()").first()[0])

    # The drill source reads on executors; drill_repeated_count runs per row there.
    shop = str(ROOT / "examples" / "data" / "shop")
    counts = (
        spark.read.format("drill")
        .load(shop)
        .repartition(4)
        .selectExpr("order_id", "drill_repeated_count(tags) AS n")
        .collect()
    )
    print("TAG_COUNTS", sorted((r.order_id, r.n) for r in counts))

    # A logical plan, translated and run on the cluster.
    plan = ROOT / "examples" / "plans" / "shop_revenue.json"
    revenue = drillspark.run(plan, spark=spark, classpath=[str(ROOT / "examples")]).rows()
    print("PLAN_ROWS", [(r["sku"], r["qty"]) for r in revenue])

    for problem in cluster_check.check(spark):
        print("OPERATOR_PROBLEM", problem)
finally:
    spark.stop()
