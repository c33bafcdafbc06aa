"""The SQL lowering's shape (issue #35): the sql/ package's import graph has no circle, and
the lowering modules use each other only through public names.

Stricter than test_import_direction.py for this one package: every import counts here, at
module level, inside a function, and under `if TYPE_CHECKING:` too. A type-only import back
up (a clause module naming `SelectLowering` in its hints) never runs, but it is how a circle
of modules that call each other's insides comes back; the clauses share the one context
`sql/block.Block` instead, which imports none of them."""

from __future__ import annotations

import ast
from pathlib import Path

import drillspark

SQL = Path(drillspark.__file__).parent / "sql"  # drillspark.sql is the facade function
PACKAGE = "drillspark.sql"

# The modules of the SELECT lowering, which take a `Block` (or the statement's `Lowering`)
# and must not reach into another module's private names.
LOWERING = (
    "aggregates",
    "block",
    "drill_expr",
    "expressions",
    "from_clause",
    "grouping",
    "joins",
    "lateral",
    "order_by",
    "plan_parts",
    "select",
    "select_list",
    "subqueries",
    "syntax",
    "where",
    "windows",
)


def _imports(path: Path) -> set[str]:
    """The sql/ modules `path` imports, anywhere in it (functions and TYPE_CHECKING too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.level:  # relative: from .x import y
                base = PACKAGE if node.level == 1 else PACKAGE.rsplit(".", node.level - 1)[0]
                module = f"{base}.{node.module}"
            else:
                module = node.module
            # `from drillspark.sql import lateral` imports the module drillspark.sql.lateral
            names = [module] + [f"{module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if (
                name.startswith(PACKAGE + ".")
                and (SQL / (name[len(PACKAGE) + 1 :] + ".py")).exists()
            ):
                out.add(name[len(PACKAGE) + 1 :])
    return out


def graph() -> dict[str, set[str]]:
    return {
        p.stem: _imports(p) - {p.stem} for p in sorted(SQL.glob("*.py")) if p.stem != "__init__"
    }


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each circle of `g` (as the path of modules), found depth first."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(v: str) -> None:
        state[v] = 1
        path.append(v)
        for w in sorted(g.get(v, ())):
            if state.get(w) == 1:
                found.append(path[path.index(w) :] + [w])
            elif w not in state:
                visit(w)
        path.pop()
        state[v] = 2

    for v in sorted(g):
        if v not in state:
            visit(v)
    return found


def test_the_sql_package_has_no_import_circle():
    found = cycles(graph())
    assert found == [], (
        "import circles in drillspark.sql (TYPE_CHECKING and function imports count): "
        + "; ".join(" -> ".join(c) for c in found)
    )


def test_the_check_sees_type_only_and_function_level_imports(tmp_path):
    # the check itself can fail: a circle closed only by a TYPE_CHECKING import, or only by
    # an import inside a function, is found
    (tmp_path / "a.py").write_text("from drillspark.sql.block import Block\n")
    typed = tmp_path / "b.py"
    typed.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from drillspark.sql.select import SelectLowering\n"
    )
    local = tmp_path / "c.py"
    local.write_text("def f():\n    from drillspark.sql import select\n    return select\n")
    assert _imports(typed) == {"select"}
    assert _imports(local) == {"select"}
    g = graph()
    g["block"] = g["block"] | _imports(typed)
    assert any({"block", "select"} <= set(c) for c in cycles(g))


def test_the_clauses_share_one_context_and_not_the_driver():
    # the clause modules and construct families import the context, never the driver
    g = graph()
    for name in LOWERING:
        if name != "select":
            assert "select" not in g[name], f"sql/{name}.py imports the SELECT driver"
    assert g["block"] <= {"errors", "lower", "plan_parts", "syntax", "windows"}, g["block"]
    assert g["plan_parts"] == set(), "sql/plan_parts.py builds on the plan package only"


def _private_reaches(path: Path) -> list[str]:
    """`x._name` where x is not self/cls, and `from drillspark.sql.m import _name`."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                out.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
            out.extend(
                f"{path.name}:{node.lineno} import {a.name}"
                for a in node.names
                if a.name.startswith("_")
            )
    return out


def test_no_lowering_module_reaches_into_anothers_private_names():
    found = [r for name in LOWERING for r in _private_reaches(SQL / f"{name}.py")]
    assert found == [], "private names used across the SQL lowering's modules: " + ", ".join(found)


def test_the_private_reach_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from drillspark.sql.lower import _err\n\ndef f(ctx):\n    return ctx.sel._resolve(1)\n"
    )
    assert len(_private_reaches(bad)) == 2
