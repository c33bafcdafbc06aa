"""The scan's skippedInvalidRecords task metric, read back from the query's SQL metrics."""

from __future__ import annotations

import json
import subprocess
import textwrap

METRIC_PROBE = textwrap.dedent("""
    import json, sys, time, urllib.request
    import drillspark
    spark = drillspark.session(master="local[1]", app_name="metric-probe", **{
        "spark.ui.enabled": "true", "spark.ui.port": "0"})
    n = spark.read.format("drill").option("skipInvalidRecords", "true").load(sys.argv[1]).count()
    base = spark.sparkContext.uiWebUrl + "/api/v1/applications/" + spark.sparkContext.applicationId
    skipped = None
    for _ in range(50):
        for q in json.load(urllib.request.urlopen(base + "/sql?details=true", timeout=30)):
            for node in q.get("nodes", []):
                for m in node.get("metrics", []):
                    if m["name"].startswith("invalid records skipped"):
                        skipped = int(str(m["value"]).replace(",", "").split()[0])
        if skipped is not None:
            break
        time.sleep(0.2)
    print("RESULT", n, skipped, flush=True)
    spark.stop()
""")


def test_skipped_invalid_records_metric_on_the_scan_node(tmp_path, python_exe):
    # the metric is read from the query's SQL metrics through Spark's public REST API, in a
    # separate process with the UI on (the test session runs without UI)
    p = tmp_path / "skip.json"
    good = [json.dumps({"a": i, "s": "x"}) for i in range(6)]
    bad = ['{"a": 100, "s": }', '{"a": }', 'not json at all']
    p.write_text("\n".join([good[0], bad[0], good[1], good[2], bad[1], good[3], bad[2], good[4], good[5]]) + "\n")
    script = tmp_path / "probe.py"
    script.write_text(METRIC_PROBE)
    log, err = tmp_path / "probe.out", tmp_path / "probe.err"
    with open(log, "w") as o, open(err, "w") as e:
        subprocess.run([python_exe, str(script), str(p)], stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                       timeout=600, check=False)
    result = [line for line in log.read_text().splitlines() if line.startswith("RESULT")]
    assert result, err.read_text()[-2000:]
    assert result[0].split()[1:] == [str(len(good)), str(len(bad))]


def test_bad_line_starting_at_its_first_byte_is_skipped_once(spark, tmp_path):
    # the parser reports such an error at the line's first byte; resuming "after the line
    # before the error" used to restart at the same line forever
    p = tmp_path / "start.json"
    p.write_text('{"a": 1}\nnot json\n{"a": 2}\n]\n{"a": 3}\n')
    df = spark.read.format("drill").option("skipInvalidRecords", "true").load(str(p))
    assert sorted(r.a for r in df.collect()) == [1, 2, 3]
    assert df.count() == 3
