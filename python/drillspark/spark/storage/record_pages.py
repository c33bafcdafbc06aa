"""What the record-source plugins (http, mongo, kafka) share on their way to the JVM: they hand
pages of records to drillspark's own `drill` reader (the extension jar's `records` unit) through
a classic session's JVM, and a failure raised there comes back as a py4j error whose first line
is the one worth showing.

Spark Connect has no JVM in this process, so there a plugin whose type is a Spark catalog
(spark/storage/plugin_catalogs.py: its module's `catalog_confs`, which Connect takes as plain
`spark.conf.set`) is read through that catalog of its own name: `catalog_table` registers it on
the session and reads the table by name, `catalog_tables` / `catalog_namespaces` list it with
Spark's SHOW. The planning (snapshot, pages, push-downs) then runs in the Connect server's JVM,
the rule's one owner. A record plugin whose type has a catalog reads on Connect by calling these
from its engine, as kafka.py, mongo.py and http.py do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pyspark.sql import DataFrame, SparkSession


def session_jvm(spark: SparkSession) -> Any:
    """The classic session's JVM; None on Spark Connect."""
    jvm = getattr(spark, "_jvm", None)
    return jvm


def classic_jvm(spark: SparkSession, owner: str, error: type[Exception]) -> Any:
    """The session's JVM, or `error` naming `owner` (e.g. "mongo plugin 'm'"): Spark Connect
    has no JVM in this process to hand pages to."""
    jvm = session_jvm(spark)
    if jvm is None:
        raise error(
            f"{owner}: reading needs a classic Spark session (with the drillspark jar), not "
            "Spark Connect"
        )
    return jvm


def quoted(*parts: str) -> str:
    """A multi-part name as Spark SQL reads it, each part in backticks."""
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def _unquoted(name: str) -> str:
    """One name part as Spark's SHOW NAMESPACES prints it (backticks only where needed)."""
    if len(name) >= 2 and name[0] == name[-1] == "`":
        return name[1:-1].replace("``", "`")
    return name


def _catalog(
    spark: SparkSession,
    name: str,
    config: Mapping[str, Any],
    owner: str,
    error: type[Exception],
) -> None:
    """Plugin `name` as the session's Spark catalog of its name, with its current config (the
    catalog reads its confs anew at each call), or `error` saying why it cannot be."""
    from drillspark.spark.storage import plugin_catalogs

    if not plugin_catalogs.register(spark, name, config):
        raise error(
            f"{owner}: on Spark Connect a {config.get('type')} plugin is read through a Spark "
            f"catalog of its name, and this session cannot have one named '{name}' (the name "
            "is Spark's or another catalog's, or the type has no catalog)"
        )


def catalog_table(
    spark: SparkSession,
    name: str,
    config: Mapping[str, Any],
    parts: tuple[str, ...],
    owner: str,
    error: type[Exception],
) -> DataFrame:
    """Spark Connect's read of plugin `name`'s table `parts` through its catalog (lazy: Spark
    loads the table, planning its pages in the server's JVM, when the plan is analyzed)."""
    _catalog(spark, name, config, owner, error)
    return spark.read.table(quoted(name, *parts))


def catalog_tables(
    spark: SparkSession,
    name: str,
    config: Mapping[str, Any],
    namespace: tuple[str, ...],
    owner: str,
    error: type[Exception],
) -> list[str]:
    """The tables of `namespace` in plugin `name`'s catalog (Spark's SHOW TABLES), sorted."""
    _catalog(spark, name, config, owner, error)
    rows = spark.sql(f"SHOW TABLES IN {quoted(name, *namespace)}").collect()
    return sorted(str(r["tableName"]) for r in rows)


def catalog_namespaces(
    spark: SparkSession,
    name: str,
    config: Mapping[str, Any],
    owner: str,
    error: type[Exception],
) -> list[str]:
    """The namespaces of plugin `name`'s catalog (Spark's SHOW NAMESPACES), sorted."""
    _catalog(spark, name, config, owner, error)
    rows = spark.sql(f"SHOW NAMESPACES IN {quoted(name)}").collect()
    return sorted(_unquoted(str(r["namespace"])) for r in rows)


def failure_line(e: Exception, secrets: Iterable[str] = ()) -> str:
    """The JVM failure's first line without its exception class, secrets masked."""
    text = str(getattr(e, "java_exception", None) or e)
    line = next((ln for ln in text.splitlines() if ln.strip()), repr(e))
    for marker in ("DrillScanException:", "Exception:"):
        if marker in line:
            line = line.split(marker, 1)[1].strip()
            break
    for secret in secrets:
        line = line.replace(secret, "*****")
    return line


def catalog_said(e: Exception, secrets: Iterable[str] = ()) -> str | None:
    """What a plugin catalog's failure says after its "storage plugin 'x': " head (what it
    was doing, then why), secrets masked; None for any other failure."""
    text = str(getattr(e, "java_exception", None) or e)
    said = re.search(r"storage plugin '[^']*': (.*)", text)
    if said is None:
        return None
    line = said[1].strip()
    for secret in secrets:
        line = line.replace(secret, "*****")
    return line
