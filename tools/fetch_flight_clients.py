"""Fetch the Arrow Flight SQL JDBC driver for the Flight SQL tests (tests/flight/):
org.apache.arrow:flight-sql-jdbc-driver:18.3.0 (one jar with its dependencies shaded in; Apache
License 2.0) from Maven Central, checked against its pinned SHA-1 (and the `.sha1` Maven Central
publishes next to it), into tests/flight/jars/ (git-ignored; the tests fetch nothing).

The Maven code (checksums, download, ~/.m2 first, the write under a temporary name) is
tools/fetch_cp_data.py's and tools/fetch_drill_clients.py's, reused here. Standard library only,
so `make setup` runs it before the virtualenv exists."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_cp_data as maven  # noqa: E402  (checksums, download, ~/.m2)
import fetch_drill_clients as clients  # noqa: E402  (one checked jar into a folder)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "flight" / "jars"
STAMP_NAME = ".fetched"

JARS = (
    maven.PinnedJar(
        "org.apache.arrow",
        "flight-sql-jdbc-driver",
        "18.3.0",
        "a77be460b83b673e41c5e2d364e7189a223f4861",
    ),
)


def stamp_text() -> str:
    return "".join(f"{j.coordinates} sha1={j.sha1}\n" for j in JARS)


def fetch(dest: Path = DEST, repo: str | None = None, quiet: bool = False) -> bool:
    """Fill `dest` with the jars unless they are there; True when it fetched."""

    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    stamp = dest / STAMP_NAME
    try:
        current = stamp.read_text(encoding="utf-8") == stamp_text()
    except OSError:
        current = False
    if current and all((dest / j.name).is_file() for j in JARS):
        stamp.touch()  # newer than this script: make's rule is satisfied
        return False
    repo = repo or os.environ.get(maven.REPO_ENV) or maven.CENTRAL
    dest.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for jar in JARS:
        clients._one(jar, dest, repo, log)
    stamp.write_text(stamp_text(), encoding="utf-8")
    log(f"fetch_flight_clients: {len(JARS)} jar(s) in {dest}")
    return True


def classpath(dest: Path = DEST) -> list[Path]:
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
            print(f"fetch_flight_clients: the jars are already in {args.dest}", file=sys.stderr)
    except maven.FetchError as e:
        print(f"fetch_flight_clients: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
