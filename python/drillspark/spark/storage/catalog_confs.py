"""The one writer of a non-file plugin's Spark catalog confs (`spark.sql.catalog.<name>` = its
class, `spark.sql.catalog.<name>.*` = its config): which names may be one, when a name another
catalog holds is left alone, when a type change replaces ours. Below both its callers:
plugin_catalogs (a plugin registered, changed, deleted) and record_pages (a record plugin read
on Spark Connect), each handing the class and confs the plugin type's engine module gives."""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import SparkSession

from drillspark.spark.storage import file_catalogs

# every catalog class of the extension jar (DfsCatalog and the plugin catalogs) lives here
OUR_PACKAGE = "drillspark.catalog."


def key(name: str) -> str:
    return f"spark.sql.catalog.{name}"


def held(spark: SparkSession, name: str) -> str | None:
    """The catalog class the session gives `name`, None for none."""
    return spark.conf.get(key(name), None)


def ours(cls: str | None) -> bool:
    return cls is not None and cls.startswith(OUR_PACKAGE)


def may_hold(name: str) -> bool:
    """Whether a plugin named `name` can be a Spark catalog of its name (not Spark's own names,
    not a dotted one, not a built-in plugin's)."""
    return not (
        name.lower() in file_catalogs.RESERVED or "." in name or name in file_catalogs.BUILT_IN
    )


def write(spark: SparkSession, name: str, cls: str, confs: Mapping[str, str]) -> bool:
    """Catalog `name` of class `cls` with exactly `confs` (the catalog reads them anew at each
    call); False, nothing written, when the name cannot be ours (may_hold) or another catalog
    class not of this jar holds it."""
    if not may_hold(name):
        return False
    now = held(spark, name)
    if ours(now) and now != cls:
        # the plugin's type changed: a catalog Spark already loaded under the name keeps its
        # class and says so (PluginCatalog); one not yet loaded is loaded as the new type
        unset(spark, name)
    elif now not in (None, cls):
        return False
    prefix = key(name) + "."
    for old in [
        k for k in spark.conf.getAll if k.startswith(prefix) and k[len(prefix) :] not in confs
    ]:
        spark.conf.unset(old)
    for k, v in confs.items():
        spark.conf.set(prefix + k, v)
    spark.conf.set(key(name), cls)
    return True


def unset(spark: SparkSession, name: str) -> bool:
    """`name`'s catalog no longer serves: its confs are unset, so the catalog Spark keeps loaded
    answers that its tables are not found; False when it was no catalog of this jar."""
    now = held(spark, name)
    if now == file_catalogs.CATALOG_CLASS:
        return file_catalogs.unregister(spark, name)
    if not ours(now):
        return False
    for old in [k for k in spark.conf.getAll if k == key(name) or k.startswith(key(name) + ".")]:
        spark.conf.unset(old)
    return True
