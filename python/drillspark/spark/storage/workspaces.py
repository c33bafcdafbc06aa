"""Workspace confinement for every Python entry point (drillspark.sql's tables and CTAS targets,
the plan's file engines, the CLI's --workspace): the path a table name resolves to is asked
from the extension's `drill_workspace_path` (jvm/.../catalog/WorkspacePaths.scala), the same
rule the Spark `dfs` catalog applies, never re-implemented here. See docs/security.md."""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from pyspark.sql import SparkSession

from drillspark.errors import ExecutionError
from drillspark.spark import jvm_methods
from drillspark.spark.storage import filesystems

# Drill's workspace option: names may leave the workspace root (absolute paths, `..`, URIs).
ALLOW_OUTSIDE = "allowAccessOutsideWorkspace"


class WorkspaceError(ExecutionError, ValueError):
    """A table name refused by its workspace (it would leave the workspace root)."""


@dataclass(frozen=True)
class Workspace:
    name: str
    location: str
    allow_outside: bool = False


def workspace_of(name: str, config: Any, default_outside: bool = False) -> Workspace:
    """A workspace from a folder or a Drill workspace config ({location, allowAccessOutside
    Workspace}); `default_outside` when the config does not say."""
    if isinstance(config, dict):
        location = str(config.get("location", "/"))
        outside = config.get(ALLOW_OUTSIDE, default_outside)
        return Workspace(name, location, outside in (True, "true", "True"))
    return Workspace(name, str(config), default_outside)


def resolve(spark: SparkSession, ws: Workspace, table: str, listing: bool = False) -> str:
    """The local path of `table` in `ws`, or WorkspaceError naming the workspace (and no
    absolute path of this machine but what the name itself says: `shown`). A workspace on
    another file system (`s3a://bucket/key/prefix`) confines names to its key prefix
    (`_resolve_remote`).

    With `listing`, the folder a listing (SHOW FILES, INFORMATION_SCHEMA.FILES) names: the
    same rule for the name and the path itself, but the entries under it are not checked (a
    listing asks for each symlink entry by its own name, `leads_out`); '' is the root."""
    jvm = getattr(spark, "_jvm", None)
    if filesystems.is_remote(ws.location):
        return _resolve_remote(jvm, ws, table, listing)
    if jvm is not None:
        # classic Spark: one py4j call into the rule (a 500-way UNION ALL asks it 1,000 times;
        # each SQL round trip below costs a parse, an analysis and a collect)
        return _resolve_in_jvm(jvm, ws, table, listing)
    try:
        # over a one-row VALUES the constant call folds into a local relation on the driver:
        # no Spark job (over no FROM, `first()` ran one per table reference, twice per query)
        rows = spark.sql(
            "SELECT drill_workspace_path(?, ?, ?, ?, ?) AS p FROM VALUES (1)",
            args=[ws.name, ws.location, ws.allow_outside, table, listing],
        ).collect()
    except Exception as e:  # noqa: BLE001  (the JVM's refusal, as PySpark raises it)
        message = _refusal(e)
        if message is None:
            raise
        raise WorkspaceError(shown(message, ws)) from None
    return str(rows[0].p)


# percent-encoded `.`, `/`, `\`: a layer that decodes keys (an HTTP gateway, a console) would
# read them as path syntax
_ENCODED = re.compile(r"%(2e|2f|5c)", re.IGNORECASE)


def _resolve_remote(jvm: Any, ws: Workspace, table: str, listing: bool = False) -> str:
    """The URI of `table` in a workspace on another file system: the same name rule as on
    local disk (the extension's `checkName`: control characters, look-alikes of `.` and `/`),
    no URI scheme, no percent-encoded path syntax, and after `..` the key must stay under the
    workspace's prefix. Object stores have no symlinks; nothing else is asked of them here."""

    def refuse(why: str) -> WorkspaceError:
        return WorkspaceError(f"drill: table `{table}` is refused in workspace '{ws.name}': {why}")

    base, prefix = filesystems.split(ws.location)
    root = posixpath.normpath("/" + prefix.strip("/"))
    if listing and not table:  # a listing's '' is the root
        return base + root
    if jvm is not None:
        try:
            jvm.drillspark.catalog.WorkspacePaths.checkName(ws.name, table)
        except Exception as e:  # noqa: BLE001  (py4j's error carrying the rule's refusal)
            java = getattr(e, "java_exception", None)
            text = str(java.getMessage()) if java is not None else str(e)
            message = _refusal(Exception(text))
            if message is not None:
                raise WorkspaceError(message) from None
            raise
    elif not table.strip():
        raise refuse("empty path")
    if ws.allow_outside and filesystems.is_remote(table):
        return table
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", table):
        raise refuse("a URI scheme inside a table name names another file system")
    if _ENCODED.search(table):
        raise refuse("percent-encoded path syntax (%2e, %2f, %5c) is not allowed")
    candidate = posixpath.normpath(posixpath.join(root, table))
    candidate = "/" + candidate.lstrip("/")
    if not ws.allow_outside and not (
        candidate == root or candidate.startswith(root.rstrip("/") + "/")
    ):
        raise refuse(
            "absolute paths outside the workspace root are not allowed"
            if table.startswith("/")
            else "the path escapes the workspace root"
        )
    return base + candidate


def leads_out(spark: SparkSession, ws: Workspace, folder: str, name: str) -> bool:
    """Whether the entry `name` of the listed `folder` (a path `resolve(..., listing=True)`
    gave) leads out of the confined workspace `ws`: asked of the same rule, by the entry's
    name relative to the root. Only symlinks can (a plain entry of a folder that lies inside
    lies inside); a name the rule refuses for itself counts as leading out."""
    root = os.path.normpath(os.path.abspath(ws.location))
    relative = os.path.relpath(os.path.join(folder, name), root)
    try:
        resolve(spark, ws, relative, listing=True)
    except WorkspaceError:
        return True
    return False


def _resolve_in_jvm(jvm: Any, ws: Workspace, table: str, listing: bool = False) -> str:
    try:
        rule = "drillspark.catalog.WorkspacePaths." + (
            "resolveListing" if listing else "resolveLocal"
        )
        method = jvm_methods.static(jvm, rule)
        return str(method(ws.name, ws.location, bool(ws.allow_outside), table))
    except Exception as e:  # noqa: BLE001  (py4j's error, or PySpark's conversion of it)
        java = getattr(e, "java_exception", None)
        text = str(java.getMessage()) if java is not None else str(e)
        message = _refusal(e) or _refusal(Exception(text))
        if message is not None:
            raise WorkspaceError(shown(message, ws)) from None
        raise WorkspaceError(
            shown(
                f"table `{table}` cannot be resolved in workspace '{ws.name}': "
                f"{text.splitlines()[0]}",
                ws,
            )
        ) from None


def _roots(ws: Workspace) -> list[str]:
    """The workspace root as this machine spells it (as configured, absolute, real), longest
    first."""
    given = os.path.normpath(os.path.abspath(ws.location))
    spellings = {given, os.path.realpath(given), ws.location.rstrip(os.sep) or os.sep}
    return sorted((r for r in spellings if r not in ("", os.sep, ".")), key=len, reverse=True)


def shown(message: str, ws: Workspace) -> str:
    """A refusal as any user may read it (a server's users too): paths inside the workspace
    relative to its root, the root itself as "the workspace root", and nothing of where a
    symlink leads outside. The table name stays as the user wrote it."""
    marker = f" is refused in workspace '{ws.name}': "
    at = message.find(marker)
    if at < 0:
        return _relative(message, ws)
    head, why = message[: at + len(marker)], message[at + len(marker) :]
    escape = re.fullmatch(r"the path escapes the workspace root .*", why, re.S)
    absolute = re.fullmatch(r"absolute paths outside the workspace root .* are not allowed", why)
    if escape:
        why = "the path escapes the workspace root"
    elif absolute:
        why = "absolute paths outside the workspace root are not allowed"
    elif " links to " in why and ", outside the workspace root " in why:
        entry = why[: why.find(" links to ")]  # what follows names the target: dropped
        why = (
            f"{_relative(entry, ws)} links to a path outside the workspace root "
            "(symlinks may not lead out of a workspace)"
        )
    else:
        why = _relative(why, ws)
    return head + why


def _relative(text: str, ws: Workspace) -> str:
    """`text` with the workspace's paths relative to its root (`/srv/data/x/y` is `x/y`) and
    the root itself named as the workspace."""
    label = f"<workspace '{ws.name}'>"
    for root in _roots(ws):
        pattern = re.escape(root) + r"(?:/+|(?=[\s,;:'\"`)\]]|$))"
        text = re.sub(pattern, lambda m: "" if m.group(0).endswith("/") else label, text)
    return text


def _refusal(error: BaseException) -> str | None:
    params = getattr(error, "getMessageParameters", None)
    message = (params() or {}).get("errorMessage") if callable(params) else None
    if message is None:
        text = str(error)
        start = text.find("drill: table `")
        message = text[start:].splitlines()[0] if start >= 0 else None
    return message if message and "is refused in workspace" in message else None
