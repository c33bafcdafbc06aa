"""The Python API's results, every kind through every shared method (show, collect, rows,
to_pandas, to_arrow, columns, the notebook table, repr), on real files of ../shared/data; and
progress reports from a real query."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pyarrow as pa
import pytest

import drillspark
from drillspark.result import DrillResult, Result, StatementResult
from drillspark.sql import SqlEngine, SqlSession

JSON = "data/drill-conformance/data/drill/jsoninput"
SUPPLIER = "data/breadth/tpch_json/supplier.json"


def supplier_plan(shared: Path) -> dict:
    """A logical plan: the first 3 suppliers."""
    return {
        "head": {"version": 1, "type": "APACHE_DRILL_LOGICAL"},
        "storage": {"dfs": {"type": "file", "connection": "file:///"}},
        "query": [
            {
                "op": "scan",
                "@id": 1,
                "storageengine": "dfs",
                "selection": {"format": {"type": "json"}, "files": [str(shared / SUPPLIER)]},
            },
            {"op": "limit", "@id": 2, "input": 1, "first": 0, "last": 3},
            {"op": "store", "@id": 3, "input": 2, "target": None, "storageEngine": "--SCREEN--"},
        ],
    }


@pytest.fixture(scope="module")
def results(spark, shared: Path, tmp_path_factory) -> dict[str, Result]:
    folder = shared / JSON
    tmp = tmp_path_factory.mktemp("api-results")
    engine = SqlEngine(spark, SqlSession(workspaces={"root": str(folder), "tmp": str(tmp)}))

    def last(sql: str) -> Result:
        return engine.execute(sql)[-1]

    return {
        "query": drillspark.sql(
            f"SELECT t.`integer` AS i, t.x.y AS y, t.l AS l FROM dfs.`{folder / 'input2.json'}` t",
            spark,
        ),
        "plan": drillspark.run(supplier_plan(shared), spark=spark),
        "show files": last("SHOW FILES IN dfs.root"),
        "show schemas": last("SHOW SCHEMAS"),
        "describe": last("DESCRIBE INFORMATION_SCHEMA.`TABLES`"),
        "explain": last("EXPLAIN PLAN FOR SELECT * FROM dfs.`input2.json`"),
        "alter session": last("ALTER SESSION SET `store.json.all_text_mode` = false"),
        "ctas": last(
            "CREATE TABLE dfs.tmp.`api_t` AS SELECT t.`integer` AS i FROM dfs.`input2.json` t"
        ),
        "use": last("USE dfs.tmp"),
    }


KINDS = [
    "query",
    "plan",
    "show files",
    "show schemas",
    "describe",
    "explain",
    "alter session",
    "ctas",
    "use",
]


def test_the_kinds_are_the_documented_types(results):
    assert isinstance(results["query"], DrillResult) and isinstance(results["plan"], DrillResult)
    for kind in KINDS[2:]:
        assert isinstance(results[kind], StatementResult), kind
    assert results["query"].columns == ["i", "y", "l"]
    assert results["describe"].columns == ["COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE"]
    assert results["ctas"].columns == ["Fragment", "Number of records written"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_method_on_every_kind(results, kind, capsys):
    r = results[kind]
    columns = r.columns
    rows = r.rows()
    assert columns and rows, kind
    assert [list(d) for d in rows] == [columns] * len(rows)

    collected = r.collect()
    assert [row.asDict(recursive=True) for row in collected] == rows

    table = r.to_arrow()
    assert isinstance(table, pa.Table)
    assert table.column_names == columns and table.num_rows == len(rows)
    frame = r.to_pandas()
    assert list(frame.columns) == columns and len(frame) == len(rows)

    r.show()
    printed = capsys.readouterr().out
    if kind == "explain":  # the plan JSON, as the shell prints it
        assert printed.strip() == r.text.strip() and '"op": "scan"' in printed
    else:
        assert all(c in printed for c in columns)
        assert f"{len(rows)} row{'s' if len(rows) != 1 else ''} selected" in printed

    page = r._repr_html_()
    assert page.startswith("<pre>" if kind == "explain" else "<table>")
    assert re.match(rf"{type(r).__name__}\(columns=", repr(r))


def test_values_print_in_drills_text_form(results, capsys):
    results["query"].show(truncate=False)
    out = capsys.readouterr().out
    # an array prints as JSON, a missing value as null (a missing array as an empty one)
    assert "| 2010  | kevin | [4,2] |" in out and "| -2002 | null  | []    |" in out
    assert results["query"].rows()[0] == {"i": 2010, "y": "kevin", "l": [4, 2]}
    assert results["ctas"].rows() == [{"Fragment": "0_0", "Number of records written": 4}]


def test_show_and_the_notebook_table_say_when_they_cut(spark, shared: Path, capsys):
    r = drillspark.sql(
        f"SELECT S_SUPPKEY, S_COMMENT, '<b>&' AS markup "
        f"FROM dfs.`{shared / SUPPLIER}` ORDER BY S_SUPPKEY",
        spark,
    )
    r.show(3)
    out = capsys.readouterr().out
    assert out.rstrip().endswith("only showing the first 3 rows")
    assert "| 1         | each slyly above ... |" in out  # cells cut at 20 characters
    r.show(2, truncate=False)
    assert re.search(r"\| 1 +\| each slyly above the careful +\| <b>& +\|", capsys.readouterr().out)

    page = r._repr_html_()
    assert page.count("<tr>") == 1 + 20  # the header and the first 20 rows of 100
    assert page.endswith("<p>only showing the first 20 rows</p>")
    assert "&lt;b&gt;&amp;" in page and "<b>" not in page  # values are escaped
    assert "<p>" not in drillspark.sql("SHOW SCHEMAS", spark)._repr_html_()


def test_a_statement_result_is_also_a_dataframe(results):
    df = results["describe"].df
    assert df.columns == results["describe"].columns
    assert df.count() == len(results["describe"].rows())


def test_progress_reports_phases_stages_and_tasks_of_a_real_query(
    spark, shared: Path, tmp_path: Path
):
    """A registered function holds its tasks until the callback has seen them running, so the
    callback must see the tasks while the job runs (or the query fails after a minute)."""
    flag = tmp_path / "seen"

    def hold(x: pa.Array) -> pa.Array:  # runs in a Python worker: waits for the flag file
        deadline = time.monotonic() + 60
        while not os.path.exists(str(flag)) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not os.path.exists(str(flag)):
            raise RuntimeError("the progress callback never saw the running tasks")
        return x

    drillspark.function("drill_test_hold", returns="bigint")(hold)
    reports: list[drillspark.ProgressInfo] = []

    def callback(info: drillspark.ProgressInfo) -> None:
        reports.append(info)
        if info.phase == "running" and info.tasks_total:
            flag.touch()

    try:
        r = drillspark.sql(
            f"SELECT drill_test_hold(S_SUPPKEY) AS k FROM dfs.`{shared / SUPPLIER}`",
            spark,
            progress=callback,
        )
        assert isinstance(r, DrillResult)
        assert sorted(r.to_pandas()["k"]) == list(range(1, 101))
    finally:
        from drillspark.plugins import unregister

        unregister("drill_test_hold")
    running = [p for p in reports if p.phase == "running" and p.tasks_total]
    assert running and all(0 <= p.tasks_done <= p.tasks_total for p in running)
    assert all(p.stages_total >= 1 and p.stages_done <= p.stages_total for p in running)
    assert reports[-1].phase == "done"
    assert "tasks, stage" in running[0].line()


def test_progress_true_prints_one_line_and_blanks_it(spark, shared: Path, capsys):
    from drillspark.progress import ProgressInfo, TextProgress

    line = TextProgress(after=0.0)
    line(ProgressInfo("running", 2.5, 0, 1, 3, 8))
    line(ProgressInfo("done", 3.0))
    err = capsys.readouterr().err
    assert err.startswith("\rRunning [#######.............] 3/8 tasks, stage 0/1   2.5s")
    assert err.endswith("\r") and not err.split("\r")[-2].strip()
    with pytest.raises(TypeError, match="progress must be a callable"):
        drillspark.sql("SHOW SCHEMAS", spark, progress="yes")  # type: ignore[arg-type]


def test_run_reports_progress_while_its_rows_are_fetched(spark, shared: Path):
    reports: list[drillspark.ProgressInfo] = []
    result = drillspark.run(supplier_plan(shared), spark=spark, progress=reports.append)
    assert reports == []  # nothing runs until the rows are fetched
    assert result.to_arrow().num_rows == 3
    assert reports and {p.phase for p in reports[:-1]} <= {"running"}
    assert reports[-1].phase == "done"
    with pytest.raises(TypeError, match="progress must be a callable"):
        drillspark.run(supplier_plan(shared), spark=spark, progress=1)  # type: ignore[arg-type]
