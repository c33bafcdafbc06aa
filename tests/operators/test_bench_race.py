"""The benchmarks' Drill race plumbing: reading query.sh's output, finding the tool, the answer
check that reports (never hides) an engine answering differently, and the new scripts' options.
No timing is asserted; nothing here starts Drill."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_under_test", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved_env


@pytest.fixture(scope="module")
def race():
    return _load("drill_race")


def _line(**kw) -> str:
    return json.dumps(kw) + "\n"


def test_query_sh_output_gives_cold_warm_start_and_rows(race):
    out = [
        _line(sql="q", ok=True, columns=["n"], types=["BIGINT"], rows=[[12295]], ms=12747),
        _line(sql="q", ok=True, columns=["n"], types=["BIGINT"], rows=[[12295]], ms=889),
        _line(sql="q", ok=True, columns=["n"], types=["BIGINT"], rows=[[12295]], ms=1095),
        _line(sql="q", ok=True, columns=["n"], types=["BIGINT"], rows=[[12295]], ms=950),
    ]
    err = "WARNING: x\nDrill 1.22.0 up in 16.5 s\n"
    run = race.parse_output(out, err)
    assert run.up_s == 16.5
    assert run.cold == 12.747
    assert run.warm == 0.95  # median of the repeats, the cold one left out
    assert run.rows == [[12295]]
    assert run.error is None


def test_a_failed_statement_and_a_silent_drill_are_errors(race):
    failed = race.parse_output(
        [_line(sql="q", ok=False, error="java.sql.SQLException: PARSE ERROR: x\nmore", ms=5)],
        "Drill 1.22.0 up in 3.0 s\n",
    )
    assert failed.error == "java.sql.SQLException: PARSE ERROR: x"
    assert failed.ms == [] and failed.cold is None and failed.warm is None
    silent = race.parse_output([], "query: Drill did not start\nsee the log\n")
    assert silent.error == "no answer from Drill (query: Drill did not start | see the log)"


def test_missing_tool_or_jars_are_named(race, tmp_path):
    tool, lib = tmp_path / "drill", tmp_path / "lib"
    assert "query.sh is missing" in race.drill_missing(tool, lib)
    tool.mkdir()
    (tool / "query.sh").write_text("#!/bin/sh\n")
    lib.mkdir()
    assert race.drill_missing(tool, lib) == (
        f"Drill 1.22.0's jars are not fetched into {lib} (run {tool / 'setup.sh'})"
    )
    (lib / ".drill-1.22.0-complete").touch()
    assert race.drill_missing(tool, lib) is None


def test_every_engine_runs_the_same_sql_on_the_absolute_folder(race, tmp_path):
    sql = race.scan_sql(tmp_path)
    assert list(sql) == ["count", "filter+project", "flatten+group"]
    assert all(f"dfs.`{tmp_path.resolve()}`" in s for s in sql.values())
    assert "t.metrics.score > 50" in sql["filter+project"]
    assert race.drill_command(sql["count"], 3, tool=Path("/t"))[:2] == ["/t/query.sh", "--json"]
    assert race.drill_command(sql["count"], 3, tool=Path("/t")).count(sql["count"]) == 3


def test_answers_are_normalized_alike(race):
    assert race.normalize("count", [[5]]) == 5
    assert race.normalize("count", [(5,)]) == 5
    assert race.normalize("filter+project", [[1, "a", "b"], [2, "c", "d"]]) == 2
    # groups in any order, a null name sorted without comparing None to str
    assert race.normalize("flatten+group", [["docs", 3], [None, 1], ["bug", 2]]) == [
        ("bug", 2),
        ("docs", 3),
        (None, 1),
    ]
    with pytest.raises(ValueError, match="no answer normalization"):
        race.normalize("nosuch", [])


def test_a_different_answer_is_reported_with_how_it_differs(race):
    answers = {
        ("spark given schema", "count"): 100,
        ("Drill", "count"): 100,
        ("spark given schema", "filter+project"): 6377,
        ("Drill", "filter+project"): 6012,
        ("duckdb", "filter+project"): 6377,
        ("spark given schema", "flatten+group"): [("bug", 2), ("docs", 3)],
        ("Drill", "flatten+group"): [("bug", 2), ("docs", 4), ("perf", 1)],
    }
    assert race.mismatches(answers, "spark given schema") == [
        "MISMATCH filter+project: Drill answers differently from spark given schema: 6012 vs 6377 (-365)"
        f" [known: {race.KNOWN[('Drill', 'filter+project')]}]",
        "MISMATCH flatten+group: Drill answers differently from spark given schema: "
        "2 group(s) differ (docs: 4 vs 3; perf: 1 vs None)",
    ]
    same = {k: v for k, v in answers.items() if k[0] != "Drill"}
    assert race.mismatches(same, "spark given schema") == []


def test_csv_output_of_the_cli_gives_the_same_answer_forms(race):
    assert race.csv_answer("count", "n\n12295\n") == 12295
    assert race.csv_answer("filter+project", 'id,login,name\n1,a,b\n2,"c,d",e\n') == 2
    assert race.csv_answer("flatten+group", "name,n\nperf,553\nbug,522\n") == [
        ("bug", 522),
        ("perf", 553),
    ]


def test_scan_bench_race_options():
    scan = _load("scan_bench")
    a = scan.build_parser().parse_args([])
    assert (a.no_drill, a.fresh, a.drill_warm, a.master) == (False, True, 3, "local[2]")
    a = scan.build_parser().parse_args(
        [
            "--no-drill",
            "--no-fresh",
            "--drill-warm",
            "5",
            "--drill-heap",
            "1500m",
            "--master",
            "local-cluster[2,1,2048]",
        ]
    )
    assert (a.no_drill, a.fresh, a.drill_warm, a.drill_heap, a.master) == (
        True,
        False,
        5,
        "1500m",
        "local-cluster[2,1,2048]",
    )
    assert scan.normalize_spark("flatten+group", [("docs", 3), ("bug", 2)]) == [
        ("bug", 2),
        ("docs", 3),
    ]
    assert scan.normalize_spark("filter+project", 7) == 7


def test_scan_bench_times_warm_engines_as_drill_s_warm_repeats():
    """Drill's warm figure is the median of its repeats in one session; the other engines'
    steady-state figures are timed the same way, and cold ones once."""
    scan = _load("scan_bench")
    assert scan.build_parser().parse_args([]).warm_repeats == 3
    assert scan.build_parser().parse_args(["--warm-repeats", "5"]).warm_repeats == 5
    assert {"drillspark warm", "drillspark SQL warm", "duckdb"} <= scan.WARM_REPEATED
    assert not {"drillspark cold", "drillspark SQL cold", "spark inferred"} & scan.WARM_REPEATED
    calls = []
    secs, out = scan.repeated(lambda: calls.append(1) or len(calls), 3)
    assert (len(calls), out) == (3, 3) and secs >= 0
    calls.clear()
    assert scan.repeated(lambda: calls.append(1) or len(calls), 0)[1] == 1  # at least once


def test_run_py_passes_words_after_the_names_to_the_scripts():
    run = _load("run")
    assert run.split_args(["scan", "--size", "50MB", "--runs", "1"]) == (
        ["scan"],
        ["--size", "50MB", "--runs", "1"],
    )
    assert run.split_args(["scan", "tpch"]) == (["scan", "tpch"], [])
    assert run.split_args(["--rounds", "1"]) == ([], ["--rounds", "1"])


def test_startup_bench_variants_and_queries(tmp_path):
    st = _load("startup_bench")
    assert st.parse_list("baseline, c1", st.VARIANTS, "variant") == ["baseline", "c1"]
    with pytest.raises(
        argparse.ArgumentTypeError,
        match=r"unknown variant 'fast'; choose from current, first, no-cds, baseline",
    ):
        st.parse_list("baseline,fast", st.VARIANTS, "variant")
    with pytest.raises(argparse.ArgumentTypeError, match=r"\(none given\)"):
        st.parse_list(" , ", st.QUERIES, "query")
    env = st.variant_env("all", "/x/a.jsa", "/cache", str(tmp_path))
    assert env["DRILLSPARK_DRIVER_JAVA_OPTS"].endswith("-XX:SharedArchiveFile=/x/a.jsa")
    assert "spark.ui.enabled=false" in env["PYSPARK_SUBMIT_ARGS"]
    assert env["DRILLSPARK_CDS"] == "0"  # the JVM-flag variants measure without the default archive
    # the CLI as it is shares the benchmark's archive cache; its first run gets an empty one
    assert st.variant_env("current", "/x", "/cache", str(tmp_path)) == {st.CACHE_ENV: "/cache"}
    first = st.variant_env("first", "/x", "/cache", str(tmp_path))[st.CACHE_ENV]
    assert first.startswith(str(tmp_path)) and os.listdir(first) == []
    a = st.build_parser().parse_args(["--variants", "baseline,ui-off", "--queries", "select1"])
    assert (a.variants, a.queries) == (["baseline", "ui-off"], ["select1"])


def test_tpch_copies_shift_order_keys_so_joins_keep_their_shape(shared, tmp_path):
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    tpch = _load("tpch_bench")
    src = shared / "data" / "breadth" / "tpch"
    d = tpch.make_copies(src, tmp_path, 2)
    li, li2 = pq.read_table(src / "lineitem.parquet"), pq.read_table(d / "lineitem.parquet")
    o, o2 = pq.read_table(src / "orders.parquet"), pq.read_table(d / "orders.parquet")
    assert (li2.num_rows, o2.num_rows) == (2 * li.num_rows, 2 * o.num_rows)
    assert (
        pc.count_distinct(o2["o_orderkey"]).as_py()
        == 2 * pc.count_distinct(o["o_orderkey"]).as_py()
    )
    # every lineitem still finds its order
    assert set(li2["l_orderkey"].to_pylist()) <= set(o2["o_orderkey"].to_pylist())
    assert pq.read_table(d / "customer.parquet").equals(pq.read_table(src / "customer.parquet"))
    assert tpch.make_copies(src, tmp_path, 2) == d  # made once


def test_tpch_copies_hold_the_dates_drill_reads(shared, tmp_path):
    """The shared files hold Drill's old corrupt dates (DRILL-4203: shifted by twice the
    Julian day of 1970-01-01, the year 15360 to a plain reader); the copies hold the dates
    Drill reads, so hand-written PySpark reads the same data: TPC-H's orders are from
    1992-01-01 to 1998-08-02."""
    import datetime

    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    tpch = _load("tpch_bench")
    src = shared / "data" / "breadth" / "tpch"
    raw = pq.read_table(src / "orders.parquet")["o_orderdate"].cast("int32")
    assert pc.min(raw).as_py() > 2 * 2440588 - 100_000  # days since 1970: far past 9999
    d = tpch.make_copies(src, tmp_path, 1)
    dates = pq.read_table(d / "orders.parquet")["o_orderdate"]
    assert pc.min(dates).as_py() == datetime.date(1992, 1, 1)
    assert pc.max(dates).as_py() == datetime.date(1998, 8, 2)
    ship = pq.read_table(d / "lineitem.parquet")["l_shipdate"]
    assert (
        datetime.date(1992, 1, 1)
        < pc.min(ship).as_py()
        < pc.max(ship).as_py()
        < datetime.date(1999, 1, 1)
    )


def test_tpch_answers_compare_doubles_to_nine_digits():
    tpch = _load("tpch_bench")
    assert tpch.comparable([{"a": "x", "s": 0.1 + 0.2}]) == tpch.comparable([{"a": "x", "s": 0.3}])
    assert tpch.comparable([{"s": 1.0}]) != tpch.comparable([{"s": 1.00001}])
    assert list(tpch.sql_queries(Path("/d"))) == ["q1 agg", "q3 join3", "q5 join6", "q6 filter-sum"]


def test_scale_bench_sizes_and_masters():
    sc = _load("scale_bench")
    a = sc.build_parser().parse_args(
        ["--sizes", "1GB,10GB", "--masters", "local[1],local-cluster[2,1,2048]"]
    )
    assert a.sizes == [2**30, 10 * 2**30]
    assert a.masters == ["local[1]", "local-cluster[2,1,2048]"]
    assert sc.build_parser().parse_args([]).masters == [
        "local[1]",
        "local[1] on 1 CPU",
        "local[2]",
        "local-cluster[2,1,2048]",
    ]
    with pytest.raises(SystemExit):
        sc.build_parser().parse_args(["--sizes", "lots"])
    assert sc.size_name(10 * 2**30) == "10GiB" and sc.size_name(20 * 2**20) == "20MiB"
    assert sc.peak_rss_mib([os.getpid()]) > 0


@pytest.mark.load  # the long tier: 40-90 s of `make test`'s 20 minutes
@pytest.mark.spark_process
def test_the_scale_bench_holds_its_one_cpu_master_to_one_cpu(tmp_path, capsys):
    # a real run on 1 MiB: "local[1] on 1 CPU" runs under taskset, plain local[1] does not
    sc = _load("scale_bench")
    out = tmp_path / "scale.csv"
    args = ["--sizes", "1MB", "--runs", "1", "--data", str(tmp_path), "--out", str(out)]
    masters = ["--masters", "local[1],local[1] on 1 CPU", "--plot", str(tmp_path / "s.png")]
    assert sc.main(args + masters) == 0
    with open(out, newline="") as f:
        rows = {r["master"]: r for r in csv.DictReader(f)}
    assert rows["local[1] on 1 CPU"]["cpus"] == "1"
    assert int(rows["local[1]"]["cpus"]) == len(os.sched_getaffinity(0))
    assert "speed-up of local[2] over local[1] on 1 CPU" in capsys.readouterr().out


def test_driver_java_flags_from_conf_and_environment_follow_the_log_config(monkeypatch):
    s = importlib.import_module("drillspark.session")  # the module, not the function of that name

    monkeypatch.delenv(s.DRIVER_JAVA_OPTS_ENV, raising=False)
    assert s._driver_java_options(Path("/l.xml")) == "-Dlog4j.configurationFile=/l.xml"
    monkeypatch.setenv(s.DRIVER_JAVA_OPTS_ENV, " -XX:TieredStopAtLevel=1 ")
    assert s._driver_java_options(Path("/l.xml"), "-Da=1") == (
        "-Dlog4j.configurationFile=/l.xml -Da=1 -XX:TieredStopAtLevel=1"
    )


def test_the_cli_short_lived_settings_can_be_left_out(monkeypatch):
    s = importlib.import_module("drillspark.session")  # the module, not the function of that name

    monkeypatch.delenv(s.CLI_DEFAULTS_ENV, raising=False)
    monkeypatch.delenv(s.DRIVER_JAVA_OPTS_ENV, raising=False)
    assert s.short_lived_conf() == {
        "spark.ui.enabled": "false",
        "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1",
    }
    # the driver gets them after the log configuration (a user's --conf would replace them)
    assert s._driver_java_options(
        Path("/l.xml"), s.short_lived_conf()["spark.driver.extraJavaOptions"]
    ).endswith(" -XX:TieredStopAtLevel=1")
    monkeypatch.setenv(s.CLI_DEFAULTS_ENV, "0")
    assert s.short_lived_conf() == {}
