"""The `mongo` storage plugin: a MongoDB server's collections read as schema-free records, with
Apache Drill 1.22's config (plugin_configs/mongo.py) and names (docs/storage.md).

A table is ``mongo.db.collection``; its databases are schemas (``mongo.db``). The documents are
read when the scan is planned (a bounded snapshot), through the MongoDB Java driver
(`drillspark.records.MongoPages`, which calls it by reflection), `batchSize` documents to a
round trip, as canonical Extended JSON lines, and typed by the extension's `drill` reader with
its extended-types rule: the one reader of files too. Errors name the plugin, the collection and
the document (a page's line is its document), never the URI's password.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from drillspark.plugin_configs.mongo import MongoConfig
from drillspark.spark.storage.base import StorageEngine, StorageError, parsed_config
from drillspark.spark.storage.record_pages import classic_jvm, failure_line

TYPE = "mongo"
PAGE_DOCUMENTS = 10_000  # documents to a page of records (one input split)
# how long the driver looks for a server before giving up (its default is 30 s)
SELECT_TIMEOUT_MS = 10_000


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


def _jvm(spark: SparkSession, name: str) -> Any:
    return classic_jvm(spark, f"mongo plugin '{name}'", MongoError)


def _failure(name: str, cfg: MongoConfig, e: Exception, what: str) -> MongoError:
    return MongoError(f"mongo plugin '{name}': {what}: {failure_line(e, cfg.secrets())}")


def databases(spark: SparkSession, name: str, config: Mapping[str, Any]) -> list[str]:
    cfg = config_of(name, config)
    try:
        return list(_jvm(spark, name).drillspark.records.MongoPages.databases(_uri(cfg)))
    except MongoError:
        raise
    except Exception as e:  # the driver's failure, from the JVM
        raise _failure(name, cfg, e, "cannot list the databases") from None


def collections(spark: SparkSession, name: str, config: Mapping[str, Any], db: str) -> list[str]:
    cfg = config_of(name, config)
    try:
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
    dbs = databases(spark, name, config)
    db = next((d for d in dbs if d == parts[0]), None) or next(
        (d for d in dbs if d.lower() == parts[0].lower()), None
    )
    if db is None:
        raise MongoError(f"Schema [{name}.{parts[0]}] is not valid: no such database")
    colls = collections(spark, name, config, db)
    coll = next((c for c in colls if c == parts[1]), None) or next(
        (c for c in colls if c.lower() == parts[1].lower()), None
    )
    if coll is None:
        raise MongoError(f"Object '{parts[1]}' not found within '{name}.{db}'")
    return {"database": db, "collection": coll}


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
        jvm = _jvm(spark, self.name)
        batch = jvm.drillspark.records.RecordBatch()
        place = f"mongo plugin '{self.name}', collection {db}.{coll}"
        try:
            jvm.drillspark.records.MongoPages.read(
                batch,
                _uri(cfg),
                db,
                coll,
                "",
                "",
                0,
                int(cfg.get("batchSize") or 0),
                PAGE_DOCUMENTS,
                place,
            )
        except Exception as e:  # the driver's failure, from the JVM
            raise _failure(self.name, cfg, e, f"cannot read {db}.{coll}") from None
        paths = list(batch.paths())
        if not paths:
            return spark.createDataFrame([], "dummy string").select()
        df = spark.read.format("drill").option("extendedTypes", "true").load(paths)
        del batch  # the table holds the pages now
        return df
