"""A Spark catalog per `file` storage plugin: ``spark.sql("SELECT * FROM s3.logs.`x.json`")``
reads the plugin a session was given (drillspark.session(storage=...), drillspark.sql(...,
storage=...)) through the extension's catalog (drillspark.catalog.DfsCatalog), with the
plugin's workspaces, its Hadoop settings scoped to it (filesystems.configure) and the one
workspace rule of the extension (WorkspacePaths). `dfs` gets its configured workspaces too.
The catalog itself is Scala's; this module only turns Drill's config into its confs."""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping
from typing import Any

from pyspark.sql import SparkSession

from drillspark.plugin_configs.base import enabled
from drillspark.plugin_configs.bootstrap import BUILT_IN, FILE_PLUGIN
from drillspark.spark.storage import filesystems

CATALOG_CLASS = "drillspark.catalog.DfsCatalog"
# Spark's own catalog names, never a plugin's catalog
RESERVED = ("spark_catalog", "system", "session")
# a built-in plugin's catalog confs (`dfs`'s: drillspark.configure set them, the user may have
# added workspaces) while the plugin is disabled, given back when it is enabled again
_PUT_AWAY: weakref.WeakKeyDictionary[SparkSession, dict[str, dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)


def _flag(value: Any) -> str:
    return "true" if value is True or str(value).lower() == "true" else "false"


def _format_type(config: Mapping[str, Any], name: str) -> str:
    """A workspace's `defaultInputFormat` (a name of the plugin's `formats`) as the catalog
    reads it: that format's `type` (csvh, parquet, ...), else the name itself."""
    spec = (config.get("formats") or {}).get(name)
    return str(spec.get("type") or name) if isinstance(spec, Mapping) else name


def workspace_confs(name: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The catalog confs of `config`'s workspaces (`spark.sql.catalog.<name>.workspace.*`):
    each location on the plugin's connection (`s3a://bucket/prefix`, or a local folder),
    Drill's `allowAccessOutsideWorkspace`, `defaultInputFormat`."""
    connection = str(config.get("connection") or "file:///")
    remote = filesystems.is_remote(connection)
    prefix = f"spark.sql.catalog.{name}.workspace"
    out: dict[str, str] = {}
    for ws, spec in (config.get("workspaces") or {}).items():
        spec = spec if isinstance(spec, Mapping) else {"location": spec}
        key = f"{prefix}.{str(ws).lower()}"
        location = str(spec.get("location") or "/")
        out[key] = filesystems.join(connection, location) if remote else os.path.abspath(location)
        out[f"{key}.allowAccessOutsideWorkspace"] = _flag(spec.get("allowAccessOutsideWorkspace"))
        # an absolute key of the bucket is fine inside the workspace's prefix (drillspark.sql's rule)
        out[f"{key}.allowAbsolute"] = _flag(remote)
        if spec.get("defaultInputFormat"):
            out[f"{key}.format"] = _format_type(config, str(spec["defaultInputFormat"]))
    return out


def catalog_confs(name: str, config: Mapping[str, Any]) -> dict[str, str]:
    """All confs of plugin `name`'s catalog: the class, its `connection` (so the catalog has
    no `root` / `tmp` of its own: the plugin's workspaces and `default`, its root), workspaces."""
    connection = str(config.get("connection") or "file:///")
    out = {
        f"spark.sql.catalog.{name}": CATALOG_CLASS,
        f"spark.sql.catalog.{name}.connection": connection,
    }
    if filesystems.is_remote(connection):
        out[f"spark.sql.catalog.{name}.workspace.default.allowAbsolute"] = "true"
    return out | workspace_confs(name, config)


def register(spark: SparkSession, name: str, config: Mapping[str, Any]) -> bool:
    """Make `name`'s catalog serve `config` in `spark` (again after a change: the catalog reads
    its confs anew); False when it cannot be a catalog here (a disabled plugin, a name Spark
    or another catalog class holds, a bucket another plugin holds: drillspark.sql says why)."""
    key = f"spark.sql.catalog.{name}"
    if name.lower() in RESERVED or "." in name or not enabled(config):
        return False
    held = spark.conf.get(key, None)
    if held not in (None, CATALOG_CLASS):
        return False
    connection = str(config.get("connection") or "file:///")
    try:
        filesystems.configure(spark, name, connection, config.get("config") or {})
    except filesystems.FileSystemError:
        return False
    confs = catalog_confs(name, config)
    for old in [k for k in spark.conf.getAll if k.startswith(key + ".") and k not in confs]:
        spark.conf.unset(old)  # a workspace the new config no longer has
    for k, v in confs.items():
        spark.conf.set(k, v)
    return True


def unregister(spark: SparkSession, name: str) -> bool:
    """`name`'s catalog no longer serves (its plugin was deleted or disabled): its confs are
    unset, so the catalog Spark keeps loaded answers that the table is not found, and its
    Hadoop settings are released (filesystems.release); False when it was no plugin's. A
    built-in plugin's (`dfs`'s) confs are put away, for `restore` when it is enabled again."""
    key = f"spark.sql.catalog.{name}"
    if spark.conf.get(key, None) != CATALOG_CLASS:
        return False
    confs = {k: v for k, v in spark.conf.getAll.items() if k == key or k.startswith(key + ".")}
    if name in BUILT_IN:
        _PUT_AWAY.setdefault(spark, {})[name] = confs
    for old in confs:
        spark.conf.unset(old)
    filesystems.release(spark, name)
    return True


def restore(spark: SparkSession, name: str) -> bool:
    """Built-in plugin `name` enabled again: its catalog serves as it did before it was
    disabled (`unregister` put its confs away); False when it had none put away (it was not
    disabled here, or is no Spark catalog: `cp`)."""
    confs = _PUT_AWAY.get(spark, {}).pop(name, None)
    if confs is None:
        return False
    for k, v in confs.items():
        spark.conf.set(k, v)
    return True


def follow(spark: SparkSession, name: str, config: Mapping[str, Any] | None) -> bool:
    """Plugin `name` changed (None: deleted): its catalog serves the new config, or none
    (deleted, disabled, not a `file` plugin any more, or refused here); whether it serves. A
    built-in plugin keeps the catalog the session gave it (False), gone while disabled."""
    if name in BUILT_IN:
        if config is not None and enabled(config):
            restore(spark, name)
        else:
            unregister(spark, name)
        return False
    if config is not None and config.get("type") == "file" and register(spark, name, config):
        return True
    unregister(spark, name)
    return False


def register_all(spark: SparkSession, storage: Mapping[str, Any]) -> list[str]:
    """Catalogs for the `file` plugins of `storage` (name -> Drill's config), beside `dfs`,
    whose catalog takes the workspaces a partial `dfs` config adds; the names registered."""
    done = []
    for name, config in storage.items():
        if not isinstance(config, Mapping):
            continue
        if name in BUILT_IN and not enabled(config):
            unregister(spark, name)  # {"dfs": {"enabled": false}}: gone from spark.sql too
        elif name == FILE_PLUGIN and config.get("type") in (None, "file"):
            if config.get("enabled") in (True, "true"):
                restore(spark, name)
            confs = workspace_confs(name, config)
            put_away = _PUT_AWAY.get(spark, {}).get(name)
            if put_away is not None:  # disabled: the workspaces wait for it
                put_away.update(confs)
                continue
            for k, v in confs.items():
                spark.conf.set(k, v)
        elif name not in BUILT_IN and config.get("type") == "file":
            if follow(spark, name, config):
                done.append(name)
        elif name not in BUILT_IN and "type" not in config and not enabled(config):
            unregister(spark, name)  # {"s3": {"enabled": false}}: disabled
    return done
