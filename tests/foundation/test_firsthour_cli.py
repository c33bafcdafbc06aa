"""Dead ends of the first hour (issue 18) that need no Spark (the unit tier: a test here that
started Spark would fail, tests/conftest.py): `drillspark run` answers an invalid plan as
`drillspark validate` does, before any JVM; `drillspark sql` with no SQL on a terminal says
what to give instead of waiting for standard input; class-data sharing, which needs Linux's
/proc, is simply not used elsewhere."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from drillspark import class_sharing

DRILLSPARK = str(Path(sys.executable).parent / "drillspark")
HEAD = {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "test"}}


def cli(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [DRILLSPARK, *args], cwd=cwd, capture_output=True, text=True, timeout=120, **kwargs
    )


def test_run_answers_an_invalid_plan_before_spark_starts(tmp_path):
    plan = {
        "head": HEAD,
        "query": [
            {"op": "values", "@id": 1, "content": [{"a": 1}]},
            {"op": "filter", "@id": 2, "input": 1, "expr": "a > "},
        ],
    }
    (tmp_path / "bad.json").write_text(json.dumps(plan, indent=1))
    ran = cli("run", "bad.json", cwd=tmp_path)
    checked = cli("validate", "bad.json", cwd=tmp_path)
    # the unit tier's stub spark-submit would have failed the test had Spark been started
    assert ran.returncode == 2 == checked.returncode, ran.stderr
    assert ran.stdout == "" and "Traceback" not in ran.stderr
    assert ran.stderr.startswith("drillspark: invalid logical plan (1 error):")
    # the same error as `validate` prints, with the file, line and operator
    (issue,) = checked.stdout.splitlines()
    assert issue.startswith("bad.json:") and "@id 2" in issue and issue in ran.stderr


def test_sql_without_sql_on_a_terminal_says_what_to_give(tmp_path):
    controller, terminal = pty.openpty()
    try:
        done = cli("sql", cwd=tmp_path, stdin=terminal)
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 2
    assert done.stderr.startswith("drillspark: give the SQL as an argument")
    assert "drillspark shell" in done.stderr
    # piped SQL is still read from standard input
    piped = cli("sql", "--format", "csv", cwd=tmp_path, input="USE dfs.tmp")
    assert piped.returncode == 0, piped.stderr


@pytest.mark.parametrize("platform", ["darwin", "win32", "freebsd14"])
def test_class_sharing_is_not_used_off_linux(tmp_path, monkeypatch, platform):
    monkeypatch.setenv(class_sharing.CACHE_DIR_ENV, str(tmp_path / "cache"))
    jar = tmp_path / "x.jar"
    jar.write_bytes(b"jar")
    # on Linux the same call claims the archive (tests/foundation/test_fast_start.py)
    monkeypatch.setattr(sys, "platform", platform)
    assert class_sharing.prepare("local[2]", "", str(jar), "spark") is None
    class_sharing.started(None)  # what session() then calls: nothing to do
    assert not (tmp_path / "cache").exists()
