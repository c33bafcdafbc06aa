"""Build the drillspark extension jar with the Scala compiler that ships inside pyspark.

Needs only Java and an installed pyspark: no sbt, no network. Used by `make jar` and by the
wheel build (setup.py), so both produce the same jar. Does nothing when the inputs did not
change (a hash of every source and resource is kept next to the jar).

`--bench` also builds the benchmark mains (jvm/src/bench: ReadBench, DiscoveryBench, TokenScan)
into build/drillspark-bench.jar, and `--tests` the JVM unit tests (jvm/src/test) into
build/drillspark-tests.jar, both against the extension jar; neither is ever shipped.

The compiler's options are jvm/scalac.options (build.sbt reads the same file): unused code and
the lint checks that pay are errors, except the warnings jvm/scalac-warnings-allowed.txt lists;
an entry there that matches no warning fails the build, so that list only shrinks.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "jvm" / "src" / "main"
BENCH_SRC = ROOT / "jvm" / "src" / "bench"
TEST_SRC = ROOT / "jvm" / "src" / "test"
JARS_DIR = ROOT / "python" / "drillspark" / "jars"
BENCH_JAR = ROOT / "build" / "drillspark-bench.jar"
TEST_JAR = ROOT / "build" / "drillspark-tests.jar"
SCALAC_OPTIONS = ROOT / "jvm" / "scalac.options"
ALLOWED_WARNINGS = ROOT / "jvm" / "scalac-warnings-allowed.txt"
# Drill rules both sides read from one table (python/drillspark/rules/__init__.py): the wheel
# carries the folder, and the jar holds its tables under drillspark/rules/.
RULES = ROOT / "python" / "drillspark" / "rules"


def read_version() -> tuple[str, str]:
    ns: dict[str, str] = {}
    exec((ROOT / "python" / "drillspark" / "_version.py").read_text(), ns)
    return ns["__version__"], ns["SCALA_BINARY"]


def pyspark_jars() -> Path:
    try:
        import pyspark
    except ImportError:
        sys.exit(
            "build_jar: pyspark is not installed; run `make jar` (it creates .venv) "
            "or `pip install 'pyspark==4.3.*'` first"
        )
    jars = Path(pyspark.__file__).parent / "jars"
    if not any(jars.glob("scala-compiler-*.jar")):
        sys.exit(f"build_jar: no scala-compiler jar in {jars}; is this a full pyspark install?")
    return jars


def inputs(src: Path = SRC) -> list[Path]:
    # the compiler's options are inputs too: a changed option or allowance rebuilds
    return sorted(p for p in src.rglob("*") if p.is_file()) + [SCALAC_OPTIONS, ALLOWED_WARNINGS]


def rule_tables() -> list[Path]:
    return sorted(RULES.glob("*.tsv"))


def _entries(path: Path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


@dataclass(frozen=True)
class AllowedWarning:
    """One line of jvm/scalac-warnings-allowed.txt: warnings in the files `path` (a regex on
    the path from the repository root) whose message starts with `message` stay warnings."""

    path: str
    message: str = ""

    def wconf(self) -> str:
        # the last matching -Wconf wins, so these follow scalac.options' `any:e`
        msg = f"&msg=^{re.escape(self.message)}" if self.message else ""
        return f"-Wconf:src={self.path}{msg}:w"

    def matches(self, path: str, message: str) -> bool:
        return re.fullmatch(self.path, path) is not None and message.startswith(self.message)


def allowed_warnings() -> list[AllowedWarning]:
    out = []
    for line in _entries(ALLOWED_WARNINGS):
        path, _, message = (part.strip() for part in line.partition(" | "))
        if any(c in line for c in ",:&"):
            sys.exit(
                f"build_jar: {ALLOWED_WARNINGS.relative_to(ROOT)}: {line!r} holds `,` `:` or "
                "`&`, which scalac's -Wconf cannot take; shorten the message"
            )
        out.append(AllowedWarning(path, message))
    return out


def scalac_options() -> list[str]:
    return [
        *_entries(SCALAC_OPTIONS),
        "-rootdir",
        str(ROOT),
        *(a.wconf() for a in allowed_warnings()),
    ]


WARNING = re.compile(r"^(?P<path>\S+?\.(?:scala|java)):\d+: warning: (?P<message>.*)$")


def check_allowances(output: list[str], sources: Sequence[Path]) -> None:
    """Fail on an allowance that covers some of `sources` but matched none of the warnings
    the compiler printed: it is out of date and must go."""
    seen = []
    for line in output:
        m = WARNING.match(line)
        if m:
            path = Path(m["path"])
            seen.append(
                (
                    str(path.resolve().relative_to(ROOT)) if path.is_absolute() else m["path"],
                    m["message"],
                )
            )
    compiled = [str(s.resolve().relative_to(ROOT)) for s in sources]
    stale = [
        a
        for a in allowed_warnings()
        if any(re.fullmatch(a.path, c) for c in compiled)
        and not any(a.matches(p, msg) for p, msg in seen)
    ]
    if stale:
        sys.exit(
            "build_jar: these entries of jvm/scalac-warnings-allowed.txt match no warning any "
            "more; remove them: " + "; ".join(f"{a.path} | {a.message}" for a in stale)
        )


def digest(files: list[Path], version: str) -> str:
    h = hashlib.sha256(version.encode())
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    exe = Path(home, "bin", "java") if home else shutil.which("java")
    if not exe or not Path(exe).exists():
        sys.exit(
            "build_jar: `java` not found; install a JDK 17 "
            "(apt-get install -y openjdk-17-jdk-headless)"
        )
    return str(exe)


def compile_scala(jars: Path, out: Path, sources: list[Path], extra: Sequence[Path] = ()) -> None:
    compiler_cp = os.pathsep.join(
        str(next(jars.glob(f"{name}-2.13*.jar")))
        for name in ("scala-compiler", "scala-library", "scala-reflect")
    )
    argfile = out.parent / "sources.txt"
    argfile.write_text("\n".join(str(s) for s in sources))
    cmd = [
        java(),
        "-Xss8m",
        "-Xmx2g",
        "-cp",
        compiler_cp,
        "scala.tools.nsc.Main",
        "-classpath",
        str(jars / "*"),
        "-d",
        str(out),
        *scalac_options(),
        f"@{argfile}",
    ]
    # The compiler does not expand `dir/*` itself; hand it the full list.
    cmd[cmd.index("-classpath") + 1] = os.pathsep.join(
        [str(j) for j in sorted(jars.glob("*.jar"))] + [str(e) for e in extra]
    )
    check_allowances(run_with_heartbeat(cmd, "compiling"), sources)


HEARTBEAT_SECONDS = 30


def run_with_heartbeat(cmd: list[str], doing: str) -> list[str]:
    """Run cmd, echoing its output and returning its lines; a line every HEARTBEAT_SECONDS says
    it is still `doing` (a silent compile of minutes looks like a hang), and one at the end how
    long it took."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []

    def echo() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=echo, daemon=True)
    reader.start()
    while True:
        try:
            rc = proc.wait(HEARTBEAT_SECONDS)
            break
        except subprocess.TimeoutExpired:
            print(f"build_jar: still {doing} ({time.monotonic() - start:.0f} s) ...", flush=True)
    reader.join()
    if rc != 0:
        raise subprocess.CalledProcessError(rc, cmd)
    print(f"build_jar: {doing} took {time.monotonic() - start:.0f} s", flush=True)
    return lines


def pack(classes: Path, target: Path) -> None:
    """Pack with the JDK's `jar`; a machine with only a JRE gets the same zip from Python."""
    tmp = target.with_suffix(".tmp")
    jar_tool = shutil.which("jar", path=str(Path(java()).parent)) or shutil.which("jar")
    if jar_tool:
        subprocess.run(
            [jar_tool, "--create", "--file", str(tmp), "-C", str(classes), "."], check=True
        )
        tmp.replace(target)
        return
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: drillspark build_jar\n\n"
        )
        for p in sorted(classes.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(classes).as_posix())
    tmp.replace(target)


def _up_to_date(target: Path, want: str, force: bool) -> bool:
    stamp = target.with_suffix(".sha256")
    if not force and target.exists() and stamp.exists() and stamp.read_text() == want:
        print(f"build_jar: {target.relative_to(ROOT)} is up to date")
        return True
    return False


def _compile_jar(
    target: Path,
    files: list[Path],
    want: str,
    what: str,
    extra: Sequence[Path] = (),
    finish: Callable[[Path], None] | None = None,
) -> Path:
    """Compile the sources among `files` into the jar `target` and stamp it with `want`;
    `finish(classes)` adds what else the jar holds."""
    jars = pyspark_jars()
    with tempfile.TemporaryDirectory(prefix="drillspark-jar-") as tmpdir:
        classes = Path(tmpdir) / "classes"
        classes.mkdir()
        sources = [f for f in files if f.suffix in (".scala", ".java")]
        print(f"build_jar: compiling {len(sources)} {what} ...", flush=True)
        compile_scala(jars, classes, sources, extra)
        if finish is not None:
            finish(classes)
        target.parent.mkdir(parents=True, exist_ok=True)
        pack(classes, target)
    target.with_suffix(".sha256").write_text(want)
    print(f"build_jar: wrote {target.relative_to(ROOT)}")
    return target


def build(force: bool = False) -> Path:
    version, scala = read_version()
    target = JARS_DIR / f"drillspark-extension_{scala}-{version}.jar"
    files = inputs() + rule_tables()
    want = digest(files, version)
    if _up_to_date(target, want, force):
        return target

    def finish(classes: Path) -> None:
        resources = SRC / "resources"
        if resources.exists():
            shutil.copytree(resources, classes, dirs_exist_ok=True)
        (classes / "drillspark-version.properties").write_text(f"version={version}\n")
        (classes / "drillspark" / "rules").mkdir(parents=True, exist_ok=True)
        for table in rule_tables():
            shutil.copy(table, classes / "drillspark" / "rules" / table.name)
        for old in JARS_DIR.glob("drillspark-extension_*.jar"):
            if old != target:
                old.unlink()

    return _compile_jar(
        target,
        files,
        want,
        f"Scala sources with the Scala compiler in "
        f"{pyspark_jars()} (2-3 minutes; more on a busy machine)",
        extra=format_jars(),
        finish=finish,
    )


def format_jars() -> list[Path]:
    """The format readers' libraries (Apache POI, ...; tools/fetch_format_jars.py), which the
    extension compiles against and drillspark.session() puts on spark.jars beside it: fetched
    (checksums checked, ~/.m2 first) when missing."""
    sys.path.insert(0, str(ROOT / "tools"))
    import fetch_format_jars

    if not fetch_format_jars.is_current():
        fetch_format_jars.fetch()
    return sorted(fetch_format_jars.DEST.glob("*.jar"))


def build_side(src: Path, target: Path, what: str, force: bool = False) -> Path:
    """Code compiled against the extension jar (rebuilt first if needed), never shipped with
    it: the benchmark mains (jvm/src/bench) or the JVM unit tests (jvm/src/test)."""
    extension = build(force)
    files = inputs(src)
    want = digest(files, extension.with_suffix(".sha256").read_text())
    if _up_to_date(target, want, force):
        return target
    return _compile_jar(target, files, want, f"{what} sources (about a minute)", extra=[extension])


def build_bench(force: bool = False) -> Path:
    return build_side(BENCH_SRC, BENCH_JAR, "benchmark", force)


def build_tests(force: bool = False) -> Path:
    return build_side(TEST_SRC, TEST_JAR, "JVM unit test", force)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--force", action="store_true", help="rebuild even if nothing changed")
    ap.add_argument("--bench", action="store_true", help="also build the benchmark jar")
    ap.add_argument("--tests", action="store_true", help="also build the JVM unit tests' jar")
    args = ap.parse_args()
    # the side jars build the extension first (once: the second finds it up to date)
    if args.bench:
        build_bench(args.force)
    if args.tests:
        build_tests(args.force and not args.bench)
    if not (args.bench or args.tests):
        build(args.force)
