"""Drill view files: a view `v` of a workspace is the file `v.view.drill` in the workspace's
folder, a JSON object (pretty-printed as Drill's Jackson writer does):

    {"name": "v", "sql": "SELECT ...", "fields": [{"name", "type", "precision"?, "scale"?,
     "isNullable"}, ...], "workspaceSchemaPath": ["dfs", "tmp"]}

`fields` are the view's columns with Calcite type names (`ANY` for a column of a schema-free
table; a single `**` of type `DYNAMIC_STAR` for `SELECT *` over one); `workspaceSchemaPath` is
the default schema the SQL was written under. Drill and drillspark read each other's files.

A view file is written whole or not at all: into a new file beside it (a hidden name no one can
guess, created exclusively and never through a symlink), renamed over the view file (a symlink
planted there is replaced, never followed). CREATE VIEW statements of one view in this process
run one after another (`view_lock`). In a workspace on another file system (`s3a://`,
`hdfs://`) the file is read, listed, written and deleted through Hadoop's FileSystem
(`filesystems`): written as one upload on an object store, or renamed over on HDFS."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drillspark.errors import ExecutionError
from drillspark.spark.storage import filesystems

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

VIEW_SUFFIX = ".view.drill"


class ViewFileError(ExecutionError, ValueError):
    pass


class ViewExistsError(ViewFileError):
    """CREATE VIEW (without OR REPLACE) found the view file made meanwhile (by another
    process)."""


@dataclass(frozen=True)
class ViewFile:
    name: str
    path: str
    sql: str
    fields: list[dict[str, Any]]
    schema_path: list[str]

    @property
    def dynamic(self) -> bool:
        """True for `SELECT *` over a schema-free table: the columns are known only when run."""
        return any(f.get("type") == "DYNAMIC_STAR" for f in self.fields)


def view_path(folder: str, name: str) -> str:
    return os.path.join(folder, name + VIEW_SUFFIX)


def read_view(path: str, spark: SparkSession | None = None) -> ViewFile:
    """The view file at `path` (on a remote file system through `spark`'s Hadoop client);
    errors name it by its file name (never where it lies)."""
    shown = os.path.basename(path)
    try:
        if filesystems.is_remote(path):
            data = json.loads(filesystems.read_bytes(_remote(spark), path).decode("utf-8"))
        else:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
    except OSError as e:
        raise ViewFileError(f"cannot read the view file {shown}: {e.strerror or e}") from None
    except ValueError as e:
        raise ViewFileError(f"cannot read the view file {shown}: {e}") from None
    except Exception as e:  # noqa: BLE001  (the remote file system's failure, from the JVM)
        raise ViewFileError(f"cannot read the view file {shown}: {_first_line(e)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("sql"), str):
        raise ViewFileError(f"the view file {shown} has no 'sql'")
    name = os.path.basename(path)[: -len(VIEW_SUFFIX)]
    fields = data.get("fields") or []
    if not isinstance(fields, list) or not all(isinstance(x, dict) for x in fields):
        raise ViewFileError(f"the view file {shown} has a malformed 'fields' list")
    return ViewFile(
        str(data.get("name") or name),
        path,
        data["sql"],
        fields,
        [str(p) for p in data.get("workspaceSchemaPath") or []],
    )


def list_views(
    folder: str,
    leads_out: Callable[[str, str], bool] | None = None,
    spark: SparkSession | None = None,
) -> list[ViewFile]:
    """The views of a workspace folder (its top level only, as Drill looks for them; a remote
    one's through `spark`). In a confined workspace `leads_out(folder, name)` is the
    workspace rule's answer for a symlink: a view file that links out of the workspace is not
    one of its views (never read)."""
    out: list[ViewFile] = []
    if filesystems.is_remote(folder):
        return _list_remote(_remote(spark), folder)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        if e.name.endswith(VIEW_SUFFIX) and not e.name.startswith(".") and e.is_file():
            if leads_out is not None and e.is_symlink() and leads_out(folder, e.name):
                continue
            try:
                out.append(read_view(e.path))
            except ViewFileError:
                continue  # an unreadable file is not a view; querying it names the problem
    return out


def _list_remote(spark: SparkSession, folder: str) -> list[ViewFile]:
    """The views of a workspace on another file system (s3a://, hdfs://): no symlinks there."""
    try:
        entries = filesystems.entries(spark, folder)
    except Exception as err:  # noqa: BLE001  (py4j's error carrying Java's exception)
        java = getattr(err, "java_exception", None)
        if java is not None and "FileNotFoundException" in str(java.getClass().getName()):
            return []  # a missing prefix holds no views, as a missing folder
        # a file system that does not answer is no empty workspace (Drill fails too)
        raise filesystems.FileSystemError(
            f"cannot list the views of {folder}: {filesystems.cause(err)}"
        ) from None
    out: list[ViewFile] = []
    for e in entries:
        if e.name.endswith(VIEW_SUFFIX) and not e.name.startswith(".") and not e.is_directory:
            try:
                out.append(read_view(folder.rstrip("/") + "/" + e.name, spark))
            except ViewFileError:
                continue  # an unreadable file is not a view; querying it names the problem
    return out


def _remote(spark: SparkSession | None) -> SparkSession:
    if spark is None:
        raise ViewFileError("a view on a remote file system is read through a Spark session")
    return spark


def _first_line(error: BaseException) -> str:
    java = getattr(error, "java_exception", None)
    text = f"{java.getClass().getSimpleName()}: {java.getMessage()}" if java is not None else ""
    return " ".join((text or str(error)).split("\n")[0].split())


def view_bytes(name: str, sql: str, fields: list[dict[str, Any]], schema_path: list[str]) -> bytes:
    """A view file's content, as Drill writes it."""
    data = {"name": name, "sql": sql, "fields": fields, "workspaceSchemaPath": schema_path}
    return jackson_pretty(data).encode("utf-8")


def write_remote_view(
    spark: SparkSession,
    path: str,
    name: str,
    sql: str,
    fields: list[dict[str, Any]],
    schema_path: list[str],
    replace: bool = True,
) -> None:
    """A view file on another file system (s3a://, hdfs://), whole or not at all
    (filesystems.write_whole: one upload on an object store, a rename on HDFS); without
    `replace`, ViewExistsError when it is there."""
    data = view_bytes(name, sql, fields, schema_path)
    try:
        written = filesystems.write_whole(spark, path, data, replace)
    except Exception as e:  # noqa: BLE001  (the remote file system's failure, from the JVM)
        raise ViewFileError(f"cannot write view `{name}`: {_first_line(e)}") from None
    if not written:
        raise ViewExistsError(f"view `{name}` exists")


def delete_remote_view(spark: SparkSession, path: str) -> bool:
    """Delete the view file `path` of a remote workspace; False when there is none."""
    if not filesystems.is_file(spark, path):
        return False
    filesystems.delete(spark, path)
    return True


# view file -> the lock its writers in this process take (a server runs statements in threads)
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def view_lock(path: str) -> Iterator[None]:
    """Hold the view file `path` for one writer of this process: concurrent CREATE [OR
    REPLACE] VIEW statements of one view run one after another, each seeing the last one's
    file."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(os.path.abspath(path), threading.Lock())
    with lock:
        yield


def write_view(
    path: str,
    name: str,
    sql: str,
    fields: list[dict[str, Any]],
    schema_path: list[str],
    replace: bool = True,
    confined: Callable[[], object] | None = None,
) -> None:
    """Write the view file whole or not at all: into `.<file>.<random>.tmp` beside it, created
    exclusively without following a symlink (mode 0644), then renamed over `path` (with
    `replace`) or linked to it only if no file is there yet (else ViewExistsError). The folder
    is opened first and everything happens in the folder so opened; `confined` (the workspace
    rule's check of the view's name) runs once it is open, and the folder must still be the
    one its path names, so a folder swapped for a symlink meanwhile is never written to."""
    text = view_bytes(name, sql, fields, schema_path)
    folder, base = os.path.split(os.path.abspath(path))
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        raise ViewFileError(f"cannot open the folder of view `{name}`: {e.strerror}") from None
    try:
        if confined is not None:
            confined()
            try:
                same = os.path.samestat(os.fstat(folder_fd), os.stat(folder))
            except OSError:
                same = False
            if not same:
                raise ViewFileError(f"the folder of view `{name}` changed while it was written")
        tmp = f".{base}.{uuid.uuid4().hex}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(tmp, flags, 0o644, dir_fd=folder_fd)
        except OSError as e:
            raise ViewFileError(f"cannot write view `{name}`: {e.strerror}") from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            if replace:
                os.replace(tmp, base, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
            else:
                try:
                    os.link(tmp, base, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
                except FileExistsError:
                    raise ViewExistsError(f"view `{name}` exists") from None
        except OSError as e:
            raise ViewFileError(f"cannot write view `{name}`: {e.strerror or e}") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=folder_fd)
    finally:
        os.close(folder_fd)


def jackson_pretty(value: Any, indent: int = 0) -> str:
    """JSON as Jackson's default pretty printer writes it (`"k" : v`, `[ {` ... `} ]`)."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{ }"
        items = [
            f"{pad}  {json.dumps(k)} : {jackson_pretty(v, indent + 1)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(jackson_pretty(v, indent) for v in value) + " ]"
    return json.dumps(value, ensure_ascii=False)
