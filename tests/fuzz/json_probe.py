"""The JSON reader's fuzzing harness: the JVM entry point `drillspark.source.read.ReadProbe`
(jvm/src/test, a plain JVM without Spark) reads a file every way the `drill` source can read it
(the Jackson path, the byte path handing over to Jackson, the count path's structural scan,
line-aligned splits) and answers each outcome; `check` holds the property.

The property: every way either reads the file or fails with one of the reader's documented
errors, a `DrillScanException` naming the file and the line and column (or the byte, for an
unreadable file, or the record that spans a split boundary), or the type-conflict error of
option typeConflict=error; never a hang, a JVM crash, a StackOverflowError, an internal error
or any other exception. What works must agree: the byte path gives exactly the Jackson path's
schema, records and rows (or the same error), the count path counts the rows read, and the
file read in splits gives the rows read whole (or a documented error)."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drillspark.session import jar_path

ROOT = Path(__file__).resolve().parents[2]
PROBE = "drillspark.source.read.ReadProbe"
# an input that takes longer than this in one request counts as a hang (the inputs are tiny;
# the shared machine can be slow, so the bound is generous)
HANG_SECONDS = 120.0
STARTUP_SECONDS = 600.0

_LOCATED = re.compile(
    r"^drill: (?P<file>\S+) line \d+(?: of the split starting at byte \d+)?, column \d+"
    r"(?: \(byte \d+\))?: "
)
_UNREADABLE = re.compile(r"^drill: (?P<file>\S+) \(byte \d+\): cannot read: ")
_SPANS = re.compile(r"^drill: (?P<file>\S+): the record starting at byte \d+ spans several lines")
_SCAN_ERROR = "drillspark.source.input.DrillScanException: "
_CONFLICT = "java.lang.IllegalArgumentException: drill: type conflict (option typeConflict=error): "


def classpath() -> str:
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_jar.py"), "--tests"],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    return os.pathsep.join(
        [str(jars / "*"), jar_path(), str(ROOT / "build" / "drillspark-tests.jar")]
    )


class ProbeFailure(AssertionError):
    """The probe hung, crashed, or answered something that is not a documented outcome."""


@dataclass
class Probe:
    """One probe JVM, restarted after a hang or a crash (the failing input is reported)."""

    cp: str
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="json-fuzz-")))
    proc: subprocess.Popen | None = None
    inputs: int = 0

    def _start(self) -> subprocess.Popen:
        java = (
            Path(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
        )
        return subprocess.Popen(
            [str(java), "-Xmx1g", "-XX:+UseSerialGC", "-cp", self.cp, PROBE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, data: bytes, options: dict[str, str], split_bytes: int = 0) -> dict[str, Any]:
        """Every way of reading `data` (a file's bytes) with the source's `options`."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
            # the JVM's start and first classes are not the input's time
            self._ask(b'{"a": 1}\n', {}, 0, STARTUP_SECONDS)
        self.inputs += 1
        return self._ask(data, options, split_bytes, HANG_SECONDS)

    def _ask(
        self, data: bytes, options: dict[str, str], split_bytes: int, limit: float
    ) -> dict[str, Any]:
        path = self.folder / f"in-{self.inputs % 4}.json"
        path.write_bytes(data)
        request = {"path": str(path), "options": options, "splitBytes": split_bytes}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        deadline = time.monotonic() + limit
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, left))
            if not ready:
                self.close()
                raise ProbeFailure(
                    f"no answer within {limit:.0f} s (a hang) for {data!r:.400} {options}"
                )
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                code = self.proc.wait()
                self.proc = None
                raise ProbeFailure(f"the JVM exited ({code}) on {data!r:.400} {options}")
            line += chunk
        answer: dict[str, Any] = json.loads(line)
        answer["path"] = str(path)
        return answer

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def documented(error: str, path: str) -> bool:
    """A documented error: a scan error naming the file and the place, or a type conflict."""
    if error.startswith(_CONFLICT):
        return True
    if not error.startswith(_SCAN_ERROR):
        return False
    message = error[len(_SCAN_ERROR) :]
    if len(message) > 2000 + len(path):  # a message never carries the input itself
        return False
    m = _LOCATED.match(message) or _UNREADABLE.match(message) or _SPANS.match(message)
    return m is not None and m.group("file") == path


def check(data: bytes, options: dict[str, str], answer: dict[str, Any]) -> None:
    """The property (module docstring) for one probe answer."""
    what = f"input {data!r:.600} options {options}"
    if "probe" in answer:
        raise ProbeFailure(f"{answer['probe']} on {what}")
    for way in ("jackson", "fast", "count", "split"):
        got = answer.get(way)
        if got is not None and "error" in got and not documented(got["error"], answer["path"]):
            raise ProbeFailure(
                f"{way}: not a documented error: {got['error'][:1500]} at {got.get('at')} on {what}"
            )
    # where an error was raised is for the report only: the paths may fail in other frames
    jackson, fast = (_outcome(answer["jackson"]), _outcome(answer["fast"]))
    if jackson != fast:
        raise ProbeFailure(
            f"the byte path differs from the Jackson path: {fast} vs {jackson} on {what}"
        )
    count, split = answer.get("count"), answer.get("split")
    if "rows" in jackson:
        if count is not None and count != {"records": len(jackson["rows"])}:
            raise ProbeFailure(f"count {count} but {len(jackson['rows'])} rows read on {what}")
        if split is not None and "rows" in split and split["rows"] != jackson["rows"]:
            raise ProbeFailure(f"split read {split['rows']} but whole {jackson['rows']} on {what}")


def _outcome(got: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in got.items() if k != "at"}
