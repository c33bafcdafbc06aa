"""Files the server writes for a statement (issue #38): a view file is written into a new file
beside it under a name no one can guess (`.<view>.view.drill.<random>.tmp`, created with
O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644) and renamed over the view file, so a symlink planted at
the old predictable name (`<view>.view.drill.<pid>.tmp`) or at the view file itself never
leads a write out of the workspace; CREATE [OR REPLACE] VIEW statements of one view run one
after another (before, concurrent ones shared the temporary name and one failed with a raw
`Errno 2`). DROP TABLE of a symlink drops the link only, as Drill 1.22 does (asked with
../shared/tools/drill: `DROP TABLE dfs.w.linkdir` answers `Table [linkdir] dropped` and leaves
the folder it pointed to); before, it failed with "Cannot call rmtree on a symbolic link". A
table folder holding the sub-folders CTAS leaves (`t/1_squared`, ...) is dropped, as in Drill
(issue #36)."""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest
from tests.server.conftest import server  # noqa: F401
from tests.server.helpers import Http

from drillspark.sql import SqlEngine, SqlError, SqlSession

ORIGINAL = "do not overwrite me\n"


@pytest.fixture
def dirs(tmp_path):
    tmp, outside = tmp_path / "tmp", tmp_path / "outside"
    tmp.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text(ORIGINAL)
    return tmp, outside


def _engine(spark, tmp) -> SqlEngine:
    return SqlEngine(spark, SqlSession(workspaces={"tmp": str(tmp)}))


def test_a_link_planted_at_the_old_temporary_name_is_not_followed(spark, dirs):
    tmp, outside = dirs
    planted = tmp / f"v.view.drill.{os.getpid()}.tmp"  # the name the writer used before
    os.symlink(outside / "victim.txt", planted)
    engine = _engine(spark, tmp)
    engine.execute("CREATE VIEW dfs.tmp.v AS SELECT 1 AS a FROM (VALUES(1))")
    assert (outside / "victim.txt").read_text() == ORIGINAL
    assert engine.execute("SELECT a FROM dfs.tmp.v")[-1].rows() == [{"a": 1}]
    view = tmp / "v.view.drill"
    assert not view.is_symlink() and json.loads(view.read_text())["name"] == "v"
    assert stat.S_IMODE(view.stat().st_mode) == 0o644 & ~_umask()
    assert sorted(os.listdir(tmp)) == sorted(["v.view.drill", planted.name])  # nothing else


def test_a_link_planted_at_the_view_file_is_replaced_not_followed(spark, dirs):
    tmp, outside = dirs
    os.symlink(outside / "victim.txt", tmp / "w.view.drill")
    engine = _engine(spark, tmp)
    engine.execute("CREATE OR REPLACE VIEW dfs.tmp.w AS SELECT 2 AS b FROM (VALUES(1))")
    assert (outside / "victim.txt").read_text() == ORIGINAL
    assert not (tmp / "w.view.drill").is_symlink()
    assert engine.execute("SELECT b FROM dfs.tmp.w")[-1].rows() == [{"b": 2}]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _race(spark, tmp, statements: list[str]) -> list[object]:
    """Run each statement in its own thread and SqlEngine (as a server's sessions do), all at
    once; each one's answer or error."""
    results: list[object] = [None] * len(statements)
    start = threading.Barrier(len(statements))

    def run(i: int) -> None:
        engine = _engine(spark, tmp)
        start.wait()
        try:
            results[i] = engine.execute(statements[i])[-1].rows()
        except Exception as e:  # noqa: BLE001 - recorded and checked below
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(statements))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# a comment of 1 MB makes each view file take a while to write: writers that shared one
# temporary name (before) overlapped in every round of 8 and one failed with `Errno 2`
PAD = "/*" + "x" * 1_000_000 + "*/"


@pytest.mark.parametrize("round_", range(3))
def test_concurrent_create_or_replace_of_one_view_all_succeed(spark, dirs, round_):
    tmp, _ = dirs
    n = 8
    statements = [
        f"CREATE OR REPLACE VIEW dfs.tmp.shared AS SELECT {i} AS a FROM (VALUES(1)) {PAD}"
        for i in range(n)
    ]
    results = _race(spark, tmp, statements)
    assert all(isinstance(r, list) and r[0]["ok"] is True for r in results), [
        str(r)[:300] for r in results
    ]
    got = _engine(spark, tmp).execute("SELECT a FROM dfs.tmp.shared")[-1].rows()
    assert got in [[{"a": i}] for i in range(n)]
    assert os.listdir(tmp) == ["shared.view.drill"]  # no temporary file left


def test_concurrent_create_of_one_view_one_wins_the_others_fail_clearly(spark, dirs):
    tmp, _ = dirs
    statements = [
        f"CREATE VIEW dfs.tmp.once AS SELECT {i} AS a FROM (VALUES(1)) {PAD}" for i in range(6)
    ]
    results = _race(spark, tmp, statements)
    won = [r for r in results if isinstance(r, list)]
    lost = [r for r in results if not isinstance(r, list)]
    assert len(won) == 1 and won[0][0]["ok"] is True, results
    for e in lost:
        assert isinstance(e, SqlError)
        assert "A view with given name [once] already exists in schema [dfs.tmp]" in str(e)
    assert os.listdir(tmp) == ["once.view.drill"]


def test_rest_concurrent_create_or_replace_view(server):  # noqa: F811
    http = Http(server.url)
    tmp = server.workspaces["tmp"]
    answers: list[dict] = [{} for _ in range(6)]

    def send(i: int) -> None:
        answers[i] = http.query(
            f"CREATE OR REPLACE VIEW dfs.tmp.restv AS SELECT {i} AS a FROM (VALUES(1)) {PAD}"
        )

    threads = [threading.Thread(target=send, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a.get("queryState") == "COMPLETED" for a in answers), [str(a)[:300] for a in answers]
    rows = http.query("SELECT a FROM dfs.tmp.restv")["rows"]
    assert rows in [[{"a": i}] for i in range(6)]
    assert not [n for n in os.listdir(tmp) if n.startswith(".restv") or n.endswith(".tmp")]


# ---------------------------------------------------------------- DROP TABLE


def test_drop_table_of_a_link_drops_the_link_only(spark, dirs):
    tmp, _ = dirs
    (tmp / "real").mkdir()
    (tmp / "real" / "0_0_0.json").write_text('{"x": 1}\n')
    (tmp / "data.json").write_text('{"x": 2}\n')
    os.symlink(tmp / "real", tmp / "linkdir")
    os.symlink(tmp / "data.json", tmp / "linkfile.json")
    engine = _engine(spark, tmp)
    rows = engine.execute("DROP TABLE dfs.tmp.linkdir")[-1].rows()
    assert rows == [{"ok": True, "summary": "Table [linkdir] dropped"}]  # Drill 1.22's answer
    rows = engine.execute("DROP TABLE dfs.tmp.`linkfile.json`")[-1].rows()
    assert rows == [{"ok": True, "summary": "Table [linkfile.json] dropped"}]
    assert sorted(os.listdir(tmp)) == ["data.json", "real"]
    assert (tmp / "real" / "0_0_0.json").exists()


def test_drop_table_of_a_link_out_is_refused_and_touches_nothing(spark, dirs):
    tmp, outside = dirs
    (outside / "t").mkdir()
    (outside / "t" / "0_0_0.json").write_text('{"x": 1}\n')
    os.symlink(outside / "t", tmp / "escape")
    with pytest.raises(SqlError) as e:
        _engine(spark, tmp).execute("DROP TABLE dfs.tmp.escape")
    assert "is refused in workspace 'tmp'" in str(e.value)
    assert str(outside) not in str(e.value)
    assert (tmp / "escape").is_symlink() and (outside / "t" / "0_0_0.json").exists()


def test_drop_table_of_a_folder_with_ctas_sub_folders(spark, dirs):
    # issue #36: CTAS with PARTITION BY (and Drill's writers) leave t/1_squared/..., Drill
    # 1.22 drops such a table ("Table [nested] dropped")
    tmp, _ = dirs
    for part in ("1_squared", "2_squared"):
        (tmp / "nested" / part).mkdir(parents=True)
        (tmp / "nested" / part / "0_0_0.json").write_text('{"x": 1}\n')
    engine = _engine(spark, tmp)
    rows = engine.execute("DROP TABLE dfs.tmp.nested")[-1].rows()
    assert rows == [{"ok": True, "summary": "Table [nested] dropped"}]
    assert not (tmp / "nested").exists()
    # a sub-folder holding something that is not data still keeps the table
    (tmp / "mixed" / "sub").mkdir(parents=True)
    (tmp / "mixed" / "a.json").write_text('{"x": 1}\n')
    (tmp / "mixed" / "sub" / "notes.md").write_text("keep me")
    with pytest.raises(SqlError, match="different file formats"):
        engine.execute("DROP TABLE dfs.tmp.mixed")
    assert (tmp / "mixed" / "sub" / "notes.md").exists()
