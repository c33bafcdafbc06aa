"""The driver JVM's stderr filter (drillspark/jvm_stderr.py), with real processes and pipes:
a child writing to the filtered pipe loses the notices of Spark's launch flags (Java 17's
incubator notice, Java 25's missing package) and nothing else; a line without a newline (a
`\\r` progress bar) passes at once; this process's own stderr is never redirected. Runs in a
child interpreter so pytest's own stderr handling stays out of it. The real JVM's notice:
tests/foundation/test_firsthour_terminal.py."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

PYTHON = Path(__file__).resolve().parents[2] / "python"

SCRIPT = textwrap.dedent(
    r"""
    import os, subprocess, sys
    from drillspark import jvm_stderr

    before = os.fstat(2)
    print("before", file=sys.stderr, flush=True)
    fd = jvm_stderr.filtered_stderr()
    # before the child starts: printed while it runs, it could land inside the child's lines
    print("python while the filter runs", file=sys.stderr, flush=True)
    child = subprocess.Popen(
        ["sh", "-c",
         "echo 'WARNING: Using incubator modules: jdk.incubator.vector' >&2; "
         "echo 'child kept' >&2; printf 'progress 1/2\r' >&2; read go; "
         "echo 'WARNING: package sun.security.action not in java.base' >&2; "
         "printf 'WARNING: Using incubator modules: jdk.incubator.vector\n' >&2; "
         "printf 'WARNING: Using' >&2; printf ' something else\n' >&2; printf 'no newline' >&2"],
        stdin=subprocess.PIPE, stderr=fd,
    )
    os.close(fd)
    # the test answers once it has seen the child's unfinished progress line
    go = sys.stdin.readline()
    child.communicate(go.encode())
    assert jvm_stderr.join(10), "copier still running after every writer ended"
    after = os.fstat(2)
    assert (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino), "stderr was replaced"
    print("python after", file=sys.stderr, flush=True)
    """
)


def test_notice_dropped_partial_lines_passed_at_once_stderr_untouched():
    env = dict(os.environ, PYTHONPATH=str(PYTHON))
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + 120
    while b"progress 1/2\r" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.5)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
    # the child is blocked in `read` until we answer: its line without a newline came through
    assert b"progress 1/2\r" in seen, seen
    proc.stdin.write(b"go\n")
    proc.stdin.close()
    seen += proc.stderr.read()
    assert proc.wait(60) == 0, seen.decode()
    text = seen.decode()
    assert "incubator" not in text and "sun.security.action" not in text, text
    lines = text.split("\n")
    assert lines[0] == "before"
    assert "child kept" in lines
    # a line that only starts like the notice is kept whole
    assert "progress 1/2\rWARNING: Using something else" in lines
    assert text.index("child kept") < text.index("progress 1/2\r") < text.index("WARNING: Using")
    assert text.index("WARNING: Using something else") < text.index("no newline")
    assert "python while the filter runs" in lines and text.endswith("no newlinepython after\n")
