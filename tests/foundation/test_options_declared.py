"""Every option a module reads is declared, and declared once: a Drill option named anywhere in
the package (a string literal in a Drill option namespace: `store.`, `exec.`, `planner.`,
`drill.exec.`, ...) is in the options registry (drillspark.options), and an option the
registry says takes effect here is read somewhere. Every `spark.drillspark.*` Spark conf the
code reads (Python or Scala) is declared in the JVM's one configuration object,
`functions/DrillConf.scala`, which is the only Scala file that names one, and is documented."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import drillspark
from drillspark.options import REGISTRY
from drillspark.rules import json_options

PACKAGE = Path(drillspark.__file__).parent
ROOT = PACKAGE.parent.parent
SCALA = ROOT / "jvm" / "src" / "main" / "scala"
DRILL_CONF = SCALA / "drillspark" / "functions" / "DrillConf.scala"
# the options package declares; every other module reads
DECLARING = PACKAGE / "options"


def _namespace(name: str) -> str:
    """The namespace of an option's name: its first segment, or the first two or three where
    the first is shared with other words (`drill.exec.`, `org.apache.drill.`, `storage.plugin_`)."""
    parts = name.split(".")
    depth = {"drill": 2, "org": 3, "storage": 2, "web": 2}.get(parts[0], 1)
    return ".".join(parts[:depth])


NAMESPACES = {_namespace(o.name) for o in REGISTRY}


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def _option_like(text: str) -> bool:
    return (
        re.fullmatch(r"[A-Za-z_][\w\-$]*(\.[\w\-$]+)+", text) is not None
        and _namespace(text) in NAMESPACES
    )


def _named_options() -> dict[str, list[str]]:
    """Option-like names the modules outside drillspark/options hold -> where."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if DECLARING in path.parents:
            continue
        for line, text in _literals(path):
            if _option_like(text):
                found.setdefault(text, []).append(f"{path.relative_to(PACKAGE)}:{line}")
    return found


def test_every_option_a_module_names_is_declared():
    undeclared = {n: where for n, where in _named_options().items() if n not in REGISTRY}
    assert undeclared == {}, "declare these in drillspark.options (or rename the literal)"


def test_the_check_sees_option_names():
    named = _named_options()
    assert "store.format" in named and "drill.exec.http.rest.errors.verbose" in named
    assert _option_like("store.nosuch") and not _option_like("drill.text")
    assert not _option_like("storage.html") and not _option_like("org.apache.spark.sql")


def test_every_option_that_takes_effect_here_is_read():
    read = set(_named_options()) | {o.session for o in json_options() if o.session}
    unread = [o.name for o in REGISTRY if o.applies and o.name not in read]
    assert unread == [], "the registry says these take effect, but no module names them"


# ----------------------------------------------------------------------------- Spark confs
_KEY = re.compile(r"spark\.drillspark\.[A-Za-z0-9_.]+")


def _declared_confs() -> set[str]:
    text = DRILL_CONF.read_text(encoding="utf-8")
    return set(re.findall(r'val \w+(?:: String)? = "(spark\.drillspark\.[^"]+)"', text))


def test_drill_conf_is_the_only_scala_file_naming_a_spark_conf_of_drillspark():
    named = {}
    for path in sorted(SCALA.rglob("*.scala")):
        if path == DRILL_CONF:
            continue
        # string literals only (comments may name a key)
        for key in re.findall(r'"(spark\.drillspark\.[^"]*)"', path.read_text(encoding="utf-8")):
            named.setdefault(key, []).append(str(path.relative_to(SCALA)))
    assert named == {}, "name the key through DrillConf (functions/DrillConf.scala)"


def test_every_spark_conf_the_python_side_reads_is_declared_and_documented():
    declared = _declared_confs()
    assert len(declared) >= 7
    read = {
        text
        for path in PACKAGE.rglob("*.py")
        for _, text in _literals(path)
        if _KEY.fullmatch(text)
    }
    assert read - declared == set(), "declare the key in functions/DrillConf.scala"
    docs = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    assert [k for k in sorted(declared) if k not in docs] == [], "document these Spark confs"
