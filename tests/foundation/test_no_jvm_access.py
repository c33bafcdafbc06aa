"""The Python side reaches the JVM only through names (docs/architecture.md: `drill_*`
functions, the `drill` source), never through py4j, so the same code runs on Spark Connect and
Spark-internal APIs stay in the JVM's compat package. The one exception reads the JVM's heap
for the server's metrics (java.lang.Runtime, not Spark) and has a Connect fallback."""

from __future__ import annotations

import re
from pathlib import Path

import drillspark

PACKAGE = Path(drillspark.__file__).parent
JVM_ACCESS = re.compile(r"\._(jvm|jsc|jdf|jcol|jsparkSession|jconf)\b|^\s*(from|import)\s+py4j\b")
ALLOWED = {"server/app.py": "self.spark._jvm.java.lang.Runtime.getRuntime()"}


def test_no_py4j_access_outside_the_server_heap_gauge():
    found = {
        f"{path.relative_to(PACKAGE)}:{n}": line.strip()
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if JVM_ACCESS.search(line.split("#", 1)[0])
    }
    allowed = {k: v for k, v in found.items() if ALLOWED.get(k.rsplit(":", 1)[0], "\0") in v}
    assert found.keys() - allowed.keys() == set(), found
    assert len(allowed) == len(ALLOWED)  # the exception is still there (else drop it here)
