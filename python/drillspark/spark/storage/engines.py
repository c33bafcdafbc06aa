"""Storage engines named in a plan's `storage` section, Drill style.

| type | reads | writes |
|---|---|---|
| `fs`, `file` (root or `connection`, `workspaces`, `formats`) | json, parquet, csv/tsv/psv | yes |
| `classpath` (`root`, else the run's classpath directories) | as fs | no |
| `json`, `parquet`, `csv`, `tsv`, `psv` (a root holding one format) | that format | yes |
| `console`, `queue`, `--SCREEN--` | - | returns the rows |
| `mock` | generated rows | - |
| `ischema`, `system-tables` | INFORMATION_SCHEMA / sys tables (`metadata.py`) | no |

A path in a selection or target is resolved against the engine's root (or workspace) by the
extension's workspace rule (`storage/workspaces.py`, docs/security.md): `..`, URI schemes,
look-alikes of `.` and `/`, and symlinks pointing outside are refused unless the workspace sets
`allowAccessOutsideWorkspace`. A run given `workspaces` (CLI `drillspark run --workspace`) also
confines every file a plan's own engines name to those workspaces.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from drillspark.formats import registry as format_registry
from drillspark.formats.base import ReadRequest
from drillspark.spark.storage import readers
from drillspark.spark.storage import workspaces as wsp
from drillspark.spark.storage.base import StorageEngine, StorageError
from drillspark.spark.storage.jdbc import JdbcEngine
from drillspark.spark.storage.mock import read_mock
from drillspark.spark.storage.writers import WriteReport, write_atomic

SCREEN = "--SCREEN--"
TEXT_DELIMITERS = {"csv": ",", "tsv": "\t", "psv": "|"}
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
        # a workspace location is the operator's config, relative to the engine's root
        return [
            wsp.Workspace(
                f"{self.name}.{name}",
                os.path.normpath(os.path.join(r, conf.location.lstrip("/"))),
                conf.allow_outside,
            )
            for r in self.roots
        ]

    def resolve(
        self, spark: SparkSession, path: str, workspace: str | None = None, must_exist: bool = True
    ) -> str:
        """`path` in the engine's root or workspace (the first root where it exists)."""
        candidates = []
        for ws in self._workspaces(workspace):
            try:
                candidates.append(wsp.resolve(spark, ws, path.lstrip("/")))
            except wsp.WorkspaceError as e:
                raise StorageError(f"storage engine {self.name!r}: {e}") from None
        found = (
            candidates[0]
            if not must_exist
            else next((c for c in candidates if os.path.exists(c)), None)
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
        if not fmt and os.path.isdir(path):
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
        # a format of drillspark/formats/ read by the extension's sources (avro, excel, ...)
        registered = format_registry.config_for(
            selection.get("format") or selection.get("type") or self.default_format,
            paths[0],
            self.config.get("formats"),
            f"scan of {self.name!r}: ",
        )
        if registered is not None:
            plugin, conf = registered
            request = ReadRequest(
                paths,
                conf,
                implicit=list(selection.get("implicit") or ()),
                source_options=self._read_confinement(paths, ws, selection),
                table=str(selection.get("table") or paths[0]),
            )
            return plugin.read(spark, request)
        fmt = self._format_of(selection, paths[0])
        fmt_conf = (self.config.get("formats") or {}).get(fmt) or {}
        implicit = list(selection.get("implicit") or ())  # file columns the query names
        if fmt == "json":
            options = self._json_options(selection, fmt_conf)
            options.update(self._read_confinement(paths, ws, selection))
            return readers.read_json(spark, paths, options, implicit, selection.get("keepColumns"))
        if fmt == "parquet":
            fmt_sel = selection.get("format")
            options = dict(fmt_sel) if isinstance(fmt_sel, Mapping) else {}
            return readers.read_parquet(spark, paths, selection.get("columns"), implicit, options)
        return readers.read_text(
            spark,
            paths,
            self._text_config(selection, fmt, fmt_conf),
            implicit,
            named=selection.get("named") or (),
        )

    @staticmethod
    def _text_config(
        selection: Mapping[str, Any], fmt: str, fmt_conf: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The text format config: the engine's, the selection's `format` (a table
        function's options), then the plan's older `delimiter` / `extractHeader` keys."""
        config: dict[str, Any] = {"fieldDelimiter": TEXT_DELIMITERS.get(fmt, ",")}
        if isinstance(fmt_conf, Mapping):
            config.update(fmt_conf)
        if isinstance(selection.get("format"), Mapping):
            config.update(selection["format"])
        for key in ("delimiter", "extractHeader"):
            if key in selection:
                config[key] = selection[key]
        return config

    def _json_options(
        self, selection: Mapping[str, Any], fmt_conf: Mapping[str, Any]
    ) -> dict[str, str]:
        """Reader options: the engine's `formats.json` config, overridden by the scan's own
        `selection.format` (a SQL table function's options and session options land there)."""
        config: dict[str, Any] = dict(fmt_conf) if isinstance(fmt_conf, Mapping) else {}
        fmt = selection.get("format")
        if isinstance(fmt, Mapping):
            config.update(fmt)
        try:
            return readers.json_options(config)
        except readers.ReadError as e:
            raise StorageError(f"scan of {self.name!r}: {e}") from None

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
        return write_atomic(df, path, str(fmt), overwrite=bool(target.get("overwrite")))


@dataclass
class ClasspathEngine(FileEngine):
    writable = False

    def write(self, df: DataFrame, target: Any) -> WriteReport:
        raise StorageError(f"classpath storage engine {self.name!r} is read-only")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.path.sep) + os.path.sep)


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
    if kind in ("console", "queue", SCREEN.lower(), "screen"):
        return SinkEngine(name, config)
    if kind == "mock":
        return MockEngine(name, config)
    if kind in ("ischema", "system-tables"):  # INFORMATION_SCHEMA and sys (metadata.py)
        from drillspark.spark.storage.metadata import MetadataEngine

        return MetadataEngine(name, config)
    if kind == "jdbc":  # a database through a JDBC driver (jdbc.py)
        return JdbcEngine(name, config)
    if kind == "classpath":
        root = config.get("root")
        roots = (
            [_strip_scheme(str(root))]
            if root
            else [os.path.abspath(d) for d in (classpath or [os.getcwd()])]
        )
        return ClasspathEngine(name, config, roots=roots, confine_to=list(confine_to))
    if kind in ("fs", "file", "dfs") or kind in FILE_FORMATS:
        root = config.get("root") or config.get("connection") or "file:///"
        default = kind if kind in FILE_FORMATS else None
        return FileEngine(
            name,
            config,
            roots=[_strip_scheme(str(root))],
            default_format=default,
            confine_to=list(confine_to),
        )
    raise StorageError(
        f"storage engine {name!r} has unknown type {kind!r} (known: fs, file, "
        "classpath, json, parquet, csv, tsv, psv, console, queue, mock, named, "
        "ischema, system-tables)"
    )


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
