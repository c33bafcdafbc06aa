"""The server-wide state its REST API shows and changes: the `dfs` and `cp` storage plugins
(their workspaces and enabled flags) and the system options (`/options.json`, `POST
/option/{name}`), and the SqlSession each request runs with."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import Any

from drillspark.plugin_configs import PluginConfig, PluginConfigError, StoragePlugins
from drillspark.plugin_configs.file import FileConfig
from drillspark.plugin_configs.registry import supported_types
from drillspark.plugin_configs.state import PluginState
from drillspark.server.queries import ConfinedSession
from drillspark.server.shown_paths import location
from drillspark.sql.errors import TableNotFoundError, UnsupportedSqlError, ValidationError
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
    # plugins a query cannot read here (another type, or not yet wired), with the reason
    unqueryable: Mapping[str, str] = {}

    def resolve_table(self, parts: tuple[str, ...], check: bool = True) -> Any:
        if len(parts) > 1 and parts[0].lower() in self.unqueryable:
            raise UnsupportedSqlError(self.unqueryable[parts[0].lower()])
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
    """`workspaces`: the `dfs` workspaces the operator gave (they replace those of the same
    name the state kept); `storage`: Drill's {NAME: CONFIG} (a `--storage` file), applied last;
    `state_dir`: where the plugins users create or change are kept across restarts."""

    def __init__(
        self,
        workspaces: dict[str, str],
        storage: Mapping[str, Any] | None = None,
        state_dir: str | None = None,
    ):
        self._lock = threading.Lock()
        self.workspaces = with_default_workspaces(workspaces)
        self.disabled: set[str] = set()
        self.system_options: dict[str, object] = {}
        self.plugins = StoragePlugins(
            {"cp": FileConfig(_cp_config()), "dfs": FileConfig(_dfs_config(self.workspaces))},
            fixed=("cp", "dfs"),
            state=PluginState(state_dir) if state_dir else None,
        )
        given = {k.lower(): v for k, v in workspaces.items()}
        if given and self.plugins.state is not None:  # the command line wins for its names
            self.plugins.apply({"dfs": {"workspaces": _dfs_config(given)["workspaces"]}})
        if storage:
            self.plugins.apply(storage)
        self._derive()
        self.plugins.on_change = lambda name, config: self._derive()

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
            s.unqueryable = self._unqueryable
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
    def _derive(self) -> None:
        """The sessions' workspaces and the disabled plugins, from the plugins' configs."""
        dfs = self.plugins.get("dfs")
        assert isinstance(dfs, FileConfig)
        workspaces = {ws: spec["location"] for ws, spec in dfs.workspaces().items()}
        disabled = {n for n in self.plugins.names() if not self._config(n).enabled}
        unqueryable = {
            n.lower(): why for n in self.plugins.names() if (why := self.not_queryable(n))
        }
        with self._lock:
            self.workspaces = workspaces
            self.disabled = disabled
            self._unqueryable = unqueryable

    def _config(self, name: str) -> PluginConfig:
        config = self.plugins.get(name)
        if config is None:
            raise KeyError(name)
        return config

    def plugin_names(self) -> list[str]:
        return self.plugins.names()

    def plugin_json(self, name: str) -> dict[str, Any] | None:
        """Drill's {name, config}; secrets masked."""
        config = self.plugins.get(name)
        if config is None:
            return None
        return {"name": name, "config": config.to_json(masked=True)}

    def set_enabled(self, name: str, enabled: bool) -> None:
        self.plugins.set_enabled(name, enabled)

    def update_plugin(self, name: str, body: Any) -> None:
        """POST /storage/{name}.json: Drill's {"name", "config"} creates or replaces the plugin
        (a config without `type` merges into it). A local `file` plugin's workspaces must be
        existing folders; a config that fails leaves the previous one in force."""
        config = body.get("config") if isinstance(body, dict) else None
        if not isinstance(config, dict):
            raise ValidationError(f'expected {{"name": "{name}", "config": {{...}}}}')
        try:
            self.plugins.put(name, config, check=lambda c: _check_folders(name, c))
        except PluginConfigError as e:
            raise ValidationError(str(e)) from None

    def delete_plugin(self, name: str) -> bool:
        try:
            return self.plugins.delete(name)
        except PluginConfigError as e:
            raise ValidationError(str(e)) from None

    def not_queryable(self, name: str) -> str | None:
        """Why a query cannot read plugin `name` here, or None (dfs, cp: it can)."""
        if name in ("dfs", "cp"):
            return None
        config = self.plugins.get(name)
        if config is None:
            return None
        if not config.QUERYABLE:
            return (
                f"storage plugin '{name}' is of type '{config.type}', which drillspark does "
                f"not query (it queries these types: {supported_types()})"
            )
        return (
            f"storage plugin '{name}' ({config.type}) is configured, but drillspark's SQL "
            "reads only the dfs and cp plugins' tables for now"
        )


def _cp_config() -> dict[str, Any]:
    return {
        "type": "file",
        "connection": "classpath:///",
        "formats": CP_FORMATS,
        "authMode": "SHARED_USER",
        "enabled": True,
    }


def _dfs_config(workspaces: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "file",
        "connection": "file:///",
        "workspaces": {
            ws: {
                "location": location(path) or str(path),
                "writable": ws == "tmp",
                "defaultInputFormat": None,
                "allowAccessOutsideWorkspace": False,
            }
            for ws, path in workspaces.items()
        },
        "formats": FORMATS,
        "authMode": "SHARED_USER",
        "enabled": True,
    }


def _check_folders(name: str, config: PluginConfig) -> None:
    """A local file plugin's workspaces are existing folders (kept as their real paths)."""
    if not isinstance(config, FileConfig) or not config.local:
        return
    for ws, spec in (config.raw.get("workspaces") or {}).items():
        folder = spec.get("location")
        if not isinstance(folder, str) or not os.path.isdir(folder):
            raise PluginConfigError(
                f"storage plugin '{name}': workspace '{ws}': location {folder!r} is not an "
                "existing folder"
            )
        spec["location"] = os.path.realpath(folder)
