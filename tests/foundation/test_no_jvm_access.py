"""The Python side reaches the JVM only through names (docs/architecture.md: `drill_*`
functions, the `drill` source), never through py4j, so the same code runs on Spark Connect and
Spark-internal APIs stay in the JVM's compat package. Few exceptions, each with a Connect
fallback, none touching Spark's internals: the server's metrics read the JVM's
heap (java.lang.Runtime, the memory pools' use after collection), its health check asks the
driver whether its SparkContext stopped (a dead JVM fails the call: /status.json says so), and
the workspace rule is one py4j call into drillspark's own
`WorkspacePaths` on classic Spark (its SQL form, `drill_workspace_path`, costs a parse, an
analysis and a collect per table reference: 0.27 s of a 0.58 s SQL compile, and n SQL queries
for an n-way UNION ALL)."""

from __future__ import annotations

import re
from pathlib import Path

import drillspark

PACKAGE = Path(drillspark.__file__).parent
JVM_ACCESS = re.compile(
    r"""[.'"]_(jvm|jsc|jdf|jcol|jsparkSession|jconf)\b|^\s*(from|import)\s+py4j\b"""
)
ALLOWED = {
    "server/app.py": (
        "jvm = self.spark._jvm",
        "if self.spark.sparkContext._jsc.sc().isStopped():",
    ),
    "spark/storage/workspaces.py": ('jvm = getattr(spark, "_jvm", None)',),
}


def test_no_py4j_access_outside_the_two_exceptions():
    found = {
        f"{path.relative_to(PACKAGE)}:{n}": line.strip()
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if JVM_ACCESS.search(line.split("#", 1)[0])
    }
    allowed = {k: v for k, v in found.items() if v in ALLOWED.get(k.rsplit(":", 1)[0], ())}
    assert found.keys() - allowed.keys() == set(), found
    # each exception is still there (else drop it here)
    assert sorted(allowed.values()) == sorted(v for vs in ALLOWED.values() for v in vs)
