"""The server's folders as its users may see them: in an error, a profile's plan or a log line,
a path under a workspace is shown from the workspace's name (`<dfs.data>/logs/x.json`), the
sample data's folder as `<cp>`, never the absolute path on the server's machine."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from drillspark.plugin_configs.bootstrap import CLASSPATH_PLUGIN, FILE_PLUGIN


def location(config: Any) -> str:
    """A workspace's folder, from a folder or a Drill workspace config (one rule:
    storage.workspaces.workspace_of)."""
    from drillspark.spark.storage.workspaces import workspace_of

    return workspace_of("", config).location


def scrubber(workspaces: Mapping[str, Any], cp_root: str) -> Callable[[str], str]:
    """A function that replaces, in a text, every path under these folders (each as given and
    as its real path, with or without `file:` / `file://`) by the folder's name."""
    names: dict[str, str] = {}
    for name, config in workspaces.items():
        folder = location(config)
        if folder:  # never empty: workspace_of falls back to "/", which is left out below
            for form in {os.path.abspath(folder), os.path.realpath(folder)}:
                names.setdefault(form.rstrip(os.sep) or os.sep, f"<{FILE_PLUGIN}.{name}>")
    for form in {os.path.abspath(cp_root), os.path.realpath(cp_root)}:
        names.setdefault(form.rstrip(os.sep), f"<{CLASSPATH_PLUGIN}>")
    # the longest folder first (a workspace inside another's folder), never the root `/`
    roots = sorted((r for r in names if r != os.sep), key=len, reverse=True)
    if not roots:
        return lambda text: text
    pattern = re.compile(
        r"(?:file:(?://)?)?("
        + "|".join(re.escape(r) for r in roots)
        + r")(?=[/\\\\\s'\"`,;:)\]}]|$)"
    )

    def scrub(text: str) -> str:
        return pattern.sub(lambda m: names[m.group(1)], text)

    return scrub
