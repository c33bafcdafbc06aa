"""Every storage plugin a Spark catalog of its own name, so Spark's own `spark.sql` reads it:
``spark.sql("SELECT * FROM pg.public.orders o JOIN dfs.tmp.`x.parquet` p ON ...")``,
``spark.table("mongo.db.coll")``, ``spark.sql("SELECT * FROM kafka.`topic`")``,
``spark.table("api.conn")`` (an `http` plugin's connection).

The plugin type's module owns how its plugin becomes a catalog: `file_catalogs` for `file`
plugins (the extension's DfsCatalog, Hadoop settings scoped), and for the others the engine
module's `catalog_confs(name, config)` (the confs of `spark.sql.catalog.<name>.*`) and
`PLUGIN_CATALOG_CLASS` (a thin class of the jar's `drillspark.catalog` package reading
through the same reader as drillspark.sql: for `http` the extension's fetching of the pages
too). `CATALOGS` is the one list of those types; a type not in it is no Spark catalog.
Secrets sit in confs Spark's `SET` redacts (`url`, `password`, `secret.*`)."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pyspark.sql import SparkSession

from drillspark.plugin_configs.base import enabled
from drillspark.spark.storage import catalog_confs, file_catalogs, http, jdbc, kafka, mongo

# type -> the module owning its catalog (catalog_confs, PLUGIN_CATALOG_CLASS); `file`: below
CATALOGS: dict[str, ModuleType] = {"http": http, "jdbc": jdbc, "kafka": kafka, "mongo": mongo}
OWN_CLASSES = {m.PLUGIN_CATALOG_CLASS for m in CATALOGS.values()}


def register(spark: SparkSession, name: str, config: Mapping[str, Any]) -> bool:
    """Make `name`'s catalog serve `config` (again after a change: the catalog reads its
    confs anew at each call); False when it cannot be one (a disabled plugin, a type with no
    catalog, a name Spark or another catalog class holds, a config its module refuses:
    drillspark.sql says why)."""
    owner = CATALOGS.get(str(config.get("type")))
    if owner is None or not enabled(config) or not catalog_confs.may_hold(name):
        return False
    try:
        confs = owner.catalog_confs(name, config)
    except Exception:  # a config the engine refuses: drillspark.sql names the field
        return False
    return catalog_confs.write(spark, name, owner.PLUGIN_CATALOG_CLASS, confs)


def unregister(spark: SparkSession, name: str) -> bool:
    """`name`'s catalog no longer serves (deleted, disabled, another type now): its confs are
    unset, so the catalog Spark keeps loaded answers that its tables are not found; False when
    it was no plugin's catalog."""
    return catalog_confs.unset(spark, name)


def follow(spark: SparkSession, name: str, config: Mapping[str, Any] | None) -> bool:
    """Plugin `name` changed (None: deleted): its catalog serves the new config, or none;
    whether it serves."""
    if config is not None and config.get("type") == "file":
        if catalog_confs.held(spark, name) in OWN_CLASSES:  # was another type's
            unregister(spark, name)
        return file_catalogs.follow(spark, name, config)
    if config is not None and register(spark, name, config):
        return True
    unregister(spark, name)
    return False


def restore(spark: SparkSession, name: str) -> bool:
    """A built-in plugin (`dfs`) disabled in `spark` serves again as before (file_catalogs.restore)."""
    return file_catalogs.restore(spark, name)


def register_all(spark: SparkSession, storage: Mapping[str, Any]) -> list[str]:
    """Catalogs for the plugins of `storage` (name -> Drill's config; partial configs of
    `dfs` give it workspaces, `{"x": {"enabled": false}}` disables x); the names registered."""
    for name, config in storage.items():  # a plugin of another type before: a `file` one now
        held = catalog_confs.held(spark, name) if isinstance(config, Mapping) else None
        if held in OWN_CLASSES and config.get("type") == "file":
            unregister(spark, name)
    done = file_catalogs.register_all(spark, storage)
    for name, config in storage.items():
        if not isinstance(config, Mapping) or name in file_catalogs.BUILT_IN:
            continue
        if config.get("type") in CATALOGS:
            if follow(spark, name, config):
                done.append(name)
        elif "type" not in config and not enabled(config):
            unregister(spark, name)
    return done
