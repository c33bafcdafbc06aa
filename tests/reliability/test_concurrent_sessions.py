"""`drillspark.sql` from many threads (issue #15): each thread's USE / ALTER SESSION apply to
that thread only (was: 179 of 351 results changed by other threads); within one thread they
persist between calls, as a notebook expects."""

from __future__ import annotations

import threading

import drillspark


def _typeof_key(spark, shared) -> str:
    table = shared / "data" / "breadth" / "tpch_json" / "nation.json"
    rows = drillspark.sql(
        f"SELECT typeof(N_NATIONKEY) AS t FROM dfs.`{table}` LIMIT 1", spark
    ).rows()
    return rows[0]["t"]


def test_alter_session_is_per_thread(spark, shared):
    results: dict[tuple[int, int], str] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(n: int) -> None:
        try:
            text = n % 2 == 0
            start.wait()
            for round_ in range(3):
                drillspark.sql(f"ALTER SESSION SET `store.json.all_text_mode` = {str(text)}", spark)
                results[(n, round_)] = _typeof_key(spark, shared)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for (n, _round), typ in results.items():
        assert typ == ("VARCHAR" if n % 2 == 0 else "BIGINT"), (n, typ)
    assert len(results) == 12


def test_one_thread_keeps_its_session_between_calls(spark, shared):
    drillspark.sql("ALTER SESSION SET `store.json.all_text_mode` = true", spark)
    try:
        assert _typeof_key(spark, shared) == "VARCHAR"
        seen: list[str] = []
        other = threading.Thread(target=lambda: seen.append(_typeof_key(spark, shared)))
        other.start()
        other.join()
        assert seen == ["BIGINT"]  # a new thread starts from the defaults
    finally:
        drillspark.sql("ALTER SESSION RESET ALL", spark)
    assert _typeof_key(spark, shared) == "BIGINT"
