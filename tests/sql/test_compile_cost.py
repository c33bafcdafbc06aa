"""The fixed cost of compiling a statement (Drill SQL -> plan -> Spark DataFrame) on classic
Spark is py4j round trips from Python to the driver JVM (docs/performance.md, "The cost of
compiling a statement"). The count is deterministic for a statement over a given schema, so a
bound on it catches a change that brings back a per-column or per-call cost (PySpark's
DataFrame debugging alone makes every column reference 13 round trips instead of 3)."""

from __future__ import annotations

import json

from py4j import clientserver

from drillspark.session import DEBUGGING_CONF
from drillspark.sql import SqlEngine, SqlSession


def test_drillspark_sessions_leave_pysparks_dataframe_debugging_off(spark):
    # the call sites it records would be the translator's own lines
    assert spark.conf.get(DEBUGGING_CONF) == "false"


def _round_trips(monkeypatch, run) -> tuple[int, object]:
    """py4j commands sent while `run()` runs, without the releases of garbage-collected
    proxies (those follow Python's collector, not the statement), and run()'s answer."""
    sent: list[str] = []
    send = clientserver.ClientServerConnection.send_command

    def counting(self, command):
        if not command.startswith("m\nd\n"):
            sent.append(command)
        return send(self, command)

    monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
    answer = run()
    monkeypatch.undo()
    return len(sent), answer


def test_a_warm_statement_compiles_in_few_round_trips(spark, tmp_path, monkeypatch):
    rows = [{"id": i, "kind": "a" if i % 3 else "b", "m": {"score": i * 1.5}} for i in range(30)]
    (tmp_path / "t.json").write_text("\n".join(json.dumps(r) for r in rows))
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
    sql = (
        "SELECT t.kind, count(*) AS n, sum(t.m.score) AS s FROM dfs.data.`t.json` t "
        "WHERE t.id > 2 GROUP BY t.kind ORDER BY t.kind"
    )
    engine.execute(sql)[-1].rows()  # warm: the file's schema is known, the session set up
    calls, result = _round_trips(monkeypatch, lambda: engine.execute(sql)[-1])
    # the answer, from the data: ids 3..29; kind b where id % 3 == 0 (3, 6, ..., 27: 9 rows)
    got = [(r["kind"], r["n"], r["s"]) for r in result.rows()]
    b = [i for i in range(3, 30) if i % 3 == 0]
    a = [i for i in range(3, 30) if i % 3]
    assert got == [("a", len(a), sum(a) * 1.5), ("b", len(b), sum(b) * 1.5)]
    # 82 when written (387 before the work on compile cost, 202 with only PySpark's DataFrame
    # debugging turned back on)
    assert calls <= 150, f"{calls} py4j round trips to compile one statement"
