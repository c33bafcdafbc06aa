"""`drillspark sql` answered by a running server is a thin client: it imports no pyspark,
pyarrow or sqlglot (the server parses the SQL), so Python's start is all it adds to the
server's answer (docs/performance.md, "Time to first result")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from drillspark.cli import discovery

HEAVY = ["numpy", "pandas", "py4j", "pyarrow", "pyspark", "sqlglot"]
CLIENT = """
import json, sys
from drillspark.cli.main import main
code = main(sys.argv[2:])
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[1])))
sys.stdout.flush()
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


def client(args: list[str], cwd: str, runtime: str) -> tuple[str, str, dict]:
    env = dict(os.environ, **{discovery.RUNTIME_DIR_ENV: runtime})
    proc = subprocess.run(
        [sys.executable, "-c", CLIENT, json.dumps(HEAVY), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )
    *lines, last = proc.stderr.strip().splitlines()
    return proc.stdout, "\n".join(lines), json.loads(last)


@pytest.mark.parametrize("how", ["found", "connect"])
def test_a_server_answered_query_imports_no_spark_arrow_or_sqlglot(
    server, tmp_path, how, monkeypatch
):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv(discovery.RUNTIME_DIR_ENV, str(runtime))
    ws = server.catalog.workspaces
    if how == "found":
        discovery.publish(server.url, dict(ws), auth=False)
        args = ["--workspace", f"data={ws['data']}", "--workspace", f"tmp={ws['tmp']}"]
    else:
        args = ["--connect", server.url]
    out, err, report = client(
        ["sql", *args, "--format", "csv", "SELECT 1 AS one FROM (VALUES(1)); SELECT 2 AS two"],
        cwd=ws["root"],
        runtime=str(runtime),
    )
    assert report == {"code": 0, "heavy": []}, err
    assert out == "one\n1\ntwo\n2\n"
    if how == "found":
        assert f"answered by drillspark serve at {server.url}" in err
