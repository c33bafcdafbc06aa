"""The driver JVM's stderr filter (drillspark/jvm_stderr.py), with real processes and pipes:
the incubator notice is dropped, every other line (before, during and after the session start,
from this process and from children that outlive the window) reaches stderr, in order per
writer. Runs in a child interpreter so pytest's own stderr handling stays out of it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

PYTHON = Path(__file__).resolve().parents[2] / "python"

SCRIPT = textwrap.dedent(
    """
    import subprocess, sys
    from drillspark import jvm_stderr

    print("before", file=sys.stderr)
    with jvm_stderr.without_incubator_notice():
        print("python inside", file=sys.stderr)
        subprocess.run(["sh", "-c", "echo 'WARNING: Using incubator modules: jdk.incubator.vector' >&2; echo 'child kept' >&2"])
        late = subprocess.Popen(["sh", "-c", "sleep 0.5; echo 'late line' >&2; printf 'no newline' >&2"])
    print("python after", file=sys.stderr)
    late.wait()
    assert jvm_stderr.join(10), "copier still running after every writer ended"
    """
)


def run(env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PYTHON), **env_extra)
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, env=env
    )


def test_notice_dropped_every_other_line_kept():
    proc = run({})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert "incubator" not in proc.stderr
    assert lines[0] == "before"
    assert lines.index("python inside") < lines.index("child kept")
    # lines through the pipe keep their order; the late child reaches stderr after the window
    # closed, its last partial line too; lines written directly may land between them
    assert lines.index("late line") == lines.index("no newline") - 1
    assert sorted(lines) == sorted(
        ["before", "python inside", "child kept", "python after", "late line", "no newline"]
    )


def test_raw_mode_leaves_stderr_alone():
    proc = run({"DRILLSPARK_JVM_STDERR": "raw"})
    assert proc.returncode == 0, proc.stderr
    assert "WARNING: Using incubator modules: jdk.incubator.vector" in proc.stderr.splitlines()
