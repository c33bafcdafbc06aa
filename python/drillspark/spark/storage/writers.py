"""Atomic writes for `store` and CTAS: data goes to a hidden staging directory beside the
target (so in its workspace), which is renamed into place only when the whole write succeeded;
nothing partial is left, two writes to one target never interleave, and nothing that appears at
the target meanwhile is deleted.

The directory work (listing, renaming, removing) happens in this Python process, so the
target must be on a file system this process shares with Spark's executors: local mode and a
local cluster, or a Spark Connect server on the same machine (docs/running-plans.md)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import uuid
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from drillspark.errors import ExecutionError
from drillspark.formats import registry as format_registry
from drillspark.formats.base import FormatError, WriteSpec


class WriteError(ExecutionError, RuntimeError):
    pass


@dataclass(frozen=True)
class WriteReport:
    path: str
    format: str
    rows: int
    files: list[str] = field(default_factory=list)


# hidden names beside the target: staging folders and the write lock (Drill and drillspark
# skip `.` names when reading, so neither is ever seen as data)
_STAGING = ".{name}.drillspark-"
_LOCK = ".{name}.drillspark-lock"


def write_atomic(df: DataFrame, path: str, fmt: str, overwrite: bool = False) -> WriteReport:
    """Write `df` to `path` all or nothing: into a hidden staging folder beside the target (in
    the same workspace), renamed into place when the whole write succeeded. One write per
    target at a time (a lock file beside it; a second one fails clearly); whatever appears at
    the target while writing is never deleted (the write fails instead); staging folders left
    by killed writes are removed by the next write to the same target."""
    fmt = fmt.lower()
    try:
        plugin, store = format_registry.store_format(fmt)
    except FormatError:
        known = ", ".join(sorted(format_registry.store_formats()))
        raise WriteError(f"cannot store as {fmt!r}; formats: {known}") from None
    name = os.path.basename(path.rstrip(os.sep))
    # errors name the target as its table is named (its last part), never where it lies: a
    # server's users see them
    shown = name
    if os.path.lexists(path) and not overwrite:
        raise WriteError(f"store target {shown} already exists")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(parent, exist_ok=True)
    with _TargetLock(parent, name, shown):
        _remove_orphans(parent, name)
        before = _identity(path)
        if before is not None and not overwrite:
            raise WriteError(f"store target {shown} already exists")
        tmp = os.path.join(parent, _STAGING.format(name=name) + uuid.uuid4().hex)
        try:
            # the rows as the format writes them, Spark's writer and its options: the
            # format module's (drillspark/formats/)
            rows, files = _write(df, tmp, plugin.write_spec(df, store))
            if _identity(path) != before:
                raise WriteError(
                    f"store target {shown} changed while the write ran (something "
                    "else wrote there); it is left as it is and nothing was stored"
                )
            if before is not None:  # overwrite: the old table goes only once the new one is in
                old = os.path.join(parent, _STAGING.format(name=name) + "old-" + uuid.uuid4().hex)
                os.rename(path, old)
                os.rename(tmp, path)
                _remove(old)
            else:
                os.rename(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return WriteReport(
        path=path, format=fmt, rows=rows, files=[os.path.join(path, n) for n in files]
    )


def _write(df: DataFrame, tmp: str, spec: WriteSpec) -> tuple[int, list[str]]:
    # the rows are counted while they are written (one pass; works on Spark Connect too)
    counted = Observation(f"drillspark_store_{uuid.uuid4().hex}")
    writer = spec.df.observe(counted, F.count(F.lit(1)).alias("rows")).write.mode("error")
    writer.options(**dict(spec.options)).format(spec.source).save(tmp)
    rows = int(counted.get.get("rows", 0))
    files = sorted(n for n in os.listdir(tmp) if not n.startswith((".", "_")))
    for n in os.listdir(tmp):  # Spark's bookkeeping files are not output
        if n.startswith((".", "_")):
            os.remove(os.path.join(tmp, n))
    return rows, files


def _identity(path: str) -> tuple[int, int, int] | None:
    """What is at `path` (device, inode, mtime), or None: a change means someone wrote there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def _remove_orphans(parent: str, name: str) -> None:
    """Staging folders of earlier writes to this target: with the lock held, only killed
    writes can have left them."""
    prefix = _STAGING.format(name=name)
    lock = _LOCK.format(name=name)
    for entry in os.listdir(parent):
        if entry.startswith(prefix) and entry != lock:
            with contextlib.suppress(OSError):
                _remove(os.path.join(parent, entry))


def _remove(path: str) -> None:
    """Remove a file, a symlink (the link itself, never what it points to) or a folder."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)  # links inside are removed, not followed
    else:
        os.remove(path)


class _TargetLock:
    """A lock file beside the target, created exclusively; it names its holder (host, pid) so
    a lock left by a killed process on this host is taken over."""

    def __init__(self, parent: str, name: str, shown: str):
        self.path = os.path.join(parent, _LOCK.format(name=name))
        self.shown = shown  # the target as errors name it
        self.me = f"{socket.gethostname()} {os.getpid()} {uuid.uuid4().hex}"

    def __enter__(self) -> _TargetLock:
        lock = os.path.basename(self.path)
        for _ in range(2):
            try:
                # exclusive, and never through a symlink planted at the lock's name
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o644)
            except FileExistsError:
                if self._stale():
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(self.path)
                    continue
                raise WriteError(
                    f"another write to {self.shown} is in progress (lock {lock} beside it); "
                    "try again when it has finished"
                ) from None
            with os.fdopen(fd, "w") as f:
                f.write(self.me)
            return self
        raise WriteError(f"cannot take the write lock {lock} for {self.shown}")

    def _stale(self) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)  # a planted link is not a lock
            with os.fdopen(fd) as f:
                host, pid, *_ = f.read().split()
        except (OSError, ValueError):
            return False  # being written by its holder right now (or not a lock file)
        if host != socket.gethostname():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except (PermissionError, ValueError):
            return False
        return False

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.path)
