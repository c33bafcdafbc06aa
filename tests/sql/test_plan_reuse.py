"""A query's translation kept while the local files it read are unchanged (spark/plan_reuse.py,
#37; every SQL door's engines reuse them): the same statement sent again gets a new DataFrame over
the kept analyzed plan, planned as its own query. Anything that would make the kept one wrong
gives a new translation: a changed or added file, another plan (a view redefined, a session
option), a read that cannot be followed (the JVM's gauges in sys.memory), RANDOM's seed; a
catalog table (INFORMATION_SCHEMA, sys) is followed by the rows it lists."""

from __future__ import annotations

import json
import time

import pytest
from tests.scan.test_scan_job_counts import jobs_of

from drillspark.spark import plan_reuse
from drillspark.spark.storage import stamps
from drillspark.sql import SqlEngine, SqlSession


@pytest.fixture
def no_racy_window(monkeypatch):
    monkeypatch.setattr(stamps, "RACY_NS", 0)


def write(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def kept(spark) -> int:
    return len(plan_reuse._KEPT.get(spark, {}))


@pytest.fixture
def engine(spark, tmp_path, no_racy_window):
    plan_reuse._KEPT.pop(spark, None)
    session = SqlSession(workspaces={"data": str(tmp_path)})
    yield lambda: SqlEngine(spark, session, reuse_plans=True)
    plan_reuse._KEPT.pop(spark, None)


def rows(engine, sql: str) -> list[dict]:
    return engine().execute(sql)[-1].rows()


def test_a_statement_sent_again_reuses_its_translation_until_a_file_changes(
    spark, tmp_path, engine
):
    f = tmp_path / "t.json"
    write(f, [{"a": 1}, {"a": 2}])
    sql = "SELECT a, COUNT(*) AS n FROM dfs.data.`t.json` GROUP BY a ORDER BY a"
    assert rows(engine, sql) == [{"a": 1, "n": 1}, {"a": 2, "n": 1}]
    assert kept(spark) == 1
    first = next(iter(plan_reuse._KEPT[spark].values()))[1]
    assert rows(engine, sql) == [{"a": 1, "n": 1}, {"a": 2, "n": 1}]
    assert next(iter(plan_reuse._KEPT[spark].values()))[1] is first  # the kept one, reused
    write(f, [{"a": 3}, {"a": 3}, {"a": 4}])
    assert rows(engine, sql) == [{"a": 3, "n": 2}, {"a": 4, "n": 1}]
    assert next(iter(plan_reuse._KEPT[spark].values()))[1] is not first


def test_a_file_added_to_a_folder_is_read(spark, tmp_path, engine):
    d = tmp_path / "logs"
    d.mkdir()
    write(d / "1.json", [{"n": 1}])
    sql = "SELECT SUM(n) AS s FROM dfs.data.`logs`"
    assert rows(engine, sql) == [{"s": 1}]
    assert rows(engine, sql) == [{"s": 1}]
    write(d / "2.json", [{"n": 5}])
    assert rows(engine, sql) == [{"s": 6}]


def test_each_run_is_its_own_query_now_is_each_runs(spark, tmp_path, engine):
    write(tmp_path / "t.json", [{"a": 1}])
    sql = "SELECT CAST(NOW() AS VARCHAR) AS t, a FROM dfs.data.`t.json`"
    first = rows(engine, sql)
    assert kept(spark) == 1
    time.sleep(1.1)
    again = rows(engine, sql)
    assert again[0]["a"] == 1 and again[0]["t"] > first[0]["t"]


def test_random_is_translated_each_time(spark, tmp_path, engine):
    write(tmp_path / "t.json", [{"a": i} for i in range(20)])
    sql = "SELECT RANDOM() AS r FROM dfs.data.`t.json`"
    first = [r["r"] for r in rows(engine, sql)]
    assert [r["r"] for r in rows(engine, sql)] != first
    assert kept(spark) == 0


def test_a_session_option_or_a_redefined_view_is_another_plan(spark, tmp_path, engine):
    write(tmp_path / "t.json", [{"a": 1, "b": "x"}])
    plain = rows(engine, "SELECT a FROM dfs.data.`t.json`")
    assert plain == [{"a": 1}]
    e = engine()
    e.execute("ALTER SESSION SET `store.json.all_text_mode` = true")
    assert e.execute("SELECT a FROM dfs.data.`t.json`")[-1].rows() == [{"a": "1"}]
    try:
        e.execute("CREATE OR REPLACE VIEW dfs.tmp.v_reuse AS SELECT a FROM dfs.data.`t.json`")
        assert e.execute("SELECT * FROM dfs.tmp.v_reuse")[-1].rows() == [{"a": "1"}]
        e.execute("CREATE OR REPLACE VIEW dfs.tmp.v_reuse AS SELECT b FROM dfs.data.`t.json`")
        assert e.execute("SELECT * FROM dfs.tmp.v_reuse")[-1].rows() == [{"b": "x"}]
    finally:
        e.execute("DROP VIEW IF EXISTS dfs.tmp.v_reuse")


def test_a_read_stamps_cannot_follow_is_not_kept(spark, tmp_path, engine):
    write(tmp_path / "t.json", [{"a": 1}])
    rows(engine, "SELECT COUNT(*) AS n FROM sys.memory")  # the JVM's gauges: never the same
    # a join of a file with it: the file alone is not enough to keep it
    rows(engine, "SELECT t.a, m.heap_current FROM dfs.data.`t.json` t, sys.memory m LIMIT 1")
    assert kept(spark) == 0


def test_a_catalog_table_is_kept_while_it_lists_the_same_rows(spark, tmp_path, engine):
    write(tmp_path / "a.json", [{"a": 1}])
    sql = (
        "SELECT FILE_NAME FROM INFORMATION_SCHEMA.`FILES` "
        "WHERE SCHEMA_NAME = 'dfs.data' ORDER BY FILE_NAME"
    )
    assert [r["FILE_NAME"] for r in rows(engine, sql)] == ["a.json"]
    assert kept(spark) == 1
    first = next(iter(plan_reuse._KEPT[spark].values()))[1]
    assert [r["FILE_NAME"] for r in rows(engine, sql)] == ["a.json"]
    assert next(iter(plan_reuse._KEPT[spark].values()))[1] is first  # the kept one, reused
    write(tmp_path / "b.json", [{"a": 2}])  # the catalog lists another row: read again
    assert [r["FILE_NAME"] for r in rows(engine, sql)] == ["a.json", "b.json"]
    assert next(iter(plan_reuse._KEPT[spark].values()))[1] is not first


def test_a_session_option_changed_is_seen_in_sys_options(spark, tmp_path, engine):
    sql = "SELECT val FROM sys.options WHERE name = 'store.json.all_text_mode'"
    e = engine()
    before = e.execute(sql)[-1].rows()
    assert before == e.execute(sql)[-1].rows()
    e.execute("ALTER SESSION SET `store.json.all_text_mode` = true")
    assert e.execute(sql)[-1].rows() == [{"val": "true"}] != before


def test_a_file_changed_within_the_racy_window_is_not_kept(spark, tmp_path, monkeypatch):
    monkeypatch.setattr(stamps, "RACY_NS", 3600 * 10**9)
    plan_reuse._KEPT.pop(spark, None)
    write(tmp_path / "t.json", [{"a": 1}])
    e = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}), reuse_plans=True)
    assert e.execute("SELECT a FROM dfs.data.`t.json`")[-1].rows() == [{"a": 1}]
    assert kept(spark) == 0


def test_an_engine_without_reuse_keeps_nothing(spark, tmp_path, no_racy_window):
    plan_reuse._KEPT.pop(spark, None)
    write(tmp_path / "t.json", [{"a": 1}])
    e = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}), reuse_plans=False)
    for _ in range(2):
        assert e.execute("SELECT a FROM dfs.data.`t.json`")[-1].rows() == [{"a": 1}]
    assert kept(spark) == 0


def test_the_python_api_keeps_a_translation_until_a_file_changes(spark, tmp_path, no_racy_window):
    """`drillspark.sql` is a door of the same query service: a notebook cell or a benchmark
    run again reuses the translation, and a changed file is read again."""
    import drillspark

    plan_reuse._KEPT.pop(spark, None)
    f = tmp_path / "t.json"
    write(f, [{"a": 1}, {"a": 2}])
    sql = f"SELECT SUM(a) AS s FROM dfs.`{f}`"
    assert drillspark.sql(sql, spark).rows() == [{"s": 3}]
    assert kept(spark) == 1
    first = next(iter(plan_reuse._KEPT[spark].values()))[1]
    assert drillspark.sql(sql, spark).rows() == [{"s": 3}]
    assert next(iter(plan_reuse._KEPT[spark].values()))[1] is first
    write(f, [{"a": 10}])
    assert drillspark.sql(sql, spark).rows() == [{"s": 10}]
    plan_reuse._KEPT.pop(spark, None)


def test_keep_translations_false_translates_every_time(spark, tmp_path, no_racy_window):
    import drillspark

    plan_reuse._KEPT.pop(spark, None)
    write(tmp_path / "t.json", [{"a": 1}])
    sql = f"SELECT a FROM dfs.`{tmp_path / 't.json'}`"
    spark.conf.set("spark.drillspark.keepTranslations", "false")
    try:
        for _ in range(2):
            assert drillspark.sql(sql, spark).rows() == [{"a": 1}]
        assert kept(spark) == 0
    finally:
        spark.conf.unset("spark.drillspark.keepTranslations")
    assert drillspark.sql(sql, spark).rows() == [{"a": 1}]
    assert kept(spark) == 1
    plan_reuse._KEPT.pop(spark, None)


def test_a_drill_conf_changed_is_another_key(spark, tmp_path, no_racy_window):
    """The extension's confs that change what a plan answers (here flatten.strict) are part
    of the key: a kept plan never answers under the old value."""
    import drillspark

    plan_reuse._KEPT.pop(spark, None)
    write(tmp_path / "t.json", [{"a": 1, "xs": 5}])
    sql = f"SELECT FLATTEN(t.xs) AS x FROM dfs.`{tmp_path / 't.json'}` t"
    key = "spark.drillspark.flatten.strict"
    before = spark.conf.get(key, None)
    try:
        spark.conf.set(key, "false")
        assert drillspark.sql(sql, spark).rows() == [{"x": 5}]
        spark.conf.set(key, "true")
        with pytest.raises(Exception, match="(?i)flatten"):
            drillspark.sql(sql, spark).rows()
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
    plan_reuse._KEPT.pop(spark, None)


def test_each_user_has_own_kept_translations(spark, tmp_path, no_racy_window):
    plan_reuse._KEPT.pop(spark, None)
    write(tmp_path / "t.json", [{"a": 1}])
    for user in ("alice", "bob", "alice"):
        session = SqlSession(workspaces={"data": str(tmp_path)})
        session.user = user
        e = SqlEngine(spark, session, reuse_plans=True)
        assert e.execute("SELECT a FROM dfs.data.`t.json`")[-1].rows() == [{"a": 1}]
    assert sorted(k[-1] for k in plan_reuse._KEPT[spark]) == [("user", "alice"), ("user", "bob")]
    plan_reuse._KEPT.pop(spark, None)


def test_a_plan_spark_fixes_nothing_in_runs_again_as_it_is(spark, tmp_path, engine):
    """No clock, no nondeterministic expression: the kept DataFrame itself answers again (its
    physical plan made once, compat.ReusablePlans); with NOW() a new one each run."""
    write(tmp_path / "t.json", [{"a": 1}, {"a": 1}, {"a": 2}])
    sql = "SELECT a, COUNT(*) AS n FROM dfs.data.`t.json` GROUP BY a ORDER BY a"
    first = engine().execute(sql)[-1]
    assert first.rows() == [{"a": 1, "n": 2}, {"a": 2, "n": 1}]
    again = engine().execute(sql)[-1]
    assert again.df is first.df
    assert again.rows() == [{"a": 1, "n": 2}, {"a": 2, "n": 1}]
    clock = "SELECT a, CURRENT_DATE AS d FROM dfs.data.`t.json`"
    one = engine().execute(clock)[-1]
    two = engine().execute(clock)[-1]
    assert two.df is not one.df and two.rows() == one.rows()
    whole = {k[0]: v[1][2] for k, v in plan_reuse._KEPT[spark].items()}
    assert sorted(whole.values()) == [False, True]


def test_a_whole_kept_plan_runs_concurrently_without_aqes_lock(spark, tmp_path, engine):
    """AQE's wrapper holds its lock for a whole run, so sixteen dashboards' same chart queued
    behind each other: the kept whole plan is its final plan without the wrapper
    (ReusablePlans.planned), and concurrent runs of it each answer in full, each its own job."""
    import threading

    write(tmp_path / "t.json", [{"a": i % 3} for i in range(30)])
    sql = "SELECT a, COUNT(*) AS n FROM dfs.data.`t.json` GROUP BY a ORDER BY a"
    want = [{"a": 0, "n": 10}, {"a": 1, "n": 10}, {"a": 2, "n": 10}]
    assert rows(engine, sql) == want
    (_, (_, df, whole, _)) = next(iter(plan_reuse._KEPT[spark].values()))
    assert whole
    plan = df._jdf.queryExecution().executedPlan()
    assert "AdaptiveSparkPlan" not in plan.getClass().getName()
    assert "HashAggregate" in plan.toString()
    answers: dict[int, list] = {}
    failures: list[BaseException] = []

    def client(i: int) -> None:
        try:
            n, got = jobs_of(
                spark, f"kept-{i}", lambda: [engine().execute(sql)[-1].rows() for _ in range(3)]
            )
            answers[i] = [n, got]
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert answers == {i: [3, [want, want, want]] for i in range(8)}
    assert kept(spark) == 1


def test_a_planning_conf_changed_plans_again(spark, tmp_path, engine):
    """A whole kept plan is planned once: a change of a planning conf the key holds
    (plan_reuse.CONFS) is another key."""
    write(tmp_path / "t.json", [{"a": 1}])
    sql = "SELECT a, COUNT(*) AS n FROM dfs.data.`t.json` GROUP BY a"
    before = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        engine().execute(sql)[-1].rows()
        spark.conf.set("spark.sql.shuffle.partitions", "3")
        assert engine().execute(sql)[-1].rows() == [{"a": 1, "n": 1}]
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
    assert kept(spark) == 2


def test_a_plan_with_an_exchange_is_planned_each_time(spark, tmp_path, engine):
    """An exchange (here a GROUP BY's shuffle, the one-partition rule off) keeps its first
    execution's outcome (a run cancelled half-way would leave a failed stage): such a plan is
    kept as its analyzed plan only, planned again each run."""
    write(tmp_path / "t.json", [{"a": 1}, {"a": 2}])
    sql = "SELECT a, COUNT(*) AS n FROM dfs.data.`t.json` GROUP BY a ORDER BY a"
    key = "spark.drillspark.singlePartitionScans"
    before = spark.conf.get(key, None)
    try:
        spark.conf.set(key, "false")
        first = engine().execute(sql)[-1]
        assert first.rows() == [{"a": 1, "n": 1}, {"a": 2, "n": 1}]
        again = engine().execute(sql)[-1]
        assert again.df is not first.df
        assert again.rows() == first.rows()
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
    assert [v[1][2] for v in plan_reuse._KEPT[spark].values()] == [False]


def test_a_catalog_aggregate_is_answered_once_while_its_rows_are_the_same(
    spark, tmp_path, no_racy_window
):
    # FILES lists every workspace: dfs.tmp and dfs.root here would list /tmp and /, which other
    # processes change at any moment (a changed row is a new answer, rightly): all kept in tmp_path
    plan_reuse._KEPT.pop(spark, None)
    data, other = tmp_path / "data", tmp_path / "other"
    data.mkdir()
    other.mkdir()
    names = {"data": str(data), "tmp": str(other), "root": str(other), "default": str(other)}
    engine = lambda: SqlEngine(spark, SqlSession(workspaces=names), reuse_plans=True)  # noqa: E731
    write(data / "a.json", [{"a": 1}])
    sql = (
        "SELECT count(*) AS n, min(FILE_NAME) AS first FROM INFORMATION_SCHEMA.`FILES` "
        "WHERE SCHEMA_NAME = 'dfs.data'"
    )
    jobs, first = jobs_of(spark, "reuse-catalog-0", lambda: rows(engine, sql))
    assert first == [{"n": 1, "first": "a.json"}] and jobs > 0  # an aggregate: Spark jobs
    jobs, again = jobs_of(spark, "reuse-catalog-1", lambda: rows(engine, sql))
    assert again == first and jobs == 0  # its kept answer: no job
    write(data / "b.json", [{"a": 2}])
    jobs, changed = jobs_of(spark, "reuse-catalog-2", lambda: rows(engine, sql))
    assert changed == [{"n": 2, "first": "a.json"}] and jobs > 0
    plan_reuse._KEPT.pop(spark, None)


def test_a_catalog_query_with_the_clock_is_not_answered_once(spark, tmp_path, engine):
    sql = "SELECT count(*) AS n, CAST(NOW() AS VARCHAR) AS t FROM sys.drillbits"
    first = rows(engine, sql)
    time.sleep(1.1)
    again = rows(engine, sql)
    assert again[0]["n"] == first[0]["n"] == 1 and again[0]["t"] > first[0]["t"]
