"""Fetch the client libraries of the record plugins (issue #32): the MongoDB Java driver
(org.mongodb:mongodb-driver-sync with mongodb-driver-core and bson, Apache-2.0) for the `mongo`
storage plugin, from Maven Central.

Each jar is checked against its SHA-1 (pinned here; Maven Central's `.sha1` must agree) and lands
in python/drillspark/jars/clients/, a git-ignored folder the wheel carries and
`drillspark.session()` puts on `spark.jars` (drillspark/session.py). The download, checksum and
local-repository code is tools/fetch_cp_data.py's (PinnedJar, checked_jar). A jar already there
with the right checksum is kept; each is written under a temporary name and renamed into place;
other versions of these jars are removed.
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
DEST = ROOT / "python" / "drillspark" / "jars" / "clients"
STAMP_NAME = ".fetched"
MONGO = "5.14.0"

JARS = (
    maven.PinnedJar(
        "org.mongodb", "mongodb-driver-sync", MONGO, "e06590d13c7fe58ec64b7baf93589d53babf742c"
    ),
    maven.PinnedJar(
        "org.mongodb", "mongodb-driver-core", MONGO, "c977fc513dee14045289fe19b99cf324443ad366"
    ),
    maven.PinnedJar("org.mongodb", "bson", MONGO, "bef7259dd18ffe618ea25e41616eb74f41919277"),
)


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

    if is_current(dest):
        (dest / STAMP_NAME).touch()  # newer than this script: make's rule is satisfied
        return False
    repo = repo or os.environ.get(maven.REPO_ENV) or maven.CENTRAL
    dest.mkdir(parents=True, exist_ok=True)
    fetched = False
    with tempfile.TemporaryDirectory(prefix=".clients-fetch-", dir=dest.parent) as tmp:
        work = Path(tmp)
        for jar in JARS:
            target = dest / jar.name
            if target.is_file() and maven.sha1_of(target) == jar.sha1:
                continue
            got = maven.checked_jar(jar, repo, work, log, "fetch_client_jars", "client jar")
            staged = work / (jar.name + ".part")
            staged.write_bytes(got.read_bytes())
            os.replace(staged, target)
            fetched = True
        for old in dest.glob("*.jar"):  # other versions of the pinned jars
            if old.name not in {j.name for j in JARS} and any(
                old.name.startswith(j.artifact + "-") for j in JARS
            ):
                old.unlink()
        (dest / STAMP_NAME).write_text(stamp_text(), encoding="utf-8")
    log("fetch_client_jars: " + ", ".join(j.coordinates for j in JARS) + f" in {dest}")
    return fetched


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=DEST, help="the folder to fill (%(default)s)")
    ap.add_argument("--repo", help=f"a Maven repository URL (default ${maven.REPO_ENV})")
    args = ap.parse_args(argv)
    try:
        if not fetch(args.dest, args.repo):
            print(f"fetch_client_jars: the jars are already in {args.dest}", file=sys.stderr)
    except maven.FetchError as e:
        print(f"fetch_client_jars: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
