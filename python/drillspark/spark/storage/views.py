"""Drill view files: a view `v` of a workspace is the file `v.view.drill` in the workspace's
folder, a JSON object (pretty-printed as Drill's Jackson writer does):

    {"name": "v", "sql": "SELECT ...", "fields": [{"name", "type", "precision"?, "scale"?,
     "isNullable"}, ...], "workspaceSchemaPath": ["dfs", "tmp"]}

`fields` are the view's columns with Calcite type names (`ANY` for a column of a schema-free
table; a single `**` of type `DYNAMIC_STAR` for `SELECT *` over one); `workspaceSchemaPath` is
the default schema the SQL was written under. Drill and drillspark read each other's files."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drillspark.errors import ExecutionError

VIEW_SUFFIX = ".view.drill"


class ViewFileError(ExecutionError, ValueError):
    pass


@dataclass(frozen=True)
class ViewFile:
    name: str
    path: str
    sql: str
    fields: list[dict[str, Any]]
    schema_path: list[str]

    @property
    def dynamic(self) -> bool:
        """True for `SELECT *` over a schema-free table: the columns are known only when run."""
        return any(f.get("type") == "DYNAMIC_STAR" for f in self.fields)


def view_path(folder: str, name: str) -> str:
    return os.path.join(folder, name + VIEW_SUFFIX)


def read_view(path: str) -> ViewFile:
    """The view file at `path`; errors name it by its file name (never where it lies)."""
    shown = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ViewFileError(f"cannot read the view file {shown}: {e.strerror or e}") from None
    except ValueError as e:
        raise ViewFileError(f"cannot read the view file {shown}: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("sql"), str):
        raise ViewFileError(f"the view file {shown} has no 'sql'")
    name = os.path.basename(path)[: -len(VIEW_SUFFIX)]
    fields = data.get("fields") or []
    if not isinstance(fields, list) or not all(isinstance(x, dict) for x in fields):
        raise ViewFileError(f"the view file {shown} has a malformed 'fields' list")
    return ViewFile(
        str(data.get("name") or name),
        path,
        data["sql"],
        fields,
        [str(p) for p in data.get("workspaceSchemaPath") or []],
    )


def list_views(folder: str, leads_out: Callable[[str, str], bool] | None = None) -> list[ViewFile]:
    """The views of a workspace folder (its top level only, as Drill looks for them). In a
    confined workspace `leads_out(folder, name)` is the workspace rule's answer for a symlink:
    a view file that links out of the workspace is not one of its views (never read)."""
    out: list[ViewFile] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        if e.name.endswith(VIEW_SUFFIX) and not e.name.startswith(".") and e.is_file():
            if leads_out is not None and e.is_symlink() and leads_out(folder, e.name):
                continue
            try:
                out.append(read_view(e.path))
            except ViewFileError:
                continue  # an unreadable file is not a view; querying it names the problem
    return out


def write_view(
    path: str, name: str, sql: str, fields: list[dict[str, Any]], schema_path: list[str]
) -> None:
    """Write the view file in one step (a temporary file renamed into place)."""
    data = {"name": name, "sql": sql, "fields": fields, "workspaceSchemaPath": schema_path}
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(jackson_pretty(data))
    os.replace(tmp, path)


def jackson_pretty(value: Any, indent: int = 0) -> str:
    """JSON as Jackson's default pretty printer writes it (`"k" : v`, `[ {` ... `} ]`)."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{ }"
        items = [
            f"{pad}  {json.dumps(k)} : {jackson_pretty(v, indent + 1)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(jackson_pretty(v, indent) for v in value) + " ]"
    return json.dumps(value, ensure_ascii=False)
