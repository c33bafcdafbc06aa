"""A `jdbc` plugin's push-down: aggregates and a top-N over a PostgreSQL table, and an
aggregate over a join of two of its tables, run by the database (Spark's JDBC catalog pushes
them down) against the same plans with push-down off (every row pulled into Spark, which
joins and aggregates).

    PYTHONPATH=python python benchmarks/jdbc_bench.py                 # 1M rows, ~2 min
    PYTHONPATH=python python benchmarks/jdbc_bench.py --rows 5000000 --runs 3

A throw-away PostgreSQL server is started on a free loopback port (tools/db_servers.py: the
Debian package's binaries, `make databases`) and stopped at the end. Its table `bench.orders`
holds `--rows` generated rows (id, customer of 1000, numeric(12,2) amount, quantity, date,
status), `bench.customers` 1000 (cid, region of 5). Each plan runs through `drillspark.run` and is collected (a few rows; the aggregates
are not sorted: an ORDER BY over an aggregate the database computed makes Spark's range
partitioner sample its input, which runs the database's query a second time); the best of
`--runs` runs is kept, the two settings alternating, and their answers must agree. Prints the
times and the ratio pulled / pushed (how many times faster push-down is).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

OFF = {
    "pushDownPredicate": False,
    "pushDownAggregate": False,
    "pushDownLimit": False,
    "pushDownOffset": False,
    "pushDownTableSample": False,
    "pushDownJoin": False,
}


def scan(op_id: int, table: str) -> dict:
    return {
        "@id": op_id,
        "op": "scan",
        "storageengine": "pg",
        "selection": {"schema": "bench", "table": table},
    }


def plan(config: dict, *ops: dict) -> dict:
    """`ops` over a scan of bench.orders (@1; a plan that scans more lists its scans)."""
    scans = [] if ops[0]["op"] == "scan" else [scan(1, "orders")]
    last = {"@id": 99, "op": "store", "input": ops[-1]["@id"], "storageEngine": "--SCREEN--"}
    return {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "bench"}},
        "storage": {"pg": config},
        "query": [*scans, *ops, last],
    }


QUERIES = {
    "group by customer (1000 groups)": (
        {"@id": 2, "op": "filter", "input": 1, "expr": "quantity > 2"},
        {
            "@id": 3,
            "op": "groupingaggregate",
            "input": 2,
            "keys": [{"ref": "customer", "expr": "customer"}],
            "exprs": [
                {"ref": "s", "expr": "sum(amount)"},
                {"ref": "n", "expr": "count(1)"},
                {"ref": "q", "expr": "avg(quantity)"},
            ],
        },
    ),
    "group by status (2 groups)": (
        {
            "@id": 2,
            "op": "groupingaggregate",
            "input": 1,
            "keys": [{"ref": "status", "expr": "status"}],
            "exprs": [{"ref": "s", "expr": "sum(amount)"}, {"ref": "n", "expr": "count(1)"}],
        },
    ),
    "join customers, group by region (5)": (
        scan(1, "orders"),
        scan(2, "customers"),
        {
            "@id": 3,
            "op": "join",
            "left": 1,
            "right": 2,
            "type": "INNER",
            "conditions": [{"relationship": "==", "left": "customer", "right": "cid"}],
        },
        {
            "@id": 4,
            "op": "groupingaggregate",
            "input": 3,
            "keys": [{"ref": "region", "expr": "region"}],
            "exprs": [{"ref": "s", "expr": "sum(amount)"}, {"ref": "n", "expr": "count(1)"}],
        },
    ),
    "top 10 by amount": (
        {
            "@id": 2,
            "op": "order",
            "input": 1,
            "orderings": [
                {"order": "DESC", "expr": "amount", "nullDirection": "LAST"},
                {"expr": "id"},
            ],
        },
        {"@id": 3, "op": "limit", "input": 2, "first": 0, "last": 10},
    ),
}


def timed(spark, p: dict) -> tuple[float, list]:
    import drillspark

    start = time.perf_counter()
    rows = drillspark.run(p, spark=spark).rows()
    return time.perf_counter() - start, rows


def same(a: list, b: list) -> bool:
    """The same rows in any order, floats to 12 significant digits (sums of doubles added in
    another order differ in the last bits)."""

    def key(rows: list) -> list:
        return sorted(
            tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in r.values())
            for r in rows
        )

    return key(a) == key(b)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    # the defaults keep `make bench BENCH=jdbc` near 2 minutes on a shared 2-core machine
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows in the table (1M)")
    ap.add_argument("--runs", type=int, default=2, help="timed runs per setting (2)")
    args = ap.parse_args()

    import db_servers
    import drillspark

    reason = db_servers.missing("postgresql")
    if reason:
        raise SystemExit(f"jdbc_bench: {reason}")
    server = db_servers.start_postgresql()
    try:
        t0 = time.perf_counter()
        server.sql(
            "CREATE SCHEMA bench AUTHORIZATION drill;\n"
            "CREATE TABLE bench.orders (id bigint PRIMARY KEY, customer integer, "
            "amount numeric(12, 2), quantity integer, ordered date, status text);\n"
            "INSERT INTO bench.orders SELECT i, i % 1000, round((i % 9973) * 1.37, 2), "
            "i % 7 + 1, DATE '2024-01-01' + (i % 365), CASE WHEN i % 3 = 0 THEN 'open' "
            f"ELSE 'closed' END FROM generate_series(1, {args.rows}) AS i;\n"
            "ALTER TABLE bench.orders OWNER TO drill;\nANALYZE bench.orders;\n"
            "CREATE TABLE bench.customers (cid integer PRIMARY KEY, region text);\n"
            "INSERT INTO bench.customers SELECT i, 'r' || (i % 5) "
            "FROM generate_series(0, 999) AS i;\n"
            "ALTER TABLE bench.customers OWNER TO drill;\nANALYZE bench.customers;\n"
        )
        print(
            f"PostgreSQL on 127.0.0.1:{server.port}, {args.rows:,} rows loaded in "
            f"{time.perf_counter() - t0:.1f} s"
        )
        spark = drillspark.session(
            master="local[2]",
            app_name="jdbc-bench",
            **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"},
        )
        pushed = {
            "type": "jdbc",
            "driver": "org.postgresql.Driver",
            "url": server.url(),
            "username": server.user,
            "password": server.password,
        }
        pulled = {**pushed, "sourceParameters": OFF}
        ratios = []
        for name, ops in QUERIES.items():
            on, off = plan(pushed, *ops), plan(pulled, *ops)
            _, want = timed(spark, on)  # warm up both, and check they agree
            _, got = timed(spark, off)
            if not same(got, want):
                raise SystemExit(f"jdbc_bench: {name}: the answers differ: {got[:2]} {want[:2]}")
            on_ts, off_ts = [], []
            for i in range(args.runs):
                order = ((on, on_ts), (off, off_ts)) if i % 2 == 0 else ((off, off_ts), (on, on_ts))
                for p, times in order:
                    times.append(timed(spark, p)[0])
            ratio = statistics.median(f / n for f, n in zip(off_ts, on_ts, strict=True))
            ratios.append(ratio)
            print(
                f"{name:<34} pushed down {min(on_ts):7.3f}s   pulled into Spark "
                f"{min(off_ts):7.3f}s   pulled/pushed (median paired) {ratio:6.1f}"
            )
        print(f"{'geometric mean':<34} {statistics.geometric_mean(ratios):.1f}x faster pushed down")
        spark.stop()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
