"""DrillResult (rows, Arrow, pandas, explain, the batch protocol), store, and `drillspark run`."""

from __future__ import annotations

import json
import os
import re

import pytest

from drillspark.cli.main import main as cli_main
from drillspark.operators.outcome import IterOutcome

from .conftest import HEAD, values

ROWS = [{"i": i, "s": f"r{i}", "m": {"k": i * 10}} for i in range(5)]


def test_rows_arrow_pandas(run_plan):
    r = run_plan([values(1, ROWS)])
    assert r.rows()[1] == {"i": 1, "s": "r1", "m": {"k": 10}}
    table = r.to_arrow()
    assert table.num_rows == 5 and table.column("i").to_pylist() == [0, 1, 2, 3, 4]
    assert list(r.to_pandas()["s"]) == ["r0", "r1", "r2", "r3", "r4"]


def test_explain_shows_drill_and_spark_plans(run_plan):
    text = run_plan(
        [values(1, ROWS), {"@id": 2, "op": "filter", "input": 1, "expr": "i > 2"}]
    ).explain(print_it=False)
    assert "== Drill logical plan ==" in text and "filter" in text
    assert "== Spark plan ==" in text and "Filter" in text


def test_batches_follow_drills_protocol(run_plan):
    stream = run_plan([values(1, ROWS)]).batches(batch_rows=2)
    got = [(o, b.num_rows if b is not None else None) for o, b in stream]
    assert got == [
        (IterOutcome.OK_NEW_SCHEMA, 2),
        (IterOutcome.OK, 2),
        (IterOutcome.OK, 1),
        (IterOutcome.NONE, None),
    ]
    assert stream.next() == (IterOutcome.NONE, None)  # NONE forever after
    assert stream.schema.names == ["i", "s", "m"]


def test_empty_result_still_sends_the_schema_first(run_plan):
    stream = run_plan(
        [values(1, ROWS), {"@id": 2, "op": "filter", "input": 1, "expr": "i > 100"}]
    ).batches()
    outcome, batch = stream.next()
    assert outcome is IterOutcome.OK_NEW_SCHEMA and batch.num_rows == 0
    assert batch.schema.names == ["i", "s", "m"]
    assert stream.next() == (IterOutcome.NONE, None)


def test_a_failure_is_stop_with_the_error(run_plan):
    stream = run_plan(
        [
            values(1, ROWS),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [{"ref": "x", "expr": "cast(s as int)"}],
            },
        ]
    ).batches()
    assert stream.next() == (IterOutcome.STOP, None)
    # Drill 1.22 refuses a text an INT cast cannot read with NumberFormatException: <text>
    assert stream.error is not None
    assert re.search(r"NumberFormatException: r[0-4]", str(stream.error)), stream.error
    assert stream.next() == (IterOutcome.STOP, None)


def test_store_json_is_atomic_and_reports(run_plan, tmp_path):
    q = [
        values(1, ROWS),
        {
            "@id": 2,
            "op": "store",
            "input": 1,
            "storageengine": "out",
            "target": {"path": "/res", "format": "json"},
        },
    ]
    r = run_plan(q, storage={"out": {"type": "file", "root": str(tmp_path)}})
    (w,) = r.written
    assert w.rows == 5 and w.files and os.path.dirname(w.files[0]) == str(tmp_path / "res")
    assert r.rows() == [
        {"path": str(tmp_path / "res"), "format": "json", "files": len(w.files), "rows": 5}
    ]
    back = [json.loads(line) for f in w.files for line in open(f)]  # noqa: SIM115
    assert sorted(x["i"] for x in back) == [0, 1, 2, 3, 4]
    with pytest.raises(Exception, match="already exists"):
        run_plan(q, storage={"out": {"type": "file", "root": str(tmp_path)}})


def test_store_parquet_and_csv_then_scan_back(run_plan, tmp_path):
    flat = [{"i": r["i"], "s": r["s"]} for r in ROWS]
    storage = {"out": {"type": "file", "root": str(tmp_path)}}
    for fmt in ("parquet", "csv"):
        r = run_plan(
            [
                values(1, flat),
                {
                    "@id": 2,
                    "op": "store",
                    "input": 1,
                    "storageengine": "out",
                    "target": {"path": f"/t_{fmt}", "format": fmt},
                },
            ],
            storage=storage,
        )
        assert r.written[0].rows == 5
    back = run_plan(
        [{"@id": 1, "op": "scan", "storageengine": "out", "selection": {"path": "/t_parquet"}}],
        storage=storage,
    )
    assert sorted(x["i"] for x in back.rows()) == [0, 1, 2, 3, 4]


def test_console_and_screen_sinks_return_the_rows(run_plan):
    for engine in ("--SCREEN--", "console"):
        r = run_plan(
            [
                values(1, ROWS),
                {"@id": 2, "op": "store", "input": 1, "storageengine": engine, "target": None},
            ],
            storage={"console": {"type": "console"}},
        )
        assert len(r.rows()) == 5 and r.written == []


def test_cli_run_json_output(spark, shared, tmp_path, capsys):
    plan = tmp_path / "p.json"
    plan.write_text(
        json.dumps(
            {
                "head": HEAD,
                "storage": {"cp": {"type": "classpath"}},
                "query": [
                    {
                        "@id": 1,
                        "op": "scan",
                        "storageengine": "cp",
                        "selection": {"path": "/departments.json"},
                    },
                    {"@id": 2, "op": "filter", "input": 1, "expr": "deptId > 32"},
                ],
            }
        )
    )
    cp = str(shared / "data/drill-conformance/logical/drill-0.1.0")
    assert cli_main(["run", str(plan), "--classpath", cp, "--format", "json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert sorted(x["name"] for x in lines) == ["Clerical", "Engineering", "Marketing"]
    assert spark.range(3).count() == 3  # the test session was left running
    out = tmp_path / "out.csv"
    storage = json.dumps({"type": "classpath", "root": cp})
    assert (
        cli_main(
            [
                "run",
                str(plan),
                "--storage",
                f"cp={storage}",
                "--format",
                "csv",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    lines = out.read_text().splitlines()
    assert lines[0] == "deptId,name" and sorted(lines[1:]) == [
        "33,Engineering",
        "34,Clerical",
        "35,Marketing",
    ]


@pytest.mark.usefixtures("spark")  # the CLI runs in process on the session
def test_cli_run_errors_are_one_paragraph(tmp_path, capsys):
    plan = tmp_path / "bad.json"
    plan.write_text(
        json.dumps(
            {
                "head": HEAD,
                "query": [
                    values(1, ROWS),
                    {"@id": 2, "op": "filter", "input": 1, "expr": "nosuch(i)"},
                ],
            }
        )
    )
    assert cli_main(["run", str(plan)]) == 1
    err = capsys.readouterr().err
    assert "operator @2 (filter)" in err and "nosuch" in err and "Traceback" not in err


def test_runtime_failures_are_one_paragraph(run_plan):
    from drillspark.result import DrillRuntimeError

    r = run_plan(
        [
            values(1, ROWS),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [{"ref": "x", "expr": "cast(s as int)"}],
            },
        ]
    )
    with pytest.raises(DrillRuntimeError) as e:
        r.rows()
    msg = str(e.value)
    # whichever row a task reaches first names the failure
    assert re.search(r"NumberFormatException: r[0-4]", msg) and "\tat " not in msg


def test_row_failures_name_the_operator_that_failed(run_plan):
    from drillspark.result import DrillRuntimeError

    # @2 casts cleanly ("7" and "8"), @3's cast of `s` fails; @4 reads both
    rows = [{"n": "7", "s": "x"}, {"n": "8", "s": "y"}]
    r = run_plan(
        [
            values(1, rows),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [{"ref": "n", "expr": "cast(n as int)"}, {"ref": "s", "expr": "s"}],
            },
            {
                "@id": 3,
                "op": "transform",
                "input": 2,
                "transforms": [{"ref": "bad", "expr": "cast(s as int)"}],
            },
            {"@id": 4, "op": "filter", "input": 3, "expr": "n > 0"},
        ]
    )
    # the cast's refusal is Drill's (NumberFormatException: <text>), raised with raise_error
    expected = r"^operator @3 \(transform\): .*NumberFormatException: [xy].*\(in the plan\)$"
    for fetch in (r.rows, r.to_arrow):
        with pytest.raises(DrillRuntimeError, match=expected) as e:
            fetch()
        assert (e.value.op_id, e.value.op) == (3, "transform")
    stream = r.batches()
    assert stream.next() == (IterOutcome.STOP, None)
    assert re.match(expected, str(stream.error))
    assert isinstance(stream.error, DrillRuntimeError) and stream.error.op_id == 3


def test_a_refused_value_names_its_operator_without_running_again(run_plan, spark):
    """drillspark's own refusals of a value (here Drill's NumberFormatException of a text cast)
    carry the operator that built them (spark/row_errors.py): the failure names @3 from the
    error itself, and the failing fetch runs as many Spark jobs as the same plan on clean data
    (before, the operators ran again through a noop sink to find the one that fails)."""
    from drillspark.result import DrillRuntimeError

    tracker = spark.sparkContext.statusTracker()

    def jobs() -> set[int]:
        return set(tracker.getJobIdsForGroup(None))

    def plan(texts: list[str]) -> list[dict]:
        return [
            values(1, [{"n": str(i), "s": t} for i, t in enumerate(texts)]),
            {"@id": 2, "op": "project", "input": 1, "projections": [{"ref": "s", "expr": "s"}]},
            {
                "@id": 3,
                "op": "transform",
                "input": 2,
                "transforms": [{"ref": "v", "expr": "cast(s as int)"}],
            },
            {"@id": 4, "op": "filter", "input": 3, "expr": "v >= 0"},
        ]

    clean = run_plan(plan(["1", "2"]))
    before = jobs()
    assert [r["v"] for r in clean.rows()] == [1, 2]
    clean_jobs = len(jobs() - before)
    bad = run_plan(plan(["1", "x"]))
    before = jobs()
    with pytest.raises(DrillRuntimeError) as e:
        bad.rows()
    assert (e.value.op_id, e.value.op) == (3, "transform")
    assert str(e.value).startswith("operator @3 (transform): ")
    assert "NumberFormatException: x" in str(e.value) and "drillspark operator" not in str(e.value)
    assert len(jobs() - before) == clean_jobs >= 1


def test_an_operator_no_handler_knows_is_refused_by_id(spark):
    from dataclasses import dataclass
    from typing import ClassVar

    from drillspark.plan.operators import Operator
    from drillspark.spark.storage import StorageRegistry
    from drillspark.spark.translator import Translator

    @dataclass(frozen=True, kw_only=True)
    class Mystery(Operator):
        OP: ClassVar[str] = "mystery"
        ROLE = "source"

    from drillspark.spark.rel import PlanExecutionError

    with pytest.raises(
        PlanExecutionError, match=r"^operator @7 \(mystery\): unknown operator 'mystery'"
    ) as e:
        Translator(spark, [Mystery(id=7)], StorageRegistry({}, None)).run()
    assert (e.value.op_id, e.value.op) == (7, "mystery")


def test_row_failures_in_sql_name_the_operator_and_query(spark, shared):
    from drillspark.result import DrillRuntimeError
    from drillspark.sql import SqlEngine, SqlSession
    from drillspark.sql.output import columns_and_rows

    engine = SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data" / "drill-conformance")})
    )
    query = "select cast(t.x.y as int) from dfs.`data/drill/jsoninput/input2.json` t"
    result = engine.execute(query)[-1]
    with pytest.raises(DrillRuntimeError) as e:
        columns_and_rows(result)
    msg = str(e.value)
    assert re.match(r"operator @\d+ \(project\): .*NumberFormatException: kevin\b", msg), msg
    assert msg.endswith(f"(in query {query})")
