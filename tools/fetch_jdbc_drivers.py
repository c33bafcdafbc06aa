"""Fetch the JDBC drivers the `jdbc` storage plugin ships with: PostgreSQL's
(org.postgresql:postgresql, BSD-2-Clause) and MariaDB Connector/J
(org.mariadb.jdbc:mariadb-java-client, LGPL-2.1, unmodified), from Maven Central.

Each jar is checked against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to
it must agree) and lands in python/drillspark/jars/drivers/: a git-ignored folder the wheel
carries (setup.py) and `drillspark.session()` / `configure()` put on `spark.jars`
(drillspark/session.py). Other drivers are not fetched: they are one `--jars` (or `spark.jars`)
away, docs/storage.md. The download, checksum and local-repository code is
tools/pinned_jars.py's, which the other fetch tools share.

A jar already in the local Maven repository (~/.m2/repository) is used when its checksum is
right; otherwise it is downloaded from $DRILLSPARK_MAVEN_REPO (Maven Central's layout), default
Maven Central. A jar already in the folder with the right checksum is kept; each jar is written
under a temporary name and renamed into place, so an interrupted run never leaves half a jar;
jars of other versions of these drivers are removed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "jars" / "drivers"


@dataclass(frozen=True)
class Driver(maven.PinnedJar):
    driver_class: str
    license: str

    # the names this tool's callers use for the shared type's `name` and `path`
    @property
    def jar_name(self) -> str:
        return self.name

    @property
    def artifact_path(self) -> str:
        return self.path


DRIVERS = (
    Driver(
        "org.postgresql",
        "postgresql",
        "42.7.14",
        "0e7c94ce80cb1dd9875ff44ffe6a40a8aaa3eefd",
        "org.postgresql.Driver",
        "BSD-2-Clause",
    ),
    Driver(
        "org.mariadb.jdbc",
        "mariadb-java-client",
        "3.5.11",
        "2fd47e0cfae9e8a0f0b629da31a72fa99eeeb06d",
        "org.mariadb.jdbc.Driver",
        "LGPL-2.1",
    ),
)

FetchError = maven.FetchError
FOLDER = maven.JarFolder("fetch_jdbc_drivers", __doc__, DEST, DRIVERS, kind="driver")
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
