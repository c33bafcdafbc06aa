"""Fetch Drill's sample data for the `cp` plugin: the FoodMart JSON files (`employee.json`,
`department.json`, ...) that Apache Drill serves from its classpath, taken from the same Maven
Central artifact Drill 1.22 depends on, net.hydromatic:foodmart-data-json:0.4 (Apache License
2.0, by Julian Hyde).

The jar is checked against its SHA-1 (pinned here, and the `.sha1` Maven Central publishes next
to it must agree), then its top-level `*.json` files, and its META-INF/LICENSE and NOTICE, are
extracted into python/drillspark/cp/: a git-ignored folder the wheel carries (setup.py), which
`cp` reads (drillspark.sql.session.default_cp_root). Standard library only, so `make setup`
runs it before the virtualenv exists; setup.py runs it too, so a wheel built from a clean tree
has the data.

The jar comes from the local Maven repository (~/.m2/repository, as `mvn dependency:get` leaves
it) or else $DRILLSPARK_MAVEN_REPO, default Maven Central (tools/pinned_jars.py, the Maven code
the fetch tools share). Does nothing when the folder already holds this version's files (a
stamp lists them with their sizes); an interrupted run leaves the old folder (or none), never a
half-filled one.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "cp"

GROUP = "net.hydromatic"
ARTIFACT = "foodmart-data-json"
# the version Drill 1.22.0 depends on (its drill-java-exec pulls foodmart-data-json 0.4)
VERSION = "0.4"
# SHA-1 of foodmart-data-json-0.4.jar as Maven Central publishes it (…/0.4/*.jar.sha1)
SHA1 = "c2fd2c73b6a4594b442c008f6c9890860a05e040"
COORDINATES = f"{GROUP}:{ARTIFACT}:{VERSION}"

# the files taken from the jar: its data (top-level JSON) and its license and notice
_DATA = re.compile(r"[A-Za-z0-9_]+\.json")
_LEGAL = {"META-INF/LICENSE": "META-INF/LICENSE", "META-INF/NOTICE": "META-INF/NOTICE"}
STAMP_NAME = maven.STAMP_NAME
FetchError = maven.FetchError


def pinned_jar() -> maven.PinnedJar:
    # built when called: the tests pin another SHA1
    return maven.PinnedJar(GROUP, ARTIFACT, VERSION, SHA1)


def jar_name() -> str:
    return pinned_jar().name


def artifact_path() -> str:
    """The jar's path in a Maven repository (the standard layout)."""
    return pinned_jar().path


def stamp_text(files: dict[str, int]) -> str:
    lines = [f"{COORDINATES} sha1={SHA1}"]
    lines += [f"{size} {name}" for name, size in sorted(files.items())]
    return "\n".join(lines) + "\n"


def is_current(dest: Path = DEST) -> bool:
    """Whether `dest` holds this version's files, each with the size the stamp lists."""
    stamp = dest / STAMP_NAME
    try:
        lines = stamp.read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    if not lines or lines[0] != f"{COORDINATES} sha1={SHA1}":
        return False
    for line in lines[1:]:
        size, _, name = line.partition(" ")
        try:
            if (dest / name).stat().st_size != int(size):
                return False
        except (OSError, ValueError):
            return False
    return len(lines) > 1


def extract(jar: Path, target: Path) -> dict[str, int]:
    """The jar's data and legal files into `target`; name -> size of each file written."""
    written: dict[str, int] = {}
    with zipfile.ZipFile(jar) as z:
        for info in z.infolist():
            name = info.filename
            if info.is_dir():
                continue
            out = _LEGAL.get(name) or (name if _DATA.fullmatch(name) else None)
            if out is None:
                continue
            path = target / out
            path.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            written[out] = path.stat().st_size
    if "employee.json" not in written:
        raise FetchError(f"{jar} holds no employee.json: not {COORDINATES}")
    return written


def fetch(dest: Path = DEST, repo: str | None = None, quiet: bool = False) -> bool:
    """Fill `dest` with the sample data unless it is already there; True when it fetched."""
    stamp = dest / STAMP_NAME
    if is_current(dest):
        stamp.touch()  # newer than this script: make's rule is satisfied
        return False
    log = maven.logger(quiet)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".cp-fetch-", dir=dest.parent))
    try:
        repo = maven.repository(repo)
        jar = maven.checked_jar(pinned_jar(), repo, work, log, "fetch_cp_data", "artifact")
        staged = work / "cp"
        staged.mkdir()
        files = extract(jar, staged)
        (staged / STAMP_NAME).write_text(stamp_text(files), encoding="utf-8")
        old = work / "old"
        if dest.exists():
            dest.rename(old)
        staged.rename(dest)
        log(f"fetch_cp_data: {len(files)} files of {COORDINATES} in {dest}")
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    return maven.main("fetch_cp_data", __doc__, DEST, fetch, COORDINATES, argv)


if __name__ == "__main__":
    sys.exit(main())
