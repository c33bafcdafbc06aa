"""Python operators and registered functions on `local-cluster[2,1,1024]`: separate executor
JVMs, each with its own Python workers, so the operator code, drillspark and pyarrow must
reach them. Run as a script (exit code 0 = passed):

    PYTHONPATH=python .venv/bin/python tests/operators/cluster_check.py
    spark-submit --jars $(drillspark jar-path) tests/operators/cluster_check.py

or import it and call `check(spark)` with a session you made (it returns the problems found,
an empty list when all passed, and leaves the session running); `session_conf()` gives the
settings the executors need to import drillspark. It defines a plugin operator and a
function here (so they travel by value, as a user's script's would), runs them, the
`scale` operator of docs/operators.md's plugin example and the built-in nested filter
through logical-plan nodes, the DataFrame API and SQL, and checks the results against values
worked out by hand.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helpers beside this file
import docs_example  # noqa: E402
from script_checks import Problems, run_script  # noqa: E402

DEFAULT_MASTER = "local-cluster[2,1,1024]"


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


def session_conf() -> dict[str, str]:
    """Settings for a cluster session whose executors can import this checkout's drillspark."""
    return {
        "spark.ui.enabled": "false",
        "spark.executor.memory": "512m",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.session.timeZone": "UTC",
        "spark.executorEnv.PYTHONPATH": str(Path(drillspark.__file__).resolve().parents[1]),
        "spark.executorEnv.PYSPARK_PYTHON": sys.executable,
    }


def check(spark) -> list[str]:
    """Run every case in `spark` (classic, ideally local-cluster); returns the problems found.
    The session is left running."""
    from drillspark.operators.spark import apply_plan_node, function_column, register_functions

    problems = Problems()
    expect = problems.expect
    on_cluster = spark.conf.get("spark.master", "").startswith("local-cluster")

    # The nested-filter worked example (docs/running-plans.md, Filtering nested values); `a` conflicts (map / array), so it is JSON text.
    rows = [
        (json.dumps({"b": 1, "x": 5}), 1),
        (json.dumps([{"b": 1}, {"z": {"x": 4}}, {"q": 3, "x": 5}]), 2),
        (json.dumps({"b": 2, "x": [1, 2, 3, 4, 5]}), 3),
        (json.dumps({"b": 3, "x": [1, 2]}), 4),
    ]
    df = spark.createDataFrame(rows, "a string, c long").repartition(4)
    node = {"@id": 2, "op": "nested-filter", "input": 1, "path": "a.x", "relationship": ">"}
    filtered = apply_plan_node(df, {**node, "value": 3})
    got = sorted((r.c, json.loads(r.a)) for r in filtered.collect())
    expect(
        "nested-filter",
        got,
        [(1, {"b": 1, "x": 5}), (2, [{"q": 3, "x": 5}]), (3, {"b": 2, "x": [4, 5]})],
    )

    # The plugin operator defined in this script, on executors of both JVMs.
    tagged = apply_plan_node(spark.range(0, 4000, numPartitions=8), {"@id": 3, "op": "cluster-tag"})
    collected = tagged.collect()
    expect("cluster-tag rows", sorted(r.id for r in collected), list(range(4000)))
    if on_cluster:
        expect(
            "cluster-tag ran outside the driver", os.getpid() in {r.pid for r in collected}, False
        )
        daemons = {r.daemon for r in collected}
        expect("Python daemons (one per executor JVM) used", len(daemons) >= 2, True)

    # The plugin example of docs/operators.md, exactly as written there.
    docs_example.load()
    scaled = apply_plan_node(
        spark.createDataFrame([(1, "a"), (4, "b"), (None, "c")], "v int, w string").repartition(3),
        {"@id": 4, "op": "scale", "input": 3, "column": "v", "factor": 2.5},
    )
    expect("docs example 'scale' schema", scaled.schema.simpleString(), "struct<v:double,w:string>")
    expect(
        "docs example 'scale'",
        sorted((r.w, r.v) for r in scaled.collect()),
        [("a", 2.5), ("b", 10.0), ("c", None)],
    )

    # The registered function from the DataFrame API and from SQL.
    doubled = spark.range(5).select(function_column("drill_cluster_double", "id").alias("d"))
    expect("function column", [r.d for r in doubled.collect()], [0, 2, 4, 6, 8])
    register_functions(spark, ["drill_cluster_double"])
    spark.range(3).createOrReplaceTempView("cluster_ids")
    got_sql = [
        r[0] for r in spark.sql("SELECT drill_cluster_double(id) FROM cluster_ids").collect()
    ]
    expect("function in SQL", got_sql, [0, 2, 4])
    return problems


def main(master: str = DEFAULT_MASTER) -> int:
    return run_script(
        "cluster_check",
        lambda: drillspark.session(
            master=master, app_name="drillspark-operators-cluster-check", **session_conf()
        ),
        check,
        f"operators and functions ran on {master}",
    )


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
