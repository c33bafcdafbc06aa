"""Fetch the Java libraries drillspark's format readers use beside Spark's own jars: Apache POI
and the streaming xlsx reader Drill 1.22's `excel` format uses (com.github.pjfanning:
excel-streaming-reader), with the POI dependencies pyspark does not ship, and Yauaa (the
user-agent analyzer of httpd's `parseUserAgent`) with its two (Apache License 2.0).

Each jar is checked against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to
it must agree) and lands in python/drillspark/jars/formats/: a git-ignored folder the wheel
carries and `drillspark.session()` puts on `spark.jars`; tools/build_jar.py compiles the
extension against it. The Maven code (checksums, download, ~/.m2 first) is
tools/pinned_jars.py's. A format that needs another library adds its pinned jars to JARS.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "jars" / "formats"

PinnedJar = maven.PinnedJar

JARS: tuple[PinnedJar, ...] = (
    # excel: POI 5.4.1 and excel-streaming-reader 5.1.0, the versions Drill 1.22's plugin runs
    PinnedJar("org.apache.poi", "poi", "5.4.1", "e4c74c59e13f62d8edd215756d14ce55566c6efe"),
    PinnedJar("org.apache.poi", "poi-ooxml", "5.4.1", "508ed3e7fcc775738415870d0bc6d27196317fe3"),
    PinnedJar(
        "org.apache.poi", "poi-ooxml-lite", "5.4.1", "0ed2246f88254ba40fc2e7999c8f8e4e9031208a"
    ),
    PinnedJar(
        "com.github.pjfanning",
        "excel-streaming-reader",
        "5.1.0",
        "c00d93ed835f432bb71741a7714a8f548e5e18e2",
    ),
    PinnedJar(
        "org.apache.xmlbeans", "xmlbeans", "5.3.0", "f93c3ba820d7240b7fec4ec5bc35e7223cc6fc1f"
    ),
    PinnedJar("com.zaxxer", "SparseBitSet", "1.3", "533eac055afe3d5f614ea95e333afd6c2bde8f26"),
    PinnedJar(
        "com.github.virtuald", "curvesapi", "1.08", "3d3d36568154059825089b289dcfca481fe44e2c"
    ),
    # httpd parseUserAgent: Yauaa 7.19.2, the version Drill 1.22's httpd plugin runs (it shades
    # its ANTLR and SnakeYAML; commons-text/-lang3/-collections4 come from Spark's jars)
    PinnedJar(
        "nl.basjes.parse.useragent", "yauaa", "7.19.2", "7a8abafea59a4d7ee8c4caf4815501ba64d6bd5a"
    ),
    PinnedJar(
        "nl.basjes.collections", "prefixmap", "2.0", "c3b4e5a19bfa6dad68e079ed9ce4241d0d928f10"
    ),
    PinnedJar(
        "com.github.ben-manes.caffeine",
        "caffeine",
        "3.1.6",
        "3646a0d1b1abe6a31f72f2237d9004d10a5be91d",
    ),
)

FOLDER = maven.JarFolder("fetch_format_jars", __doc__, DEST, JARS)
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
