"""File systems beyond this machine's disk (`s3a://bucket`, `hdfs://host:port`) for `file`
plugins: their Hadoop settings scoped to the plugin, and the few questions the Python side asks
of a path (does it exist, is it a folder, the files under it, an entry's status), answered by
Hadoop's FileSystem through the session's JVM. Local paths never come here: the callers keep
asking the local file system (and the extension's workspace rule) for them.

Scoping: S3A reads `fs.s3a.bucket.<bucket>.<key>` before `fs.s3a.<key>`, so a plugin's
`fs.s3a.*` settings are set for its bucket alone; two plugins that name the same bucket with
different settings are refused (their credentials would mix). Other schemes' settings apply to
the session's Hadoop configuration: a plugin whose config sets a key another plugin of the
session set to another value is refused (two `hdfs://` clusters may share a session as long as
the settings they both name agree).
"""

from __future__ import annotations

import contextlib
import re
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from pyspark.sql import SparkSession

from drillspark.errors import ExecutionError

_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/]*)(/.*)?$")
S3A_PREFIX = "fs.s3a."
S3A_BUCKET_PREFIX = "fs.s3a.bucket."


class FileSystemError(ExecutionError, ValueError):
    """A remote file system that cannot be reached or read; the message names the plugin."""


def is_remote(path: str) -> bool:
    """Whether `path` is a URI of another file system than this machine's (`file:`)."""
    m = _URI.match(path)
    return m is not None and m.group(1).lower() != "file"


def split(uri: str) -> tuple[str, str]:
    """(`scheme://authority`, the path within it, '/' at least) of a remote URI."""
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}", parts.path or "/"


def join(root: str, path: str) -> str:
    """`path` (a key within the file system, `/` separated) under the URI `root`."""
    base, _ = split(root)
    return base + "/" + path.lstrip("/")


# (id of the Spark context, scheme://authority) -> (plugin, its settings): who set a bucket's
# settings in that session, so a second plugin with other settings is refused
_SCOPED: dict[tuple[int, str], tuple[str, tuple[tuple[str, str], ...]]] = {}
_LOCK = threading.Lock()


def scoped_settings(connection: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The Hadoop settings of a plugin on `connection`, scoped to it: an `s3a` plugin's
    `fs.s3a.X` becomes `fs.s3a.bucket.<bucket>.X`."""
    m = _URI.match(connection)
    out: dict[str, str] = {}
    for key, value in (config or {}).items():
        text = "true" if value is True else "false" if value is False else str(value)
        s3a = m is not None and m.group(1).lower() == "s3a"
        if m and s3a and key.startswith(S3A_PREFIX) and not key.startswith(S3A_BUCKET_PREFIX):
            key = f"{S3A_BUCKET_PREFIX}{m.group(2)}.{key[len(S3A_PREFIX) :]}"
        out[str(key)] = text
    return out


def _context(spark: SparkSession) -> Any:
    """The session's Java Spark context (None over Spark Connect)."""
    jsc = getattr(spark.sparkContext, "_jsc", None)
    return jsc


def configure(spark: SparkSession, plugin: str, connection: str, config: Mapping[str, Any]) -> None:
    """Set plugin `plugin`'s Hadoop settings (`config`) in the session, scoped to its
    connection; a bucket another plugin set differently is refused, naming both (never a
    value)."""
    if not is_remote(connection):
        return
    settings = scoped_settings(connection, config)
    base = split(connection)[0]
    jsc = _context(spark)
    if jsc is None:
        return
    key = (id(jsc), base)
    frozen = tuple(sorted(settings.items()))
    with _LOCK:
        owner = _SCOPED.get(key)
        if owner is not None and owner[1] == frozen:
            return  # set already (each table name asks: no py4j round trip per setting)
        if owner is not None and owner[0] != plugin:
            raise FileSystemError(
                f"storage plugin '{plugin}': {base} is already the connection of storage plugin "
                f"'{owner[0]}' with other settings (config); two plugins on one bucket would "
                "share their credentials, so give each plugin its own bucket or the same config"
            )
        clash = _session_wide_clash(id(jsc), base, plugin, settings)
        if clash is not None:
            other, name = clash
            raise FileSystemError(
                f"storage plugin '{plugin}': its config sets {name}, which storage plugin "
                f"'{other}' set otherwise; {split(connection)[0].split(':')[0]}:// settings are "
                "the Spark session's (only S3A has per-bucket ones), so the two would share "
                "them: give both the same value, or run them in separate sessions"
            )
        conf = jsc.hadoopConfiguration()
        if owner is not None and owner[1] != frozen:
            for old, _ in owner[1]:
                conf.unset(old)
        for k, v in settings.items():
            conf.set(k, v)
        _SCOPED[key] = (plugin, frozen)
        if owner is not None and owner[1] != frozen:
            # a cached FileSystem keeps the settings it was made with
            _fs(spark, connection).close()


def release(spark: SparkSession, plugin: str) -> None:
    """Forget plugin `plugin`'s settings in the session (it was deleted or disabled): its
    scoped keys are unset and its connection is free for another plugin's settings."""
    jsc = _context(spark)
    if jsc is None:
        return
    with _LOCK:
        held = [k for k, (owner, _) in _SCOPED.items() if k[0] == id(jsc) and owner == plugin]
        conf = jsc.hadoopConfiguration()
        for key in held:
            for name, _ in _SCOPED.pop(key)[1]:
                if name.startswith(S3A_BUCKET_PREFIX):  # session-wide keys may be another's too
                    conf.unset(name)
            if key[1].lower().startswith("s3a:"):
                # a cached FileSystem keeps the settings it was made with
                with contextlib.suppress(Exception):
                    _fs(spark, key[1]).close()


def _session_wide_clash(
    session: int, base: str, plugin: str, settings: Mapping[str, str]
) -> tuple[str, str] | None:
    """(the other plugin, the key) when a setting of `plugin` is not scoped to its connection
    (not S3A's `fs.s3a.bucket.<bucket>.*`) and another plugin of the session set that key to
    another value: both would read the last one set (an `hdfs://` plugin's settings are the
    session's Hadoop configuration), so the second is refused rather than mixing them."""
    for (sid, other_base), (other, frozen) in _SCOPED.items():
        if sid != session or other_base == base or other == plugin:
            continue
        theirs = dict(frozen)
        for key, value in settings.items():
            if key.startswith(S3A_BUCKET_PREFIX):
                continue
            if key in theirs and theirs[key] != value:
                return other, key
    return None


def _jvm(spark: SparkSession) -> Any:
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        raise FileSystemError(
            "remote file systems (s3a://, hdfs://) are read through the session's JVM; "
            "Spark Connect sessions cannot list them from Python"
        )
    return jvm


def _fs(spark: SparkSession, uri: str) -> Any:
    jvm = _jvm(spark)
    path = jvm.org.apache.hadoop.fs.Path(uri)
    return path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())


def _path(spark: SparkSession, uri: str) -> Any:
    return _jvm(spark).org.apache.hadoop.fs.Path(uri)


def exists(spark: SparkSession, uri: str) -> bool:
    return bool(_fs(spark, uri).exists(_path(spark, uri)))


def is_dir(spark: SparkSession, uri: str) -> bool:
    fs = _fs(spark, uri)
    p = _path(spark, uri)
    return bool(fs.exists(p) and fs.getFileStatus(p).isDirectory())


def is_file(spark: SparkSession, uri: str) -> bool:
    """Whether `uri` is a file (one status request: a view lookup asks it per table name)."""
    fs = _fs(spark, uri)
    p = _path(spark, uri)
    try:
        return bool(fs.getFileStatus(p).isFile())
    except Exception as e:  # noqa: BLE001  (py4j's error carrying Java's FileNotFoundException)
        java = getattr(e, "java_exception", None)
        if java is not None and "FileNotFoundException" in str(java.getClass().getName()):
            return False
        raise


def load_schema(
    spark: SparkSession, plugin: str, location: str, secrets: Sequence[str] = ()
) -> None:
    """Ask the file system of plugin `plugin` for its workspace `location` (one request), as
    Drill 1.22 does whenever a statement loads the plugin's schemas (SHOW SCHEMAS,
    INFORMATION_SCHEMA): a file system that cannot answer fails the statement, in Drill's
    words, naming the plugin and the cause (a workspace that holds nothing yet is fine)."""
    fs = _fs(spark, location)
    p = _path(spark, location)
    try:
        if p.isRoot():  # S3A answers a root's status without asking the store: list it
            fs.listStatusIterator(p).hasNext()
        else:
            fs.getFileStatus(p)
    except Exception as e:  # noqa: BLE001  (py4j's error carrying Java's exception)
        java = getattr(e, "java_exception", None)
        if java is not None and "FileNotFoundException" in str(java.getClass().getName()):
            return
        raise FileSystemError(
            f"Failed to load schema for schema {plugin}: {describe(e, plugin, secrets)}"
        ) from None


def _hidden(name: str) -> bool:
    return name.startswith((".", "_"))


def list_files(spark: SparkSession, uri: str, extensions: Sequence[str] = ()) -> list[str]:
    """The data files of `uri` (itself when a file; under it, recursively, when a folder),
    sorted, hidden ones (`.x`, `_x`) left out, as Drill lists a table's files."""
    fs = _fs(spark, uri)
    p = _path(spark, uri)
    status = fs.getFileStatus(p)
    if not status.isDirectory():
        return [str(status.getPath().toString())]
    out: list[str] = []
    stack = [p]
    while stack:
        folder = stack.pop()
        children = sorted(fs.listStatus(folder), key=lambda s: str(s.getPath().getName()))
        dirs = []
        for st in children:
            name = str(st.getPath().getName())
            if _hidden(name):
                continue
            if st.isDirectory():
                dirs.append(st.getPath())
            elif not extensions or name.lower().endswith(tuple(extensions)):
                out.append(str(st.getPath().toString()))
        stack.extend(reversed(dirs))
    return sorted(out)


def read_bytes(spark: SparkSession, uri: str) -> bytes:
    """A (small) file's bytes: a text table's header."""
    fs = _fs(spark, uri)
    stream = fs.open(_path(spark, uri))
    try:
        utils = _jvm(spark).org.apache.commons.io.IOUtils
        return bytes(utils.toByteArray(stream))
    finally:
        stream.close()


# object stores: an object appears whole when its upload completes (no rename needed, and
# their rename is a copy)
_OBJECT_STORES = ("s3a", "s3", "s3n", "gs", "abfs", "abfss", "wasb", "wasbs", "oss", "cos")


def write_whole(spark: SparkSession, uri: str, data: bytes, replace: bool = True) -> bool:
    """Write `data` as the file `uri`, whole or not at all; False (nothing written) when
    `replace` is off and the file exists. On an object store the one upload is the write (an
    upload that fails is aborted, never completed); elsewhere (HDFS) a hidden file beside it
    is written and renamed over it."""
    fs = _fs(spark, uri)
    target = _path(spark, uri)
    scheme = urlsplit(uri).scheme.lower()
    if scheme in _OBJECT_STORES:
        if replace:  # last writer wins, each whole
            _write(fs.create(target, True), data)
            return True
        if scheme == "s3a":
            return _create_new(fs, target, data)
        if fs.exists(target):  # other stores: checked, then written (a race stays open)
            return False
        _write(fs.create(target, False), data)
        return True
    folder, name = uri.rsplit("/", 1)
    tmp = _path(spark, f"{folder}/.{name}.{uuid.uuid4().hex}.tmp")
    _write(fs.create(tmp, False), data)
    try:
        if not replace:
            return bool(fs.rename(tmp, target))  # refuses an existing target
        jvm = _jvm(spark)
        context = jvm.org.apache.hadoop.fs.FileContext.getFileContext(fs.getUri(), fs.getConf())
        rename = getattr(jvm.org.apache.hadoop.fs, "Options$Rename")
        gateway: Any = spark.sparkContext._gateway
        options = gateway.new_array(rename, 1)
        options[0] = rename.OVERWRITE
        context.rename(tmp, target, options)  # atomic on HDFS, over an existing file too
        return True
    finally:
        if fs.exists(tmp):
            fs.delete(tmp, False)


# Hadoop's createFile option for S3's conditional write (PUT with `If-None-Match: *`, S3A 3.4.2+
# with fs.s3a.create.conditional.enabled, its default): the store creates the object only if
# no object of that key exists, so of two writers that both found no file one alone succeeds
CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite"


def _create_new(fs: Any, target: Any, data: bytes) -> bool:
    """Write `data` as a new object `target` of an object store, or return False when one is
    there (already, or written by another process during the upload): the store decides,
    atomically, with no listing or status request before."""
    # no status request first: the PUT's condition is the check
    builder = fs.createFile(target).overwrite(True)
    builder.opt(CONDITIONAL_CREATE, "true")
    try:
        _write(builder.build(), data)
    except Exception as e:  # noqa: BLE001  (py4j's error carrying the store's refusal)
        if _precondition_failed(e):
            return False
        raise
    return True


def _precondition_failed(error: BaseException) -> bool:
    """Whether `error` is the store's 412 to a conditional write (the object exists)."""
    text = str(error)
    return "412" in text or "PreconditionFailed" in text or "FileAlreadyExists" in text


def _write(stream: Any, data: bytes) -> None:
    try:
        stream.write(bytearray(data))
    except BaseException:
        abort = getattr(stream, "abort", None)  # S3A: the upload is dropped, not completed
        if callable(abort):
            with contextlib.suppress(Exception):  # closing below is the fallback
                abort()
        stream.close()
        raise
    stream.close()


@dataclass(frozen=True)
class Entry:
    """One entry of a folder, as SHOW FILES shows it."""

    name: str
    is_directory: bool
    length: int
    owner: str
    group: str
    permissions: str
    access_time: int  # milliseconds since the epoch
    modification_time: int

    def row(self) -> tuple:
        """The entry as SHOW FILES and INFORMATION_SCHEMA.FILES list it (metadata.file_entry's
        row for a local one): name, isDirectory, isFile, length, owner, group, permissions,
        accessTime, lastModifiedTime (UTC, no zone, milliseconds)."""
        return (
            self.name,
            self.is_directory,
            not self.is_directory,
            self.length,
            self.owner,
            self.group,
            self.permissions,
            _utc_millis(self.access_time),
            _utc_millis(self.modification_time),
        )


def _utc_millis(ms: int) -> datetime:
    # whole seconds, then the milliseconds: no float rounding of the fraction
    return datetime.fromtimestamp(ms // 1000, UTC).replace(tzinfo=None) + timedelta(
        milliseconds=ms % 1000
    )


def entries(spark: SparkSession, uri: str) -> list[Entry]:
    """The entries of the folder `uri` (or the file itself), by name, hidden ones included as
    Drill's SHOW FILES lists them."""
    fs = _fs(spark, uri)
    p = _path(spark, uri)
    listed = fs.listStatus(p)
    out = []
    for st in listed:
        out.append(
            Entry(
                str(st.getPath().getName()),
                bool(st.isDirectory()),
                int(st.getLen()),
                str(st.getOwner() or ""),
                str(st.getGroup() or ""),
                str(st.getPermission().toString()),
                int(st.getAccessTime()),
                int(st.getModificationTime()),
            )
        )
    return sorted(out, key=lambda e: e.name)


def mkdirs(spark: SparkSession, uri: str) -> None:
    _fs(spark, uri).mkdirs(_path(spark, uri))


def delete(spark: SparkSession, uri: str) -> None:
    _fs(spark, uri).delete(_path(spark, uri), True)


def rename(spark: SparkSession, src: str, dst: str) -> bool:
    return bool(_fs(spark, src).rename(_path(spark, src), _path(spark, dst)))


def describe(error: BaseException, plugin: str, secrets: Sequence[str] = ()) -> str:
    """A remote file system's failure as one paragraph naming the plugin: the Java cause's
    first line (no stack trace), every secret of the plugin's config cut out."""
    return f"storage plugin '{plugin}': {cause(error, secrets)}"


def cause(error: BaseException, secrets: Sequence[str] = ()) -> str:
    """`describe`'s text without the plugin."""
    java = getattr(error, "java_exception", None)
    text = ""
    if java is not None:
        text = f"{java.getClass().getSimpleName()}: {java.getMessage()}"
    if not text:
        text = str(error)
    text = " ".join(text.split("\n")[0].split())
    for secret in secrets:
        if secret:
            text = text.replace(secret, "*****")
    return text


# ----------------------------------------------------------------------------- vanished objects
# what a read says of a file (or its bucket) deleted after planning: the JSON reader's
# `cannot read: No such file or directory`, Spark's FAILED_READ_FILE.FILE_NOT_EXIST, S3's own
# (PATH_NOT_FOUND: Spark's Parquet table listing a file the `drill-parquet` source found)
_GONE = re.compile(
    r"No such file or directory|FileNotFoundException|FILE_NOT_EXIST|File does not exist|"
    r"PATH_NOT_FOUND|Path does not exist|"
    r"NoSuchKey|NoSuchBucket|bucket does not exist",
    re.IGNORECASE,
)
_URI_IN_TEXT = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://[^\s,;'\"`()\[\]]+)")
_DISPLAY = re.compile(r"^([^.`]+)\.([^.`]+)\.`(.*)`$", re.S)


@dataclass(frozen=True)
class ScannedTable:
    """A table a plan reads from a remote file system, as the user named it: its plugin, its
    workspace's schema (`s3.root`), the name (`logs`), the URIs scanned and the workspace root."""

    plugin: str
    workspace: str
    table: str
    uris: tuple[str, ...]
    root: str


def scanned_table(
    engine: str, selection: Any, config: Mapping[str, Any] | None
) -> ScannedTable | None:
    """The remote table of one scan of a plan: SQL's selection (`files`, `table` as
    `plugin.workspace.`name``) or a plan's (`workspace`, `path` under the plugin's
    `connection`); None for anything else."""
    if not isinstance(selection, Mapping):
        return None
    config = config or {}
    connection = str(config.get("connection") or "")
    spaces = config.get("workspaces") or {}

    def root_of(workspace: str) -> str:
        spec = spaces.get(workspace) if isinstance(spaces, Mapping) else None
        location = spec.get("location", "/") if isinstance(spec, Mapping) else "/"
        return join(connection, str(location)) if is_remote(connection) else ""

    files = [str(f) for f in selection.get("files") or () if is_remote(str(f))]
    shown = _DISPLAY.match(str(selection.get("table") or ""))
    if files and shown:
        plugin, workspace, name = shown.groups()
        root = root_of(workspace) or files[0]
        return ScannedTable(plugin, f"{plugin}.{workspace}", name, tuple(files), root)
    if "path" in selection and is_remote(connection):
        workspace = str(selection.get("workspace") or "default")
        root = root_of(workspace)
        name = str(selection["path"])
        uri = root.rstrip("/") + "/" + name.lstrip("/")
        return ScannedTable(engine, f"{engine}.{workspace}", name, (uri,), root)
    return None


def vanished(text: str, tables: Sequence[ScannedTable]) -> str | None:
    """A read's failure `text` (Spark's wrapping and all) as one paragraph naming the plugin,
    workspace and table the user wrote, when it says that a file of one of `tables` is gone
    (deleted, or its bucket, after the query was planned); else None."""
    if not _GONE.search(text):
        return None
    for uri in _URI_IN_TEXT.findall(text):
        uri = uri.rstrip(".:")
        for t in tables:
            if not any(uri == u.rstrip("/") or uri.startswith(u.rstrip("/") + "/") for u in t.uris):
                continue
            root = t.root.rstrip("/")
            key = uri[len(root) + 1 :] if uri.startswith(root + "/") else split(uri)[1]
            bucket = "NoSuchBucket" in text or "bucket does not exist" in text.lower()
            what = "its bucket no longer exists" if bucket else "it no longer exists"
            return (
                f"storage plugin '{t.plugin}', workspace '{t.workspace}', table `{t.table}`: "
                f"the file `{key}` was listed when the query was planned but {what} "
                "(deleted while the query ran); run the query again to read what is there now"
            )
    return None
