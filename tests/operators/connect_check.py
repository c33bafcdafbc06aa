"""Python operators and registered functions through Spark Connect (an in-process local
Connect server): the Spark glue uses public DataFrame APIs, so it must work there too.
Run as a script (exit code 0 = passed):

    PYTHONPATH=python .venv/bin/python tests/operators/connect_check.py

or import it and call `check(spark)` with a Connect session you made (with drillspark's
jar and extension, e.g. `drillspark.configure(SparkSession.builder.remote("local[2]"))`);
it returns the problems found (empty = passed) and leaves the session running.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

import drillspark

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helpers beside this file
from script_checks import Problems, run_script  # noqa: E402


@drillspark.function("drill_connect_tenfold", kind="scalar", returns="long")
def tenfold(values: pa.Array) -> pa.Array:
    return pc.multiply(values, 10)


@drillspark.function("drill_connect_total", kind="aggregate", returns="long")
def total(values: pa.Array) -> int:
    return pc.sum(values).as_py()


def check(spark) -> list[str]:
    """Run every case in the Connect session `spark`; returns the problems found."""
    from pyspark.sql import functions as F
    from pyspark.sql.utils import is_remote

    from drillspark.operators.spark import apply_plan_node, function_column, register_functions

    problems = Problems()
    expect = problems.expect
    expect("running on Connect", is_remote(), True)
    df = spark.createDataFrame(
        [(json.dumps([{"x": 1}, {"x": 5}]), 1), (json.dumps({"x": 2}), 2)], "a string, c long"
    )
    node = {"@id": 1, "op": "nested-filter", "path": "a.x", "relationship": ">", "value": 3}
    rows = [(r.c, json.loads(r.a)) for r in apply_plan_node(df, node).collect()]
    expect("nested-filter over JSON text", rows, [(1, [{"x": 5}])])
    typed = spark.createDataFrame(
        [([[{"x": 1}, {"x": 4}], [{"x": 5}]],)], "a array<array<struct<x:long>>>"
    )
    rows = [r.a for r in apply_plan_node(typed, node).collect()]
    expect(
        "nested-filter keeps nesting",
        [[[e.x for e in inner] for inner in a] for a in rows],
        [[[4], [5]]],
    )
    got = [
        r[0]
        for r in spark.range(3).select(function_column("drill_connect_tenfold", "id")).collect()
    ]
    expect("scalar function", got, [0, 10, 20])
    got = spark.range(4).agg(function_column("drill_connect_total", "id")).first()[0]
    expect("aggregate function", got, 6)
    register_functions(spark, ["drill_connect_tenfold", "drill_connect_total"])
    got = spark.sql("SELECT drill_connect_total(drill_connect_tenfold(id)) FROM range(4)").first()[
        0
    ]
    expect("functions in SQL", got, 60)

    # A function of drillspark's jar, by name: REPEATED_COUNT counts a null array as 0.
    arrays = spark.createDataFrame([([1, 2, 3],), ([],), (None,)], "a array<int>")
    got = [r[0] for r in arrays.select(F.call_function("drill_repeated_count", "a")).collect()]
    expect("jar function drill_repeated_count", got, [3, 0, 0])

    # SQL over JSON in one pass (docs/scan.md): the misfit comes back through Connect's
    # error and the statement is read again with full discovery
    import tempfile

    table = Path(tempfile.mkdtemp()) / "t.json"
    table.write_text('{"a": 1}\n{"a": 2.5, "b": {"c": "x"}}\n')
    query = f"SELECT * FROM dfs.`{table}` ORDER BY a"
    spark.conf.set("spark.drillspark.singlePassSample", "1")
    spark.conf.set("spark.drillspark.singlePassMinBytes", "0")  # the table is small
    result = drillspark.sql(query, spark=spark)
    expect("one pass on Connect", result.one_pass, True)
    got = result.to_arrow().to_pylist()
    spark.conf.set("spark.drillspark.singlePassSample", "0")
    expect("read again on Connect", got, drillspark.sql(query, spark=spark).to_arrow().to_pylist())
    spark.conf.unset("spark.drillspark.singlePassSample")
    spark.conf.unset("spark.drillspark.singlePassMinBytes")
    return problems


def main(remote: str = "local[2]") -> int:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return run_script(
        "connect_check",
        lambda: drillspark.configure(SparkSession.builder.remote(remote)).getOrCreate(),
        check,
        f"operators and functions ran through Spark Connect ({remote})",
    )


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
