"""Faults between planning and reading (issue #15, "Faults survived"): a file that disappears,
is rewritten with other types, or grows after the DataFrame was planned (its schema discovered);
and, on local-cluster, an executor killed mid-scan. Each gives the right answer or one clear
error naming the file, and the session answers the next query (docs/reliability.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException

APPS = Path(__file__).resolve().parent / "apps"


def write_files(folder: Path, files: int, rows: int) -> list[dict]:
    folder.mkdir(parents=True, exist_ok=True)
    records = []
    for i in range(files):
        chunk = [
            {"id": i * rows + j, "v": (i * 7 + j * 3) % 101, "s": f"r{j}"} for j in range(rows)
        ]
        (folder / f"part-{i:02d}.json").write_text("".join(json.dumps(r) + "\n" for r in chunk))
        records += chunk
    return records


def failure_text(action) -> str:
    with pytest.raises((Py4JJavaError, PySparkException)) as info:
        action()
    return str(info.value)


def test_a_file_deleted_after_planning_is_one_error_naming_it(spark, tmp_path):
    write_files(tmp_path / "d", 3, 50)
    df = spark.read.format("drill").load(str(tmp_path / "d")).select("id", "s")
    os.remove(tmp_path / "d" / "part-01.json")
    text = failure_text(df.collect)
    assert f"drill: file:{tmp_path / 'd' / 'part-01.json'}" in text, text[:2000]
    assert "does not exist" in text
    # a new DataFrame lists the folder again: the two files left, nothing mixed in
    assert spark.read.format("drill").load(str(tmp_path / "d")).count() == 100


def test_a_file_rewritten_with_other_types_after_planning_fails_at_its_line(spark, tmp_path):
    write_files(tmp_path / "d", 2, 50)
    df = spark.read.format("drill").load(str(tmp_path / "d")).select("id", "s")
    (tmp_path / "d" / "part-00.json").write_text('{"id": 1, "s": "a"}\n{"id": "two", "s": "b"}\n')
    text = failure_text(df.collect)
    assert f"file:{tmp_path / 'd' / 'part-00.json'} line 2" in text, text[:2000]
    assert "'two' does not fit column type BIGINT" in text
    rows = spark.read.format("drill").load(str(tmp_path / "d")).select("id").collect()
    assert len(rows) == 52  # rediscovered: `id` is now a text column holding both kinds


def test_a_file_that_grows_after_planning_is_read_whole_with_the_planned_columns(spark, tmp_path):
    """Documented result: the read sees each file as it is when its task opens it; columns new
    since planning are not added to a DataFrame already planned (the next query has them)."""
    records = write_files(tmp_path / "d", 2, 50)
    df = spark.read.format("drill").load(str(tmp_path / "d")).select("id", "v")
    with open(tmp_path / "d" / "part-01.json", "a") as f:
        f.write('{"id": 1000, "v": 5, "extra": {"z": 1}}\n')
    rows = df.collect()
    assert sorted(r.id for r in rows) == sorted([r["id"] for r in records] + [1000])
    assert "extra" in spark.read.format("drill").load(str(tmp_path / "d")).columns


def rewrite_keeping_length_and_mtime(path: Path, text: str) -> None:
    """Rewrite `path` with `text` padded to the old length, then set the old times back (what
    `touch -r`, `rsync -t` or `cp -p` do): length and modification time are as before."""
    before = os.stat(path)
    data = text.encode()
    assert len(data) <= before.st_size
    path.write_bytes(data + b" " * (before.st_size - len(data)))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_same_length_rewrite_with_its_mtime_restored_is_discovered_again(spark, tmp_path):
    # the schema cache's key holds the file's change time and inode, which utime cannot set back
    f = tmp_path / "t.json"
    f.write_text('{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    assert spark.read.format("drill").load(str(f)).dtypes == [("a", "bigint")]
    rewrite_keeping_length_and_mtime(f, '{"a": "x", "b": true}\n')
    df = spark.read.format("drill").load(str(f))
    assert df.dtypes == [("a", "string"), ("b", "boolean")]
    assert [tuple(r) for r in df.collect()] == [("x", True)]


def test_a_same_length_rewrite_with_its_mtime_restored_is_counted_again(spark, tmp_path):
    # count(*) answers from the records discovery counted while the file is unchanged
    f = tmp_path / "t.json"
    f.write_text("".join(json.dumps({"k": i}) + "\n" for i in range(40)))
    assert spark.read.format("drill").load(str(f)).count() == 40
    rewrite_keeping_length_and_mtime(f, "".join(json.dumps({"k": i}) + "\n" for i in range(7)))
    assert spark.read.format("drill").load(str(f)).count() == 7


@pytest.mark.deploy
@pytest.mark.cluster
@pytest.mark.spark_process
def test_an_executor_killed_mid_scan_still_gives_the_right_answer(tmp_path):
    records = write_files(tmp_path / "d", 8, 2000)
    env = dict(
        os.environ,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        SPARK_WORKER_DIR=str(tmp_path / "work"),
    )
    env.pop("PYSPARK_DRIVER_PYTHON_OPTS", None)
    proc = subprocess.run(
        [sys.executable, str(APPS / "executor_loss_app.py"), str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = {
        line.split(" ", 1)[0]: line.split(" ", 1)[1]
        for line in proc.stdout.splitlines()
        if line.split(" ", 1)[0]
        in (
            "EXECUTORS",
            "PARTITIONS",
            "SPARK_PARTITIONS",
            "KILLED",
            "FAILED_TASKS",
            "ANSWER",
            "AFTER",
        )
    }
    assert out["EXECUTORS"] == "2", proc.stdout[-2000:]  # both up before the scan starts
    # Spark's packing rule (FilePartition): 8 files of ~75 KB, each counting a 4 MiB open cost,
    # in partitions of 9 MiB (the app's maxPartitionBytes): three files to a partition
    assert out["PARTITIONS"] == out["SPARK_PARTITIONS"] == "3", proc.stdout[-2000:]
    assert out["KILLED"] == "1", proc.stdout[-2000:] + proc.stderr[-3000:]
    assert out["ANSWER"] == f"{len(records)} {sum(r['v'] for r in records)}"
    assert out["AFTER"] == str(len(records))
    assert int(out["FAILED_TASKS"]) >= 1  # the lost tasks, run again elsewhere
