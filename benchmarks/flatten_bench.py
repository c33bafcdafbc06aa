"""drill_flatten vs Spark's explode on the same data, side by side.

    PYTHONPATH=python python benchmarks/flatten_bench.py            # small
    PYTHONPATH=python python benchmarks/flatten_bench.py --tiles 200 --rows 2000000

Inputs: the Citi Bike station feed (`shared/data/citibike`, 13 records of 332 station
structs) tiled `--tiles` times, cached and as Parquet (reading one field of the flattened
struct, so nested pruning through the generator counts), and `--rows` generated rows holding
16-element BIGINT arrays.
Each query flattens and writes to Spark's `noop` sink (everything is computed, nothing is
collected); the best of `--runs` runs is kept, explode and drill_flatten alternating.
Prints the times and the ratio drill_flatten / explode (1.00 = same speed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DRILLSPARK_SHARED", ROOT.parent / "shared"))


def run_time(df) -> float:
    start = time.perf_counter()
    df.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def compare(name: str, make, runs: int) -> float:
    """Best time of each, and the median of paired ratios (explode and drill_flatten run
    back to back, so both see the same machine load; the median resists noisy neighbours)."""
    run_time(make("explode"))  # warm up both paths
    run_time(make("drill_flatten"))
    spark_ts, drill_ts = [], []
    for i in range(runs):
        order = ("explode", "drill_flatten") if i % 2 == 0 else ("drill_flatten", "explode")
        for fn in order:
            (spark_ts if fn == "explode" else drill_ts).append(run_time(make(fn)))
    ratio = statistics.median(d / s for d, s in zip(drill_ts, spark_ts, strict=True))
    print(
        f"{name:<28} explode {min(spark_ts):7.3f}s   drill_flatten {min(drill_ts):7.3f}s   "
        f"best/best {min(drill_ts) / min(spark_ts):5.2f}   median paired ratio {ratio:5.2f}"
    )
    return ratio


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--tiles", type=int, default=50, help="copies of the citibike records (default 50)"
    )
    ap.add_argument(
        "--rows", type=int, default=500_000, help="generated rows of 16 BIGINTs (default 500k)"
    )
    ap.add_argument("--runs", type=int, default=9, help="timed runs per query (default 9)")
    args = ap.parse_args()

    import pyspark.sql.functions as F

    import drillspark

    spark = drillspark.session(
        master="local[2]",
        app_name="flatten-bench",
        **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"},
    )
    try:
        files = sorted(str(p) for p in (SHARED / "data" / "citibike").glob("*.ndjson"))
        if not files:
            raise SystemExit(f"no citibike data under {SHARED}/data; set DRILLSPARK_SHARED")
        bikes = (
            spark.read.json(files)
            .crossJoin(spark.range(args.tiles).withColumnRenamed("id", "tile"))
            .repartition(2)
            .cache()
        )
        stations = bikes.count() * 332
        longs = (
            spark.range(args.rows, numPartitions=2)
            .select("id", F.sequence(F.col("id"), F.col("id") + 15).alias("arr"))
            .cache()
        )
        longs.count()

        parquet = tempfile.mkdtemp(prefix="flatten-bench-")
        bikes.write.mode("overwrite").parquet(parquet)
        ratios = [
            compare(
                f"citibike structs ({stations:,})",
                lambda fn: bikes.select(
                    "executionTime", "tile", F.call_function(fn, "stationBeanList").alias("s")
                ).select("tile", "s.id", "s.availableBikes"),
                args.runs,
            ),
            compare(
                f"parquet, one field ({stations:,})",
                lambda fn: (
                    spark.read.parquet(parquet)
                    .select(F.call_function(fn, "stationBeanList").alias("s"))
                    .select("s.id")
                ),
                args.runs,
            ),
            compare(
                f"bigint arrays ({args.rows * 16:,})",
                lambda fn: longs.select("id", F.call_function(fn, "arr").alias("x")),
                args.runs,
            ),
        ]
        print(f"drill_flatten / explode (median paired ratio, worst input): {max(ratios):.2f}")
    finally:
        spark.stop()
        if "parquet" in locals():
            shutil.rmtree(parquet, ignore_errors=True)


if __name__ == "__main__":
    main()
