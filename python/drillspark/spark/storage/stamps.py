"""What a read of local files is kept by (#37): the stat of every file and folder it reads, so
that a DataFrame read from them is reused only while none changed. The JSON and format reads
keep theirs here (per Spark session, the newest `KEPT` of each session); Parquet's reads keep
theirs in readers.py, by the stat of each file."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

KEPT = 64
_LOCK = threading.Lock()
_KEPT: weakref.WeakKeyDictionary[Any, OrderedDict[Hashable, Any]] = weakref.WeakKeyDictionary()


def tree_stamps(paths: Sequence[str]) -> tuple | None:
    """The stat of every file and folder under local `paths` (a folder's own: an entry added,
    removed or renamed changes it), or None when they cannot all be known: a path of another
    file system, a glob, a symbolic link inside a folder, an entry gone while walked."""
    out: list[tuple] = []
    try:
        for p in paths:
            local = p.removeprefix("file://").removeprefix("file:")
            if ("://" in p and not p.startswith("file:")) or any(c in local for c in "*?[{"):
                return None
            out.append(_stamp(local))
            if not os.path.isdir(local):
                continue
            for root, dirs, files in os.walk(local):
                dirs.sort()
                for name in sorted(dirs) + sorted(files):
                    path = os.path.join(root, name)
                    if os.path.islink(path):
                        return None
                    out.append(_stamp(path))
    except OSError:
        return None
    return tuple(out)


# A small file's stamp holds a digest of its bytes too: the file system's times move in clock
# ticks (milliseconds), so a small file rewritten at the same length within one tick (a script,
# a test) would keep its stat; a large one takes longer than a tick to write.
DIGESTED = 64 * 1024


def _stamp(path: str) -> tuple:
    st = os.stat(path)
    digest = b""
    if stat.S_ISREG(st.st_mode) and st.st_size <= DIGESTED:
        with open(path, "rb") as f:
            digest = hashlib.blake2b(f.read(DIGESTED + 1), digest_size=16).digest()
    return (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, digest)


def kept(spark: Any, key: Hashable | None, read: Callable[[], Any]) -> Any:
    """`read()`'s DataFrame, kept for `spark` under `key` (which holds the files' stamps);
    a None key is read every time."""
    if key is None:
        return read()
    with _LOCK:
        reads = _KEPT.setdefault(spark, OrderedDict())
        df = reads.get(key)
        if df is not None:
            reads.move_to_end(key)
            return df
    df = read()
    with _LOCK:
        reads[key] = df
        while len(reads) > KEPT:
            reads.popitem(last=False)
    return df
