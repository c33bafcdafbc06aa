"""`drillspark sql` finds a local `drillspark serve` through its discovery file and uses it
only when the server answers exactly as a local run would; else it runs locally."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.server.helpers import Http

from drillspark.cli import discovery
from drillspark.cli.main import main
from drillspark.server.app import free_port

NATION = "dfs.data.`breadth/tpch_json/nation.json`"
# the types of docs/server.md's value table, which the REST answer carries as Drill does
TYPES = (
    "SELECT CAST(1.5 AS DECIMAL(5,2)) AS d, CAST(2 AS INT) AS i, CAST(3 AS BIGINT) AS bi, "
    "CAST(0.5 AS FLOAT) AS f4, 1.5e0 AS f8, 0.1e0 + 0.2e0 AS f8b, DATE '2024-01-02' AS dt, "
    "TIMESTAMP '2024-01-02 03:04:05.678' AS ts, TIME '03:04:05' AS tm, true AS b, "
    "CAST(NULL AS VARCHAR) AS n, CAST('ab' AS VARBINARY) AS vb, "
    "CAST('NaN' AS DOUBLE) AS nan FROM (VALUES(1))"
)


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    folder = tmp_path / "runtime"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv(discovery.RUNTIME_DIR_ENV, str(folder))
    return folder


def _args(server) -> list[str]:
    """The --workspace options that give a local run the fixture server's workspaces."""
    ws = server.catalog.workspaces
    return ["--workspace", f"data={ws['data']}", "--workspace", f"tmp={ws['tmp']}"]


def _in_root(server, monkeypatch) -> None:
    monkeypatch.chdir(server.catalog.workspaces["root"])  # a local run's dfs.root


def test_found_server_answers_as_a_local_run(server, runtime, monkeypatch, capsys):
    _in_root(server, monkeypatch)
    path = discovery.publish(server.url, dict(server.catalog.workspaces), auth=False)
    assert json.loads(path.read_text())["pid"] == os.getpid()
    assert path.stat().st_mode & 0o077 == 0
    nation = (
        f"SELECT N_NATIONKEY, N_NAME, N_COMMENT FROM {NATION} WHERE N_NATIONKEY < 4 "
        "ORDER BY N_NATIONKEY"
    )
    for sql in (TYPES, nation, f"USE dfs.data; SELECT count(*) AS n FROM {NATION}"):
        for fmt in ("table", "json", "csv"):
            before = {q.id for q in server.queries.finished()}
            assert main(["sql", *_args(server), "--format", fmt, sql]) == 0
            remote = capsys.readouterr()
            assert f"answered by drillspark serve at {server.url}" in remote.err
            newest = server.queries.finished()[0]  # the server ran it
            assert newest.id not in before and newest.text == sql.split("; ")[-1]
            assert main(["sql", *_args(server), "--local", "--format", fmt, sql]) == 0
            local = capsys.readouterr()
            assert "answered by" not in local.err
            assert remote.out == local.out, (sql, fmt)


def test_schema_and_set_options_reach_the_server(server, runtime, monkeypatch, capsys):
    _in_root(server, monkeypatch)
    discovery.publish(server.url, dict(server.catalog.workspaces), auth=False)
    sql = "SELECT N_NAME FROM `breadth/tpch_json/nation.json` WHERE N_NATIONKEY = 3"
    assert (
        main(
            [
                "sql",
                *_args(server),
                "--schema",
                "dfs.data",
                "--set",
                "store.json.all_text_mode=true",
                "--format",
                "json",
                sql,
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "answered by drillspark serve" in out.err
    assert out.out.strip() == '{"N_NAME": "CANADA"}'
    q = server.queries.finished()[0]
    assert q.text == sql and q.state == "COMPLETED"


def test_other_workspaces_dead_and_silent_servers_mean_a_local_run(
    server, runtime, monkeypatch, capsys
):
    _in_root(server, monkeypatch)
    # another folder as `data`: not the same answers
    discovery.publish(server.url, {**server.catalog.workspaces, "data": "/"}, auth=False)
    assert main(["sql", *_args(server), "SELECT 1 AS one FROM (VALUES(1))"]) == 0
    out = capsys.readouterr()
    assert "answered by" not in out.err and "| 1   |" in out.out
    # a file whose process is gone is ignored and removed
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = runtime / f"{discovery.PREFIX}{gone.pid}.json"
    stale.write_text(
        json.dumps(
            {
                "url": server.url,
                "pid": gone.pid,
                "auth": False,
                "workspaces": server.catalog.workspaces,
            }
        )
    )
    os.chmod(stale, 0o600)
    for p in runtime.glob("serve-*.json"):
        if p != stale:
            p.unlink()
    assert main(["sql", *_args(server), "SELECT 2 AS two FROM (VALUES(1))"]) == 0
    out = capsys.readouterr()
    assert "answered by" not in out.err and "| 2   |" in out.out
    assert not stale.exists()
    # a live process whose port does not answer: a one-line note, then a local run
    silent = f"http://127.0.0.1:{free_port()}"
    discovery.publish(silent, dict(server.catalog.workspaces), auth=False)
    assert main(["sql", *_args(server), "SELECT 3 AS three FROM (VALUES(1))"]) == 0
    out = capsys.readouterr()
    assert f"the server at {silent} (pid {os.getpid()}) does not answer" in out.err
    assert "running locally" in out.err and "| 3     |" in out.out
    assert len(out.err.strip().splitlines()) == 1


def test_a_changed_server_or_a_local_path_runs_locally(
    server, runtime, monkeypatch, capsys, shared
):
    _in_root(server, monkeypatch)
    discovery.publish(server.url, dict(server.catalog.workspaces), auth=False)
    http = Http(server.url)
    # a system option changed on the server: its answers may differ from a local run's
    status, _, _ = http.request(
        "POST",
        "/option/store.json.all_text_mode",
        b"value=true",
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 200
    try:
        assert main(["sql", *_args(server), "SELECT 4 AS four FROM (VALUES(1))"]) == 0
        assert "answered by" not in capsys.readouterr().err
    finally:
        http.request(
            "POST",
            "/option/store.json.all_text_mode",
            b"value=false",
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
    # without --workspace a local dfs.root reads any path, the server's only its
    # workspaces: such a query is run locally
    monkeypatch.chdir(server.catalog.workspaces["tmp"])
    own = {"root": os.getcwd(), "tmp": "/tmp"}
    discovery.publish(server.url, own, auth=False)
    saved = server.catalog.plugins.get("dfs").raw  # the shared server's, restored below
    status, _, body = http.request(
        "POST",
        "/storage/dfs.json",
        json.dumps(
            {"name": "dfs", "config": {"workspaces": {k: {"location": v} for k, v in own.items()}}}
        ).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 200, body
    try:
        outside = shared / "data" / "breadth" / "tpch_json" / "region.json"
        assert main(["sql", "--format", "json", f"SELECT count(*) AS n FROM dfs.`{outside}`"]) == 0
        out = capsys.readouterr()
        assert "answered by drillspark serve" in out.err
        assert "reads outside the server's workspaces; running locally" in out.err
        assert out.out.strip() == '{"n": 5}'
        # inside them, the server answers
        tmp_file = os.path.join(os.getcwd(), "one.json")
        with open(tmp_file, "w") as f:
            f.write('{"a": 1}\n')
        assert main(["sql", "--format", "json", "SELECT a FROM dfs.`one.json`"]) == 0
        out = capsys.readouterr()
        assert "answered by drillspark serve" in out.err and "locally" not in out.err
        assert out.out.strip() == '{"a": 1}'
    finally:
        server.catalog.plugins.put("dfs", saved)


def test_connect_and_local_exclude_each_other(server, capsys):
    assert main(["sql", "--connect", server.url, "--local", "SELECT 1"]) == 2
    assert "exclude each other" in capsys.readouterr().err
