"""The names of Drill's bootstrap storage plugins (`dfs`, `cp`) are spelled in one place,
drillspark/plugin_configs/ (its bootstrap module): every other module asks it, or the
session (which may be given other names, or none), which plugin is the home file plugin or
serves the classpath (#31). A string literal that is one of those names, or a schema of one
(`"dfs.tmp"`, `"cp.default"`, an f-string's `"dfs."`), anywhere outside that package, fails
here, and so does a literal that is one of `dfs`'s bootstrap workspaces (`"root"`, `"tmp"`);
docstrings and longer texts (help, examples) do not count. The extension's Scala sources
are read the same way: a catalog's name is the one it was registered under."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import drillspark
from drillspark.plugin_configs import bootstrap

PACKAGE = Path(drillspark.__file__).parent
OWNER = PACKAGE / "plugin_configs"
# a bootstrap plugin's name, alone or as the head of a schema name, or one of its bootstrap
# workspaces' names alone (`root`, `tmp`)
WORKSPACES = (bootstrap.ROOT_WORKSPACE, bootstrap.TMP_WORKSPACE)
PLUGIN_NAMED = rf"(?:{'|'.join(map(re.escape, bootstrap.BUILT_IN))})(?:\.\w*)?"
NAMED = re.compile(rf"{PLUGIN_NAMED}|{'|'.join(map(re.escape, WORKSPACES))}", re.I)

# (module path under drillspark/, literal) -> why it stays
ALLOWED: dict[tuple[str, str], str] = {
    ("sql/session.py", "cp"): "CP_FOLDER: the package folder of Drill's sample data, not a plugin",
    ("sql/lower.py", "root"): "the key of a scan's confinement (its folder), not a workspace",
    ("spark/storage/engines.py", "root"): "the `root` field of a classpath plugin's config",
}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _literals(package: Path = PACKAGE) -> dict[tuple[str, str], list[int]]:
    """(module path under `package`, literal) -> its lines, for each literal naming a bootstrap
    plugin outside the package's plugin_configs/ (docstrings left out)."""
    found: dict[tuple[str, str], list[int]] = {}
    owner = package / OWNER.relative_to(PACKAGE)
    for path in sorted(package.rglob("*.py")):
        if owner in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and NAMED.fullmatch(node.value.strip())
                and id(node) not in docs
            ):
                key = (path.relative_to(package).as_posix(), node.value)
                found.setdefault(key, []).append(node.lineno)
    return found


def test_no_module_outside_the_registry_names_a_bootstrap_plugin():
    found = _literals()
    named = [
        f"drillspark/{module}:{','.join(map(str, lines))}: {value!r}"
        for (module, value), lines in sorted(found.items())
        if (module, value) not in ALLOWED
    ]
    assert not named, (
        "these modules name a bootstrap storage plugin; ask drillspark.plugin_configs."
        "bootstrap (or the session's `home` / `classpath`) instead:\n" + "\n".join(named)
    )


def test_every_allowed_literal_is_still_there():
    """The allow-list only shrinks: an entry whose literal is gone fails."""
    found = _literals()
    stale = [key for key in ALLOWED if key not in found]
    assert not stale, f"remove from ALLOWED: {stale}"


# the extension's sources: a catalog's name is the one it was registered under
# (spark.sql.catalog.<name>), never a default spelled in Scala. Workspace names are not
# checked there: a DfsCatalog a Spark user configures without workspaces has Drill's bootstrap
# ones, spelled in its `builtIn` map (pinned to plugin_configs' names below)
SCALA = Path(__file__).resolve().parents[2] / "jvm" / "src" / "main" / "scala"
STRING = re.compile(r'"""(.*?)"""|"((?:[^"\\\n]|\\.)*)"', re.S)
CHAR = re.compile(r"'(?:\\u[0-9a-fA-F]{4}|\\.|[^'\\\n])'")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def scala_literals(text: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal of Scala source `text` (comments skipped; an
    interpolated string's text as written)."""
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(text):
        if m := (COMMENT.match(text, i) or CHAR.match(text, i)):
            i = m.end()
        elif m := STRING.match(text, i):
            found.append((text.count("\n", 0, i) + 1, m[1] if m[1] is not None else m[2]))
            i = m.end()
        else:
            i += 1
    return found


def test_no_scala_source_names_a_bootstrap_plugin():
    named = [
        f"{path.relative_to(SCALA)}:{line}: {value!r}"
        for path in sorted(SCALA.rglob("*.scala"))
        for line, value in scala_literals(path.read_text(encoding="utf-8"))
        if re.fullmatch(PLUGIN_NAMED, value.strip(), re.I)
    ]
    assert not named, (
        "these Scala sources name a bootstrap storage plugin; a catalog takes its name from "
        "its registration (initialize):\n" + "\n".join(named)
    )


def test_the_scala_catalogs_bootstrap_workspaces_are_drills():
    """DfsCatalog's own defaults (a catalog configured by hand, no workspace given) are the
    bootstrap workspaces plugin_configs names: the same two names, each its own."""
    source = (SCALA / "drillspark" / "catalog" / "DfsCatalog.scala").read_text(encoding="utf-8")
    built_in = re.search(r"val builtIn = .*?\)\)\n", source, re.S)
    assert built_in is not None, "DfsCatalog's builtIn map moved: update this test"
    pairs = re.findall(r'"(\w+)" -> Workspace\("(\w+)"', built_in[0])
    assert sorted(pairs) == sorted((w, w) for w in WORKSPACES)


def test_the_scala_check_sees_a_literal():
    text = '// "dfs"\n/* "cp" */ val c = \'"\'\nvar n: String = "dfs"\nval m = s"see dfs.tmp"\n'
    found = [(line, v) for line, v in scala_literals(text) if re.fullmatch(PLUGIN_NAMED, v, re.I)]
    assert found == [(3, "dfs")]


def test_the_check_sees_a_literal(tmp_path):
    """The check itself (`_literals`, on a tree of its own) finds what it looks for: a plain
    name or a schema of one, not in a docstring, outside plugin_configs/."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "plugin_configs").mkdir()
    (tmp_path / "sub" / "m.py").write_text(
        '"""dfs"""\nx = "dfs"\ny = f"cp.{x}"\nz = "dfs.tmp"\nh = "see dfs.tmp"\nw = {"tmp": 1}\n'
    )
    (tmp_path / "plugin_configs" / "bootstrap.py").write_text('FILE = "dfs"\n')
    assert _literals(tmp_path) == {
        ("sub/m.py", "dfs"): [2],
        ("sub/m.py", "cp."): [3],
        ("sub/m.py", "dfs.tmp"): [4],
        ("sub/m.py", "tmp"): [6],
    }
