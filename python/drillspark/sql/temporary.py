"""Temporary tables (CREATE TEMPORARY TABLE): each session's live in a folder of its own under
the temporary workspace (dfs.tmp), named by the session's id as Drill names it. A session finds
its tables by name; no other session reaches them, by name or by path; they are removed when
the session ends, at exit, and, after a crash, by the next server to start on that workspace.

The state lives outside any one SqlSession object, so that a client whose statements each get a
SqlSession of their own (a REST cookie session, a native-protocol connection) keeps it: `attach`
hands it to each of them."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

OWNER_FILE = ".drillspark-owner"  # in a session's folder: "host pid", for the crash clean-up

# every live session's folder (real path) -> its session id, in this process
_LIVE: dict[str, str] = {}
_LOCK = threading.Lock()


@dataclass
class TemporaryTables:
    """One session's temporary tables: name -> folder, and the session folders holding them."""

    folders: dict[str, str] = field(default_factory=dict)
    roots: set[str] = field(default_factory=set)
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def folder_for(self, tmp_folder: str, name: str) -> str:
        root = os.path.join(tmp_folder, self.session_id)
        if root not in self.roots:
            os.makedirs(root, exist_ok=True)
            owner = os.open(
                os.path.join(root, OWNER_FILE),
                os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                0o644,
            )
            with os.fdopen(owner, "w") as f:
                f.write(f"{socket.gethostname()} {os.getpid()}\n")
            self.roots.add(root)
            with _LOCK:
                _LIVE[os.path.realpath(root)] = self.session_id
            atexit.register(_remove, root)
        return os.path.join(root, name)

    def find(self, name: str) -> str | None:
        path = self.folders.get(name)
        return path if path is not None and os.path.exists(path) else None

    @property
    def holds_tables(self) -> bool:
        return bool(self.folders)

    def drop_all(self) -> None:
        for root in self.roots:
            _remove(root)
        self.folders.clear()
        self.roots.clear()


def _remove(root: str) -> None:
    with _LOCK:
        _LIVE.pop(os.path.realpath(root), None)
    if not os.path.islink(root):
        shutil.rmtree(root, ignore_errors=True)


def temporary_tables(session: Any) -> TemporaryTables:
    """The session's temporary tables (kept on the session object, as USE and options are)."""
    state = session.__dict__.get("_temporary_tables")
    if state is None:
        state = session.__dict__["_temporary_tables"] = TemporaryTables()
    return state


def attach(session: Any, state: TemporaryTables) -> None:
    """Let `session` (one statement's SqlSession) use and add to `state` (its client's)."""
    session.__dict__["_temporary_tables"] = state


def foreign_owner(session: Any, path: str) -> str | None:
    """The session id owning a live temporary folder `path` lies in, when it is not
    `session`'s own; else None."""
    real = os.path.realpath(path)
    own = temporary_tables(session).session_id
    with _LOCK:
        for root, owner in _LIVE.items():
            if owner != own and (real == root or real.startswith(root + os.sep)):
                return owner
    return None


def remove_orphans(tmp_folder: str) -> list[str]:
    """Remove the session folders in `tmp_folder` that a process of this host left behind
    when it died (their owner file names a pid that no longer runs); the names removed."""
    removed: list[str] = []
    host = socket.gethostname()
    try:
        entries = list(os.scandir(tmp_folder))
    except OSError:
        return removed
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        try:
            with open(os.path.join(entry.path, OWNER_FILE), encoding="utf-8") as f:
                owner_host, pid = f.read().split()
            alive = owner_host != host or _running(int(pid))
        except (OSError, ValueError):
            continue  # not a session folder of ours
        if not alive:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.name)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
