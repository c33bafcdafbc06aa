"""A `.csvh` reached through a symlinked folder (#36). Spark names such a file by the link's
path, the header was kept under the file's own, and the read failed in a Spark task with a
Java NullPointerException. Drill 1.22 follows a link (asked through server.sh, dfs.root, with
`ws/real/t.csvh` = `a,b / 1,x / 2,y`, `ws/link -> real`, `ws/out -> ../outside`):

    SELECT * FROM dfs.root.`<ws>/link/t.csvh`   -> a, b: [1, x], [2, y]
    SELECT * FROM dfs.root.`<ws>/link`          -> the same
    SELECT a, filename, dir0 FROM dfs.root.`<ws>` ORDER BY 1
        -> (1, o.csvh, out), (1, t.csvh, real), (1, t.csvh, link), (2, t.csvh, real),
           (2, t.csvh, link)

A link that leads out of a confined workspace is refused with a clear error instead
(docs/security.md). Not yet here: a folder table does not descend into a linked sub-folder
(Drill lists the `link` rows too), as the folder listing does not follow links."""

from __future__ import annotations

import os

import pytest

from drillspark.sql import SqlEngine, SqlError, SqlSession
from drillspark.sql.output import columns_and_rows


@pytest.fixture
def eng(spark, tmp_path):
    ws = tmp_path / "ws"
    (ws / "tables" / "real").mkdir(parents=True)
    (ws / "tables" / "real" / "t.csvh").write_text("a,b\n1,x\n2,y\n")
    os.symlink("real", ws / "tables" / "link")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.csvh").write_text("a,b\n1,x\n")
    os.symlink(tmp_path / "outside", ws / "out")
    engine = SqlEngine(spark, SqlSession(workspaces={"ws": str(ws), "tmp": str(tmp_path)}))
    yield engine
    engine.close()


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_a_file_through_a_linked_folder_reads(eng):
    expected = (["a", "b"], [["1", "x"], ["2", "y"]])
    assert q(eng, "SELECT * FROM dfs.ws.`tables/link/t.csvh`") == expected
    assert q(eng, "SELECT * FROM dfs.ws.`tables/link`") == expected


def test_a_link_out_of_the_workspace_is_a_clear_error(eng):
    with pytest.raises(SqlError) as e:
        eng.execute("SELECT * FROM dfs.ws.`out/o.csvh`")
    message = str(e.value)
    assert "out/o.csvh" in message and "outside the workspace" in message
    assert "NullPointerException" not in message and "outside/o.csvh" not in message
