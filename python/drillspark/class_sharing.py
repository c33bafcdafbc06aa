"""Class-data sharing (CDS) for the driver JVM of local sessions: Spark's classes, parsed and
verified once, mapped from an archive at later starts (docs/performance.md, "Time to first
result"). Java 17 cannot make the archive by itself (`-XX:+AutoCreateSharedArchive` is JDK
19+), so drillspark does:

* one archive per (Java build, pyspark, drillspark jar) in the cache folder
  (`$DRILLSPARK_CACHE_DIR`, else `$XDG_CACHE_HOME/drillspark`, else `~/.cache/drillspark`),
  named `drillspark-<key>-<size>.jsa`;
* a start that finds none takes a lock file and starts its JVM with
  `-XX:ArchiveClassesAtExit=<temp name>`; the JVM writes the archive when it exits, which is
  after the Python process ended, so a detached watcher (this file run as a script) waits for
  that JVM, checks the file and renames it to its final name (atomic: a reader sees a whole
  archive or none); a concurrent first start finds the lock and runs without CDS, but a lock
  older than a minute belongs to a long-lived writer (`serve`, a notebook, a benchmark's
  session) whose archive comes only when it stops, so a later start writes one as well; of two
  archives of one key the larger (more classes) is kept;
* that archive is kept only when its JVM ran a Spark job (the jar's `ClassSharingMark`
  listener, registered in that JVM alone, creates `<temp name>.ran` at the first job's end):
  one written by a start that ran no query lacks the readers, code generation and task
  classes, and made every later start about a second slower; it is dropped, and a later
  start writes the archive again;
* a start that finds one checks its size (in its name) and its magic number before handing
  it to the JVM, with `-XX:+VerifySharedSpaces` (CRCs): Java 17 dies with SIGBUS on a
  truncated archive whose header is intact and with SIGSEGV on one with garbage inside; it
  falls back on every other mismatch (another JVM build, another class path, a file it
  cannot read or parse), its warning kept off stdout by `-Xlog:...=off`.

`DRILLSPARK_CDS=0` turns it off. Only on Linux (the watcher finds the JVM through /proc;
elsewhere sessions start the usual way), for local masters outside spark-submit, and never
when the JVM flags given already choose their own sharing (`-Xshare`, `SharedArchiveFile`, ...).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CDS_ENV = "DRILLSPARK_CDS"
CACHE_DIR_ENV = "DRILLSPARK_CACHE_DIR"
# CDS_DYNAMIC_ARCHIVE_MAGIC (0xf00baba8), little-endian: HotSpot writes the header, which
# starts with it, after every region, so a file cut short while written does not have it
DYNAMIC_MAGIC = (0xF00BABA8).to_bytes(4, "little")
# The listener that marks a writing JVM that ran a job, and the system property naming its mark
MARK_LISTENER = "drillspark.ClassSharingMark"
MARK_PROPERTY = "drillspark.cds.ran"
# JVM flags that choose sharing themselves: given any of them, drillspark adds none
_USER_CHOICE = (
    "-Xshare",
    "SharedArchiveFile",
    "ArchiveClassesAtExit",
    "UseSharedSpaces",
    "AutoCreateSharedArchive",
)
# A lock older than this belongs to a long-lived writer (a command's JVM exits within seconds)
# or to a run that died before its JVM wrote the archive: a start that finds it writes too.
TAKEOVER_SECONDS = 60
# The watcher gives up on a JVM that runs longer (its archive, written when it stops, is
# then dropped; starts after its first minute have written their own).
WATCH_SECONDS = 24 * 3600
# Archives of other keys (an upgraded Java or pyspark) are removed when unused this long.
OLD_ARCHIVE_SECONDS = 7 * 24 * 3600
# The archives together stay under this (each is 150-190 MB): every jar build (`make jar`, each
# worktree or virtualenv) has a key of its own, and a week of them filled gigabytes. The least
# recently used go first; the newest is always kept.
MAX_CACHE_BYTES = 1 << 30
# Java 17 trusts an archive whose header is whole: garbage inside it (a bad disk, an edited
# file) crashes the JVM. Checking the regions' CRCs at every start (about 0.1 CPU-s for
# Spark's archive) makes it fall back instead.
VERIFY = "-XX:+VerifySharedSpaces"
# The JVM flag that keeps CDS's own log lines (a class it cannot archive, ...) off the
# command's stdout.
QUIET = "-Xlog:cds=off,cds+dynamic=off,class+path=off"


def cache_dir() -> Path:
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "drillspark"


def enabled() -> bool:
    return os.environ.get(CDS_ENV, "1") != "0"


@dataclass
class Sharing:
    """What one session start does: `flags` for the driver JVM; `writing` is the temp file
    its JVM writes at exit, under our `lock`; `listener` the Spark listener to register then."""

    flags: str
    writing: Path | None = None
    lock: Path | None = None
    listener: str | None = None


def java_home() -> Path | None:
    """The Java spark-submit runs: $JAVA_HOME's, else `java` on the PATH."""
    home = os.environ.get("JAVA_HOME")
    java = Path(home) / "bin" / "java" if home else None
    if java is None or not java.exists():
        found = shutil.which("java")
        java = Path(found) if found else None
    if java is None:
        return None
    return Path(os.path.realpath(java)).parent.parent


def java_identity(home: Path) -> tuple[int, str] | None:
    """(major version, a text naming the exact build) from the JDK's `release` file and its
    libjvm; None when they cannot be read (then no sharing: an unknown Java may lack the flags)."""
    try:
        release = (home / "release").read_text()
        libjvm = (home / "lib" / "server" / "libjvm.so").stat()
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="(\d+)', release, re.M)
    if not m:
        return None
    return int(m.group(1)), f"{home}|{release}|{libjvm.st_size}|{libjvm.st_mtime_ns}"


def archive_key(java: str, spark: str, jar: str) -> str:
    """The archive's key: Java build, pyspark (version and where its jars are) and the
    drillspark jar (its published sha256, else its size and time)."""
    sha = Path(jar).with_suffix(".sha256")
    try:
        jar_id = sha.read_text().strip()
    except OSError:
        st = os.stat(jar)
        jar_id = f"{st.st_size}|{st.st_mtime_ns}"
    text = "\n".join([java, spark, jar_id])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _valid(path: Path) -> bool:
    """Whole (the size its name records) and an archive (the magic number)."""
    try:
        size = int(path.stem.rsplit("-", 1)[1])
        return path.stat().st_size == size and _has_magic(path)
    except (OSError, ValueError, IndexError):
        return False


def prepare(master: str | None, java_options: str, jar: str, spark_id: str) -> Sharing | None:
    """The sharing for a session about to start with `master` and driver `java_options`;
    None when none applies. Never raises for a cache problem: a start without CDS is only
    slower."""
    if not enabled() or master is None or not (master == "local" or master.startswith("local[")):
        return None
    if any(flag in java_options for flag in _USER_CHOICE):
        return None
    if any(flag in os.environ.get("PYSPARK_SUBMIT_ARGS", "") for flag in _USER_CHOICE):
        return None
    if not sys.platform.startswith("linux") or not Path("/proc/self").exists():
        return None  # the watcher finds the JVM through /proc: elsewhere, plain starts
    home = java_home()
    ident = java_identity(home) if home else None
    if ident is None or ident[0] < 13:  # dynamic archives: JDK 13+
        return None
    try:
        return _archive_or_claim(cache_dir(), f"drillspark-{archive_key(ident[1], spark_id, jar)}")
    except OSError:
        return None


def _archive_or_claim(folder: Path, name: str) -> Sharing | None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    for entry in folder.glob(f"{name}-*.jsa"):
        if _valid(entry):
            with contextlib.suppress(OSError):
                os.utime(entry)  # its time says when it was last used (the cache's order)
            return Sharing(f"-XX:SharedArchiveFile={entry} {VERIFY} {QUIET}")
        entry.unlink(missing_ok=True)  # cut short or not an archive: it can never work
    lock = folder / f"{name}.lock"
    tmp = folder / f"{name}.{os.getpid()}.tmp"
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(str(tmp))  # the watcher releases only its own lock
    except FileExistsError:
        try:
            if time.time() - lock.stat().st_mtime < TAKEOVER_SECONDS:
                return None  # another start is writing it
        except FileNotFoundError:
            return None  # just released: the archive is there for the next start
        mine = folder / f"{name}.lock.{os.getpid()}"
        mine.write_text(str(tmp))
        os.replace(mine, lock)  # taken over: the long-lived writer's watcher leaves it be
    for stray in [*folder.glob(f"{name}.*.tmp"), *folder.glob(f"{name}.*.tmp.ran")]:
        pid = stray.name[len(name) + 1 :].split(".", 1)[0]
        if not (pid.isdigit() and _alive(int(pid))):  # a writer that is gone left it
            stray.unlink(missing_ok=True)
    flags = f"-XX:ArchiveClassesAtExit={tmp} -D{MARK_PROPERTY}={ran_mark(tmp)} {QUIET}"
    return Sharing(flags, tmp, lock, MARK_LISTENER)


def ran_mark(tmp: Path) -> Path:
    """The file the writing JVM creates when its first Spark job has ended."""
    return tmp.with_name(tmp.name + ".ran")


def _jvm_writing(tmp: Path) -> int | None:
    """The pid of the process whose command line has -XX:ArchiveClassesAtExit=tmp."""
    flag = f"-XX:ArchiveClassesAtExit={tmp}".encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                if flag in f.read().split(b"\0"):
                    return int(entry.name)
        except OSError:
            continue
    return None


def started(sharing: Sharing | None) -> None:
    """After the session started: when its JVM writes an archive, start the watcher that
    names it when the JVM has exited; otherwise (an existing session was reused) release the
    lock. Never raises."""
    if sharing is None or sharing.writing is None or sharing.lock is None:
        return
    try:
        pid = _jvm_writing(sharing.writing)
        if pid is None:
            sharing.lock.unlink(missing_ok=True)
            return
        subprocess.Popen(
            # -I: this file as a script (it imports only the standard library), no site
            [sys.executable, "-I", __file__, str(pid), str(sharing.writing), str(sharing.lock)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        with contextlib.suppress(OSError):
            sharing.lock.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"  # a zombie has exited
    except (OSError, IndexError):
        return False


def finish(pid: int, tmp: Path, lock: Path, poll: float = 0.2) -> Path | None:
    """The watcher: wait for the JVM `pid` to exit, then give its archive the final name
    (size in it) and release the lock; returns the archive, or None when the JVM wrote none
    that is whole or ran no Spark job (a later start writes it then)."""
    deadline = time.monotonic() + WATCH_SECONDS
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(poll)
    final = None
    ran = ran_mark(tmp)
    try:
        if not _alive(pid) and _has_magic(tmp) and ran.exists():
            final = tmp.with_name(tmp.name.split(".", 1)[0] + f"-{tmp.stat().st_size}.jsa")
            os.replace(tmp, final)  # readers see the whole archive or none
            final = _largest_of_key(final)
            _remove_old(final)
        else:
            tmp.unlink(missing_ok=True)
    except OSError:
        final = None
    finally:
        ran.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            if lock.read_text() == str(tmp):  # still ours (not taken over as stale)
                lock.unlink()
    return final


def _largest_of_key(new: Path) -> Path:
    """Of the whole archives of `new`'s key (two when a start wrote beside a long-lived
    writer), the largest, which holds the most classes; the others are removed."""
    key = new.name.rsplit("-", 1)[0]
    found = [p for p in new.parent.glob(f"{key}-*.jsa") if _valid(p)]
    if not found:
        return new
    keep = max(found, key=lambda p: (p.stat().st_size, p == new))  # a tie keeps the new one
    for other in found:
        if other != keep:
            other.unlink(missing_ok=True)
    return keep


def _has_magic(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == DYNAMIC_MAGIC
    except OSError:
        return False


def _remove_old(keep: Path) -> None:
    """Archives of other keys (an upgraded Java or pyspark) not used this week, and the least
    recently used beyond MAX_CACHE_BYTES. (A JVM that has one mapped keeps reading it; a start
    that just chose it falls back to a start without sharing.)"""
    now = time.time()
    others = []
    for other in keep.parent.glob("drillspark-*.jsa"):
        with contextlib.suppress(OSError):
            st = other.stat()
            if other == keep:
                continue
            if now - st.st_mtime > OLD_ARCHIVE_SECONDS:
                other.unlink()
            else:
                others.append((st.st_mtime, st.st_size, other))
    with contextlib.suppress(OSError):
        total = keep.stat().st_size
        for _, size, other in sorted(others, key=lambda o: o[0], reverse=True):
            total += size
            if total > MAX_CACHE_BYTES:
                other.unlink(missing_ok=True)


if __name__ == "__main__":
    finish(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
