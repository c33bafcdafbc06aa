"""Translated logical plans vs the same queries written by hand in PySpark, side by side.

    python benchmarks/plan_bench.py [ROWS] [--repeat N]

Three queries over generated JSON (ROWS fact records, default 200000; use a small number
while developing): scan-filter-project, segment + collapsingaggregate, join + order. Both
sides read through the same reader and run to completion (Spark's `noop` sink); the script
prints the median times, the ratio plan/hand of the medians and of the best runs, and whether
the physical plans match (expression ids normalised).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import drillspark

HEAD = {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "bench", "info": ""}}


def generate(root: Path, rows: int) -> None:
    rnd = random.Random(42)
    with open(root / "facts.json", "w") as f:
        for i in range(rows):
            f.write(
                json.dumps(
                    {
                        "id": i,
                        "k": rnd.randrange(1000),
                        "ppu": rnd.random(),
                        "sales": rnd.randrange(500),
                        "name": f"n{i % 977}",
                        "tags": {"color": rnd.choice(["red", "blue"])},
                    }
                )
                + "\n"
            )
    with open(root / "dims.json", "w") as f:
        for k in range(1000):
            f.write(json.dumps({"dk": k, "dname": f"d{k}"}) + "\n")


def plans(storage: dict) -> dict[str, dict]:
    scan = {"@id": 1, "op": "scan", "storageengine": "fs", "selection": {"path": "/facts.json"}}
    dims = {"@id": 2, "op": "scan", "storageengine": "fs", "selection": {"path": "/dims.json"}}

    def plan(*ops: dict) -> dict:
        return {"head": HEAD, "storage": storage, "query": list(ops)}

    return {
        "scan-filter-project": plan(
            scan,
            {"@id": 3, "op": "filter", "input": 1, "expr": "ppu < 0.5 and sales > 100"},
            {
                "@id": 4,
                "op": "project",
                "input": 3,
                "projections": [
                    {"ref": "id", "expr": "id"},
                    {"ref": "total", "expr": "ppu * sales"},
                    {"ref": "color", "expr": "tags.color"},
                ],
            },
        ),
        "segment+collapsingaggregate": plan(
            {**scan, "op": "scan"},
            {"@id": 3, "op": "segment", "input": 1, "ref": "seg", "exprs": ["k"]},
            {
                "@id": 4,
                "op": "collapsingaggregate",
                "input": 3,
                "within": "seg",
                "carryovers": ["k"],
                "aggregations": [
                    {"ref": "n", "expr": "count(1)"},
                    {"ref": "s", "expr": "sum(sales)"},
                ],
            },
        ),
        "join+order": plan(
            scan,
            dims,
            {
                "@id": 3,
                "op": "join",
                "left": 1,
                "right": 2,
                "type": "inner",
                "conditions": [{"relationship": "==", "left": "k", "right": "dk"}],
            },
            {
                "@id": 4,
                "op": "order",
                "input": 3,
                "orderings": [
                    {"order": "DESC", "expr": "sales", "nullDirection": "LAST"},
                    {"order": "ASC", "expr": "id", "nullDirection": "LAST"},
                ],
            },
        ),
    }


def hand_written(spark: SparkSession, root: Path) -> dict[str, DataFrame]:
    facts = spark.read.format("drill").load(str(root / "facts.json"))
    dims = spark.read.format("drill").load(str(root / "dims.json"))
    return {
        "scan-filter-project": facts.where((F.col("ppu") < 0.5) & (F.col("sales") > 100)).select(
            "id", (F.col("ppu") * F.col("sales")).alias("total"), F.col("tags.color").alias("color")
        ),
        "segment+collapsingaggregate": facts.groupBy("k").agg(
            F.count(F.lit(1)).alias("n"), F.sum("sales").alias("s")
        ),
        "join+order": facts.join(dims, facts.k == dims.dk).orderBy(
            F.col("sales").desc_nulls_last(), F.col("id").asc_nulls_last()
        ),
    }


def run_once(df: DataFrame) -> float:
    t = time.perf_counter()
    df.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - t


def physical(df: DataFrame) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        df.explain()
    text = re.sub(r"#\d+L?", "#", buf.getvalue())
    text = re.sub(r"\[plan_id=\d+\]", "", text)
    return re.sub(r"\s+", " ", text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="?", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="drillspark-bench-"))
    spark = drillspark.session(
        master=args.master, **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4"}
    )
    try:
        generate(root, args.rows)
        storage = {"fs": {"type": "file", "root": str(root)}}
        translated = {name: drillspark.run(p, spark=spark).df for name, p in plans(storage).items()}
        hand = hand_written(spark, root)
        print(f"rows={args.rows} repeat={args.repeat} master={args.master}")
        print(
            f"{'query':30} {'plan s':>8} {'hand s':>8} {'ratio':>6} {'best-of':>8}  "
            "same physical plan"
        )
        for name in translated:
            tp, th = [], []
            run_once(translated[name]), run_once(hand[name])  # warm up
            for i in range(args.repeat):  # alternate (and swap who goes first) so both
                if i % 2:  # sides see the same machine load and caches
                    th.append(run_once(hand[name]))
                    tp.append(run_once(translated[name]))
                else:
                    tp.append(run_once(translated[name]))
                    th.append(run_once(hand[name]))
            mp, mh = statistics.median(tp), statistics.median(th)
            same = physical(translated[name]) == physical(hand[name])
            best = min(tp) / min(th)  # least disturbed by other load on the machine
            print(
                f"{name:30} {mp:8.3f} {mh:8.3f} {mp / mh:6.2f} {best:8.2f}  "
                f"{'yes' if same else 'no'}"
            )
    finally:
        spark.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
