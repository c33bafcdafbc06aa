"""Python operators and registered functions on `local-cluster[2,1,1024]`: separate executor
JVMs, each with its own Python workers, so the operator code, drillspark and pyarrow must
reach them. Run as a script (exit code 0 = passed) or call `main()`:

    PYTHONPATH=python .venv/bin/python tests/operators/cluster_check.py
    spark-submit --jars $(drillspark jar-path) tests/operators/cluster_check.py

It defines a plugin operator and a function here, in `__main__` (so they travel by value, as
a user's script would), runs them and the built-in nested filter through a logical-plan node,
the DataFrame API and SQL, and checks the results against values worked out by hand.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

import drillspark
from drillspark.operators import SingleInputOperator


@drillspark.operator("cluster-tag")
class Tag(SingleInputOperator):
    """Adds columns `pid` and `daemon`: the Python worker that ran the batch and its parent
    (one Python daemon per executor JVM)."""

    def output_schema(self, input_schema: pa.Schema) -> pa.Schema:
        return input_schema.append(pa.field("pid", pa.int64())).append(
            pa.field("daemon", pa.int64())
        )

    def process(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        n = batch.num_rows
        pid = pa.array([os.getpid()] * n, type=pa.int64())
        daemon = pa.array([os.getppid()] * n, type=pa.int64())
        return pa.RecordBatch.from_arrays(
            [*batch.columns, pid, daemon], schema=self.output_schema(batch.schema)
        )


@drillspark.function("drill_cluster_double", kind="scalar", returns="long")
def double(values: pa.Array) -> pa.Array:
    return pc.multiply(values, 2)


def check(master: str = "local-cluster[2,1,1024]") -> list[str]:
    """Run everything on `master`; returns the problems found (empty = passed)."""
    from drillspark.operators.spark import apply_plan_node, function_column, register_functions

    python_dir = str(Path(drillspark.__file__).resolve().parent.parent)
    spark = drillspark.session(
        master=master,
        app_name="drillspark-operators-cluster-check",
        **{
            "spark.ui.enabled": "false",
            "spark.executor.memory": "512m",
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.session.timeZone": "UTC",
            "spark.executorEnv.PYTHONPATH": python_dir,
            "spark.executorEnv.PYSPARK_PYTHON": sys.executable,
        },
    )
    problems: list[str] = []

    def expect(name: str, got: object, want: object) -> None:
        if got != want:
            problems.append(f"{name}: got {got!r}, expected {want!r}")

    try:
        # Seed 001 Appendix A's worked example; `a` conflicts (map / array), so it is JSON text.
        rows = [
            (json.dumps({"b": 1, "x": 5}), 1),
            (json.dumps([{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}]), 2),
            (json.dumps({"b": 2, "x": [1, 2, 3, 4, 5]}), 3),
            (json.dumps({"b": 3, "x": [1, 2]}), 4),
        ]
        df = spark.createDataFrame(rows, "a string, c long").repartition(4)
        node = {
            "@id": 2,
            "op": "nested-filter",
            "input": 1,
            "path": "a.x",
            "relationship": ">",
            "value": 3,
        }
        filtered = apply_plan_node(df, node)
        got = sorted((r.c, json.loads(r.a)) for r in filtered.collect())
        expect(
            "nested-filter",
            got,
            [(1, {"b": 1, "x": 5}), (2, [{"q": 3, "x": 5}]), (3, {"b": 2, "x": [4, 5]})],
        )

        # The plugin operator defined in this script, on executors of both JVMs.
        tagged = apply_plan_node(
            spark.range(0, 4000, numPartitions=8), {"@id": 3, "op": "cluster-tag"}
        )
        collected = tagged.collect()
        expect("cluster-tag rows", sorted(r.id for r in collected), list(range(4000)))
        expect(
            "cluster-tag ran outside the driver", os.getpid() in {r.pid for r in collected}, False
        )
        daemons = {r.daemon for r in collected}
        expect("Python daemons (one per executor JVM) used", len(daemons) >= 2, True)

        # The registered function from the DataFrame API and from SQL.
        doubled = spark.range(5).select(function_column("drill_cluster_double", "id").alias("d"))
        expect("function column", [r.d for r in doubled.collect()], [0, 2, 4, 6, 8])
        register_functions(spark, ["drill_cluster_double"])
        spark.range(3).createOrReplaceTempView("cluster_ids")
        got_sql = [
            r[0] for r in spark.sql("SELECT drill_cluster_double(id) FROM cluster_ids").collect()
        ]
        expect("function in SQL", got_sql, [0, 2, 4])
    finally:
        spark.stop()
    return problems


def main(master: str = "local-cluster[2,1,1024]") -> int:
    problems = check(master)
    for problem in problems:
        print(f"cluster_check: FAILED {problem}", file=sys.stderr)
    if not problems:
        print(f"cluster_check: operators and functions ran on {master}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
