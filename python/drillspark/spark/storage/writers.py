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
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.spark.scope import quote

FORMATS = {"json": "json", "parquet": "parquet", "csv": "csv", "tsv": "csv", "psv": "csv"}
_DELIMITERS = {"csv": ",", "tsv": "\t", "psv": "|"}


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
    if fmt not in FORMATS:
        raise WriteError(f"cannot store as {fmt!r}; formats: {', '.join(sorted(FORMATS))}")
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
            rows, files = _write(df, tmp, fmt)
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


def _write(df: DataFrame, tmp: str, fmt: str) -> tuple[int, list[str]]:
    # the rows are counted while they are written (one pass; works on Spark Connect too)
    counted = Observation(f"drillspark_store_{uuid.uuid4().hex}")
    if FORMATS[fmt] == "csv":
        df = _nested_as_json(df)
    if fmt == "parquet":
        df = _nulls_as_int(df)
    writer = df.observe(counted, F.count(F.lit(1)).alias("rows")).write.mode("error")
    if FORMATS[fmt] == "csv":
        # a quote inside a quoted field is doubled, as Drill writes and reads it
        writer = (
            writer.option("header", "true").option("sep", _DELIMITERS[fmt]).option("escape", '"')
        )
        if len(df.columns) == 1:
            # a NULL is an empty field, and a row of one empty field an empty line, which
            # the CSV writer (and readers) skip: write it as "" so the row survives
            writer = writer.option("nullValue", '""')
    if fmt == "json":
        writer = writer.option("ignoreNullFields", "true")  # Drill: skip_null_fields
    writer.format(FORMATS[fmt]).save(tmp)
    rows = int(counted.get.get("rows", 0))
    files = sorted(n for n in os.listdir(tmp) if not n.startswith((".", "_")))
    for n in os.listdir(tmp):  # Spark's bookkeeping files are not output
        if n.startswith((".", "_")):
            os.remove(os.path.join(tmp, n))
    return rows, files


def _nulls_as_int(df: DataFrame) -> DataFrame:
    """A column of NULL literals (`SELECT 'a', null`) written as a nullable INT, as Drill 1.22
    writes and reads it back: Parquet has no null type, so Spark's would be unreadable."""
    typed = [_null_free(f.dataType) for f in df.schema.fields]
    if all(t == f.dataType for t, f in zip(typed, df.schema.fields, strict=True)):
        return df
    return df.select(
        *[
            F.col(quote(f.name)).cast(t).alias(f.name) if t != f.dataType else F.col(quote(f.name))
            for t, f in zip(typed, df.schema.fields, strict=True)
        ]
    )


def _null_free(t: T.DataType) -> T.DataType:
    if isinstance(t, T.NullType):
        return T.IntegerType()
    if isinstance(t, T.ArrayType):
        return T.ArrayType(_null_free(t.elementType), t.containsNull)
    if isinstance(t, T.MapType):
        return T.MapType(_null_free(t.keyType), _null_free(t.valueType), t.valueContainsNull)
    if isinstance(t, T.StructType):
        return T.StructType(
            [T.StructField(f.name, _null_free(f.dataType), f.nullable) for f in t.fields]
        )
    return t


def _nested_as_json(df: DataFrame) -> DataFrame:
    """Maps and arrays in a text table are their JSON text (Drill's text writer)."""
    nested = (T.StructType, T.ArrayType, T.MapType)
    if not any(isinstance(f.dataType, nested) for f in df.schema.fields):
        return df
    return df.select(
        *[
            F.to_json(F.col(quote(f.name))).alias(f.name)
            if isinstance(f.dataType, nested)
            else F.col(quote(f.name))
            for f in df.schema.fields
        ]
    )


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
