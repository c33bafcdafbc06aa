"""A JSON table read with full discovery, or a text (or other format's) table, read again while
nothing under its paths changed reuses the first read's DataFrame (spark/storage/stamps.py): a
chart sent again skips the source's schema discovery or inference. A changed file or a file
added to the folder is read again. Files changed within the last clock ticks (stamps.RACY_NS)
are never kept, so the tests that keep a read set that window to 0 (then a same-length rewrite
is still told by its ctime, which no one can set back)."""

from __future__ import annotations

import json
import os

import pytest

from drillspark.spark.storage import stamps
from drillspark.spark.storage.readers import read_json
from drillspark.sql import SqlEngine, SqlSession


def write(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def no_racy_window(monkeypatch):
    monkeypatch.setattr(stamps, "RACY_NS", 0)


def test_a_file_changed_just_now_is_not_kept(spark, tmp_path, monkeypatch):
    """Within the window a read of a file written just now is read again: a change in the same
    clock tick would not show in its stat. (The window widened to an hour here: a cold first
    read on a busy machine can outlast the default two seconds.)"""
    monkeypatch.setattr(stamps, "RACY_NS", 3600 * 10**9)
    f = tmp_path / "t.json"
    write(f, [{"a": 1}])
    assert stamps.tree_stamps([str(f)]) is None
    assert read_json(spark, [str(f)]) is not read_json(spark, [str(f)])
    st = os.stat(f)  # its times set back: its ctime, which no one can set, is still now
    os.utime(f, ns=(st.st_atime_ns - 10 * stamps.RACY_NS, st.st_mtime_ns - 10 * stamps.RACY_NS))
    assert stamps.tree_stamps([str(f)]) is None


def test_a_tree_of_too_many_entries_is_not_kept(tmp_path, no_racy_window, monkeypatch):
    monkeypatch.setattr(stamps, "MAX_ENTRIES", 3)
    for i in range(3):
        write(tmp_path / f"{i}.json", [{"a": i}])
    assert stamps.tree_stamps([str(tmp_path)]) is None
    monkeypatch.setattr(stamps, "MAX_ENTRIES", 4)
    assert len(stamps.tree_stamps([str(tmp_path)]) or ()) == 4


def test_a_changing_folder_keeps_one_read(spark, tmp_path, no_racy_window):
    f = tmp_path / "t.json"
    for i in range(3):
        write(f, [{"a": i}] * (i + 1))
        read_json(spark, [str(f)])
    shapes = [k for k in stamps._KEPT[spark] if str(f) in str(k)]
    assert len(shapes) == 1


def test_unchanged_files_reuse_the_read_changed_ones_are_read_again(
    spark, tmp_path, no_racy_window
):
    f = tmp_path / "t.json"
    write(f, [{"a": 1}, {"a": 2}])
    first = read_json(spark, [str(f)])
    assert read_json(spark, [str(f)]) is first  # the warm read: no discovery again
    assert read_json(spark, [str(f)], keep=["a"]) is not first  # other options: its own
    # a rewrite of the same length that types the column otherwise, its times set back
    st = os.stat(f)
    write(f, [{"b": 3}, {"b": 4}])
    assert os.stat(f).st_size == st.st_size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = read_json(spark, [str(f)])
    assert again is not first
    assert again.columns == ["b"]
    assert sorted(r.b for r in again.collect()) == [3, 4]


def test_a_file_added_to_the_folder_is_read(spark, tmp_path, no_racy_window):
    d = tmp_path / "logs"
    d.mkdir()
    write(d / "1.json", [{"n": 1}])
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))

    def answer() -> list[int]:
        rows = engine.execute("SELECT n FROM dfs.data.`logs` ORDER BY n")[-1].rows()
        return [r["n"] for r in rows]

    assert answer() == [1]
    assert answer() == [1]
    write(d / "2.json", [{"n": 2}, {"n": 3}])
    assert answer() == [1, 2, 3]
    sub = d / "more"
    sub.mkdir()
    write(sub / "3.json", [{"n": 4, "extra": "x"}])
    assert answer() == [1, 2, 3, 4]
    rows = engine.execute("SELECT * FROM dfs.data.`logs` WHERE n = 4")[-1].rows()
    assert rows[0]["extra"] == "x" and rows[0]["dir0"] == "more"


def test_a_self_join_of_one_json_table_reads_both_sides(spark, tmp_path, no_racy_window):
    # both sides of the join are the same kept DataFrame: Spark must still tell them apart
    write(tmp_path / "n.json", [{"id": i, "parent": i // 2} for i in range(4)])
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
    sql = (
        "SELECT a.id, b.id AS p FROM dfs.data.`n.json` a "
        "JOIN dfs.data.`n.json` b ON a.parent = b.id ORDER BY a.id"
    )
    for _ in range(2):
        rows = engine.execute(sql)[-1].rows()
        assert [(r["id"], r["p"]) for r in rows] == [(0, 0), (1, 0), (2, 1), (3, 1)]


def test_a_text_table_is_kept_until_its_file_changes(spark, tmp_path, no_racy_window):
    f = tmp_path / "c.csvh"
    f.write_text("k,v\n1,a\n2,b\n")
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))

    def answer() -> list[dict]:
        return engine.execute("SELECT * FROM dfs.data.`c.csvh` ORDER BY 1")[-1].rows()

    assert answer() == [{"k": "1", "v": "a"}, {"k": "2", "v": "b"}]
    assert answer() == [{"k": "1", "v": "a"}, {"k": "2", "v": "b"}]
    # the same length, another header, its times set back
    st = os.stat(f)
    f.write_text("k,w\n3,c\n4,d\n")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert answer() == [{"k": "3", "w": "c"}, {"k": "4", "w": "d"}]
    named = engine.execute("SELECT k, filename FROM dfs.data.`c.csvh` ORDER BY k")[-1].rows()
    assert named == [{"k": "3", "filename": "c.csvh"}, {"k": "4", "filename": "c.csvh"}]


def test_a_tree_on_a_shared_or_fuse_mount_is_never_kept(tmp_path, no_racy_window):
    """NFS's cached attributes and a FUSE daemon's answers need not change when another machine
    writes: trees there are read every time. The innermost mount holding the path decides."""
    mounts = [
        ("/", "ext4"),
        ("/mnt/share", "nfs4"),
        ("/mnt/share/local", "ext4"),
        ("/m", "fuse.s3fs"),
    ]
    assert stamps.shared_mount("/mnt/share/x.json", mounts)
    assert stamps.shared_mount("/mnt/share", mounts)
    assert not stamps.shared_mount("/mnt/share/local/x.json", mounts)
    assert not stamps.shared_mount("/mnt/shared/x.json", mounts)  # a sibling, not inside
    assert stamps.shared_mount("/m/bucket/x.csv", mounts)
    assert not stamps.shared_mount("/work/x.json", mounts)
    # this machine's own mount table: tmp_path's kind decides whether its tree is kept
    write(tmp_path / "t.json", [{"a": 1}])
    on_shared = stamps.shared_mount(str(tmp_path.resolve()), stamps._mounts())
    assert (stamps.tree_stamps([str(tmp_path)]) is None) is on_shared


def test_a_text_folder_keeps_one_read_as_files_are_added(spark, tmp_path, no_racy_window):
    d = tmp_path / "parts"
    d.mkdir()
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
    for i in range(3):
        (d / f"{i}.csvh").write_text(f"k\n{i}\n")
        rows = engine.execute("SELECT k FROM dfs.data.`parts` ORDER BY k")[-1].rows()
        assert [r["k"] for r in rows] == [str(n) for n in range(i + 1)]
    # one kept read for the folder, the newest, not one per set of its files
    shapes = [k for k in stamps._KEPT[spark] if str(d) in str(k)]
    assert len(shapes) == 1
