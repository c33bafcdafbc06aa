"""Python operator vs native Spark: the nested-value filter (docs/running-plans.md).

    python benchmarks/operator_bench.py [ROWS] [--size 1M] [--repeat 3] [--master local[2]] [--json]

ROWS or `--size` (the option `make bench BENCH_ARGS="--size ..."` passes to every benchmark):
a row count with an optional suffix, `200k`, `1M`, `10M`, `1G`; a data size in bytes,
`50MB`, `1GB` (converted to rows at the Arrow size of this benchmark's rows); or `small`
(1M rows).

Data (generated inside Spark, so no driver-side rows): ROWS records (default 10 million)
`{id, a: [{x, k}, ...], c}` with 1 to 7 elements in `a`. The query is `a.x > 49`: keep the
elements of `a` whose x passes, and the records that keep at least one.

* native: Spark's higher-order functions, `filter(a, e -> e.x > 49)` + `size(a) > 0`;
* python: the `nested-filter` operator through mapInArrow (Arrow batches end to end: no
  per-row Python, no pandas);
* passthrough: a Python operator that returns its input (the cost of the Arrow round trip
  to the Python workers alone);
* generate: producing the data and discarding it (subtracted for the "net" figures).

Every query ends in Spark's `noop` sink, so all columns are computed and nothing is
collected. Runs alternate between queries; the median of `--repeat` runs is reported, as
rows per second per core (total, and net of generation) and the native/python ratio.
`--json` also times the operator on the same data held as JSON text (the scan's
representation of type-conflicting columns), which is parsed per value in Python.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

# This checkout's drillspark, for the driver and (through the environment) the Python workers.
_PYTHON_DIR = str(Path(__file__).resolve().parent.parent / "python")
sys.path.insert(0, _PYTHON_DIR)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_PYTHON_DIR, os.environ.get("PYTHONPATH")) if p
)

import drillspark  # noqa: E402
from drillspark.operators import SingleInputOperator  # noqa: E402
from drillspark.operators.spark import apply_operator  # noqa: E402


class Passthrough(SingleInputOperator):
    def process(self, batch):
        return batch


def build(spark, rows: int, partitions: int):
    from pyspark.sql import functions as F

    return (
        spark.range(0, rows, numPartitions=partitions)
        .withColumn(
            "a",
            F.transform(
                F.sequence(F.lit(0), (F.col("id") % 7).cast("int")),
                lambda i: F.struct(((F.col("id") * 7 + i * 13) % 100).alias("x"), i.alias("k")),
            ),
        )
        .withColumn("c", (F.col("id") % 1000).cast("string"))
    )


def queries(df, with_json: bool):
    from pyspark.sql import functions as F

    props = {"path": "a.x", "relationship": ">", "value": 49}
    out = {
        "generate": lambda: df,
        "native": lambda: df.withColumn("a", F.filter("a", lambda e: e["x"] > 49)).where(
            F.size("a") > 0
        ),
        "python": lambda: apply_operator(df, "nested-filter", props),
        "passthrough": lambda: apply_operator(df, Passthrough),
    }
    if with_json:
        as_json = df.withColumn("a", F.to_json("a"))
        out["json-generate"] = lambda: as_json
        out["json-python"] = lambda: apply_operator(as_json, "nested-filter", props)
    return out


def arrow_batches(rows: int, batch_rows: int = 10_000):
    """The same data as `build`, made directly as Arrow batches (for the no-Spark figure)."""
    import numpy as np
    import pyarrow as pa

    for start in range(0, rows, batch_rows):
        ids = np.arange(start, min(rows, start + batch_rows), dtype=np.int64)
        lengths = ids % 7 + 1
        offsets = np.zeros(len(ids) + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        k = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], lengths)
        x = (np.repeat(ids, lengths) * 7 + k * 13) % 100
        element = pa.StructArray.from_arrays(
            [pa.array(x), pa.array(k.astype(np.int32))], names=["x", "k"]
        )
        a = pa.ListArray.from_arrays(pa.array(offsets), element)
        c = pa.array((ids % 1000).astype(str))
        yield pa.RecordBatch.from_arrays([pa.array(ids), a, c], names=["id", "a", "c"])


def arrow_only(rows: int) -> float:
    """Seconds for the operator alone over in-memory Arrow batches, one core, no Spark."""
    from drillspark.operators import run_fragment
    from drillspark.operators.nested_filter import NestedFilter

    batches = list(arrow_batches(rows))
    op = NestedFilter(path="a.x", relationship=">", value=49)
    list(run_fragment(batches[:1], [op]))  # warm-up (compute kernels load lazily)
    start = time.perf_counter()
    for _ in run_fragment(batches, [NestedFilter(path="a.x", relationship=">", value=49)]):
        pass
    return time.perf_counter() - start


SMALL_ROWS = 1_000_000
_ROW_SUFFIXES = {"K": 10**3, "M": 10**6, "G": 10**9}
_BYTE_SUFFIXES = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "B": 1}


def parse_rows(text: str) -> int:
    """A number of rows: `1000000`, `1_000_000`, `200k`, `1M`, `2.5M`, `1G`, `small`, or a
    data size (`50MB`, `1GB`) converted at the Arrow size of one row of this benchmark."""
    t = text.strip().upper().replace("_", "").replace(",", "").replace("IB", "B")
    if t == "SMALL":
        return SMALL_ROWS
    try:
        for unit, factor in _BYTE_SUFFIXES.items():
            if t.endswith(unit) and t[: -len(unit)]:
                return max(1, int(float(t[: -len(unit)]) * factor / _bytes_per_row()))
        if t and t[-1] in _ROW_SUFFIXES:
            return int(float(t[:-1]) * _ROW_SUFFIXES[t[-1]])
        return int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size: give rows (1000000, 200k, 1M, 10M), bytes (50MB, 1GB) "
            "or 'small'"
        ) from None


def _bytes_per_row() -> float:
    sample = list(arrow_batches(10_000))
    return sum(b.nbytes for b in sample) / 10_000


def timed(make) -> float:
    start = time.perf_counter()
    make().write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="?", type=parse_rows, default=None, help="rows (or a size)")
    parser.add_argument(
        "--size", type=parse_rows, default=None, help="rows: 1M, 10M; bytes: 1GB; or 'small'"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="also time the JSON-text path")
    args = parser.parse_args(argv)
    if args.rows is not None and args.size is not None and args.rows != args.size:
        parser.error(f"ROWS ({args.rows:,}) and --size ({args.size:,}) disagree; give one")
    args.rows = args.rows or args.size or 10_000_000

    spark = drillspark.session(
        master=args.master,
        app_name="operator-bench",
        **{"spark.ui.enabled": "false", "spark.driver.memory": "2g"},
    )
    try:
        cores = spark.sparkContext.defaultParallelism
        df = build(spark, args.rows, args.partitions or cores)
        plan = queries(df, args.json)
        # Correctness first: the two forms must agree (on a sample, to keep it cheap).
        sample = build(spark, min(args.rows, 20_000), 2)
        q = queries(sample, False)
        a, b = q["native"](), q["python"]()
        if a.exceptAll(b).count() or b.exceptAll(a).count():
            print("operator_bench: native and python results differ", file=sys.stderr)
            return 1
        for make in plan.values():  # warm-up: Python workers, code generation
            timed(lambda m=make: m().limit(1000))
        times: dict[str, list[float]] = {name: [] for name in plan}
        for _ in range(args.repeat):
            for name, make in plan.items():
                times[name].append(timed(make))
        med = {name: statistics.median(ts) for name, ts in times.items()}
    finally:
        spark.stop()
    alone = statistics.median(arrow_only(min(args.rows, 2_000_000)) for _ in range(args.repeat))
    alone_rows = min(args.rows, 2_000_000)

    def per_core(seconds: float) -> float:
        return args.rows / seconds / cores if seconds > 0 else float("inf")

    print(
        f"nested-value filter a.x > 49, {args.rows:,} rows, {cores} cores, median of {args.repeat}"
    )
    print(f"{'query':<14}{'seconds':>9}{'rows/s/core':>14}{'net s':>8}{'net rows/s/core':>17}")
    for name, seconds in med.items():
        base = med["json-generate"] if name.startswith("json-") else med["generate"]
        net = seconds - base if name not in ("generate", "json-generate") else seconds
        print(
            f"{name:<14}{seconds:>9.2f}{per_core(seconds):>14,.0f}{net:>8.2f}{per_core(net):>17,.0f}"
        )
    net_native = med["native"] - med["generate"]
    net_python = med["python"] - med["generate"]
    print(f"ratio python/native time (total): {med['python'] / med['native']:.2f}x")
    if net_native > 0:
        print(f"ratio python/native time (net of generation): {net_python / net_native:.2f}x")
    print(
        f"the operator alone on Arrow batches, no Spark ({alone_rows:,} rows, one core): "
        f"{alone_rows / alone:,.0f} rows/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
