"""Fetch the JDBC drivers the `jdbc` storage plugin ships with: PostgreSQL's
(org.postgresql:postgresql, BSD-2-Clause) and MariaDB Connector/J
(org.mariadb.jdbc:mariadb-java-client, LGPL-2.1, unmodified), from Maven Central.

Each jar is checked against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to
it must agree) and lands in python/drillspark/jars/drivers/: a git-ignored folder the wheel
carries (setup.py) and `drillspark.session()` / `configure()` put on `spark.jars`
(drillspark/session.py). Other drivers are not fetched: they are one `--jars` (or `spark.jars`)
away, docs/storage.md. The download, checksum and local-repository code is
tools/fetch_cp_data.py's (Drill's sample data for `cp`), reused here.

A jar already in the local Maven repository (~/.m2/repository) is used when its checksum is
right; otherwise it is downloaded from $DRILLSPARK_MAVEN_REPO (Maven Central's layout), default
Maven Central. A jar already in the folder with the right checksum is kept; each jar is written
under a temporary name and renamed into place, so an interrupted run never leaves half a jar;
jars of other versions of these drivers are removed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_cp_data as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "jars" / "drivers"
STAMP_NAME = ".fetched"


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


def stamp_text() -> str:
    return "".join(f"{d.coordinates} sha1={d.sha1} {d.jar_name}\n" for d in DRIVERS)


def is_current(dest: Path = DEST) -> bool:
    """Whether `dest` holds every pinned jar (the stamp names them; sizes are checked, the
    checksums were when they were written)."""
    try:
        if (dest / STAMP_NAME).read_text(encoding="utf-8") != stamp_text():
            return False
    except OSError:
        return False
    return all((dest / d.jar_name).is_file() for d in DRIVERS)


def fetch(dest: Path = DEST, repo: str | None = None, quiet: bool = False) -> bool:
    """Put every pinned driver into `dest` unless it is there; True when something was
    fetched."""

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
    with tempfile.TemporaryDirectory(prefix=".drivers-fetch-", dir=dest.parent) as tmp:
        work = Path(tmp)
        for driver in DRIVERS:
            target = dest / driver.jar_name
            if target.is_file() and maven.sha1_of(target) == driver.sha1:
                continue
            jar = maven.checked_jar(driver, repo, work, log, "fetch_jdbc_drivers", "driver")
            staged = work / (driver.jar_name + ".part")
            staged.write_bytes(jar.read_bytes())
            os.replace(staged, target)
            fetched = True
        for old in dest.glob("*.jar"):  # other versions of the pinned drivers
            if old.name not in {d.jar_name for d in DRIVERS} and any(
                old.name.startswith(d.artifact + "-") for d in DRIVERS
            ):
                old.unlink()
        stamp.write_text(stamp_text(), encoding="utf-8")
    log("fetch_jdbc_drivers: " + ", ".join(d.coordinates for d in DRIVERS) + f" in {dest}")
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
            print(f"fetch_jdbc_drivers: the drivers are already in {args.dest}", file=sys.stderr)
    except FetchError as e:
        print(f"fetch_jdbc_drivers: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
