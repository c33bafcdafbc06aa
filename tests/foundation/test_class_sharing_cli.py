"""Class-data sharing by default (drillspark/class_sharing.py), through real `drillspark sql`
processes: the first run's JVM writes the archive, the second maps Spark's classes from it (the
JVM's own class-loading log says so), an archive with garbage inside or cut short still starts
quietly, and DRILLSPARK_CDS=0 leaves it all out. The archive's life runs on every JDK installed
here that Spark runs on (17, 21, 25; DRILLSPARK_JAVA_HOME)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.jdks import installed

from drillspark import class_sharing
from drillspark.session import JAVA_HOME_ENV

# starts Spark in subprocesses: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

SQL = "SELECT 1 AS one"
# a class of Spark's found in the archive: "source: shared objects file (top)" in the log
FROM_ARCHIVE = "shared objects file (top)"


def run(tmp: Path, name: str, **env: str) -> tuple[subprocess.CompletedProcess, str]:
    """`drillspark sql` in a fresh process, its driver JVM logging where classes come from;
    returns the process and that log."""
    log = tmp / f"{name}.log"
    full = dict(
        os.environ,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        DRILLSPARK_DRIVER_JAVA_OPTS=f"-Xlog:class+load=info:file={log}",
        **env,
    )
    full.pop("PYSPARK_GATEWAY_PORT", None)
    # the JVM keeps the output pipes until it exits: run() returns after any archive is written
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "drillspark",
            "sql",
            "--local",
            "--master",
            "local[1]",
            "--format",
            "csv",
            SQL,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp,
        env=full,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "one\n1\n"
    assert proc.stderr == "", proc.stderr  # no CDS or JVM notice, whatever the archive
    return proc, log.read_text() if log.exists() else ""


def archives(cache: Path) -> list[Path]:
    return sorted(cache.glob("drillspark-*.jsa"))


def wait_for_archive(cache: Path) -> Path:
    """The watcher names the archive shortly after the JVM has exited."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = archives(cache)
        if found and not list(cache.glob("*.lock")):
            return found[0]
        time.sleep(0.2)
    raise AssertionError(f"no archive in {sorted(p.name for p in cache.iterdir())}")


def spark_classes_from_archive(log: str) -> int:
    return sum(
        1 for line in log.splitlines() if FROM_ARCHIVE in line and " org.apache.spark." in line
    )


JDKS = installed()


@pytest.mark.deploy  # the long tier: 40-90 s of `make test`'s 20 minutes
@pytest.mark.parametrize("version", sorted(JDKS), ids=lambda v: f"java{v}")
def test_first_run_writes_the_archive_later_runs_use_it_corruption_falls_back(version, tmp_path):
    cache = tmp_path / "cache"
    env = {class_sharing.CACHE_DIR_ENV: str(cache), JAVA_HOME_ENV: str(JDKS[version])}

    _, log = run(tmp_path, "first", **env)
    archive = wait_for_archive(cache)
    assert spark_classes_from_archive(log) == 0
    assert sorted(p.name for p in cache.iterdir()) == [archive.name]  # no temp file, no lock
    size = archive.stat().st_size
    assert archive.name.endswith(f"-{size}.jsa") and size > 10_000_000

    _, log = run(tmp_path, "second", **env)
    assert spark_classes_from_archive(log) > 1000
    assert archives(cache) == [archive]

    # garbage inside (whole header, right size): Java 17 alone crashes on it (SIGSEGV);
    # -XX:+VerifySharedSpaces makes it load the classes from the jars instead
    os.chmod(archive, 0o600)
    with archive.open("r+b") as f:
        for offset in range(size // 5, size - 65536, size // 5):
            f.seek(offset)
            f.write(os.urandom(65536))
    assert archive.stat().st_size == size
    _, log = run(tmp_path, "garbage", **env)
    assert spark_classes_from_archive(log) == 0
    # handed to the JVM as it was: drillspark's own check (size, magic) cannot see inside
    assert sorted(p.name for p in cache.iterdir()) == [archive.name]

    # cut short (Java 17 dies of SIGBUS on it): not handed to the JVM, removed, written anew
    os.truncate(archive, size // 2)
    _, log = run(tmp_path, "truncated", **env)
    assert spark_classes_from_archive(log) == 0
    rewritten = wait_for_archive(cache)
    assert rewritten.stat().st_size == int(rewritten.stem.rsplit("-", 1)[1])


def test_cds_0_turns_it_off(tmp_path):
    cache = tmp_path / "cache"
    _, log = run(
        tmp_path, "off", **{class_sharing.CACHE_DIR_ENV: str(cache), class_sharing.CDS_ENV: "0"}
    )
    assert "ArchiveClassesAtExit" not in log and spark_classes_from_archive(log) == 0
    assert not cache.exists()


def test_a_start_that_ran_no_job_keeps_no_archive(tmp_path):
    """Its archive would lack what a query loads (readers, code generation, tasks) and make
    every later start slower: the watcher drops it and the next start writes it again."""
    cache = tmp_path / "cache"
    env = dict(os.environ, **{class_sharing.CACHE_DIR_ENV: str(cache)})
    env.pop("PYSPARK_GATEWAY_PORT", None)
    code = "import drillspark; print(drillspark.session(master='local[1]').version)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, env=env
    )
    assert proc.returncode == 0, proc.stderr
    deadline = time.monotonic() + 120
    while list(cache.glob("*.lock")) and time.monotonic() < deadline:
        time.sleep(0.2)  # the watcher releases the lock once the JVM has exited
    assert sorted(p.name for p in cache.iterdir()) == []
