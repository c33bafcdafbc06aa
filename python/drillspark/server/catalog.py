"""The server-wide state its REST API shows and changes: the `dfs` and `cp` storage plugins
(their workspaces and enabled flags) and the system options (`/options.json`, `POST
/option/{name}`), and the SqlSession each request runs with."""

from __future__ import annotations

import os
import threading
from typing import Any

from drillspark.server.queries import ConfinedSession
from drillspark.sql.errors import TableNotFoundError, ValidationError
from drillspark.sql.session import OPTION_DEFAULTS, SqlSession, with_default_workspaces

VERBOSE_ERRORS = "drill.exec.http.rest.errors.verbose"
# Options the server itself reads (the SQL layer never sees them)
SERVER_OPTIONS: dict[str, object] = {VERBOSE_ERRORS: False}


def _text(extension: str, delimiter: str, **more: Any) -> dict[str, Any]:
    """A text format as Drill's bootstrap config lists it (its members in Drill's order)."""
    return {
        "type": "text",
        "extensions": [extension],
        "lineDelimiter": "\n",
        "fieldDelimiter": delimiter,
        "quote": '"',
        "escape": '"',
        "comment": "#",
        **more,
    }


# The formats drillspark reads, in the order Drill 1.22's /storage answers list them (its
# `dfs` also has `sequencefile`, which drillspark does not read)
FORMATS: dict[str, Any] = {
    "parquet": {"type": "parquet"},
    "json": {"type": "json", "extensions": ["json"]},
    "csvh": _text("csvh", ",", extractHeader=True),
    "psv": _text("tbl", "|"),
    "avro": {"type": "avro", "extensions": ["avro"]},
    "tsv": _text("tsv", "\t"),
    "csv": _text("csv", ","),
}
CP_FORMATS = {name: FORMATS[name] for name in ("parquet", "avro", "json", "csvh", "tsv", "csv")}


class DisablingSession(ConfinedSession):
    """A ConfinedSession in which the plugins the catalog disabled cannot be read."""

    disabled: frozenset[str] = frozenset()

    def resolve_table(self, parts: tuple[str, ...], check: bool = True) -> Any:
        table = super().resolve_table(parts, check)
        if table.plugin in self.disabled:
            raise TableNotFoundError(
                f"schema '{table.plugin}' is disabled "
                f"(GET /storage/{table.plugin}/enable/true enables it)"
            )
        return table


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "LONG"
    if isinstance(value, float):
        return "DOUBLE"
    return "STRING"


def _default_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def parse_option_value(value: Any, kind: str | None, default: object) -> object:
    """A value from a form or JSON in the type of the option (`kind` as Drill's options
    form sends it, else the type of the default)."""
    kind = (kind or _kind(default)).upper()
    if isinstance(value, str):
        text = value.strip()
        if kind == "BOOLEAN":
            if text.lower() not in ("true", "false"):
                raise ValidationError(f"expected true or false, not {value!r}")
            return text.lower() == "true"
        if kind == "LONG":
            try:
                return int(text)
            except ValueError:
                raise ValidationError(f"expected an integer, not {value!r}") from None
        if kind == "DOUBLE":
            try:
                return float(text)
            except ValueError:
                raise ValidationError(f"expected a number, not {value!r}") from None
        return value
    return value


class Catalog:
    def __init__(self, workspaces: dict[str, str]):
        self._lock = threading.Lock()
        self.workspaces = with_default_workspaces(workspaces)
        self.disabled: set[str] = set()
        self.system_options: dict[str, object] = {}

    # --------------------------------------------------------------- sessions
    def session(
        self,
        default_schema: tuple[str, ...] | None,
        options: dict[str, object],
        system: bool = True,
    ) -> SqlSession:
        """A fresh SqlSession with the catalog's workspaces, the system options (unless
        `system` is false) overlaid by `options`, and the default schema (checked again: a
        workspace may be gone)."""
        with self._lock:
            s = DisablingSession(workspaces=dict(self.workspaces))
            s.disabled = frozenset(self.disabled)
            merged = {**(self.system_options if system else {}), **options}
        for name, value in merged.items():
            if name not in SERVER_OPTIONS:
                s.set_option(name, value)
        if default_schema is not None:
            s.use(default_schema)
        return s

    def request_options(self, options: dict[str, Any]) -> dict[str, object]:
        """A request's `options`, names in lower case and values in their option's type:
        Drill reads them as text (`{"store.json.all_text_mode": "true"}` works as `true`),
        and a value its option cannot take fails the request (ValidationError)."""
        known = {**OPTION_DEFAULTS, **SERVER_OPTIONS}
        out: dict[str, object] = {}
        for name, value in options.items():
            name = str(name).lower()
            default = known.get(name)
            out[name] = value if default is None else parse_option_value(value, None, default)
        return out

    # --------------------------------------------------------------- options
    def options_json(self) -> list[dict[str, Any]]:
        with self._lock:
            system = dict(self.system_options)
        out = []
        for name, default in sorted({**OPTION_DEFAULTS, **SERVER_OPTIONS}.items()):
            value = system.get(name, default)
            out.append(
                {
                    "name": name,
                    "value": value,
                    "defaultValue": _default_text(default),
                    "accessibleScopes": "ALL",
                    "kind": _kind(default),
                    "optionScope": "SYSTEM" if name in system else "BOOT",
                }
            )
        return out

    def set_system_option(self, name: str, value: Any, kind: str | None) -> object:
        name = name.lower()
        default = {**OPTION_DEFAULTS, **SERVER_OPTIONS}.get(name)
        parsed = parse_option_value(value, kind, default)
        if name in SERVER_OPTIONS:
            if not isinstance(parsed, type(SERVER_OPTIONS[name])):
                raise ValidationError(f"option '{name}' takes a {_kind(SERVER_OPTIONS[name])}")
        else:
            SqlSession().set_option(name, parsed)  # validates name and type
        with self._lock:
            if default is not None and parsed == default:
                self.system_options.pop(name, None)
            else:
                self.system_options[name] = parsed
        return parsed

    # --------------------------------------------------------------- storage
    def plugin_names(self) -> list[str]:
        return ["cp", "dfs"]

    def plugin_json(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            if name == "cp":
                config: dict[str, Any] = {
                    "type": "file",
                    "connection": "classpath:///",
                    "formats": CP_FORMATS,
                    "authMode": "SHARED_USER",
                }
            elif name == "dfs":
                workspaces = {
                    ws: {
                        "location": path,
                        "writable": ws == "tmp",
                        "defaultInputFormat": None,
                        "allowAccessOutsideWorkspace": False,
                    }
                    for ws, path in self.workspaces.items()
                }
                config = {
                    "type": "file",
                    "connection": "file:///",
                    "workspaces": workspaces,
                    "formats": FORMATS,
                    "authMode": "SHARED_USER",
                }
            else:
                return None
            if name not in self.disabled:
                config["enabled"] = True
        return {"name": name, "config": config}

    def set_enabled(self, name: str, enabled: bool) -> None:
        if name not in self.plugin_names():
            raise KeyError(name)
        with self._lock:
            (self.disabled.discard if enabled else self.disabled.add)(name)

    def update_plugin(self, name: str, body: Any) -> None:
        """POST /storage/dfs.json: the workspaces of `dfs` (each an existing folder);
        `enabled` is honoured; other members of the config are Drill's and ignored."""
        if name != "dfs":
            raise ValidationError(f"only the dfs plugin's workspaces can be changed, not '{name}'")
        config = body.get("config") if isinstance(body, dict) else None
        if not isinstance(config, dict):
            raise ValidationError('expected {"name": "dfs", "config": {...}}')
        workspaces = config.get("workspaces")
        if not isinstance(workspaces, dict) or not workspaces:
            raise ValidationError("config.workspaces must be an object of workspaces")
        new: dict[str, str] = {}
        for ws, spec in workspaces.items():
            location = spec.get("location") if isinstance(spec, dict) else None
            if not isinstance(location, str) or not os.path.isdir(location):
                raise ValidationError(
                    f"workspace '{ws}': location {location!r} is not an existing folder"
                )
            new[str(ws).lower()] = os.path.realpath(location)
        with self._lock:
            self.workspaces = new
            if config.get("enabled") is False:
                self.disabled.add("dfs")
            elif config.get("enabled") is True:
                self.disabled.discard("dfs")
