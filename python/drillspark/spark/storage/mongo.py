"""The `mongo` storage plugin: a MongoDB server's collections read as schema-free records, with
Apache Drill 1.22's config (plugin_configs/mongo.py) and names (docs/storage.md).

A table is ``mongo.db.collection``; its databases are schemas (``mongo.db``). When the scan is
planned, the collection is cut into pages of `_id` ranges (a snapshot of its `_id` order, taken
through the MongoDB Java driver by `drillspark.records.MongoPages`, which calls it by
reflection); each page's documents are fetched in the Spark task that reads it, never by the
driver, `batchSize` documents to a round trip, as canonical Extended JSON lines, and typed by
the extension's `drill` reader with its extended-types rule: the one reader of files too. The
extension's `drill-mongo` source then asks the server only for what a query needs: Spark's
filters as a find filter, its columns as a projection, a LIMIT (`MongoScanBuilder`, shown in
the query's Spark plan), where MongoDB answers as the reader would; Spark checks every filter
again. Errors name the plugin, the collection and the page, never the URI's password.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from drillspark.plugin_configs.mongo import MongoConfig
from drillspark.spark.storage.base import StorageEngine, StorageError, parsed_config
from drillspark.spark.storage.record_pages import (
    CatalogRead,
    catalog_said,
    classic_jvm,
    failure_line,
    session_jvm,
)

TYPE = "mongo"
PAGE_DOCUMENTS = 50_000  # documents to a page of records (one input split, one Spark task)
# how long the driver looks for a server before giving up (its default is 30 s)
SELECT_TIMEOUT_MS = 10_000


# Drill's pluginOptimizations flags (all on unless set false) -> the drill-mongo source's options
PUSHDOWNS = {
    "supportsFilterPushdown": "filterPushdown",
    "supportsProjectPushdown": "projectPushdown",
    "supportsLimitPushdown": "limitPushdown",
    "supportsAggregatePushdown": "aggregatePushdown",
}


class MongoError(StorageError):
    """A server or collection that cannot be read; the message names the plugin."""


def config_of(name: str, config: Mapping[str, Any]) -> MongoConfig:
    return parsed_config(MongoConfig, name, config, MongoError)


def _uri(cfg: MongoConfig) -> str:
    uri = str(cfg.get("connection"))
    if "serverSelectionTimeoutMS" not in uri:
        sep = "&" if "?" in uri else ("?" if uri.count("/") > 2 else "/?")
        uri += f"{sep}serverSelectionTimeoutMS={SELECT_TIMEOUT_MS}"
    return uri


def _optimization(cfg: MongoConfig, name: str) -> bool:
    """Whether the config's `pluginOptimizations` leaves push-down `name` on (Drill's default)."""
    flags = cfg.get("pluginOptimizations") or {}
    value = flags.get(name, True) if isinstance(flags, Mapping) else True
    return str(value).strip().lower() not in ("false", "0")


def _jvm(spark: SparkSession, name: str) -> Any:
    return classic_jvm(spark, f"mongo plugin '{name}'", MongoError)


def _failure(name: str, cfg: MongoConfig, e: Exception, what: str) -> MongoError:
    said = catalog_said(e, cfg.secrets())  # the plugin's catalog (Spark Connect) says what it did
    if said is not None:
        return MongoError(f"mongo plugin '{name}': {said}")
    line = failure_line(e, cfg.secrets())
    if line.startswith(f"mongo plugin '{name}'"):  # a page's place says it all
        return MongoError(line)
    return MongoError(f"mongo plugin '{name}': {what}: {line}")


def databases(spark: SparkSession, name: str, config: Mapping[str, Any]) -> list[str]:
    cfg = config_of(name, config)
    try:
        if session_jvm(spark) is None:  # Spark Connect: the plugin's catalog lists them
            return _catalog(spark, name, config, f"mongo plugin '{name}'").namespaces()
        return list(_jvm(spark, name).drillspark.records.MongoPages.databases(_uri(cfg)))
    except MongoError:
        raise
    except Exception as e:  # the driver's failure, from the JVM
        raise _failure(name, cfg, e, "cannot list the databases") from None


def collections(spark: SparkSession, name: str, config: Mapping[str, Any], db: str) -> list[str]:
    cfg = config_of(name, config)
    try:
        if session_jvm(spark) is None:  # Spark Connect: the plugin's catalog lists them
            owner = f"mongo plugin '{name}'"
            return _catalog(spark, name, config, owner).tables((db,))
        return list(_jvm(spark, name).drillspark.records.MongoPages.collections(_uri(cfg), db))
    except MongoError:
        raise
    except Exception as e:  # the driver's failure, from the JVM
        raise _failure(name, cfg, e, f"cannot list the collections of {db}") from None


def table_selection(
    spark: SparkSession, name: str, config: Mapping[str, Any], parts: tuple[str, ...]
) -> dict[str, Any]:
    """The scan selection of ``name.db.collection`` (Drill's names: database and collection
    as the server spells them, matched in any case as Drill does), or MongoError."""
    if len(parts) != 2:
        raise MongoError(
            f"mongo plugin '{name}': name a collection as {name}.DATABASE.COLLECTION, not "
            f"{'.'.join((name, *parts))}"
        )
    dbs = _named(spark, name, config, "databasesNamed", (), parts[0])
    db = next((d for d in dbs if d == parts[0]), None) or next(
        (d for d in dbs if d.lower() == parts[0].lower()), None
    )
    if db is None:
        raise MongoError(f"Schema [{name}.{parts[0]}] is not valid: no such database")
    colls = _named(spark, name, config, "collectionsNamed", (db,), parts[1])
    coll = next((c for c in colls if c == parts[1]), None) or next(
        (c for c in colls if c.lower() == parts[1].lower()), None
    )
    if coll is None:
        raise MongoError(f"Object '{parts[1]}' not found within '{name}.{db}'")
    return {"database": db, "collection": coll}


def _named(
    spark: SparkSession,
    name: str,
    config: Mapping[str, Any],
    lookup: str,
    db: tuple[str, ...],
    wanted: str,
) -> list[str]:
    """The databases (`databasesNamed`) or collections of `db` (`collectionsNamed`) named
    `wanted` in any case: on a classic session the server is asked for that name alone; on
    Spark Connect the plugin's catalog lists them all."""
    if session_jvm(spark) is None:
        return collections(spark, name, config, db[0]) if db else databases(spark, name, config)
    cfg = config_of(name, config)
    pages = _jvm(spark, name).drillspark.records.MongoPages
    try:
        return list(getattr(pages, lookup)(_uri(cfg), *db, wanted))
    except Exception as e:  # the driver's failure, from the JVM
        what = f"cannot list the collections of {db[0]}" if db else "cannot list the databases"
        raise _failure(name, cfg, e, what) from None


PLUGIN_CATALOG_CLASS = "drillspark.catalog.MongoPluginCatalog"


def _catalog(spark: SparkSession, name: str, config: Mapping[str, Any], owner: str) -> CatalogRead:
    """Spark Connect's reads of plugin `name` through its catalog (record_pages.CatalogRead)."""
    return CatalogRead(
        spark, name, PLUGIN_CATALOG_CLASS, catalog_confs(name, config), owner, MongoError
    )


def catalog_confs(name: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The confs of plugin `name`'s Spark catalog of its own name (spark.sql's door,
    plugin_catalogs.py): what `MongoEngine.read` gives MongoPages.plan and the drill-mongo
    source. The URI is the conf `url`, which Spark's SET redacts."""
    cfg = config_of(name, config)
    out = {
        "url": _uri(cfg),
        "batchSize": str(int(cfg.get("batchSize") or 0)),
        "pageDocuments": str(PAGE_DOCUMENTS),
    }
    for drill_name, option in PUSHDOWNS.items():
        out[option] = str(_optimization(cfg, drill_name)).lower()
    return out


@dataclass
class MongoEngine(StorageEngine):
    """The `mongo` storage engine of a plan: a scan reads one collection."""

    readable = True

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        if not isinstance(selection, Mapping) or not selection.get("collection"):
            raise MongoError(
                f"scan of {self.name!r} (mongo) needs a selection "
                '{"database": ..., "collection": ...}'
            )
        cfg = config_of(self.name, self.config)
        db, coll = str(selection.get("database") or ""), str(selection["collection"])
        place = f"mongo plugin '{self.name}', collection {db}.{coll}"
        if session_jvm(spark) is None:  # Spark Connect: through the plugin's own catalog
            return self._catalog_read(spark, cfg, db, coll, place)
        jvm = _jvm(spark, self.name)
        batch = jvm.drillspark.records.RecordBatch()
        try:
            jvm.drillspark.records.MongoPages.plan(
                batch, _uri(cfg), db, coll, int(cfg.get("batchSize") or 0), PAGE_DOCUMENTS, place
            )
        except Exception as e:  # the driver's failure, from the JVM
            raise _failure(self.name, cfg, e, f"cannot read {db}.{coll}") from None
        paths = list(batch.paths())
        if not paths:
            return spark.createDataFrame([], "dummy string").select()
        pages = spark.read.format("drill-mongo").option("table", f"{self.name}.{db}.{coll}")
        for drill_name, option in PUSHDOWNS.items():
            pages = pages.option(option, str(_optimization(cfg, drill_name)).lower())
        try:
            df = pages.option("paths", json.dumps(paths)).load()
        except Exception as e:  # a document's or the driver's failure, from a task
            raise _failure(self.name, cfg, e, f"cannot read {db}.{coll}") from None
        del batch  # the table holds the pages now
        return df

    def _catalog_read(
        self, spark: SparkSession, cfg: MongoConfig, db: str, coll: str, place: str
    ) -> DataFrame:
        """Spark Connect: the collection as a table of the plugin's catalog
        (MongoPluginCatalog, in the server's JVM): the same pages (`MongoPages.plan`) and
        `drill-mongo` source with the same push-down flags as the read above, so Spark pushes
        the query's filters, columns, limit and aggregates into it alike."""
        df = _catalog(spark, self.name, self.config, place).table((db, coll))
        try:
            columns = df.columns  # Spark loads the table: the pages, discovery
        except Exception as e:  # the catalog's failure, from the server
            raise _failure(self.name, cfg, e, f"cannot read {db}.{coll}") from None
        if not columns:  # an empty collection: no column, no row (as the classic read)
            return spark.createDataFrame([], "dummy string").select()
        return df
