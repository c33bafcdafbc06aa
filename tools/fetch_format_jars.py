"""Fetch the Java libraries drillspark's format readers use beside Spark's own jars: Apache POI
and the streaming xlsx reader Drill 1.22's `excel` format uses (com.github.pjfanning:
excel-streaming-reader), with the POI dependencies pyspark does not ship (Apache License 2.0).

Each jar is checked against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to
it must agree) and lands in python/drillspark/jars/formats/: a git-ignored folder the wheel
carries and `drillspark.session()` puts on `spark.jars`; tools/build_jar.py compiles the
extension against it. The Maven code (checksums, download, ~/.m2 first) is
tools/fetch_cp_data.py's. A format that needs another library adds its pinned jars to JARS.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_cp_data as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "jars" / "formats"
STAMP_NAME = ".fetched"

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
)

FetchError = maven.FetchError


def stamp_text() -> str:
    return "".join(f"{j.coordinates} sha1={j.sha1} {j.name}\n" for j in JARS)


def is_current(dest: Path = DEST) -> bool:
    try:
        if (dest / STAMP_NAME).read_text(encoding="utf-8") != stamp_text():
            return False
    except OSError:
        return False
    return all((dest / j.name).is_file() for j in JARS)


def fetch(dest: Path = DEST, repo: str | None = None, quiet: bool = False) -> bool:
    """Put every pinned jar into `dest` unless it is there; True when something was fetched."""

    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    stamp = dest / STAMP_NAME
    if is_current(dest):
        stamp.touch()  # newer than this script: make's rule is satisfied
        return False
    repo = repo or os.environ.get(maven.REPO_ENV) or maven.CENTRAL
    dest.mkdir(parents=True, exist_ok=True)
    fetched = False
    with tempfile.TemporaryDirectory(prefix=".formats-fetch-", dir=dest.parent) as tmp:
        work = Path(tmp)
        for jar in JARS:
            target = dest / jar.name
            if target.is_file() and maven.sha1_of(target) == jar.sha1:
                continue
            got = maven.checked_jar(jar, repo, work, log, "fetch_format_jars")
            staged = work / (jar.name + ".part")
            staged.write_bytes(got.read_bytes())
            os.replace(staged, target)
            fetched = True
        for old in dest.glob("*.jar"):  # other versions of the pinned jars
            if old.name not in {j.name for j in JARS} and any(
                old.name.startswith(j.artifact + "-") for j in JARS
            ):
                old.unlink()
        stamp.write_text(stamp_text(), encoding="utf-8")
    log("fetch_format_jars: " + ", ".join(j.coordinates for j in JARS) + f" in {dest}")
    return fetched


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=DEST, help="the folder to fill (%(default)s)")
    ap.add_argument(
        "--repo", help=f"a Maven repository URL (default ${maven.REPO_ENV}, else {maven.CENTRAL})"
    )
    args = ap.parse_args(argv)
    try:
        if not fetch(args.dest, args.repo):
            print(f"fetch_format_jars: the jars are already in {args.dest}", file=sys.stderr)
    except FetchError as e:
        print(f"fetch_format_jars: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
