"""What the record-source plugins (http, mongo, kafka) share on their way to the JVM: they hand
pages of records to drillspark's own `drill` reader (the extension jar's `records` unit) through
a classic session's JVM, and a failure raised there comes back as a py4j error whose first line
is the one worth showing.

Spark Connect has no JVM in this process, so there a plugin whose type is a Spark catalog
(spark/storage/plugin_catalogs.py: its module's `catalog_confs`, which Connect takes as plain
`spark.conf.set`) is read through that catalog of its own name: `CatalogRead` writes its confs
on the session (catalog_confs.write, as plugin_catalogs does) and reads a table by name or lists
them with Spark's SHOW. The planning (snapshot, pages, push-downs) then runs in the Connect
server's JVM, the rule's one owner. A record plugin whose type has a catalog reads on Connect
through it from its engine, as kafka.py, mongo.py and http.py do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from drillspark.spark.storage import catalog_confs


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


@dataclass(frozen=True)
class CatalogRead:
    """Spark Connect's reads of plugin `name` through its Spark catalog of class `cls` with the
    confs its engine module gives (`catalog_confs(name, config)`); a failure to become that
    catalog is `error` naming `owner` (e.g. "kafka plugin 'k'")."""

    spark: SparkSession
    name: str
    cls: str
    confs: Mapping[str, str]
    owner: str
    error: type[Exception]

    def _register(self) -> None:
        # the current config each time: the catalog reads its confs anew at each call
        if not catalog_confs.write(self.spark, self.name, self.cls, self.confs):
            raise self.error(
                f"{self.owner}: on Spark Connect it is read through a Spark catalog of its "
                f"name, and this session cannot have one named '{self.name}' (the name is "
                "Spark's or another catalog's)"
            )

    def table(self, parts: tuple[str, ...]) -> DataFrame:
        """Table `parts`, lazily: Spark loads it, planning its pages in the server's JVM, when
        the plan is analyzed."""
        self._register()
        return self.spark.read.table(quoted(self.name, *parts))

    def _show(self, what: str, namespace: tuple[str, ...], column: str) -> list[str]:
        self._register()
        rows = self.spark.sql(f"SHOW {what} IN {quoted(self.name, *namespace)}").collect()
        # SHOW NAMESPACES prints a name in backticks where it needs them; SHOW TABLES never
        names = [str(r[column]) for r in rows]
        return sorted(map(_unquoted, names) if what == "NAMESPACES" else names)

    def tables(self, namespace: tuple[str, ...]) -> list[str]:
        """The tables of `namespace` (Spark's SHOW TABLES), sorted."""
        return self._show("TABLES", namespace, "tableName")

    def namespaces(self) -> list[str]:
        """The catalog's namespaces (Spark's SHOW NAMESPACES), sorted."""
        return self._show("NAMESPACES", (), "namespace")


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
