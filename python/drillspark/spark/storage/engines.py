"""Storage engines named in a plan's `storage` section, Drill style.

| type | reads | writes |
|---|---|---|
| `fs`, `file` (root or `connection`, `workspaces`, `formats`) | json, parquet, csv/tsv/psv | yes |
| `classpath` (`root`, else the run's classpath directories) | as fs | no |
| `json`, `parquet`, `csv`, `tsv`, `psv` (a root holding one format) | that format | yes |
| `console`, `queue`, `--SCREEN--` | - | returns the rows |
| `mock` | generated rows | - |
| `ischema`, `system-tables` | INFORMATION_SCHEMA / sys tables (`metadata.py`) | no |

A `file` engine whose `connection` is another file system (`s3a://bucket`, `hdfs://...`) reads
and writes there through Hadoop (`filesystems.py`), with its `config` (Hadoop settings) scoped to
it. A path in a selection or target is resolved against the engine's root (or workspace) by the
extension's workspace rule (`storage/workspaces.py`, docs/security.md): `..`, URI schemes,
look-alikes of `.` and `/`, and symlinks pointing outside are refused unless the workspace sets
`allowAccessOutsideWorkspace`. A run given `workspaces` (CLI `drillspark run --workspace`) also
confines every file a plan's own engines name to those workspaces.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from drillspark.formats import registry as format_registry
from drillspark.formats.base import FormatError, ReadRequest
from drillspark.formats.text import TextFormat
from drillspark.plugin_configs.file import FileConfig
from drillspark.spark.storage import filesystems as rfs
from drillspark.spark.storage import workspaces as wsp
from drillspark.spark.storage.base import StorageEngine, StorageError
from drillspark.spark.storage.jdbc import JdbcEngine
from drillspark.spark.storage.mock import read_mock
from drillspark.spark.storage.writers import WriteReport, write_atomic

SCREEN = "--SCREEN--"
# a plan's older text types, by name: their delimiters are Drill's named configs' (formats/text.py)
TEXT_DELIMITERS = {n: TextFormat.NAMED[n]["fieldDelimiter"] for n in ("csv", "tsv", "psv")}
FILE_FORMATS = ("json", "parquet", "csv", "tsv", "psv", "text")


@dataclass
class SinkEngine(StorageEngine):
    sink = True


@dataclass
class MockEngine(StorageEngine):
    readable = True

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        return read_mock(spark, selection)


def _strip_scheme(uri: str) -> str:
    if rfs.is_remote(uri):  # kept whole: the engine's remote root decides (FileEngine.remote)
        return uri
    if uri.startswith("file://"):
        return uri[len("file://") :] or "/"
    if "://" in uri:
        raise StorageError(f"only local file systems are supported, not {uri!r}")
    return uri


@dataclass
class FileEngine(StorageEngine):
    """`fs`/`file`/format engines: files under one root; `workspaces` name sub-roots."""

    roots: list[str] = field(default_factory=list)
    default_format: str | None = None
    writable = True
    readable = True

    # the run's workspaces (CLI --workspace): every path must lie inside one of them too
    confine_to: list[wsp.Workspace] = field(default_factory=list)

    def _workspaces(self, name: str | None) -> list[wsp.Workspace]:
        outside = self.config.get(wsp.ALLOW_OUTSIDE, False) in (True, "true")
        if not name or name == "default":
            return [wsp.Workspace(self.name, r, outside) for r in self.roots]
        ws = (self.config.get("workspaces") or {}).get(name)
        if ws is None:
            known = ", ".join(sorted(self.config.get("workspaces") or {})) or "none"
            raise StorageError(
                f"storage engine {self.name!r} has no workspace {name!r} (workspaces: {known})"
            )
        conf = wsp.workspace_of(name, ws if isinstance(ws, Mapping) else {"location": str(ws)})
        if self.remote:
            return [
                wsp.Workspace(f"{self.name}.{name}", rfs.join(r, conf.location), conf.allow_outside)
                for r in self.roots
            ]
        # a workspace location is the operator's config, relative to the engine's root
        return [
            wsp.Workspace(
                f"{self.name}.{name}",
                os.path.normpath(os.path.join(r, conf.location.lstrip("/"))),
                conf.allow_outside,
            )
            for r in self.roots
        ]

    @property
    def remote(self) -> bool:
        """Whether the engine's files are on another file system (`s3a://`, `hdfs://`)."""
        return any(rfs.is_remote(r) for r in self.roots)

    def _configure(self, spark: SparkSession) -> None:
        """This engine's Hadoop settings (`config`), scoped to its bucket (filesystems.py)."""
        for r in self.roots:
            try:
                rfs.configure(spark, self.name, r, self.config.get("config") or {})
            except rfs.FileSystemError as e:
                raise StorageError(str(e)) from None

    def _exists(self, spark: SparkSession, path: str) -> bool:
        if not rfs.is_remote(path):
            return os.path.exists(path)
        try:
            return rfs.exists(spark, path)
        except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
            raise StorageError(self._failure(e)) from None

    def _failure(self, error: BaseException) -> str:
        from drillspark.plugin_configs import config_from_json

        try:
            secrets = config_from_json(self.name, dict(self.config)).secrets()
        except Exception:  # noqa: BLE001  (a plan's engine config need not be a plugin's)
            secrets = [str(v) for v in (self.config.get("config") or {}).values()]
        return rfs.describe(error, self.name, secrets)

    def _key(self, path: str) -> str:
        """A remote path as a name under the engine's root: a URI on the root's file system
        becomes its key (other file systems' URIs stay, for the rule to refuse)."""
        for r in self.roots:
            base = rfs.split(r)[0]
            if path.startswith(base + "/") or path == base:
                return path[len(base) :] or "/"
        return path

    def resolve(
        self, spark: SparkSession, path: str, workspace: str | None = None, must_exist: bool = True
    ) -> str:
        """`path` in the engine's root or workspace (the first root where it exists)."""
        candidates = []
        if self.remote:
            self._configure(spark)
            path = self._key(path)
        for ws in self._workspaces(workspace):
            try:
                candidates.append(wsp.resolve(spark, ws, path.lstrip("/")))
            except wsp.WorkspaceError as e:
                raise StorageError(f"storage engine {self.name!r}: {e}") from None
        found = (
            candidates[0]
            if not must_exist
            else next((c for c in candidates if self._exists(spark, c)), None)
        )
        if found is None:
            where = " or ".join(ws.location for ws in self._workspaces(workspace))
            raise StorageError(
                f"{path!r} not found in storage engine {self.name!r} (under {where})"
            )
        return self._confined(spark, found)

    def _confined(self, spark: SparkSession, path: str) -> str:
        if not self.confine_to:
            return path
        refusals = []
        for ws in self.confine_to:
            try:
                return wsp.resolve(spark, ws, path)
            except wsp.WorkspaceError as e:
                refusals.append(str(e))
        raise StorageError(
            f"storage engine {self.name!r}: {path} is outside the run's "
            f"workspaces ({'; '.join(refusals)})"
        )

    def _read_confinement(
        self, paths: Sequence[str], workspace: str | None, selection: Mapping[str, Any]
    ) -> dict[str, str]:
        """The `drill` source's options that make it check the workspace again where it
        opens each file (on the executors, after planning: a file swapped for a symlink that
        leads out is refused there): the tightest confined workspace holding every path, among
        the one the SQL front end resolved the table in (`selection.confine`), the engine's and
        the run's. None for a workspace that allows access outside, or the file system root."""
        candidates: list[wsp.Workspace] = []
        given = selection.get("confine")
        if self.remote or any(rfs.is_remote(p) for p in paths):
            return {}  # an object store has no symlinks to follow out (keys are checked)
        if isinstance(given, Mapping) and given.get("root"):
            candidates.append(wsp.Workspace(str(given.get("workspace") or "?"), str(given["root"])))
        reals = [os.path.realpath(p) for p in paths]
        candidates += [
            w
            for w in [*self._workspaces(workspace), *self.confine_to]
            if not w.allow_outside and all(_inside(r, os.path.realpath(w.location)) for r in reals)
        ]
        roots = [(os.path.realpath(w.location), w.name) for w in candidates]
        roots = [(r, n) for r, n in roots if r != os.path.sep]
        if not roots:
            return {}
        root, name = max(roots, key=lambda rn: len(rn[0]))
        return {"workspace": name, "workspaceRoot": root}

    def _format_of(self, selection: Mapping[str, Any], path: str) -> str:
        fmt = selection.get("format") or selection.get("type") or self.default_format
        if isinstance(fmt, Mapping):
            fmt = fmt.get("type")
        if not fmt:
            ext = os.path.splitext(path.rstrip("/"))[1].lstrip(".").lower()
            fmt = ext if ext in FILE_FORMATS else None
        if not fmt and rfs.is_remote(path):
            found = [rfs.split(f)[1] for f in rfs.list_files(SparkSession.active(), path)]
            fmt = next((e for e in (_ext(f) for f in found) if e in FILE_FORMATS), None)
        elif not fmt and os.path.isdir(path):
            fmt = _format_of_dir(path)
        if not fmt:
            raise StorageError(f"cannot tell the format of {path!r}; give selection.type")
        fmt = str(fmt).lower()
        formats = self.config.get("formats") or {}
        if fmt in formats and isinstance(formats[fmt], Mapping) and formats[fmt].get("type"):
            fmt = str(formats[fmt]["type"]).lower()
        if fmt not in FILE_FORMATS:
            raise StorageError(
                f"unknown type {fmt!r} (no such format), expected one of {', '.join(FILE_FORMATS)}"
            )
        return fmt

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        if not isinstance(selection, Mapping):
            raise StorageError(f"scan of {self.name!r} needs a selection object with a path")
        raw = selection.get("files") or selection.get("path") or selection.get("paths")
        if raw is None:
            raise StorageError(f"scan of {self.name!r}: selection has no 'path' or 'files'")
        raw_paths = [raw] if isinstance(raw, str) else list(raw)
        ws = selection.get("workspace")
        paths = [self.resolve(spark, _strip_scheme(str(p)), ws) for p in raw_paths]
        # the format's plugin of drillspark/formats/ reads it (json, parquet, text, avro, ...):
        # the selection's format (a table function's options, a config's name), the engine's
        # type, else the config the file's extension selects among the engine's `formats`
        where = f"scan of {self.name!r}: "
        asked = self._asked_format(selection)
        formats = _plan_formats(self.config.get("formats"))
        try:
            registered = format_registry.config_for(asked, paths[0], formats, where)
            if registered is None:  # no extension says: the first data file's format
                found = self._format_of(selection, paths[0])
                registered = format_registry.config_for(found, paths[0], formats, where)
        except FormatError as e:
            raise StorageError(str(e)) from None
        if registered is None:
            raise StorageError(
                f"{where}cannot tell the format of {paths[0]!r}; give selection.type"
            )
        plugin, conf = registered
        request = ReadRequest(
            paths,
            conf,
            implicit=list(selection.get("implicit") or ()),
            source_options=self._read_confinement(paths, ws, selection),
            table=str(selection.get("table") or paths[0]),
            names=list(selection.get("names") or ()),
            keep=selection.get("keepColumns"),
            columns=selection.get("columns"),
            named=list(selection.get("named") or ()),
        )
        return plugin.read(spark, request)

    def _asked_format(self, selection: Mapping[str, Any]) -> Any:
        """The format a scan names: its `format` (a table function's options with their
        `type`, or a config's name), its `type`, else the engine's type (`csv`, `json`, ...);
        a plan's older selection keys `delimiter` / `extractHeader` go over it."""
        asked = selection.get("format") or selection.get("type") or self.default_format
        older = {k: selection[k] for k in ("delimiter", "extractHeader") if k in selection}
        if not older:
            return asked
        if isinstance(asked, Mapping):
            return {**asked, **older}
        return {"type": asked or "text", **older}

    def write(self, df: DataFrame, target: Any) -> WriteReport:
        if not isinstance(target, Mapping):
            raise StorageError(f"store to {self.name!r} needs a target object with a path")
        raw = target.get("path") or target.get("file")
        if not raw:
            raise StorageError(f"store to {self.name!r}: target has no 'path'")
        path = self.resolve(
            df.sparkSession, _strip_scheme(str(raw)), target.get("workspace"), must_exist=False
        )
        fmt = target.get("format") or target.get("type") or self.default_format or "json"
        if isinstance(fmt, Mapping):
            fmt = fmt.get("type", "json")
        if rfs.is_remote(path):
            return self._write_remote(df, path, str(fmt), bool(target.get("overwrite")))
        return write_atomic(df, path, str(fmt), overwrite=bool(target.get("overwrite")))

    def _write_remote(self, df: DataFrame, path: str, fmt: str, overwrite: bool) -> WriteReport:
        """CTAS on another file system: Spark writes a hidden staging folder beside the target
        (Drill and drillspark skip `.` names), renamed to the target when the whole write
        succeeded, so a failed write leaves no table. An object store's rename copies key by
        key: the table appears whole only when the query ends."""
        import uuid

        spark = df.sparkSession
        name = path.rstrip("/").rsplit("/", 1)[-1]
        if self._exists(spark, path):
            if not overwrite:
                raise StorageError(f"store target {name} already exists")
            rfs.delete(spark, path)
        staging = path.rstrip("/").rsplit("/", 1)[0] + f"/.{name}.drillspark-{uuid.uuid4().hex}"
        try:
            rows = _spark_write(df, staging, fmt)
            files = _drill_names(spark, staging, "csv" if fmt in TEXT_DELIMITERS else fmt)
            if not rfs.rename(spark, staging, path):
                raise StorageError(f"store target {name}: the staged write could not be renamed")
        except StorageError:
            raise
        except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
            raise StorageError(self._failure(e)) from None
        finally:
            with contextlib.suppress(Exception):
                if rfs.exists(spark, staging):
                    rfs.delete(spark, staging)
        return WriteReport(path, fmt, rows, files)


@dataclass
class ClasspathEngine(FileEngine):
    writable = False

    def write(self, df: DataFrame, target: Any) -> WriteReport:
        raise StorageError(f"classpath storage engine {self.name!r} is read-only")


def _spark_write(df: DataFrame, folder: str, fmt: str) -> int:
    """`df` written by Spark as `fmt` into `folder`; the rows written."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    counted = Observation("drillspark_remote_store")
    writer = df.observe(counted, F.count(F.lit(1)).alias("rows")).write.mode("error")
    if fmt in TEXT_DELIMITERS:
        writer = writer.option("header", "true").option("sep", TEXT_DELIMITERS[fmt])
        fmt = "csv"
    if fmt == "json":
        writer = writer.option("ignoreNullFields", "true")  # Drill: skip_null_fields
    writer.format(fmt).save(folder)
    return int(counted.get.get("rows", 0))


def _drill_names(spark: SparkSession, folder: str, ext: str) -> list[str]:
    """Spark's part files in `folder` renamed as Drill names a fragment's files (0_0_0.json,
    0_0_1, ...); its bookkeeping (`_SUCCESS`, `.crc`) removed."""
    names = []
    for entry in rfs.entries(spark, folder):
        path = f"{folder}/{entry.name}"
        if entry.name.startswith((".", "_")):
            rfs.delete(spark, path)
        else:
            names.append(entry.name)
    out = []
    for i, name in enumerate(sorted(names)):
        new = f"0_0_{i}.{ext}"
        rfs.rename(spark, f"{folder}/{name}", f"{folder}/{new}")
        out.append(new)
    return out


def _ext(path: str) -> str:
    return os.path.splitext(path.rstrip("/"))[1].lstrip(".").lower()


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.path.sep) + os.path.sep)


def _plan_formats(formats: Any) -> Any:
    """An engine's `formats`, a plan's older text entries (`{"psv": {"type": "psv", ...}}`:
    a type csv, tsv or psv, keyed by the extension it reads) as Drill's text configs."""
    if not isinstance(formats, Mapping):
        return formats
    out: dict[str, Any] = {}
    for name, conf in formats.items():
        kind = str(conf.get("type", "")).lower() if isinstance(conf, Mapping) else ""
        if kind in TEXT_DELIMITERS:
            conf = {
                "fieldDelimiter": TEXT_DELIMITERS[kind],
                "extensions": [str(name)],
                **{k: v for k, v in conf.items() if k != "type"},
                "type": "text",
            }
        out[str(name)] = conf
    return out


def _format_of_dir(path: str) -> str | None:
    """The format of the first data file under `path`; like Drill, files and directories
    whose names start with `.` or `_` are not data (Spark's `_SUCCESS`, `.crc`, temp dirs)."""
    for _dirpath, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for n in sorted(files):
            ext = os.path.splitext(n)[1].lstrip(".").lower()
            if ext in FILE_FORMATS and not n.startswith((".", "_")):
                return ext
    return None


@dataclass(frozen=True)
class _Place:
    """What an engine built from a plan config may need besides its config."""

    classpath: Sequence[str]
    confine_to: Sequence[wsp.Workspace]
    named: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # the run's configs


def _sink(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    return SinkEngine(name, config)


def _mock(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    return MockEngine(name, config)


def _metadata(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    from drillspark.spark.storage.jdbc import ischema_catalogs  # jdbc plugins' own catalogs
    from drillspark.spark.storage.metadata import MetadataEngine  # INFORMATION_SCHEMA, sys

    return MetadataEngine(name, config, catalog_of=ischema_catalogs(place.named))


def _jdbc(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    return JdbcEngine(name, config)  # a database through a JDBC driver (jdbc.py)


def _http(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    from drillspark.spark.storage.http import HttpEngine  # REST APIs (http.py)

    return HttpEngine(name, config)


def _mongo(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    from drillspark.spark.storage.mongo import MongoEngine  # MongoDB collections (mongo.py)

    return MongoEngine(name, config)


def _kafka(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    from drillspark.spark.storage.kafka import KafkaEngine  # Kafka topics (kafka.py)

    return KafkaEngine(name, config)


def _classpath(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    root = config.get("root")
    roots = (
        [_strip_scheme(str(root))]
        if root
        else [os.path.abspath(d) for d in (place.classpath or [os.getcwd()])]
    )
    return ClasspathEngine(name, config, roots=roots, confine_to=list(place.confine_to))


def _file(name: str, config: Mapping[str, Any], place: _Place) -> StorageEngine:
    kind = str(config["type"]).lower()
    root = str(config.get("root") or config.get("connection") or "file:///")
    return FileEngine(
        name,
        config,
        roots=[root.rstrip("/") if rfs.is_remote(root) else _strip_scheme(root)],
        default_format=kind if kind in FILE_FORMATS else None,
        confine_to=list(place.confine_to),
    )


# A plan's storage `type` -> how its engine is built: the one list of engine types (a new
# type is one line here and its module in spark/storage/). `named` is resolved before.
ENGINES: dict[str, Callable[[str, Mapping[str, Any], _Place], StorageEngine]] = {
    **dict.fromkeys(("console", "queue", "screen", SCREEN.lower()), _sink),
    "mock": _mock,
    **dict.fromkeys(("ischema", "system-tables"), _metadata),
    "jdbc": _jdbc,
    "http": _http,
    "mongo": _mongo,
    "kafka": _kafka,
    "classpath": _classpath,
    **dict.fromkeys((*FileConfig.PLAN_TYPES, *FILE_FORMATS), _file),
}


def make_engine(
    name: str,
    config: Mapping[str, Any],
    classpath: Sequence[str] = (),
    named: Mapping[str, Mapping[str, Any]] | None = None,
    confine_to: Sequence[wsp.Workspace] = (),
) -> StorageEngine:
    """A storage engine from its plan config. `named` resolves `{type: "named", name: ...}`;
    file engines keep every path inside `confine_to` when given."""
    if not isinstance(config, Mapping) or "type" not in config:
        raise StorageError(f"storage engine {name!r} has no 'type'")
    kind = str(config["type"]).lower()
    if kind == "named":
        target = str(config.get("name", ""))
        if not named or target not in named:
            raise StorageError(
                f"storage engine {name!r} refers to {target!r}, which is not "
                "configured (pass it with storage={...} / --storage)"
            )
        return make_engine(name, named[target], classpath, None, confine_to)
    build = ENGINES.get(kind)
    if build is None:
        known = ", ".join(sorted({*ENGINES, "named"} - {SCREEN.lower()}))
        raise StorageError(f"storage engine {name!r} has unknown type {kind!r} (known: {known})")
    return build(name, config, _Place(classpath, confine_to, named or {}))


class StorageRegistry:
    """The engines of one run: the plan's `storage` section overridden/extended by the
    caller's `storage` mapping. `workspaces` (the CLI's --workspace), when given, confine every
    file the engines read or write."""

    def __init__(
        self,
        plan_storage: Mapping[str, Any] | None,
        overrides: Mapping[str, Any] | None,
        classpath: Sequence[str] = (),
        workspaces: Sequence[wsp.Workspace] = (),
    ):
        self.configs: dict[str, Mapping[str, Any]] = dict(plan_storage or {})
        self.configs.update(overrides or {})
        self.classpath = list(classpath)
        self.workspaces = list(workspaces)
        self._engines: dict[str, StorageEngine] = {}

    def get(self, name: str | None, where: str = "") -> StorageEngine:
        if name is None or name == SCREEN:
            return SinkEngine(SCREEN, {"type": "console"})
        if name not in self._engines:
            if name not in self.configs:
                known = ", ".join(sorted(self.configs)) or "none"
                raise StorageError(f"{where}unknown storage engine {name!r} (configured: {known})")
            self._engines[name] = make_engine(
                name, self.configs[name], self.classpath, self.configs, self.workspaces
            )
        return self._engines[name]
