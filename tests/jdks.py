"""The JDKs installed on this machine that Spark 4.3 runs on (17, 21, 25): the default one
(JAVA_HOME, else `java` on the PATH) and those under /usr/lib/jvm. A plain module, so test
modules of several folders can import it."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

SUPPORTED = (17, 21, 25)


def major(home: Path) -> int | None:
    """The Java feature version from the JDK's `release` file; None when it is not a JDK."""
    try:
        text = (home / "release").read_text()
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="(\d+)', text, re.M)
    return int(m.group(1)) if m and (home / "bin" / "java").exists() else None


def default_home() -> Path | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        return Path(home).resolve()
    java = shutil.which("java")
    return Path(os.path.realpath(java)).parent.parent if java else None


def installed() -> dict[int, Path]:
    """Feature version -> one JDK home of it (the default one first), supported ones only."""
    found: dict[int, Path] = {}
    candidates = [default_home()]
    root = Path("/usr/lib/jvm")
    if root.is_dir():
        candidates += sorted(p.resolve() for p in root.iterdir() if p.is_dir())
    for home in candidates:
        if home is None:
            continue
        v = major(home)
        if v in SUPPORTED and v not in found:
            found[v] = home
    return found
