"""Fetch the Arrow Flight SQL JDBC driver for the Flight SQL tests (tests/flight/):
org.apache.arrow:flight-sql-jdbc-driver:18.3.0 (one jar with its dependencies shaded in; Apache
License 2.0) from Maven Central, checked against its pinned SHA-1 (and the `.sha1` Maven Central
publishes next to it), into tests/flight/jars/ (git-ignored; the tests fetch nothing).

The Maven code (checksums, download, ~/.m2 first, the write under a temporary name) is
tools/pinned_jars.py's. Standard library only, so `make setup` runs it before the virtualenv
exists."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "flight" / "jars"

JARS = (
    maven.PinnedJar(
        "org.apache.arrow",
        "flight-sql-jdbc-driver",
        "18.3.0",
        "a77be460b83b673e41c5e2d364e7189a223f4861",
    ),
)


FOLDER = maven.JarFolder("fetch_flight_clients", __doc__, DEST, JARS, names_in_stamp=False)
is_current, fetch, classpath, main = FOLDER.is_current, FOLDER.fetch, FOLDER.classpath, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
