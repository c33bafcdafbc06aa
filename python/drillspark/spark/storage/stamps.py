"""What a read of local files is kept by (#37): the stat of every file and folder it reads, so
that a DataFrame read from them is reused only while none changed. The JSON and format reads
and Parquet reads keep theirs here (per Spark session, the newest `KEPT` of each session)."""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
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


def tree_stamps(paths: Sequence[str]) -> tuple | None:
    """The stat of every file and folder under local `paths` (a folder's own: an entry added,
    removed or renamed changes it), or None when they cannot all be known or trusted: a path of
    another file system, a glob, a path on a shared or FUSE mount (SHARED_FS), a symbolic link
    inside a folder, an entry gone while walked, more than MAX_ENTRIES entries, an entry
    changed within RACY_NS."""
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
