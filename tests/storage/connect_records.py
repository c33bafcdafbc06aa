"""drillspark.sql over Spark Connect reading `kafka` topics, `mongo` collections and `http`
connections (#32):
run as a script in its own process (a local Connect server, `remote("local[2]")`, with
drillspark's jars: the extension and the clients' jars on the server's `spark.jars`), it takes
a JSON job on its argument, `{"storage": {...}, "queries": {key: sql}, "explains": {key: sql},
"errors": {key: sql}, "grow": {"topic", "command", "lines"}}`, and prints one line
`RESULT <json>`: each query's columns and rows (`plain`: the values as JSON), each explain's
Spark plan, each error's message and class, and a topic's ids before and after the producer
`command` sent it `lines`, by two actions of one result and by the next query.
tests/storage/test_connect_records.py and test_connect_http.py compare them with a classic
session's (`run`)."""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import os
import subprocess
import sys
from typing import Any


def plain(value: Any) -> Any:
    """A row's value as JSON (both sessions' rows go through this before they are compared)."""
    if hasattr(value, "asDict"):
        return {k: plain(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bytes | bytearray):
        return "b64:" + base64.b64encode(bytes(value)).decode()
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


def answer(result: Any) -> dict[str, Any]:
    """Columns and rows (sorted: neither door promises an order without ORDER BY)."""
    rows = [[plain(v) for v in r] for r in result.collect()]
    return {
        "columns": list(result.columns),
        "rows": sorted(rows, key=lambda r: json.dumps(r, sort_keys=True)),
    }


def main(job: dict[str, Any]) -> dict[str, Any]:
    from pyspark.sql import SparkSession

    import drillspark

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = drillspark.configure(
        SparkSession.builder.remote("local[2]").config("spark.ui.enabled", "false")
    ).getOrCreate()
    out: dict[str, Any] = {"connect": not hasattr(spark, "_jvm"), "answers": {}}
    try:
        drillspark.sql("SELECT 1", spark=spark, storage=job["storage"]).collect()
        for key, sql in job.get("queries", {}).items():
            out["answers"][key] = answer(drillspark.sql(sql, spark=spark))
        grow = job.get("grow")
        if grow:  # messages sent between two actions of one result (a producer's command)
            sql = f"SELECT id FROM kc.`{grow['topic']}`"
            result = drillspark.sql(sql, spark=spark)
            first = sorted(r[0] for r in result.collect())
            subprocess.run(grow["command"], input=grow["lines"].encode(), check=True, timeout=120)
            out["grow"] = {
                "first": first,
                "again": sorted(r[0] for r in result.collect()),
                "count": result.df.count(),
                "next_query": sorted(r[0] for r in drillspark.sql(sql, spark=spark).collect()),
            }
        out["explains"] = {
            key: drillspark.sql(sql, spark=spark).explain(print_it=False)
            for key, sql in job.get("explains", {}).items()
        }
        out["errors"] = {}
        for key, sql in job.get("errors", {}).items():
            try:
                drillspark.sql(sql, spark=spark).collect()
                out["errors"][key] = None
            except Exception as e:  # noqa: BLE001 - the message is the answer
                out["errors"][key] = {"class": type(e).__name__, "message": str(e)}
        jars = spark.conf.get("spark.jars", "")
        out["client_jars"] = sorted(
            os.path.basename(j) for j in jars.split(",") if "/clients/" in j
        )
    finally:
        spark.stop()
    return out


def run(job: dict[str, Any], cwd: Any) -> dict[str, Any]:
    """This script's answers to `job`, run in its own process in folder `cwd`."""
    # imported here: the script itself runs without the repository on its path
    from tests.local_connect import one_local_connect_server

    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    with one_local_connect_server():
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), json.dumps(job)],
            capture_output=True,
            text=True,
            timeout=900,
            cwd=cwd,
            env=env,
        )
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    out: dict[str, Any] = json.loads(line.split(" ", 1)[1])
    return out


if __name__ == "__main__":
    print("RESULT", json.dumps(main(json.loads(sys.argv[1]))), flush=True)
