"""Fetch Drill's own clients for the native protocol's tests (tests/native/): Apache Drill's
JDBC driver, org.apache.drill.exec:drill-jdbc-all:1.22.0 (one jar with its dependencies shaded
in), and sqlline 1.12.0 (the shell Drill ships) with the jline 3.21.0 jars it needs, all from
Maven Central (Apache License 2.0; jline: BSD-3-Clause).

Each jar is checked against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to
it must agree) and lands in tests/native/jars/: a git-ignored folder the tests read (they fetch
nothing themselves). The download, checksum and local-repository code is
tools/pinned_jars.py's, which the other fetch tools share. Standard library only, so
`make setup` runs it before the virtualenv exists.

A jar already in the local Maven repository (~/.m2/repository) is used when its checksum is
right; otherwise it is downloaded from $DRILLSPARK_MAVEN_REPO (Maven Central's layout), default
Maven Central. A jar already in the folder with the right checksum is kept; each jar is written
under a temporary name and renamed into place, so an interrupted run never leaves half a jar.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "native" / "jars"


Jar = maven.PinnedJar


JARS = (
    Jar(
        "org.apache.drill.exec",
        "drill-jdbc-all",
        "1.22.0",
        "f1c74c30caeeaa088d746edd17feb84192513d77",
    ),
    Jar("sqlline", "sqlline", "1.12.0", "bf4e89d88978faadc491d3095a1c3bf582aeba3b"),
    Jar("org.jline", "jline-terminal", "3.21.0", "047579f05a0002f9c561cb10dcf2f744976c49ac"),
    Jar("org.jline", "jline-reader", "3.21.0", "9cd5c76dd2a47e9e0e7ab39821c0f62fa46e8581"),
    Jar("org.jline", "jline-builtins", "3.21.0", "e90bfa5dc84615baa864f073000f80cdeb849720"),
    Jar("org.jline", "jline-style", "3.21.0", "97f09299c294d5cb97eeaaa77f8a48f308e11210"),
    Jar("org.jline", "jline-console", "3.21.0", "1d46fe9d2fb766ff991f79c9050b02168c78d8b4"),
)


# the stamp names no files (make's rule checks only its time)
FOLDER = maven.JarFolder("fetch_drill_clients", __doc__, DEST, JARS, names_in_stamp=False)
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main
classpath = FOLDER.classpath  # in pinned order: the JDBC driver first


if __name__ == "__main__":
    sys.exit(main())
