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

A jar already in the local Maven repository (~/.m2/repository, as `mvn dependency:get` leaves
it) is used when its checksum is right; otherwise it is downloaded from
$DRILLSPARK_MAVEN_REPO (a mirror with Maven Central's layout), default Maven Central. Does
nothing when the folder already holds this version's files (a stamp lists them with their
sizes); an interrupted run leaves the old folder (or none), never a half-filled one.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import sys
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "cp"
STAMP_NAME = ".fetched"

GROUP = "net.hydromatic"
ARTIFACT = "foodmart-data-json"
# the version Drill 1.22.0 depends on (its drill-java-exec pulls foodmart-data-json 0.4)
VERSION = "0.4"
# SHA-1 of foodmart-data-json-0.4.jar as Maven Central publishes it (…/0.4/*.jar.sha1)
SHA1 = "c2fd2c73b6a4594b442c008f6c9890860a05e040"
CENTRAL = "https://repo1.maven.org/maven2"
REPO_ENV = "DRILLSPARK_MAVEN_REPO"
COORDINATES = f"{GROUP}:{ARTIFACT}:{VERSION}"

# the files taken from the jar: its data (top-level JSON) and its license and notice
_DATA = re.compile(r"[A-Za-z0-9_]+\.json")
_LEGAL = {"META-INF/LICENSE": "META-INF/LICENSE", "META-INF/NOTICE": "META-INF/NOTICE"}


class FetchError(Exception):
    """The artifact could not be fetched or did not check out."""


@dataclass(frozen=True)
class PinnedJar:
    """A Maven artifact's jar pinned by its SHA-1 (as Maven Central publishes it)."""

    group: str
    artifact: str
    version: str
    sha1: str

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"

    @property
    def path(self) -> str:
        """The jar's path in a Maven repository (the standard layout)."""
        return f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}/{self.name}"


def checked_jar(
    jar: PinnedJar, repo: str, workdir: Path, log, tool: str, kind: str = "jar"
) -> Path:
    """`jar` from the local Maven repository when it is there with its SHA-1, else downloaded
    from `repo` into `workdir`, checked against the pinned SHA-1 and the repository's `.sha1`."""
    local = _local_repository() / jar.path
    if local.is_file() and sha1_of(local) == jar.sha1:
        log(f"{tool}: using {jar.coordinates} from the local Maven repository")
        return local
    url = f"{repo.rstrip('/')}/{jar.path}"
    log(f"{tool}: downloading {url}")
    checksum = workdir / (jar.name + ".sha1")
    _download(url + ".sha1", checksum)
    published = _published_sha1(checksum.read_text(encoding="ascii", errors="replace"))
    if published != jar.sha1:
        raise FetchError(
            f"{url}.sha1 says {published or '(empty)'}, but {jar.coordinates} is {jar.sha1}: "
            f"not the pinned {kind}"
        )
    target = workdir / jar.name
    _download(url, target)
    actual = sha1_of(target)
    if actual != jar.sha1:
        raise FetchError(f"{url}: SHA-1 {actual}, expected {jar.sha1} (a corrupt download?)")
    return target


def jar_name() -> str:
    return f"{ARTIFACT}-{VERSION}.jar"


def artifact_path() -> str:
    """The jar's path in a Maven repository (the standard layout)."""
    return f"{GROUP.replace('.', '/')}/{ARTIFACT}/{VERSION}/{jar_name()}"


def sha1_of(path: Path) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _published_sha1(text: str) -> str:
    """The checksum in a `.sha1` file (some hold `<sha1>  <file name>`)."""
    words = text.split()
    return words[0].lower() if words else ""


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


def _local_repository() -> Path:
    return Path(os.environ.get("MAVEN_REPO_LOCAL", Path.home() / ".m2" / "repository"))


def _from_local_repository(log) -> Path | None:
    """The jar in the local Maven repository, if it is there with the right checksum."""
    jar = _local_repository() / artifact_path()
    if jar.is_file() and sha1_of(jar) == SHA1:
        log(f"fetch_cp_data: using {COORDINATES} from the local Maven repository ({jar})")
        return jar
    return None


def _download(url: str, target: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=120) as response, open(target, "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
    except OSError as e:  # URLError and HTTPError are OSErrors
        raise FetchError(f"cannot download {url}: {e}") from None


def download(repo: str, workdir: Path, log) -> Path:
    """The jar from `repo`, checked against the pinned SHA-1 and the repository's `.sha1`."""
    url = f"{repo.rstrip('/')}/{artifact_path()}"
    log(f"fetch_cp_data: downloading {url} (18 MB)")
    jar = workdir / jar_name()
    checksum = workdir / (jar_name() + ".sha1")
    _download(url + ".sha1", checksum)
    published = _published_sha1(checksum.read_text(encoding="ascii", errors="replace"))
    if published != SHA1:
        raise FetchError(
            f"{url}.sha1 says {published or '(empty)'}, but {COORDINATES} is {SHA1}: "
            "not the artifact Drill 1.22 uses"
        )
    _download(url, jar)
    actual = sha1_of(jar)
    if actual != SHA1:
        raise FetchError(f"{url}: SHA-1 {actual}, expected {SHA1} (a corrupt download?)")
    return jar


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

    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    stamp = dest / STAMP_NAME
    if is_current(dest):
        stamp.touch()  # newer than this script: make's rule is satisfied
        return False
    repo = repo or os.environ.get(REPO_ENV) or CENTRAL
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".cp-fetch-", dir=dest.parent))
    try:
        jar = _from_local_repository(log) or download(repo, work, log)
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=DEST, help="the folder to fill (%(default)s)")
    ap.add_argument("--repo", help=f"a Maven repository URL (default ${REPO_ENV}, else {CENTRAL})")
    args = ap.parse_args(argv)
    try:
        if not fetch(args.dest, args.repo):
            print(f"fetch_cp_data: {COORDINATES} already in {args.dest}", file=sys.stderr)
    except FetchError as e:
        print(f"fetch_cp_data: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
