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


def test_schema_and_count_caches_under_concurrent_rewrites(spark, tmp_path):
    """Threads rewrite their own file (a new type each round) and read it back while all of
    them read one shared folder: each sees exactly what it last wrote (the schema and count
    caches are keyed per file and change stamp, and shared safely), the shared folder always
    counts the same."""
    import json

    shared_dir = tmp_path / "shared"
    shared_dir.mkdir()
    for i in range(20):
        (shared_dir / f"s{i:02d}.json").write_text(json.dumps({"id": i}) + "\n")
    errors: list[BaseException] = []
    seen: list[tuple] = []

    def work(n: int) -> None:
        own = tmp_path / f"own{n}.json"
        try:
            for round_ in range(4):
                value = round_ if round_ % 2 == 0 else f"r{round_}"
                own.write_text("".join(json.dumps({"v": value}) + "\n" for _ in range(round_ + 1)))
                df = spark.read.format("drill").load(str(own))
                want = "bigint" if round_ % 2 == 0 else "string"
                seen.append((df.dtypes, df.count(), [r.v for r in df.collect()]))
                assert df.dtypes == [("v", want)], (n, round_, df.dtypes)
                assert df.count() == round_ + 1
                assert spark.read.format("drill").load(str(shared_dir)).count() == 20
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(seen) == 16
