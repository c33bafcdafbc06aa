"""Temporary tables (CREATE TEMPORARY TABLE): each session's live in a folder of its own under
the temporary workspace (dfs.tmp, or the workspace Drill's drill.exec.default_temporary_workspace
names: any writable workspace of a `file` plugin, on S3 or HDFS too), named by the session's id
as Drill names it. A session finds its tables by name; no other session reaches them, by name or
by path; they are removed when the session ends, at exit, and, after a crash, by the next server
to start on that workspace (a local one: a remote workspace's crash leftovers stay).

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

from drillspark.options.boot import TEMPORARY_WORKSPACE_CONF

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
    # a session folder on a remote file system (s3a://, hdfs://) -> the Spark session whose
    # Hadoop file system writes and removes it
    remote: dict[str, Any] = field(default_factory=dict)

    def folder_for(self, tmp_folder: str, name: str, spark: Any = None) -> str:
        if _is_remote(tmp_folder):
            return self._remote_folder_for(tmp_folder, name, spark)
        root = os.path.join(tmp_folder, self.session_id)
        if root not in self.roots:
            os.makedirs(root, exist_ok=True)
            owner = os.open(
                os.path.join(root, OWNER_FILE),
                os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                0o644,
            )
            with os.fdopen(owner, "w") as f:
                f.write(_owner())
            self.roots.add(root)
            with _LOCK:
                _LIVE[os.path.realpath(root)] = self.session_id
            atexit.register(_remove, root)
        return os.path.join(root, name)

    def _remote_folder_for(self, tmp_folder: str, name: str, spark: Any) -> str:
        root = tmp_folder.rstrip("/") + "/" + self.session_id
        if root not in self.roots:
            _fs().mkdirs(spark, root)
            _fs().write_whole(spark, root + "/" + OWNER_FILE, _owner().encode())
            self.roots.add(root)
            self.remote[root] = spark
            with _LOCK:
                _LIVE[root] = self.session_id
            atexit.register(_remove, root, spark)
        return root + "/" + name

    def find(self, name: str) -> str | None:
        path = self.folders.get(name)
        if path is None:
            return None
        if _is_remote(path):
            return path if _remote_exists(self._spark_of(path), path) else None
        return path if os.path.exists(path) else None

    def _spark_of(self, path: str) -> Any:
        return next((sp for root, sp in self.remote.items() if path.startswith(root + "/")), None)

    def forget(self, name: str) -> None:
        """Drop one table (DROP TABLE of a temporary table)."""
        path = self.folders.pop(name, None)
        if path is None:
            return
        if _is_remote(path):
            spark = self._spark_of(path)
            if spark is not None:
                _fs().delete(spark, path)
        else:
            shutil.rmtree(path, ignore_errors=True)

    @property
    def holds_tables(self) -> bool:
        return bool(self.folders)

    def drop_all(self) -> None:
        for root in self.roots:
            _remove(root, self.remote.get(root))
        self.folders.clear()
        self.roots.clear()
        self.remote.clear()


def _is_remote(path: str) -> bool:
    from drillspark.spark.storage import filesystems  # pyspark: only once a table is made

    return filesystems.is_remote(path)


def _fs() -> Any:
    from drillspark.spark.storage import filesystems

    return filesystems


def _owner() -> str:
    return f"{socket.gethostname()} {os.getpid()}\n"


def _remote_exists(spark: Any, path: str) -> bool:
    if spark is None:
        return False
    try:
        return _fs().exists(spark, path)
    except Exception:  # noqa: BLE001  (a file system that stopped answering: no such table)
        return False


def _remove(root: str, spark: Any = None) -> None:
    with _LOCK:
        _LIVE.pop(root if _is_remote(root) else os.path.realpath(root), None)
    if _is_remote(root):
        try:
            if spark is not None:
                _fs().delete(spark, root)
        except Exception:  # noqa: BLE001  (at exit the JVM may be gone: nothing more to do)
            pass
    elif not os.path.islink(root):
        shutil.rmtree(root, ignore_errors=True)


def workspace_setting(spark: Any) -> str | None:
    """Drill's drill.exec.default_temporary_workspace as the Spark session sets it
    (spark.drillspark.defaultTemporaryWorkspace, e.g. `s3.tmp`), else None (`dfs.tmp`)."""
    if spark is None:
        return None
    try:
        value = spark.conf.get(TEMPORARY_WORKSPACE_CONF, None)
    except Exception:  # noqa: BLE001  (a session that is gone: Drill's default)
        return None
    return str(value).strip() or None if value else None


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
    remote = _is_remote(path)
    real = path.rstrip("/") if remote else os.path.realpath(path)
    sep = "/" if remote else os.sep
    own = temporary_tables(session).session_id
    with _LOCK:
        for root, owner in _LIVE.items():
            if owner != own and (real == root or real.startswith(root + sep)):
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
