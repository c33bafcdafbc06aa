"""Imports point one way: cli → server → the facade → sql → api, result, session → spark
(translate) → plan; operators and plugins are leaves (operators may look names up in plugins,
plugins imports nothing of drillspark). Every import counts, at module level or
inside a function (a function-level import only hides a cycle, it does not remove it); imports under
`if TYPE_CHECKING:` are for the type checker and never run, so they do not."""

from __future__ import annotations

import ast
from pathlib import Path

import drillspark

PACKAGE = Path(drillspark.__file__).parent

# Higher may import lower or equal; a module's layer is its longest listed prefix (the
# facade `drillspark` counts only for itself: a new top-level module must be listed here).
LAYERS = {
    "drillspark.__main__": 9,
    "drillspark.cli": 8,
    "drillspark.server": 7,
    "drillspark": 6.5,  # the package facade: drillspark.sql(), .run(), .session()
    "drillspark.sql": 6,
    "drillspark.api": 5,
    "drillspark.result": 5,
    "drillspark.display": 5,
    "drillspark.progress": 5,
    "drillspark.session": 5,
    "drillspark.class_sharing": 5,
    "drillspark.jvm_stderr": 5,
    "drillspark.spark": 4,
    "drillspark.plugin_configs": 3.5,  # Drill's storage-plugin configs (read the plan's JSON reader)
    "drillspark.formats": 4,  # Drill's format plugins: configs, and their reads through Spark (as spark/)
    "drillspark.plan": 3,
    "drillspark.operators": 1,
    "drillspark.plugins": 0.5,
    "drillspark.options": 0.5,  # the options registry: any layer reads and declares options
    "drillspark.errors": 0,
    "drillspark.names": 0,
    "drillspark.rules": 0,
    "drillspark._version": 0,
}
# Leaves import nothing of drillspark but their own package and what is listed for them: the
# Arrow operators register and look up names in plugins; plugins is the bottom.
LEAF_MAY_IMPORT = {
    "drillspark.operators": (
        "drillspark.plugins",
        "drillspark.errors",
        "drillspark.names",
        "drillspark._version",
    ),
    "drillspark.plugins": ("drillspark.errors", "drillspark._version"),
}
LEAVES = tuple(LEAF_MAY_IMPORT)

# Known edges against the direction, each with why it is still here; the test fails on any
# other, and on an entry that no longer exists (so the list only shrinks).
ALLOWED_EDGES: dict[tuple[str, str], str] = {}
# Pairs of layers that must never meet even though the ranks would allow it.
FORBIDDEN = {("drillspark.plan", "drillspark.operators"): "the plan layer has no Arrow or Spark"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("drillspark", *path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path) -> set[str]:
    """The drillspark modules `name` imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "drillspark")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "drillspark":
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    out.add(full if full in MODULES else module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    out.discard(name)
    return {m for m in out if m in MODULES}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _prefix(name: str, table) -> str:
    found = [p for p in table if name == p or (p != "drillspark" and name.startswith(p + "."))]
    assert found, f"{name} has no layer: add it to LAYERS"
    return max(found, key=len)


def _against_direction(src: str, dst: str) -> bool:
    src_top, dst_top = _prefix(src, LAYERS), _prefix(dst, LAYERS)
    if src_top in LEAVES:
        return not (dst_top == src_top or dst_top in LEAF_MAY_IMPORT[src_top])
    if (src_top, dst_top) in FORBIDDEN:
        return True
    return LAYERS[dst_top] > LAYERS[src_top]


def test_imports_point_one_way():
    wrong = sorted(
        (s, d) for s, targets in GRAPH.items() for d in targets if _against_direction(s, d)
    )
    new = [f"{s} imports {d}" for s, d in wrong if (s, d) not in ALLOWED_EDGES]
    gone = [f"{s} -> {d}" for s, d in ALLOWED_EDGES if (s, d) not in wrong]
    assert new == [], "imports against the layer direction"
    assert gone == [], "allow-listed edges that no longer exist: remove them"


def _cycles() -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(GRAPH):
        if v not in index:
            strong(v)
    return found


def test_no_import_cycles():
    # None is allowed: a mutual recursion between modules is handed down as a callback (the SQL
    # lowering's `LoweringSteps`, wired in sql/parser.new_lowering), not imported back up.
    assert [sorted(c) for c in _cycles()] == [], "import cycles (function-level imports included)"


def test_the_cycle_finder_sees_a_function_level_cycle():
    # the check itself can fail: a cycle made only of function-level imports is found
    saved = {m: set(GRAPH[m]) for m in ("drillspark.sql.lower", "drillspark.sql.select")}
    try:
        GRAPH["drillspark.sql.lower"].add("drillspark.sql.select")  # `from ... import` in a def
        assert any({"drillspark.sql.lower", "drillspark.sql.select"} <= c for c in _cycles())
    finally:
        GRAPH.update(saved)


def test_the_walk_sees_function_level_imports():
    # LogicalPlan.to_json imports the serializer only inside the method
    assert "drillspark.plan.serialize" in GRAPH["drillspark.plan.model"]
    assert len(GRAPH) > 80


def test_plugins_is_the_bottom():
    assert GRAPH["drillspark.plugins"] == set()
