"""The JDKs installed on this machine that Spark 4.3 runs on (17, 21, 25): the default one
(the Java spark-submit would run, as class sharing finds it) and those under /usr/lib/jvm. A
plain module, so test modules of several folders can import it."""

from __future__ import annotations

from pathlib import Path

from drillspark.class_sharing import java_home, java_identity

SUPPORTED = (17, 21, 25)


def installed() -> dict[int, Path]:
    """Feature version -> one JDK home of it (the default one first), supported ones only."""
    found: dict[int, Path] = {}
    candidates = [java_home()]
    root = Path("/usr/lib/jvm")
    if root.is_dir():
        candidates += sorted(p.resolve() for p in root.iterdir() if p.is_dir())
    for home in candidates:
        ident = java_identity(home) if home else None
        if home and ident and ident[0] in SUPPORTED:
            found.setdefault(ident[0], home.resolve())
    return found
