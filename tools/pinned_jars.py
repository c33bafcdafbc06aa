"""The Maven code the tools/fetch_*.py scripts share: a jar pinned by its SHA-1 (PinnedJar),
taken from the local Maven repository or downloaded and checked (checked_jar), and a folder of
such jars with the stamp file make's rules check (JarFolder). Standard library only, so
`make setup` runs the tools before the virtualenv exists.

A jar already in the local Maven repository ($MAVEN_REPO_LOCAL, default ~/.m2/repository) is used
when its checksum is right; otherwise it is downloaded from $DRILLSPARK_MAVEN_REPO (a mirror with
Maven Central's layout), default Maven Central, and must match both the pinned SHA-1 and the
`.sha1` the repository publishes next to it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CENTRAL = "https://repo1.maven.org/maven2"
REPO_ENV = "DRILLSPARK_MAVEN_REPO"
STAMP_NAME = ".fetched"

Log = Callable[[str], None]


class FetchError(Exception):
    """The artifact could not be fetched or did not check out."""


@dataclass(frozen=True)
class PinnedJar:
    """A Maven artifact's jar pinned by its SHA-1 (as Maven Central publishes it)."""

    group: str
    artifact: str
    version: str
    sha1: str
    # Maven's classifier (`tests`: a module's test jar); keyword-only, so subclasses can add
    # fields without defaults
    classifier: str = field(default="", kw_only=True)

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def name(self) -> str:
        tail = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{tail}.jar"

    @property
    def path(self) -> str:
        """The jar's path in a Maven repository (the standard layout)."""
        return f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}/{self.name}"


def pinned(table: str) -> tuple[PinnedJar, ...]:
    """The jars of a table, a line each: `sha1 group:artifact:version[:classifier]` (as
    sha1sum prints a checksum before its file)."""
    jars = []
    for line in table.splitlines():
        if line.strip():
            sha1, coordinates = line.split()
            group, artifact, version, *classifier = coordinates.split(":")
            jars.append(PinnedJar(group, artifact, version, sha1, classifier="".join(classifier)))
    return tuple(jars)


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


def _local_repository() -> Path:
    return Path(os.environ.get("MAVEN_REPO_LOCAL", Path.home() / ".m2" / "repository"))


def _download(url: str, target: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=120) as response, open(target, "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
    except OSError as e:  # URLError and HTTPError are OSErrors
        raise FetchError(f"cannot download {url}: {e}") from None


def repository(repo: str | None) -> str:
    """The Maven repository to download from: `repo`, else $DRILLSPARK_MAVEN_REPO, else Central."""
    return repo or os.environ.get(REPO_ENV) or CENTRAL


def logger(quiet: bool) -> Log:
    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    return log


def checked_jar(
    jar: PinnedJar, repo: str, workdir: Path, log: Log, tool: str, kind: str = "jar"
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


def main(
    tool: str,
    doc: str | None,
    dest: Path,
    fetch: Callable[[Path, str | None], bool],
    what: str,
    argv: list[str] | None = None,
) -> int:
    """A fetch tool's command line: `--dest` (default `dest`) and `--repo`; 1 on a FetchError."""
    ap = argparse.ArgumentParser(prog=f"{tool}.py", description=(doc or "").split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=dest, help="the folder to fill (%(default)s)")
    ap.add_argument("--repo", help=f"a Maven repository URL (default ${REPO_ENV}, else {CENTRAL})")
    args = ap.parse_args(argv)
    try:
        if not fetch(args.dest, args.repo):
            print(f"{tool}: {what} already there, in {args.dest}", file=sys.stderr)
    except FetchError as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return 1
    return 0


@dataclass
class JarFolder:
    """Pinned jars fetched into a folder, with a stamp listing them whose time make's rule
    checks. `owns_folder`: other jars there are removed (not only other versions of these);
    `names_in_stamp`: the stamp's lines end with each jar's file name."""

    tool: str
    doc: str | None
    dest: Path
    jars: tuple[PinnedJar, ...]
    kind: str = field(default="jar", kw_only=True)
    owns_folder: bool = field(default=False, kw_only=True)
    names_in_stamp: bool = field(default=True, kw_only=True)

    def stamp_text(self) -> str:
        return "".join(
            f"{j.coordinates} sha1={j.sha1}" + (f" {j.name}" if self.names_in_stamp else "") + "\n"
            for j in self.jars
        )

    def is_current(self, dest: Path | None = None) -> bool:
        """Whether `dest` holds every pinned jar (the stamp names these pins; the checksums
        were checked when the jars were written)."""
        dest = self.dest if dest is None else dest
        try:
            if (dest / STAMP_NAME).read_text(encoding="utf-8") != self.stamp_text():
                return False
        except OSError:
            return False
        return all((dest / j.name).is_file() for j in self.jars)

    def fetch(self, dest: Path | None = None, repo: str | None = None, quiet: bool = False) -> bool:
        """Put every pinned jar into `dest` unless it is there; True when one was fetched. A jar
        already there with its SHA-1 is kept; each is written under a temporary name and renamed
        into place, so an interrupted run never leaves half a jar."""
        dest = self.dest if dest is None else dest
        stamp = dest / STAMP_NAME
        if self.is_current(dest):
            stamp.touch()  # newer than the tool: make's rule is satisfied
            return False
        log = logger(quiet)
        repo = repository(repo)
        dest.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)  # a failed run leaves no stamp: make runs it again
        fetched = False
        with tempfile.TemporaryDirectory(prefix=f".{dest.name}-fetch-", dir=dest.parent) as tmp:
            work = Path(tmp)
            for jar in self.jars:
                target = dest / jar.name
                if target.is_file() and sha1_of(target) == jar.sha1:
                    continue
                got = checked_jar(jar, repo, work, log, self.tool, self.kind)
                staged = work / (jar.name + ".part")
                shutil.copyfile(got, staged)
                os.replace(staged, target)
                fetched = True
        names = {j.name for j in self.jars}
        for old in dest.glob("*.jar"):
            if old.name not in names and (
                self.owns_folder or any(old.name.startswith(j.artifact + "-") for j in self.jars)
            ):
                old.unlink()
        stamp.write_text(self.stamp_text(), encoding="utf-8")
        log(f"{self.tool}: {self._count()} in {dest}")
        return fetched

    def classpath(self, dest: Path | None = None) -> list[Path]:
        """The jars, in their pinned order (a class path's)."""
        dest = self.dest if dest is None else dest
        return [dest / j.name for j in self.jars]

    def main(self, argv: list[str] | None = None) -> int:
        return main(self.tool, self.doc, self.dest, self.fetch, f"the {self._count()}", argv)

    def _count(self) -> str:
        return f"{len(self.jars)} pinned jar" + ("s" if len(self.jars) != 1 else "")
