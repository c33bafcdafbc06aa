"""Fetch the client libraries of the record plugins (issue #32): the MongoDB Java driver
(org.mongodb:mongodb-driver-sync with mongodb-driver-core and bson, Apache-2.0) for the `mongo`
storage plugin, and the Kafka Java client (org.apache.kafka:kafka-clients, Apache-2.0; its
compression libraries are pyspark's own) for the `kafka` storage plugin, from Maven Central.

Each jar is checked against its SHA-1 (pinned here; Maven Central's `.sha1` must agree) and lands
in python/drillspark/jars/clients/, a git-ignored folder the wheel carries and
`drillspark.session()` puts on `spark.jars` (drillspark/session.py). The download, checksum and
local-repository code is tools/pinned_jars.py's (PinnedJar, JarFolder). A jar already there
with the right checksum is kept; each is written under a temporary name and renamed into place;
other versions of these jars are removed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "jars" / "clients"
MONGO = "5.14.0"
KAFKA = "4.4.0"

JARS = (
    maven.PinnedJar(
        "org.mongodb", "mongodb-driver-sync", MONGO, "e06590d13c7fe58ec64b7baf93589d53babf742c"
    ),
    maven.PinnedJar(
        "org.mongodb", "mongodb-driver-core", MONGO, "c977fc513dee14045289fe19b99cf324443ad366"
    ),
    maven.PinnedJar("org.mongodb", "bson", MONGO, "bef7259dd18ffe618ea25e41616eb74f41919277"),
    maven.PinnedJar(
        "org.apache.kafka", "kafka-clients", KAFKA, "1d2ebc2a3f0ecce03faa288c42d4e8f998aac47d"
    ),
)


FOLDER = maven.JarFolder("fetch_client_jars", __doc__, DEST, JARS, kind="client jar")
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
