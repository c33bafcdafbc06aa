"""Listings stay in their workspace (issue #38): SHOW FILES and INFORMATION_SCHEMA.FILES name
their folder by the one workspace rule (`WorkspacePaths.resolveListing`, the reads' rule for
the name and the path itself), so ``SHOW FILES IN dfs.data.`/etc` `` and `` `../x` `` are
refused with the reads' error (naming the workspace, not where it lies); a symlink entry that
leads out of a confined workspace is listed as the link itself (neither file nor folder, its
own size and mode), never with its target's metadata; a view file linked out is neither listed
nor read. `root` without any configured workspace keeps Drill's behaviour (the whole file
system, links followed), as Drill 1.22 answers (asked with ../shared/tools/drill: it lists
`/etc` and `../outside` from a workspace with allowAccessOutsideWorkspace false, and shows a
link's target's size and type)."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from tests.server.conftest import server  # noqa: F401
from tests.server.helpers import Http

from drillspark.sql import SqlEngine, SqlError, SqlSession

SECRET = "listing-secret"


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """data/ (a workspace) with links out and in; outside/ beside it."""
    base = tmp_path_factory.mktemp("listing")
    data, outside = base / "data", base / "outside"
    (data / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.json").write_text(json.dumps({"s": SECRET}) * 50 + "\n")
    (outside / "leak.view.drill").write_text(
        json.dumps({"name": "leak", "sql": f"SELECT '{SECRET}' AS s", "fields": []})
    )
    (data / "ok.json").write_text('{"a": 1}\n')
    (data / "sub" / "in.json").write_text('{"a": 2}\n')
    os.symlink(outside / "secret.json", data / "link.json")  # a file link out
    os.symlink(outside, data / "outdir")  # a folder link out
    os.symlink(outside / "leak.view.drill", data / "leak.view.drill")  # a view file linked out
    os.symlink(data / "ok.json", data / "inlink.json")  # stays inside
    os.symlink(data / "sub", data / "insub")  # a folder link that stays inside
    return base


@pytest.fixture
def engine(spark, layout):
    return SqlEngine(spark, SqlSession(workspaces={"data": str(layout / "data")}))


def _rows(result) -> dict[str, dict]:
    return {r["name"]: r for r in result.rows()}


REFUSED = ["/etc", "../outside", "sub/../../outside", "outdir", "link.json", "{base}/outside"]


@pytest.mark.parametrize("name", REFUSED)
def test_show_files_refuses_a_folder_outside_the_workspace(engine, layout, name):
    name = name.replace("{base}", str(layout))
    with pytest.raises(SqlError) as e:
        engine.execute(f"SHOW FILES IN dfs.data.`{name}`")
    message = str(e.value)
    assert "is refused in workspace 'data'" in message, message
    assert "secret.json" not in message and SECRET not in message
    # the workspace is named, not where it lies (nor where a link leads): paths only as typed
    rest = message.replace(f"`{name}`", "")
    assert str(layout / "data") not in rest and str(layout / "outside") not in rest


def test_show_files_lists_a_link_out_as_the_link_itself(engine, layout):
    data = layout / "data"
    rows = _rows(engine.execute("SHOW FILES IN dfs.data")[-1])
    assert set(rows) == {
        "ok.json",
        "sub",
        "link.json",
        "outdir",
        "leak.view.drill",
        "inlink.json",
        "insub",
    }
    for name in ("link.json", "outdir", "leak.view.drill"):
        link = os.lstat(data / name)
        assert rows[name]["isFile"] is False and rows[name]["isDirectory"] is False, rows[name]
        assert rows[name]["length"] == link.st_size  # the link's own size, not its target's
        assert rows[name]["permissions"] == "rwxrwxrwx"
    assert rows["link.json"]["length"] != os.stat(data / "link.json").st_size
    # links that stay inside show their target, as Drill does
    assert rows["inlink.json"]["isFile"] is True
    assert rows["inlink.json"]["length"] == (data / "ok.json").stat().st_size
    assert rows["insub"]["isDirectory"] is True
    assert _rows(engine.execute("SHOW FILES IN dfs.data.`insub`")[-1]).keys() == {"in.json"}
    assert _rows(engine.execute("SHOW FILES IN dfs.data.`sub`")[-1]).keys() == {"in.json"}
    one = engine.execute("SHOW FILES IN dfs.data.`inlink.json`")[-1].rows()
    assert [(r["name"], r["isFile"]) for r in one] == [("inlink.json", True)]
    engine.execute("USE dfs.data")  # the default schema's listing too
    assert _rows(engine.execute("SHOW FILES")[-1])["link.json"]["isFile"] is False


def test_information_schema_files_lists_a_link_out_as_the_link_itself(engine, layout):
    result = engine.execute(
        "SELECT FILE_NAME, IS_FILE, IS_DIRECTORY, LENGTH FROM INFORMATION_SCHEMA.`FILES` "
        "WHERE SCHEMA_NAME = 'dfs.data'"
    )[-1]
    rows = {r["FILE_NAME"]: r for r in result.rows()}
    assert rows["link.json"]["IS_FILE"] is False and rows["outdir"]["IS_DIRECTORY"] is False
    assert rows["link.json"]["LENGTH"] == os.lstat(layout / "data" / "link.json").st_size
    assert rows["inlink.json"]["IS_FILE"] is True


def test_a_view_file_linked_out_is_neither_listed_nor_read(engine):
    views = engine.execute("SELECT TABLE_NAME, VIEW_DEFINITION FROM INFORMATION_SCHEMA.VIEWS")[-1]
    assert all(SECRET not in str(r) for r in views.rows())
    # nor among SHOW TABLES' views (before: listed by name, its file read outside)
    tables = engine.execute("SHOW TABLES IN dfs.data")[-1]
    assert "leak" not in [r["TABLE_NAME"] for r in tables.rows()]
    with pytest.raises(SqlError) as e:
        engine.execute("SELECT * FROM dfs.data.leak")
    assert "is refused in workspace 'data'" in str(e.value)
    assert SECRET not in str(e.value)


def test_the_classpath_workspace_is_confined_too(engine):
    with pytest.raises(SqlError, match="is refused in workspace 'cp'"):
        engine.execute("SHOW FILES IN cp.`../..`")


def test_an_unconfigured_root_lists_as_drill_does(spark, layout):
    # no workspace configured (local use): root is Drill's `/`, links are followed
    engine = SqlEngine(spark, SqlSession())
    rows = _rows(engine.execute(f"SHOW FILES IN dfs.`{layout}/outside`")[-1])
    assert rows["secret.json"]["isFile"] is True
    rows = _rows(engine.execute(f"SHOW FILES IN dfs.`{layout}/data`")[-1])
    assert rows["link.json"]["isFile"] is True
    assert rows["link.json"]["length"] == (layout / "outside" / "secret.json").stat().st_size


# ---------------------------------------------------------------- through the REST server


@pytest.fixture
def rest(server, tmp_path):  # noqa: F811
    """The server's tmp workspace with a folder of links out, and the HTTP client."""
    tmp = server.workspaces["tmp"]
    folder = os.path.join(tmp, f"listing-{uuid.uuid4().hex[:8]}")
    outside = str(tmp_path)  # not under any of the server's workspaces
    os.makedirs(folder)
    with open(os.path.join(outside, "secret.json"), "w") as f:
        f.write(json.dumps({"s": SECRET}) * 50)
    os.symlink(os.path.join(outside, "secret.json"), os.path.join(folder, "link.json"))
    with open(os.path.join(folder, "ok.json"), "w") as f:
        f.write('{"a": 1}\n')
    return (
        Http(server.url),
        os.path.basename(folder),
        [tmp, os.path.dirname(server.workspaces["data"])],
    )


@pytest.mark.parametrize("name", ["/etc", "../../etc", "../x", "{folder}/link.json"])
def test_rest_show_files_is_refused_outside_the_workspace(rest, name):
    http, folder, paths = rest
    answer = http.query(f"SHOW FILES IN dfs.tmp.`{name.replace('{folder}', folder)}`")
    assert answer["queryState"] == "FAILED" and "rows" not in answer, answer
    assert "is refused in workspace 'tmp'" in answer["errorMessage"]
    assert not any(p in answer["errorMessage"] for p in paths), answer["errorMessage"]
    if "{folder}" not in name:  # the shared data workspace too
        answer = http.query(f"SHOW FILES IN dfs.data.`{name}`")
        assert answer["queryState"] == "FAILED" and "rows" not in answer, answer
        assert "is refused in workspace 'data'" in answer["errorMessage"]


def test_rest_listing_shows_the_link_not_its_target(rest):
    http, folder, _ = rest
    rows = {r["name"]: r for r in http.query(f"SHOW FILES IN dfs.tmp.`{folder}`")["rows"]}
    assert rows["ok.json"]["isFile"] is True
    assert rows["link.json"]["isFile"] is False
    assert rows["link.json"]["length"] < 50 * len(SECRET)  # the link's size, not the secret's
