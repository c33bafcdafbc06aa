"""Clear errors that name what the user named (issue #38).

* A CSV file with bytes that are not UTF-8 failed with a bare "An exception was thrown from the
  Python worker: Traceback"; now the query fails with the file, the line and column, and the
  bytes. Drill 1.22 reads each such byte as U+FFFD (asked with ../shared/tools/drill:
  ``SELECT * FROM dfs.data.`bad.csv` `` answers `["3", "\\ufffd\\ufffd"]` for `3,\\xff\\xfe`),
  which loses what was there without a word: drillspark stops and says so instead.
* Errors a server user sees name the table as the user named it, never where the server keeps
  it: a refused name (the workspace root, a link's target), a bad file, a view file that cannot
  be read, a write lock held by another write (before, each of these showed absolute paths).
"""

from __future__ import annotations

import gzip
import os
import socket
import uuid

import pytest
from tests.server.conftest import server  # noqa: F401
from tests.server.helpers import Http

from drillspark.sql import SqlEngine, SqlSession

BAD = b"a,b\n1,2\n3,\xff\xfe\n5,caf\xc3\xa9\n"  # line 3 holds two bytes that are not UTF-8


def _assert_names_the_bytes(message: str, file: str = "bad.csv") -> None:
    assert f"file {file} line 3, column 3" in message, message
    assert "FF FE (hex) are not UTF-8" in message, message
    assert "Traceback" not in message and "Python worker" not in message, message


@pytest.fixture
def engine(spark, tmp_path):
    (tmp_path / "bad.csv").write_bytes(BAD)
    (tmp_path / "bad.csvh").write_bytes(BAD)
    with gzip.open(tmp_path / "zipped.csv.gz", "wb") as f:
        f.write(BAD)
    (tmp_path / "good.csv").write_bytes("a,b\n5,café\n".encode())
    return SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM dfs.data.`bad.csv`",
        "SELECT count(*) AS n FROM dfs.data.`bad.csv`",  # no silently short count either
        "SELECT * FROM dfs.data.`bad.csvh`",  # the header is read on the driver
        "SELECT * FROM table(dfs.data.`bad.csv`(type => 'text', extractHeader => true))",
    ],
)
def test_a_csv_that_is_not_utf8_fails_naming_file_line_and_bytes(engine, tmp_path, query):
    with pytest.raises(Exception) as e:
        engine.execute(query)[-1].rows()
    file = "bad.csvh" if "csvh" in query else "bad.csv"
    _assert_names_the_bytes(str(e.value), file)
    assert str(tmp_path) not in str(e.value)


def test_a_compressed_csv_that_is_not_utf8_fails_the_same_way(engine):
    with pytest.raises(Exception) as e:
        engine.execute("SELECT * FROM dfs.data.`zipped.csv.gz`")[-1].rows()
    _assert_names_the_bytes(str(e.value), "zipped.csv.gz")


def test_a_utf8_csv_still_reads(engine):
    rows = engine.execute("SELECT columns[1] AS b FROM dfs.data.`good.csv`")[-1].rows()
    assert rows == [{"b": "b"}, {"b": "café"}]


# ---------------------------------------------------------------- through the REST server


@pytest.fixture
def rest(server):  # noqa: F811
    """A folder of the server's tmp workspace, the HTTP client and the server paths no answer
    may show (the tmp workspace's, the shared data folder's)."""
    tmp = server.workspaces["tmp"]
    name = f"errors-{uuid.uuid4().hex[:8]}"
    os.makedirs(os.path.join(tmp, name))
    return Http(server.url), name, tmp, [tmp, server.workspaces["data"]]


def _failed(http: Http, sql: str, paths: list[str]) -> str:
    answer = http.query(sql)
    assert answer["queryState"] == "FAILED", answer
    message = answer["errorMessage"]
    for p in paths:
        assert p not in message, message
    return message


def test_rest_a_bad_csv_is_named_without_server_paths(rest):
    http, folder, tmp, paths = rest
    with open(os.path.join(tmp, folder, "bad.csv"), "wb") as f:
        f.write(BAD)
    message = _failed(http, f"SELECT * FROM dfs.tmp.`{folder}/bad.csv`", paths)
    _assert_names_the_bytes(message)


@pytest.mark.parametrize("name", ["../secret.json", "/etc/passwd", "sub/../../x.json"])
def test_rest_a_refused_name_shows_no_server_path(rest, name):
    http, _, _, paths = rest
    message = _failed(http, f"SELECT * FROM dfs.data.`{name}`", paths)
    assert "is refused in workspace 'data'" in message


def test_rest_a_link_out_shows_neither_root_nor_target(rest, tmp_path):
    http, folder, tmp, paths = rest
    (tmp_path / "target.json").write_text('{"s": 1}\n')
    os.symlink(tmp_path / "target.json", os.path.join(tmp, folder, "link.json"))
    message = _failed(http, f"SELECT * FROM dfs.tmp.`{folder}/link.json`", [*paths, str(tmp_path)])
    assert f"{folder}/link.json links to a path outside the workspace root" in message


def test_rest_an_unreadable_view_file_is_named_by_its_name(rest):
    http, folder, tmp, paths = rest
    view = f"broken_{folder.replace('-', '_')}"
    with open(os.path.join(tmp, view + ".view.drill"), "w") as f:
        f.write("{ not json")
    try:
        message = _failed(http, f"SELECT * FROM dfs.tmp.`{view}`", paths)
        assert f"cannot read the view file {view}.view.drill" in message
    finally:
        os.remove(os.path.join(tmp, view + ".view.drill"))


def test_rest_a_write_lock_held_elsewhere_is_named_by_the_table(rest):
    http, folder, tmp, paths = rest
    with open(os.path.join(tmp, folder, ".t.drillspark-lock"), "w") as f:
        f.write(f"{socket.gethostname()} {os.getpid()} held-by-this-live-process")
    message = _failed(
        http, f"CREATE TABLE dfs.tmp.`{folder}/t` AS SELECT 1 AS a FROM (VALUES(1))", paths
    )
    assert "another write to t is in progress (lock .t.drillspark-lock beside it)" in message
