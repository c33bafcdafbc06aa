"""Joins and aggregation: TPC-H queries through drillspark's Drill SQL, and as Drill logical
plans (lowered from that SQL once, outside the timing), against the same queries written by hand
in PySpark, on one session, warm, in alternating rounds.

Data: the TPC-H-like parquet files of ../shared/data/breadth/tpch/ (scale ~0.01: 60k lineitem
rows), written into --data with `--copies N` copies of lineitem and orders (order keys shifted
per copy, so the joins keep their shape and every copy adds the same work) and with the dates
corrected (the shared files hold Drill's old corrupt dates, which Drill and drillspark correct
on read and PySpark does not: see make_copies). Every side reads the same parquet files and
fetches the answer as Arrow; the answers are compared (doubles to 9 significant digits), and a
difference or an empty answer fails the run. The target is drillspark within 10 % of PySpark
(ratio <= 1.10).

    python benchmarks/tpch_bench.py --rounds 3                # 60k lineitem rows
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
    """N copies of lineitem and orders with shifted order keys, every table's dates as Drill
    reads them.

    The shared files are parquet-mr files with Drill's old corrupt dates (DRILL-4203: each
    DATE stored shifted by twice the Julian day of 1970-01-01, so Spark's reader sees the year
    15360). Drill and drillspark correct them on read; PySpark by hand does not, and its
    `l_shipdate <= DATE '1998-09-02'` kept no row. The copies store the corrected dates, so
    both sides read the same data.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    d = out / f"tpch-x{copies}"
    done = d / ".dates-corrected"
    if done.exists():
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
        target.unlink(missing_ok=True)
        table = _corrected_dates(pq.read_table(src / f"{name}.parquet"))
        with pq.ParquetWriter(str(target) + ".part", table.schema) as w:
            for i in range(copies if name in SHIFTED else 1):
                part = table
                for col in SHIFTED.get(name, []):
                    idx = part.schema.get_field_index(col)
                    shifted = pc.add(part[col], pa.scalar(i * shift, part[col].type))
                    part = part.set_column(idx, table.schema.field(idx), shifted)
                w.write_table(part)
        Path(str(target) + ".part").rename(target)
    done.touch()
    return d


def _corrected_dates(table):
    """`table` with Drill's corrupt dates (beyond the year 5000) shifted back, as Drill's
    reader does (`autoCorrectCorruptDates`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # DRILL-4203: twice the Julian day of 1970-01-01; shifted only past the year 5000
    CORRUPT_DATE_SHIFT = 2 * 2440588  # noqa: N806
    CORRUPT_DATE_THRESHOLD = 1106685  # noqa: N806 - days from 1970-01-01 to 5000-01-01

    for idx, f in enumerate(table.schema):
        if not pa.types.is_date32(f.type):
            continue
        days = table[idx].cast(pa.int32())
        fixed = pc.if_else(
            pc.greater(days, CORRUPT_DATE_THRESHOLD),
            pc.subtract(days, CORRUPT_DATE_SHIFT),
            days,
        )
        table = table.set_column(idx, f, fixed.cast(pa.int32()).cast(pa.date32()))
    return table


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="alternating timed rounds (default 5)")
    ap.add_argument(
        "--copies", type=int, default=1, help="copies of lineitem and orders (default 1)"
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
    root = make_copies(TPCH, a.data, a.copies)

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

    # the "plan-level" side: each query's Drill logical plan, lowered from the SQL once
    # in the untimed round 0, run as a plan (parse, validate, translate, Spark) every round
    plans: dict = {}

    def through_plan(q: str) -> list[dict]:
        if q not in plans:
            plans[q] = engine.compile(sql[q])
        return engine.run_plan(plans[q]).to_arrow().to_pylist()

    compile_s: dict[str, list[float]] = {}
    sides = {
        "drillspark SQL": through_sql,
        "drillspark plan": through_plan,
        "PySpark": lambda q: hand[q]().toArrow().to_pylist(),
    }
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], list[tuple]] = {}
    failed: dict[tuple[str, str], str] = {}
    try:
        for rnd in range(a.rounds + 1):  # round 0 warms every side (JIT, file listing, caches)
            for q in sql:
                # each round starts with another side: the JIT is still warming over the first
                # rounds (a query's Arrow fetch: 3.7, 1.4, 1.2, 1.0, 0.8 s), so a fixed order
                # charged the warming to whichever side ran first
                order = list(sides.items())
                for side, run in order[rnd % len(order) :] + order[: rnd % len(order)]:
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
        f"{'query':16}{'drillspark SQL':>16}{'plan':>8}{'PySpark':>10}{'SQL ratio':>11}"
        f"{'plan ratio':>12}{'SQL to DataFrame':>18}   (target ratio <= 1.10)"
    )
    for q in sql:
        ds, dp, ps = (times.get((side, q)) for side in sides)
        if ds and dp and ps:
            a_, p_, b_ = statistics.median(ds), statistics.median(dp), statistics.median(ps)
            print(
                f"{q:16}{a_:>16.3f}{p_:>8.3f}{b_:>10.3f}{a_ / b_:>11.2f}{p_ / b_:>12.2f}"
                f"{statistics.median(compile_s[q][1:]):>18.3f}"
            )
        else:
            print(f"{q:16}{'-':>16}{'-':>8}{'-':>10}{'-':>11}{'-':>12}")
    for (side, q), msg in failed.items():
        print(f"FAILED {q} on {side}: {msg}")
    same = True
    for q in sql:
        y = answers.get(("PySpark", q))
        for side in ("drillspark SQL", "drillspark plan"):
            x = answers.get((side, q))
            if x is not None and y is not None and x != y:
                same = False
                print(f"MISMATCH {q}: {side} {x[:3]}... vs PySpark {y[:3]}...")
    # an answer without a value measures nothing (the corrupt dates once filtered every row)
    empty = [
        q for q in sql if not any(v is not None for r in answers.get(("PySpark", q), []) for v in r)
    ]
    for q in empty:
        print(f"EMPTY {q}: no row or only nulls: the query measures nothing")
    if same and not failed and not empty:
        print("every side gave the same answers, none of them empty")
    return 1 if failed or empty or not same else 0


if __name__ == "__main__":
    sys.exit(main())
