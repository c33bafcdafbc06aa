"""CTAS and `store` write all or nothing, one writer per target, never deleting what someone
else put at the target, and clean up what killed writes left behind."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading

import pytest
from pyspark.sql import functions as F

from drillspark.spark.storage.writers import WriteError, write_atomic
from drillspark.sql import SqlEngine, SqlSession


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


def test_a_file_put_at_the_target_mid_write_is_kept_and_the_write_fails(spark, tmp_path):
    target = tmp_path / "t"

    @F.udf("bigint")
    def intrude(x):  # runs while the write runs: someone else puts a file at the target
        if not os.path.exists(target):
            with open(target, "w") as f:
                f.write("mine")
        return x

    df = spark.range(3).coalesce(1).select(intrude("id").alias("id"))
    with pytest.raises(WriteError, match="changed while the write ran"):
        write_atomic(df, str(target), "json")
    assert target.read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["t"]  # no staging folder, no lock left


def test_a_second_writer_fails_clearly_while_the_first_holds_the_target(spark, tmp_path):
    lock = tmp_path / ".t.drillspark-lock"
    lock.write_text(f"{socket.gethostname()} {os.getpid()} held-by-this-live-process")
    with pytest.raises(WriteError, match=r"another write to .*t is in progress"):
        write_atomic(spark.range(1), str(tmp_path / "t"), "json")
    assert sorted(os.listdir(tmp_path)) == [".t.drillspark-lock"]


def test_leftovers_of_a_killed_write_are_cleaned_by_the_next_write(spark, tmp_path):
    (tmp_path / ".t.drillspark-lock").write_text(f"{socket.gethostname()} {_dead_pid()} x")
    orphan = tmp_path / ".t.drillspark-0123abcd"
    orphan.mkdir()
    (orphan / "part-0.json").write_text('{"id": 99}\n')
    other = tmp_path / ".u.drillspark-0123abcd"  # another target's staging: not ours to touch
    other.mkdir()
    report = write_atomic(spark.range(2).coalesce(1), str(tmp_path / "t"), "json")
    assert report.rows == 2
    assert sorted(os.listdir(tmp_path)) == [".u.drillspark-0123abcd", "t"]
    with open(report.files[0]) as f:
        rows = [json.loads(x) for x in f]
    assert rows == [{"id": 0}, {"id": 1}]


def test_overwrite_replaces_only_once_the_new_table_is_complete(spark, tmp_path):
    target = tmp_path / "t"
    write_atomic(spark.range(1).coalesce(1), str(target), "json")
    bad = spark.range(3).select(F.raise_error(F.lit("boom")).alias("x"))
    with pytest.raises(Exception, match="boom"):
        write_atomic(bad, str(target), "json", overwrite=True)
    assert sorted(os.listdir(tmp_path)) == ["t"]  # the old table is intact
    report = write_atomic(spark.range(2).coalesce(1), str(target), "json", overwrite=True)
    assert report.rows == 2 and sorted(os.listdir(tmp_path)) == ["t"]


def test_two_concurrent_ctas_to_one_target_one_wins_one_fails(spark, tmp_path):
    def engine() -> SqlEngine:
        return SqlEngine(spark, SqlSession(workspaces={"tmp": str(tmp_path)}))

    outcomes: list[str] = []

    def ctas(n: int) -> None:
        try:
            engine().execute(f"CREATE TABLE dfs.tmp.`t` AS SELECT {n} AS n FROM (VALUES(1))")
            outcomes.append("ok")
        except Exception as e:  # noqa: BLE001
            outcomes.append(str(e))

    threads = [threading.Thread(target=ctas, args=(n,)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 1, outcomes
    (failure,) = [o for o in outcomes if o != "ok"]
    assert "in progress" in failure or "already exists" in failure, failure
    rows = engine().execute("SELECT n FROM dfs.tmp.`t`")[-1].rows()
    assert len(rows) == 1 and rows[0]["n"] in (1, 2)
    assert sorted(os.listdir(tmp_path)) == ["t"]
