"""Fetch Drill's own clients for the native protocol's tests (tests/native/): Apache Drill's
JDBC driver, org.apache.drill.exec:drill-jdbc-all:1.22.0 (one jar with its dependencies shaded
in), and sqlline 1.12.0 (the shell Drill ships) with the jline 3.21.0 jars it needs, all from
Maven Central (Apache License 2.0; jline: BSD-3-Clause).

Each jar is checked against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to
it must agree) and lands in tests/native/jars/: a git-ignored folder the tests read (they fetch
nothing themselves). The download, checksum and local-repository code is
tools/fetch_cp_data.py's (Drill's sample data for `cp`), reused here. Standard library only,
so `make setup` runs it before the virtualenv exists.

A jar already in the local Maven repository (~/.m2/repository) is used when its checksum is
right; otherwise it is downloaded from $DRILLSPARK_MAVEN_REPO (Maven Central's layout), default
Maven Central. A jar already in the folder with the right checksum is kept; each jar is written
under a temporary name and renamed into place, so an interrupted run never leaves half a jar.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_cp_data as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "native" / "jars"
STAMP_NAME = ".fetched"


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


def stamp_text() -> str:
    return "".join(f"{j.coordinates} sha1={j.sha1}\n" for j in JARS)


def is_current(dest: Path = DEST) -> bool:
    """Whether `dest` holds every jar (the stamp names these versions; sizes are not enough
    for a jar, so a jar without the stamp is checked by its SHA-1 when fetched again)."""
    try:
        if (dest / STAMP_NAME).read_text(encoding="utf-8") != stamp_text():
            return False
    except OSError:
        return False
    return all((dest / j.name).is_file() for j in JARS)


def _one(jar: Jar, dest: Path, repo: str, log) -> None:
    target = dest / jar.name
    if target.is_file() and maven.sha1_of(target) == jar.sha1:
        return
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=dest) as work:
        source = maven.checked_jar(jar, repo, Path(work), log, "fetch_drill_clients")
        partial = dest / f".{jar.name}.part"
        shutil.copyfile(source, partial)
        os.replace(partial, target)


def fetch(dest: Path = DEST, repo: str | None = None, quiet: bool = False) -> bool:
    """Fill `dest` with the client jars unless they are there; True when it fetched."""

    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    stamp = dest / STAMP_NAME
    if is_current(dest):
        stamp.touch()  # newer than this script: make's rule is satisfied
        return False
    repo = repo or os.environ.get(maven.REPO_ENV) or maven.CENTRAL
    dest.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for jar in JARS:
        _one(jar, dest, repo, log)
    stamp.write_text(stamp_text(), encoding="utf-8")
    log(f"fetch_drill_clients: {len(JARS)} jars in {dest}")
    return True


def classpath(dest: Path = DEST) -> list[Path]:
    """The jars, in the order a class path takes them (the JDBC driver first)."""
    return [dest / j.name for j in JARS]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=DEST, help="the folder to fill (%(default)s)")
    ap.add_argument(
        "--repo", help=f"a Maven repository URL (default ${maven.REPO_ENV}, else {maven.CENTRAL})"
    )
    args = ap.parse_args(argv)
    try:
        if not fetch(args.dest, args.repo):
            print(f"fetch_drill_clients: the jars are already in {args.dest}", file=sys.stderr)
    except maven.FetchError as e:
        print(f"fetch_drill_clients: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
