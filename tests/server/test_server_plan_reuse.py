"""The server keeps a query's translation while its files are unchanged (spark/plan_reuse.py,
#37): a statement sent again is still its own query, with its own profile and Spark metrics
(not the first run's added up)."""

from __future__ import annotations

from tests.server.helpers import Http

from drillspark.spark import plan_reuse

NATION = "dfs.data.`breadth/tpch_json/nation.json`"


def test_a_statement_sent_again_has_its_own_metrics(server, spark):
    sql = f"SELECT N_REGIONKEY, count(*) AS n FROM {NATION} GROUP BY N_REGIONKEY ORDER BY 1"
    http = Http(server.url)
    runs = [http.query(sql) for _ in range(3)]
    assert all(r["rows"] == runs[0]["rows"] for r in runs) and len(runs[0]["rows"]) == 5
    keys = [k for k in plan_reuse._KEPT.get(spark, {}) if "nation.json" in str(k[0])]
    assert keys, "the statement's translation is kept"
    ids = {r["queryId"] for r in runs}
    assert len(ids) == 3
    for run in runs:
        metrics = http.get_json(f"/profiles/{run['queryId']}/metrics.json")
        operators = [o for x in metrics for o in x["operators"]]
        aggregates = [o for o in operators if o["name"] == "HashAggregate"]
        # each run's own 5 groups: a reused physical plan would add them up (10, 15)
        assert aggregates and all(o["rows"] == "5" for o in aggregates), aggregates


def test_concurrent_runs_of_a_kept_statement_each_have_their_own_metrics(server, spark):
    """A whole kept plan runs side by side with itself (no AQE lock, compat.ReusablePlans):
    each run's profile still counts its own rows only."""
    import threading

    sql = f"SELECT N_REGIONKEY, count(*) AS c FROM {NATION} GROUP BY N_REGIONKEY ORDER BY 1"
    http = Http(server.url)
    first = http.query(sql)
    runs: list[dict] = []
    failures: list[BaseException] = []

    def client() -> None:
        try:
            for _ in range(3):
                runs.append(Http(server.url).query(sql))
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(runs) == 18 and all(r["rows"] == first["rows"] for r in runs)
    assert len({r["queryId"] for r in runs}) == 18
    for run in runs:
        metrics = http.get_json(f"/profiles/{run['queryId']}/metrics.json")
        operators = [o for x in metrics for o in x["operators"]]
        aggregates = [o for o in operators if o["name"] == "HashAggregate"]
        assert aggregates and all(o["rows"] == "5" for o in aggregates), aggregates


def test_a_row_limit_on_a_kept_statement_is_planned_once(server, spark, monkeypatch):
    """A client's row limit (autoLimit here; JDBC's setMaxRows, the console's limit) on a kept
    statement: its cut DataFrame is planned once and run again while the file is unchanged
    (plan_reuse.limited), each run its own query with the right rows; a change to the file is
    read by the next run."""
    from drillspark.spark.storage import stamps

    monkeypatch.setattr(stamps, "RACY_NS", 0)  # the file was just written: keep it anyway
    folder = server.catalog.workspaces["tmp"]
    path = f"{folder}/limited.json"
    with open(path, "w") as f:
        f.write("".join(f'{{"k":{i % 7},"v":{i}}}\n' for i in range(100)))
    sql = "SELECT k, count(*) AS n FROM dfs.tmp.`limited.json` GROUP BY k ORDER BY k"
    http = Http(server.url)
    runs = [http.query(sql, autoLimit=3) for _ in range(3)]
    assert all(r["rows"] == [{"k": 0, "n": 15}, {"k": 1, "n": 15}, {"k": 2, "n": 14}] for r in runs)
    assert len({r["queryId"] for r in runs}) == 3
    assert any(3 in forms for forms in list(plan_reuse._LIMITED.values())), "kept: its cut form"
    for run in runs:  # each run's own metrics: a reused plan's would add up (14, 21 groups)
        metrics = http.get_json(f"/profiles/{run['queryId']}/metrics.json")
        aggregates = [o for x in metrics for o in x["operators"] if o["name"] == "HashAggregate"]
        assert aggregates and all(o["rows"] == "7" for o in aggregates), aggregates
    with open(path, "w") as f:
        f.write("".join(f'{{"k":{i % 2},"v":{i}}}\n' for i in range(10)))
    assert http.query(sql, autoLimit=3)["rows"] == [{"k": 0, "n": 5}, {"k": 1, "n": 5}]
