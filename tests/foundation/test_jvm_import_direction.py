"""The JVM extension's imports point one way, and only the compat package reaches Spark's
internals (docs/architecture.md, "Import direction").

Each Scala file of jvm/src/main belongs to one unit, ordered top to bottom below; a file may use
its own unit and the units below it, never one above. Inside the `drill` source the stages
follow the way a split is read (roles → read → write → discovery → bytes → input), and every
stage may use the shared base of `drillspark.source` but no role class. The check reads each
file's code without comments or string literals and counts every way Scala names another
file: imports (wherever they sit, braces and renames included), fully qualified references
(`drillspark.DrillTable` in an `extends`), and, inside one package, the bare names of the other
files' classes and objects.

"Spark-internal" means what the compiler only lets code under `org.apache.spark` reach
(`private[spark]` / `private[sql]`: SparkRuntimeException's error-class constructor,
QueryCompilationErrors) plus the packages and members Spark does not hand to an extension
(INTERNAL below). Catalyst's expressions, plans, rules and data (ArrayData, UTF8String, ...) are
not on that list: SparkSessionExtensions takes and returns them, so every extension is written in
them. Only compat's package sits under `org.apache.spark`, so only it can reach private API."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "jvm" / "src" / "main" / "scala"
COMPAT = "org.apache.spark.sql.drillspark.compat"

# Top first: a unit may use itself and any unit after it.
UNITS = [
    "extension",  # drillspark.DrillSparkExtensions and the one function list: wires the rest
    "server",  # the server's task side (PartitionStream), called from Python; imports no unit
    "analysis",  # analyzer rules and checks
    "catalog",  # the dfs catalog and the workspace rule
    "formats",  # the format readers (spark.read.format("drill-<type>")); the dfs catalog's
    "records",  # pages of records from a plugin (http, mongo, kafka) for the drill source to read
    "source roles",  # the DSv2 roles and what only they use
    "source.read",
    "source.write",
    "source.discovery",
    "source.bytes",
    "source.input",
    "source base",  # what every stage of the source shares
    "workspace rule",  # WorkspacePaths: the dfs catalog resolves by it, the source opens by it
    "functions",  # the drill_* expressions and what they share
    "compat",  # the bridge to Spark's internals
    "markers",  # marker traits and build constants: import nothing of drillspark
]
RANK = {unit: len(UNITS) - i for i, unit in enumerate(UNITS)}

# Files whose unit is not their package's.
FILE_UNITS = {
    "drillspark/DrillSparkExtensions.scala": "extension",
    "drillspark/DrillTable.scala": "markers",
    "drillspark/BuildInfo.scala": "markers",
    "drillspark/ClassSharingMark.scala": "markers",
    "drillspark/BoundedAggregateState.scala": "markers",
    "drillspark/catalog/DrillCatalog.scala": "markers",
    "drillspark/catalog/WorkspacePaths.scala": "workspace rule",
}
# The top of drillspark.source: the DSv2 role classes, and the provided-schema overlay only
# DrillDataSource uses. Every other file of the package is the shared base.
SOURCE_ROLES = {
    "DrillDataSource.scala",
    "DrillJsonTable.scala",
    "DrillScanBuilder.scala",
    "DrillScan.scala",
    "CountScan.scala",
    "ProvidedSchema.scala",
}
PACKAGE_UNITS = {
    "drillspark.analysis": "analysis",
    "drillspark.catalog": "catalog",
    "drillspark.source.read": "source.read",
    "drillspark.source.write": "source.write",
    "drillspark.source.discovery": "source.discovery",
    "drillspark.source.bytes": "source.bytes",
    "drillspark.source.input": "source.input",
    "drillspark.functions": "functions",
    **{
        f"drillspark.formats{sub}": "formats"
        for sub in ("", ".avro", ".excel", ".logs", ".parquet", ".pcap", ".text", ".xml")
    },
    "drillspark.records": "records",
    "drillspark.server": "server",
    COMPAT: "compat",
}

# Spark's packages and members that are not the extension API (see the module docstring).
INTERNAL = {
    "org.apache.spark.internal": "Spark's own logging and config ('DO NOT USE this class "
    "outside of Spark', Logging's doc)",
    "org.apache.spark.util": "Spark's private[spark] utilities (SerializableConfiguration)",
    "org.apache.spark.types.variant": "the VARIANT encoding (Variant, VariantBuilder)",
    "org.apache.spark.sql.internal": "SQLConf and the session state",
    "org.apache.spark.sql.execution": "physical plans, DSv2 relations, writable column vectors",
    "org.apache.spark.sql.classic": "the classic session's state (analyzer, catalog manager)",
    "org.apache.spark.sql.errors": "Spark's error builders (QueryCompilationErrors)",
    "org.apache.spark.sql.catalyst.analysis.AnalysisContext": "the analyzer's thread state",
    "org.apache.spark.sql.catalyst.analysis.FunctionRegistry.builtin": "Spark's own "
    "function registry (an extension registers through injectFunction)",
}

# Spark's public API inside those packages (in Spark's API docs: an extension may use it).
PUBLIC = {
    "org.apache.spark.util.CollectionAccumulator": "the type of "
    "SparkContext.collectionAccumulator, an AccumulatorV2",
}

# Known edges against the direction, (file, what it uses) -> why it is still there. The test
# fails on any other edge and on an entry no edge matches any more, so the list only shrinks.
ALLOWED_EDGES: dict[tuple[str, str], str] = {}
# Known reaches into Spark's internals outside compat, (file, internal name) -> why.
ALLOWED_INTERNAL: dict[tuple[str, str], str] = {}

CHAR = re.compile(r"'(?:\\u[0-9a-fA-F]{4}|\\.|[^'\\\n])'")


def strip(text: str) -> str:
    """The code of a Scala file with comments and the insides of string and character literals
    blanked (line breaks kept), so a name in prose or in a message is not a reference.
    Interpolated strings keep their `${...}` code."""
    out: list[str] = []
    n = len(text)

    def lines(a: int, b: int) -> str:
        return "\n" * text.count("\n", a, b)

    def string(i: int) -> int:
        """From the opening quote at i to past the closing one, copying interpolated code."""
        interpolated = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        triple = text.startswith('"""', i)
        j = i + (3 if triple else 1)
        start = j
        while j < n:
            if triple and text.startswith('"""', j):
                end = j + 3
                while end < n and text[end] == '"':
                    end += 1
                out.append(lines(start, j) + '"')
                return end
            if not triple and text[j] == '"':
                out.append('"')
                return j + 1
            if not triple and text[j] == "\\":
                j += 2
                continue
            if interpolated and text.startswith("${", j):
                out.append(lines(start, j) + " ")
                j = code(j + 2, stop="}")
                start = j
                continue
            j += 1
        return n

    def code(i: int, stop: str = "") -> int:
        depth = 0
        while i < n:
            c = text[i]
            if stop and c == "{":
                depth += 1
            elif stop and c == "}":
                if depth == 0:
                    out.append(" ")
                    return i + 1
                depth -= 1
            if text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif text.startswith("/*", i):
                level, j = 0, i
                while j < n:
                    if text.startswith("/*", j):
                        level, j = level + 1, j + 2
                    elif text.startswith("*/", j):
                        level, j = level - 1, j + 2
                        if level == 0:
                            break
                    else:
                        j += 1
                out.append(" " + lines(i, j))
                i = j
            elif c == '"':
                out.append('"')
                i = string(i)
            elif c == "'" and (m := CHAR.match(text, i)):
                out.append("' '")
                i = m.end()
            else:
                out.append(c)
                i += 1
        return n

    code(0)
    return "".join(out)


IMPORT = re.compile(r"\bimport\s+")
PACKAGE = re.compile(r"^\s*package\s+(?!object\b)([\w.]+)", re.MULTILINE)
DEFINITION = re.compile(
    r"^(?:(?:final|sealed|abstract|case|implicit|private(?:\[\w+\])?|protected(?:\[\w+\])?)\s+)*"
    r"(?:class|object|trait|type)\s+(\w+)",
    re.MULTILINE,
)
QUALIFIED = re.compile(r"(?<![\w.])(?:_root_\.)?((?:drillspark|org\.apache\.spark)(?:\.\w+)+)")


def import_clauses(code: str) -> list[tuple[int, int]]:
    """(start, end) of every import clause: `import a.b.{c, d => e}, f.g`."""
    spans = []
    for m in IMPORT.finditer(code):
        j, depth = m.end(), 0
        while j < len(code):
            c = code[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c in "\n;" and depth == 0:
                break
            j += 1
        spans.append((m.start(), j))
    return spans


def selectors(clause: str) -> list[tuple[str, str]]:
    """(imported path, the name it is known by) for each selector of an import clause."""
    found = []
    body = clause.split(None, 1)[1]
    for part in re.split(r",(?![^{]*\})", body):
        part = re.sub(r"\s+", "", part)
        if not part:
            continue
        m = re.fullmatch(r"([\w.]*?)\.?\{(.*)\}", part)
        prefix, names = (m.group(1), m.group(2).split(",")) if m else ("", [part])
        for name in names:
            original, _, alias = name.partition("=>")
            path = f"{prefix}.{original}" if prefix else original
            found.append((path.removeprefix("_root_."), alias or path.rsplit(".", 1)[-1]))
    return found


@dataclass
class Source:
    rel: str  # path below jvm/src/main/scala
    package: str
    code: str
    defines: set[str]
    imports: dict[str, str] = field(default_factory=dict)  # local name -> full path
    imported: list[str] = field(default_factory=list)  # every imported path
    body: str = ""  # the code without package and import clauses


def read_source(path: Path) -> Source:
    code = strip(path.read_text(encoding="utf-8"))
    packages = PACKAGE.findall(code)
    rel = str(path.relative_to(MAIN))
    assert len(packages) == 1, (
        f"{rel}: one package clause expected ({packages}): chained clauses let a file name an "
        "enclosing package's members without an import, which this check would not see"
    )
    src = Source(rel, packages[0], code, set(DEFINITION.findall(code)))
    body = PACKAGE.sub("", code)
    for start, end in reversed(import_clauses(body)):
        for full, local in selectors(body[start:end]):
            src.imported.append(full)
            if local != "_":
                src.imports[local] = full
        body = body[:start] + " " * (end - start) + body[end:]
    src.body = body
    return src


SOURCES = {s.rel: s for s in map(read_source, sorted(MAIN.rglob("*.scala")))}
PACKAGES: dict[str, list[Source]] = {}
for _s in SOURCES.values():
    PACKAGES.setdefault(_s.package, []).append(_s)
DEFINED_IN = {(s.package, name): s.rel for s in SOURCES.values() for name in s.defines}


def unit(rel: str) -> str:
    if rel in FILE_UNITS:
        return FILE_UNITS[rel]
    package = SOURCES[rel].package
    if package == "drillspark.source":
        return "source roles" if Path(rel).name in SOURCE_ROLES else "source base"
    assert package in PACKAGE_UNITS, f"{rel}: package {package} has no unit: add it to UNITS"
    return PACKAGE_UNITS[package]


def resolve(src: Source, path: str) -> list[str]:
    """The drillspark files a dotted path names (several for a wildcard); [] if outside."""
    first = path.split(".", 1)[0]
    if (src.package, first) in DEFINED_IN:  # relative to the file's own package
        path = f"{src.package}.{path}"
    elif first in src.imports and first not in ("drillspark", "org"):
        path = src.imports[first] + path[len(first) :]
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:cut])
        if package in PACKAGES:
            name = parts[cut]
            if name in ("_", "*"):
                return [s.rel for s in PACKAGES[package]]
            assert (package, name) in DEFINED_IN, f"{src.rel}: {path} names no file"
            return [DEFINED_IN[(package, name)]]
    return []


def references(src: Source) -> list[tuple[str, str]]:
    """(file used, how it is named) for every drillspark file `src` names."""
    named = [(path, f"import {path}") for path in src.imported]
    named += [(m.group(1), m.group(1)) for m in QUALIFIED.finditer(src.body)]
    found = [(rel, how) for path, how in named for rel in resolve(src, path)]
    siblings = {n: DEFINED_IN[(src.package, n)] for _, n in DEFINED_IN if _ == src.package}
    for word in sorted(set(re.findall(r"\b[A-Z]\w*", src.body)) & siblings.keys()):
        found.append((siblings[word], word))
    return [(rel, how) for rel, how in found if rel != src.rel]


def spark_names(src: Source) -> set[str]:
    """Every org.apache.spark name `src` uses: imported, written out, or a member of either."""
    names = {p for p in src.imported if p.startswith("org.apache.spark.")}
    names |= {m.group(1) for m in QUALIFIED.finditer(src.body) if m.group(1).startswith("org.")}
    for local, full in src.imports.items():
        if full.startswith("org.apache.spark."):
            for member in re.findall(rf"(?<![\w.]){re.escape(local)}\s*\.\s*(\w+)", src.body):
                names.add(f"{full}.{member}")
    return names


def internal(name: str) -> str | None:
    if any(name == p or name.startswith(p + ".") for p in PUBLIC):
        return None
    return next((i for i in INTERNAL if name == i or name.startswith(i + ".")), None)


def edges_against_direction(graph: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    return sorted(
        (src, how)
        for src, uses in graph.items()
        for dst, how in uses
        if RANK[unit(dst)] > RANK[unit(src)]
    )


GRAPH = {rel: references(src) for rel, src in SOURCES.items()}


def test_every_file_has_a_unit():
    assert {unit(rel) for rel in SOURCES} == set(UNITS)
    listed = set(FILE_UNITS) | {f"drillspark/source/{name}" for name in SOURCE_ROLES}
    assert listed <= set(SOURCES), "a file listed here is gone"


def test_units_point_one_way():
    wrong = edges_against_direction(GRAPH)
    new = [
        f"{src} ({unit(src)}) uses {how}"
        for src, how in wrong
        if (src, how.removeprefix("import ")) not in ALLOWED_EDGES
    ]
    used = {(src, how.removeprefix("import ")) for src, how in wrong}
    gone = [edge for edge in ALLOWED_EDGES if edge not in used]
    assert new == [], "JVM uses against the direction (docs/architecture.md, Import direction)"
    assert gone == [], "allow-listed edges that no longer exist: remove them"


def test_only_compat_reaches_spark_internals():
    found = sorted(
        (rel, name)
        for rel, src in SOURCES.items()
        if src.package != COMPAT
        for name in spark_names(src)
        if internal(name)
    )
    new = [
        f"{rel} uses {name} ({INTERNAL[internal(name) or '']})"
        for rel, name in found
        if (rel, name) not in ALLOWED_INTERNAL
    ]
    assert new == [], "Spark-internal API outside the compat package"
    assert [k for k in ALLOWED_INTERNAL if k not in found] == [], "stale ALLOWED_INTERNAL entry"


def test_only_compat_lives_in_sparks_packages():
    # private[spark] / private[sql] members are reachable from any package under
    # org.apache.spark: the compiler enforces the rule as long as compat is the only one there
    under_spark = {s.rel: s.package for s in SOURCES.values() if s.package.startswith("org.")}
    assert set(under_spark.values()) == {COMPAT}, under_spark
    assert all(rel.startswith(COMPAT.replace(".", "/") + "/") for rel in under_spark)


def test_compat_holds_only_bridges():
    # each compat object exists for something internal, so the definition above matches the code
    for src in PACKAGES[COMPAT]:
        assert any(internal(n) for n in spark_names(src)), src.rel


# --- the check itself can fail and sees every way a file names another -----------------------


def test_the_reader_sees_qualified_relative_and_same_package_names():
    uses = {rel: {how for _, how in GRAPH[rel]} for rel in GRAPH}
    table = uses["drillspark/source/DrillJsonTable.scala"]
    assert "drillspark.DrillTable" in table  # `with drillspark.DrillTable`, no import
    assert "import drillspark.source.input.ImplicitColumns" in table  # from `{a, b}` braces
    # `import ScannerMode.{...}` goes through a name imported from drillspark.source before
    discovery = GRAPH["drillspark/source/discovery/SchemaDiscovery.scala"]
    assert ("drillspark/source/DrillOptions.scala", "import ScannerMode.BytesOnly") in discovery
    # a role class names the shared base without an import (same package)
    assert "RowFilter" in uses["drillspark/source/DrillScan.scala"]


def test_comments_and_strings_are_not_references():
    code = strip(
        'val a = "drillspark.catalog.X" // drillspark.source.Y\n'
        '/* drillspark.source.Z /* nested */ still comment */ val b = s"${Names.fold(c)} d"\n'
        'val q = \'"\'; val r = """drillspark.source.W"""\n'
    )
    assert "drillspark" not in code
    assert "Names.fold(c)" in code  # interpolated code stays code
    assert code.count("\n") == 3


def test_selectors_of_an_import_clause():
    assert selectors("import a.b.{C => D, E}, f.G") == [
        ("a.b.C", "D"),
        ("a.b.E", "E"),
        ("f.G", "G"),
    ]
    assert selectors("import _root_.drillspark.source._") == [("drillspark.source._", "_")]


def test_an_edge_against_the_direction_fails():
    graph = {rel: list(uses) for rel, uses in GRAPH.items()}
    bytes_file = "drillspark/source/bytes/KeyIndex.scala"
    graph[bytes_file].append(("drillspark/source/read/ReadPlan.scala", "import read.ReadPlan"))
    base = "drillspark/source/Names.scala"
    graph[base].append(("drillspark/source/DrillScan.scala", "DrillScan"))
    wrong = edges_against_direction(graph)
    assert (bytes_file, "import read.ReadPlan") in wrong
    assert (base, "DrillScan") in wrong


@pytest.mark.parametrize(
    "name, is_internal",
    [
        ("org.apache.spark.sql.internal.SQLConf", True),
        ("org.apache.spark.sql.catalyst.analysis.FunctionRegistry.builtin", True),
        ("org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder", False),
        ("org.apache.spark.sql.util.CaseInsensitiveStringMap", False),
        ("org.apache.spark.utilities", False),
        ("org.apache.spark.util.SerializableConfiguration", True),
        ("org.apache.spark.util.CollectionAccumulator", False),
    ],
)
def test_what_counts_as_internal(name, is_internal):
    assert bool(internal(name)) is is_internal
