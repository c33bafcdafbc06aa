"""Joins and aggregation: TPC-H queries through drillspark's Drill SQL against the same queries
written by hand in PySpark, on one session, warm, in alternating rounds.

Data: the TPC-H-like parquet files of ../shared/data/breadth/tpch/ (scale ~0.01: 60k lineitem
rows). `--copies N` writes N copies of lineitem and orders (order keys shifted per copy, so the
joins keep their shape and every copy adds the same work) into --data for a larger run; the
other tables stay as they are. Both sides read the same parquet files and fetch the answer as
Arrow; the answers are compared (doubles to 9 significant digits) and a difference is printed.
The target is drillspark within 10 % of PySpark (ratio <= 1.10).

    python benchmarks/tpch_bench.py --rounds 3             # the shared data as it is
    python benchmarks/tpch_bench.py --copies 100 --rounds 5   # ~6M lineitem rows
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
TPCH = HERE.parent.parent / "shared" / "data" / "breadth" / "tpch"
TABLES = ["lineitem", "orders", "customer", "supplier", "nation", "region"]
# the table kept in each copy's key space, and its key columns
SHIFTED = {"lineitem": ["l_orderkey"], "orders": ["o_orderkey"]}


def sql_queries(root: Path) -> dict[str, str]:
    def t(name: str) -> str:
        return f"dfs.`{root / (name + '.parquet')}`"

    return {
        "q1 agg": f"""SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
  sum(l_extendedprice) AS sum_base_price, sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty,
  avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM {t("lineitem")} WHERE l_shipdate <= DATE '1998-09-02'
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus""",
        "q3 join3": f"""SELECT l.l_orderkey, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue,
  o.o_orderdate, o.o_shippriority
FROM {t("customer")} c JOIN {t("orders")} o ON c.c_custkey = o.o_custkey
  JOIN {t("lineitem")} l ON l.l_orderkey = o.o_orderkey
WHERE c.c_mktsegment = 'BUILDING' AND o.o_orderdate < DATE '1995-03-15' AND l.l_shipdate > DATE '1995-03-15'
GROUP BY l.l_orderkey, o.o_orderdate, o.o_shippriority
ORDER BY revenue DESC, o.o_orderdate, l.l_orderkey LIMIT 10""",
        "q5 join6": f"""SELECT n.n_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
FROM {t("customer")} c JOIN {t("orders")} o ON c.c_custkey = o.o_custkey
  JOIN {t("lineitem")} l ON l.l_orderkey = o.o_orderkey
  JOIN {t("supplier")} s ON l.l_suppkey = s.s_suppkey AND c.c_nationkey = s.s_nationkey
  JOIN {t("nation")} n ON s.s_nationkey = n.n_nationkey
  JOIN {t("region")} r ON n.n_regionkey = r.r_regionkey
WHERE r.r_name = 'ASIA' AND o.o_orderdate >= DATE '1994-01-01' AND o.o_orderdate < DATE '1995-01-01'
GROUP BY n.n_name ORDER BY revenue DESC""",
        "q6 filter-sum": f"""SELECT sum(l_extendedprice * l_discount) AS revenue FROM {t("lineitem")}
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""",
    }


def pyspark_queries(spark, root: Path) -> dict:
    """The same four queries, written by hand against the DataFrame API."""
    from pyspark.sql import functions as F

    def t(name: str):
        return spark.read.parquet(str(root / (name + ".parquet")))

    def d(text: str):
        return F.lit(date.fromisoformat(text))

    disc = F.col("l_extendedprice") * (1 - F.col("l_discount"))

    def q1():
        return (
            t("lineitem")
            .where(F.col("l_shipdate") <= d("1998-09-02"))
            .groupBy("l_returnflag", "l_linestatus")
            .agg(
                F.sum("l_quantity").alias("sum_qty"),
                F.sum("l_extendedprice").alias("sum_base_price"),
                F.sum(disc).alias("sum_disc_price"),
                F.sum(disc * (1 + F.col("l_tax"))).alias("sum_charge"),
                F.avg("l_quantity").alias("avg_qty"),
                F.avg("l_extendedprice").alias("avg_price"),
                F.avg("l_discount").alias("avg_disc"),
                F.count(F.lit(1)).alias("count_order"),
            )
            .orderBy("l_returnflag", "l_linestatus")
        )

    def q3():
        c = t("customer").where(F.col("c_mktsegment") == "BUILDING")
        o = t("orders").where(F.col("o_orderdate") < d("1995-03-15"))
        li = t("lineitem").where(F.col("l_shipdate") > d("1995-03-15"))
        return (
            c.join(o, c.c_custkey == o.o_custkey)
            .join(li, li.l_orderkey == o.o_orderkey)
            .groupBy("l_orderkey", "o_orderdate", "o_shippriority")
            .agg(F.sum(disc).alias("revenue"))
            .select("l_orderkey", "revenue", "o_orderdate", "o_shippriority")
            .orderBy(F.desc("revenue"), "o_orderdate", "l_orderkey")
            .limit(10)
        )

    def q5():
        c, o, li, s = t("customer"), t("orders"), t("lineitem"), t("supplier")
        n, r = t("nation"), t("region").where(F.col("r_name") == "ASIA")
        o = o.where(
            (F.col("o_orderdate") >= d("1994-01-01")) & (F.col("o_orderdate") < d("1995-01-01"))
        )
        return (
            c.join(o, c.c_custkey == o.o_custkey)
            .join(li, li.l_orderkey == o.o_orderkey)
            .join(s, (li.l_suppkey == s.s_suppkey) & (c.c_nationkey == s.s_nationkey))
            .join(n, s.s_nationkey == n.n_nationkey)
            .join(r, n.n_regionkey == r.r_regionkey)
            .groupBy("n_name")
            .agg(F.sum(disc).alias("revenue"))
            .orderBy(F.desc("revenue"))
        )

    def q6():
        return (
            t("lineitem")
            .where(
                (F.col("l_shipdate") >= d("1994-01-01"))
                & (F.col("l_shipdate") < d("1995-01-01"))
                & F.col("l_discount").between(0.05, 0.07)
                & (F.col("l_quantity") < 24)
            )
            .agg(F.sum(F.col("l_extendedprice") * F.col("l_discount")).alias("revenue"))
        )

    return {"q1 agg": q1, "q3 join3": q3, "q5 join6": q5, "q6 filter-sum": q6}


def comparable(rows: list[dict]) -> list[tuple]:
    """Rows with doubles cut to 9 significant digits (the sides may add in different orders)."""

    def cell(v):
        return float(f"{v:.9g}") if isinstance(v, float) else v

    return [tuple(cell(v) for v in r.values()) for r in rows]


def make_copies(src: Path, out: Path, copies: int) -> Path:
    """N copies of lineitem and orders with shifted order keys; the rest linked as it is."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    d = out / f"tpch-x{copies}"
    if (d / "lineitem.parquet").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    shift = (
        int(
            pc.max(
                pq.read_table(src / "orders.parquet", columns=["o_orderkey"])["o_orderkey"]
            ).as_py()
        )
        + 1
    )
    for name in TABLES:
        target = d / f"{name}.parquet"
        if name not in SHIFTED:
            target.symlink_to(src / f"{name}.parquet")
            continue
        table = pq.read_table(src / f"{name}.parquet")
        with pq.ParquetWriter(str(target) + ".part", table.schema) as w:
            for i in range(copies):
                part = table
                for col in SHIFTED[name]:
                    idx = part.schema.get_field_index(col)
                    shifted = pc.add(part[col], pa.scalar(i * shift, part[col].type))
                    part = part.set_column(idx, table.schema.field(idx), shifted)
                w.write_table(part)
        Path(str(target) + ".part").rename(target)
    return d


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="alternating timed rounds (default 5)")
    ap.add_argument(
        "--copies", type=int, default=1, help="copies of lineitem and orders (default 1: as is)"
    )
    ap.add_argument(
        "--data", type=Path, default=HERE.parent / ".bench-data", help="where copies go"
    )
    ap.add_argument("--master", default="local[2]")
    return ap


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    if a.copies < 1:
        build_parser().error("--copies must be at least 1")
    root = TPCH if a.copies == 1 else make_copies(TPCH, a.data, a.copies)

    import drillspark
    from drillspark.sql import default_engine

    spark = drillspark.session(
        master=a.master,
        app_name="tpch-bench",
        **{
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.driver.memory": "3g",
        },
    )
    engine = default_engine(spark)
    sql, hand = sql_queries(root), pyspark_queries(spark, root)

    def through_sql(q: str) -> list[dict]:
        t = time.perf_counter()
        result = engine.execute(sql[q])[-1]  # parse, logical plan, translation: no Spark job yet
        compile_s.setdefault(q, []).append(time.perf_counter() - t)
        return result.to_arrow().to_pylist()

    compile_s: dict[str, list[float]] = {}
    sides = {"drillspark SQL": through_sql, "PySpark": lambda q: hand[q]().toArrow().to_pylist()}
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], list[tuple]] = {}
    failed: dict[tuple[str, str], str] = {}
    try:
        for rnd in range(a.rounds + 1):  # round 0 warms both sides (JIT, file listing, caches)
            for q in sql:
                for side, run in sides.items():
                    if (side, q) in failed:
                        continue
                    t = time.perf_counter()
                    try:
                        rows = run(q)
                    except Exception as e:  # a query the SQL layer cannot run yet: say so, go on
                        failed[(side, q)] = str(e).splitlines()[0][:200]
                        continue
                    if rnd:
                        times.setdefault((side, q), []).append(time.perf_counter() - t)
                    answers[(side, q)] = comparable(rows)
    finally:
        spark.stop()

    import pyarrow.parquet as pq

    rows = pq.ParquetFile(root / "lineitem.parquet").metadata.num_rows
    print(
        f"\nTPC-H-like parquet ({root}; lineitem {rows:,} rows), {a.master}, warm, "
        f"median of {a.rounds} alternating rounds (seconds)"
    )
    print(
        f"{'query':16}{'drillspark SQL':>16}{'PySpark':>10}{'ratio':>8}{'SQL to DataFrame':>18}"
        "   (target ratio <= 1.10)"
    )
    for q in sql:
        ds, ps = times.get(("drillspark SQL", q)), times.get(("PySpark", q))
        if ds and ps:
            a_, b_ = statistics.median(ds), statistics.median(ps)
            print(
                f"{q:16}{a_:>16.3f}{b_:>10.3f}{a_ / b_:>8.2f}{statistics.median(compile_s[q][1:]):>18.3f}"
            )
        else:
            print(f"{q:16}{'-':>16}{'-':>10}{'-':>8}")
    for (side, q), msg in failed.items():
        print(f"FAILED {q} on {side}: {msg}")
    same = True
    for q in sql:
        x, y = answers.get(("drillspark SQL", q)), answers.get(("PySpark", q))
        if x is not None and y is not None and x != y:
            same = False
            print(f"MISMATCH {q}: drillspark SQL {x[:3]}... vs PySpark {y[:3]}...")
    if same and not failed:
        print("both sides gave the same answers")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
