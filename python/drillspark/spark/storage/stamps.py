"""What a read of local files is kept by (#37): the stat of every file and folder it reads, so
that a DataFrame read from them is reused only while none changed. The JSON and format reads
and Parquet reads keep theirs here (per Spark session, the newest `KEPT` of each session)."""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

KEPT = 64
# A stamp cannot tell a change made later in the same clock tick of the file system (coarse
# times on older kernels and FUSE mounts, NFS's cached attributes): a read any of whose entries
# changed within RACY_NS of the stamp is not kept (git's "racily clean" rule)
RACY_NS = 2_000_000_000
# a tree of more entries is not kept: walking it each statement would cost more than it saves
MAX_ENTRIES = 2_000
# file systems whose stat another machine's write need not change at once (cached attributes)
# or at all (FUSE mounts answer what their daemon says): a tree on one is never kept
SHARED_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
        "afs",
        "virtiofs",
        "vboxsf",
        "fuse",
        "fuseblk",
    }
)
_LOCK = threading.Lock()
_KEPT: weakref.WeakKeyDictionary[Any, OrderedDict[Hashable, Any]] = weakref.WeakKeyDictionary()
_ACTIVE = threading.local()


@dataclass(frozen=True)
class Read:
    """One read a kept translation follows: local files by their stamps (`paths`), or a small
    table by its content (`content`: asked again, it answers the rows' identity, e.g. a
    catalog table's rows as metadata.py lists them)."""

    found: Hashable | None
    paths: tuple[str, ...] = ()
    content: Callable[[], Hashable | None] | None = None

    def fresh(self) -> bool:
        """Whether what was read is still what it was."""
        if self.content is None:
            return tree_stamps(list(self.paths), report=False) == self.found
        try:
            return self.content() == self.found
        except Exception:  # noqa: BLE001 - it cannot say now: read again (which reports it)
            return False


@dataclass
class Recording:
    """What one translation read (spark/plan_reuse.py), one `Read` each; `reusable` False once
    a scan recorded nothing or a tree's stamps were refused."""

    reads: list[Read] = field(default_factory=list)
    reusable: bool = True


@contextmanager
def recording() -> Iterator[Recording]:
    """Record, in this thread, the stamps taken inside (tree_stamps) and whether each scan
    (`scan`) took any."""
    outer = getattr(_ACTIVE, "rec", None)
    rec = Recording()
    _ACTIVE.rec = rec
    try:
        yield rec
    finally:
        _ACTIVE.rec = outer


@contextmanager
def scan() -> Iterator[None]:
    """Around one scan's read: one that took no stamps read what stamps cannot follow (another
    source, a sampled read)."""
    rec = getattr(_ACTIVE, "rec", None)
    before = len(rec.reads) if rec is not None else 0
    yield
    if rec is not None and len(rec.reads) == before:
        rec.reusable = False


def _report(read: Read) -> None:
    rec = getattr(_ACTIVE, "rec", None)
    if rec is not None:
        rec.reads.append(read)
        if read.found is None:
            rec.reusable = False


def content_read(content: Callable[[], Hashable | None], found: Hashable | None) -> None:
    """A recording (`recording`) in this thread is told of a read kept by its content:
    `found` is what `content()` answered for it (None: not to be kept)."""
    _report(Read(found, content=content))


def tree_stamps(paths: Sequence[str], report: bool = True) -> tuple | None:
    """The stat of every file and folder under local `paths` (a folder's own: an entry added,
    removed or renamed changes it), or None when they cannot all be known or trusted: a path of
    another file system, a glob, a path on a shared or FUSE mount (SHARED_FS), a symbolic link
    inside a folder, an entry gone while walked, more than MAX_ENTRIES entries, an entry
    changed within RACY_NS. A recording (`recording`) in this thread is told, unless not
    `report`."""
    found = _tree_stamps(paths)
    if report:
        _report(Read(found, paths=tuple(paths)))
    return found


def _tree_stamps(paths: Sequence[str]) -> tuple | None:
    now = time.time_ns()
    out: list[tuple] = []
    mounts = _mounts()
    try:
        for p in paths:
            local = p.removeprefix("file://").removeprefix("file:")
            if ("://" in p and not p.startswith("file:")) or any(c in local for c in "*?[{"):
                return None
            if shared_mount(os.path.realpath(local), mounts):
                return None
            out.append(_stamp(local))
            if not os.path.isdir(local):
                continue
            for root, dirs, files in os.walk(local):
                dirs.sort()
                for name in sorted(dirs) + sorted(files):
                    path = os.path.join(root, name)
                    if os.path.islink(path) or len(out) >= MAX_ENTRIES:
                        return None
                    out.append(_stamp(path))
    except OSError:
        return None
    if any(max(entry[2], entry[3]) >= now - RACY_NS for entry in out):
        return None
    return tuple(out)


def _mounts() -> list[tuple[str, str]]:
    """(mount point, file system type) of this process's mounts; none known off Linux."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        fields = line.split()
        if len(fields) >= 3:  # octal escapes: a space in a mount point is \040
            out.append((fields[1].replace("\\040", " "), fields[2]))
    return out


def shared_mount(path: str, mounts: Sequence[tuple[str, str]]) -> bool:
    """Whether absolute `path` lies on a mount whose type is in SHARED_FS or any `fuse.*`
    (the innermost mount holding it decides)."""
    best, kind = "", ""
    for point, fs in mounts:
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fs
    return kind in SHARED_FS or kind.startswith("fuse.")


def _stamp(path: str) -> tuple:
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def kept(spark: Any, shape: Hashable, found: tuple | None, read: Callable[[], Any]) -> Any:
    """`read()`'s DataFrame, kept for `spark` under `shape` (the read's paths and options)
    while its files' stamps are `found`: one read per shape, the newest (a folder that keeps
    changing replaces its read, it does not pile them up); None stamps: read every time."""
    if found is None:
        return read()
    with _LOCK:
        reads = _KEPT.setdefault(spark, OrderedDict())
        held = reads.get(shape)
        if held is not None and held[0] == found:
            reads.move_to_end(shape)
            return held[1]
    df = read()
    with _LOCK:
        reads[shape] = (found, df)
        reads.move_to_end(shape)
        while len(reads) > KEPT:
            reads.popitem(last=False)
    return df
