"""A server's users never see its folders: errors and profiles name a path under a workspace
from the workspace's name (`<dfs.data>/x.json`), not the absolute path on the server's machine
(before: "dfs.data.`nope.json` resolves to /srv/data/nope.json", `file:/srv/...` in a bad file's
error, the absolute selection paths in the profile's plan)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.server.helpers import Http


def _folders(server) -> list[str]:
    out = []
    for config in server.catalog.workspaces.values():
        path = config if isinstance(config, str) else config["location"]
        out += [os.path.abspath(path), os.path.realpath(path)]
    return sorted(set(out), key=len, reverse=True)


def _assert_no_folder(server, text: str) -> None:
    for folder in _folders(server):
        if folder != "/":
            assert folder not in text, (folder, text)


def test_a_missing_table_names_its_workspace_not_the_folder(server):
    answer = Http(server.url).query("SELECT * FROM dfs.data.`no/such.json`")
    assert answer["queryState"] == "FAILED"
    assert "<dfs.data>/no/such.json" in answer["errorMessage"], answer
    _assert_no_folder(server, answer["errorMessage"])


def test_a_bad_files_error_names_its_workspace_not_the_folder(server):
    tmp = Path(server.catalog.workspaces["tmp"])
    (tmp / "paths-bad.json").write_text('{"a": 1}\n{"a": \n')
    try:
        answer = Http(server.url).query("SELECT a FROM dfs.tmp.`paths-bad.json`")
    finally:
        (tmp / "paths-bad.json").unlink()
    assert answer["queryState"] == "FAILED", answer
    assert "paths-bad.json" in answer["errorMessage"], answer
    _assert_no_folder(server, answer["errorMessage"])


def test_a_profile_names_workspaces_not_folders(server):
    http = Http(server.url)
    answer = http.query("SELECT count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json`")
    assert answer["rows"] == [{"n": 25}]
    profile = http.get_json(f"/profiles/{answer['queryId']}.json")
    plan = profile["plan"]
    assert "<dfs.data>/breadth/tpch_json/nation.json" in plan, plan
    _assert_no_folder(server, json.dumps(profile))
