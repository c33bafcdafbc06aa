"""A Parquet table read again while its files are unchanged reuses the first read's DataFrame
(spark/storage/readers.py, by stamps.py's rule as JSON and text tables): a warm query skips the
`drill-parquet` source's footer reads. A changed file is read again, even when rewritten with
the same length and its modification time set back (the key holds the change time and inode
too). Files changed within stamps.RACY_NS are never kept: the tests that keep a read set that
window to 0."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from drillspark.spark.storage import stamps
from drillspark.spark.storage.readers import read_parquet_files as read_parquet
from drillspark.sql import SqlEngine, SqlSession


def write(path, values: list[int]) -> None:
    pq.write_table(pa.table({"k": pa.array(values, pa.int64())}), str(path))


@pytest.fixture
def no_racy_window(monkeypatch):
    monkeypatch.setattr(stamps, "RACY_NS", 0)


def test_a_file_written_just_now_is_read_again(spark, tmp_path, monkeypatch):
    monkeypatch.setattr(stamps, "RACY_NS", 3600 * 10**9)  # no race with a slow first read
    f = tmp_path / "t.parquet"
    write(f, [1, 2, 3])
    assert read_parquet(spark, [str(f)]) is not read_parquet(spark, [str(f)])


def test_unchanged_files_reuse_the_read_changed_ones_are_read_again(
    spark, tmp_path, no_racy_window
):
    f = tmp_path / "t.parquet"
    write(f, [1, 2, 3])
    first = read_parquet(spark, [str(f)])
    assert read_parquet(spark, [str(f)]) is first  # the warm read: nothing read again
    assert read_parquet(spark, [str(f)], auto_correct_dates=False) is not first
    # a rewrite of the same length with the modification time set back (as cp -p does)
    st = os.stat(f)
    write(f, [7, 8, 9])
    assert os.stat(f).st_size == st.st_size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = read_parquet(spark, [str(f)])
    assert again is not first
    assert sorted(r.k for r in again.select("k").collect()) == [7, 8, 9]
    # one kept read per shape (dates corrected or not), the newest: the rewrite replaced one
    assert len([k for k in stamps._KEPT[spark] if str(f) in str(k)]) == 2


def test_a_query_reads_a_changed_parquet_file_again(spark, tmp_path, no_racy_window):
    f = tmp_path / "p.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), f)
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))

    def answer() -> list[dict]:
        return engine.execute("SELECT * FROM dfs.data.`p.parquet` ORDER BY 1")[-1].rows()

    assert answer() == [{"a": 1}, {"a": 2}]
    assert answer() == [{"a": 1}, {"a": 2}]
    pq.write_table(pa.table({"b": [3, 4]}), f)
    assert answer() == [{"b": 3}, {"b": 4}]


def test_a_self_join_of_one_parquet_table_reads_both_sides(spark, tmp_path):
    # both sides of the join are the same cached DataFrame: Spark must still tell them apart
    f = tmp_path / "n.parquet"
    pq.write_table(pa.table({"id": [0, 1, 2, 3], "parent": [0, 0, 1, 1]}), str(f))
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
    rows = engine.execute(
        "SELECT a.id, b.id AS p FROM dfs.data.`n.parquet` a "
        "JOIN dfs.data.`n.parquet` b ON a.parent = b.id ORDER BY a.id"
    )[-1].rows()
    assert [(r["id"], r["p"]) for r in rows] == [(0, 0), (1, 0), (2, 1), (3, 1)]


def test_the_kept_table_answers_each_querys_implicit_columns(spark, tmp_path):
    # the table as queries see it is kept per read too (spark/storage/readers.py): a query that
    # names `filename` after one that does not, over the same unchanged file, still gets it
    (tmp_path / "d").mkdir()
    write(tmp_path / "d" / "t.parquet", [5, 6])
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
    plain = engine.execute("SELECT * FROM dfs.data.`d` ORDER BY k")[-1].rows()
    named = engine.execute("SELECT k, filename, dir0 FROM dfs.data.`d` ORDER BY k")[-1].rows()
    again = engine.execute("SELECT * FROM dfs.data.`d` ORDER BY k")[-1].rows()
    assert [r["k"] for r in plain] == [5, 6]
    assert [(r["k"], r["filename"], r["dir0"]) for r in named] == [
        (5, "t.parquet", None),
        (6, "t.parquet", None),
    ]
    assert [tuple(r.values()) for r in again] == [tuple(r.values()) for r in plain]
    assert "filename" not in plain[0]
