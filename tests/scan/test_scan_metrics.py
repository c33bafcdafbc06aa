"""The scan's skippedInvalidRecords task metric, read back from the query's SQL metrics."""

from __future__ import annotations

import json
import subprocess
import textwrap

import pytest

METRIC_PROBE = textwrap.dedent("""
    import json, sys, time, urllib.request
    import drillspark
    spark = drillspark.session(master="local[1]", app_name="metric-probe", **{
        "spark.ui.enabled": "true", "spark.ui.port": "0"})
    n = len(spark.read.format("drill").options(**json.loads(sys.argv[2])).load(sys.argv[1]).collect())
    base = spark.sparkContext.uiWebUrl + "/api/v1/applications/" + spark.sparkContext.applicationId
    wanted = json.loads(sys.argv[3])
    found = {}
    for _ in range(50):
        for q in json.load(urllib.request.urlopen(base + "/sql?details=true", timeout=30)):
            for node in q.get("nodes", []):
                for m in node.get("metrics", []):
                    for w in wanted:
                        if m["name"].startswith(w):
                            found[w] = int(str(m["value"]).replace(",", "").split()[0])
        if len(found) == len(wanted):
            break
        time.sleep(0.2)
    print("RESULT", json.dumps({"rows": n, **found}), flush=True)
    spark.stop()
""")


def scan_metrics(tmp_path, python_exe, path, options: dict, metrics: list[str]) -> dict:
    """Read every column of `path` (its row count is "rows") and read the scan node's SQL metrics (by description prefix)
    through Spark's public REST API, in a separate process with the UI on (the test session
    runs without UI)."""
    script = tmp_path / "probe.py"
    script.write_text(METRIC_PROBE)
    log, err = tmp_path / "probe.out", tmp_path / "probe.err"
    with open(log, "w") as o, open(err, "w") as e:
        subprocess.run(
            [python_exe, str(script), str(path), json.dumps(options), json.dumps(metrics)],
            stdin=subprocess.DEVNULL,
            stdout=o,
            stderr=e,
            timeout=600,
            check=False,
        )
    result = [line for line in log.read_text().splitlines() if line.startswith("RESULT")]
    assert result, err.read_text()[-2000:]
    return json.loads(result[0].split(" ", 1)[1])


@pytest.mark.spark_process
def test_skipped_invalid_records_metric_on_the_scan_node(tmp_path, python_exe):
    d = tmp_path / "in"
    d.mkdir()
    good = [json.dumps({"a": i, "s": "x"}) for i in range(6)]
    # top-level scalars and arrays are one skipped record each, and the record after them is kept
    bad = ['{"a": 100, "s": }', '{"a": }', "not json at all", "5", '"text"', "[1, 2]"]
    order = [
        good[0],
        bad[0],
        good[1],
        bad[3],
        good[2],
        bad[1],
        bad[4],
        good[3],
        bad[2],
        good[4],
        bad[5],
        good[5],
    ]
    (d / "skip.json").write_text("\n".join(order) + "\n")
    # in an outer array, resuming after the bad record stays in the array: its commas and the
    # closing ']' are no further bad records
    (d / "arr.json").write_text(
        '[{"a": 10, "s": "y"},\n {"a": 11, "s": },\n {"a": 12, "s": "y"},\n'
        ' {"a": 13, "s": "y"}\n]\n'
    )
    got = scan_metrics(
        tmp_path, python_exe, d, {"skipInvalidRecords": "true"}, ["invalid records skipped"]
    )
    assert got == {"rows": len(good) + 3, "invalid records skipped": len(bad) + 1}


@pytest.mark.spark_process
def test_wide_sparse_rows_pay_for_every_column_slot(tmp_path, python_exe):
    # 300 string columns, each row sets one: a null still occupies its null flag, offset and
    # length in Spark's vectors (9 bytes), so a row costs ~300 * 9 bytes however sparse it is,
    # and batchBytes must cut batches by that, not by the few bytes of text a row carries
    cols, rows, limit = 300, 3000, 256 * 1024
    p = tmp_path / "wide.json"
    p.write_text(
        "".join(
            json.dumps({f"c{k:03d}": "v" for k in range(cols)}) + "\n"
            if i == 0
            else json.dumps({f"c{i % cols:03d}": "v"}) + "\n"
            for i in range(rows)
        )
    )
    got = scan_metrics(
        tmp_path,
        python_exe,
        p,
        {"batchBytes": str(limit), "splitFiles": "false"},
        ["batches filled", "largest batch filled"],
    )
    row_bytes = cols * 9
    assert got["rows"] == rows
    # each batch holds at most limit / row_bytes rows (about 97), so 3000 rows need >= 31
    assert got["batches filled"] >= rows // (limit // row_bytes + 1)
    assert got["batches filled"] <= rows // (limit // row_bytes - 1) + 1
    # a batch is full once the row being written passes the limit (that row moves on)
    assert limit < got["largest batch filled"] <= limit + row_bytes + 2 * cols


def test_bad_line_starting_at_its_first_byte_is_skipped_once(spark, tmp_path):
    # the parser reports such an error at the line's first byte; resuming "after the line
    # before the error" used to restart at the same line forever
    p = tmp_path / "start.json"
    p.write_text('{"a": 1}\nnot json\n{"a": 2}\n]\n{"a": 3}\n')
    df = spark.read.format("drill").option("skipInvalidRecords", "true").load(str(p))
    assert sorted(r.a for r in df.collect()) == [1, 2, 3]
    assert df.count() == 3
