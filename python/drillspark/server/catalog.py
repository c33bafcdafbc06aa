"""The server-wide state its REST API shows and changes: the storage plugins (Drill's
bootstrap `dfs` and `cp`, and those users add: their workspaces and enabled flags) and the system options (`/options.json`, `POST
/option/{name}`), and the SqlSession each request runs with."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from drillspark.formats import registry as format_registry
from drillspark.options import REGISTRY, SESSION, SYSTEM, OptionError
from drillspark.plugin_configs import PluginConfig, PluginConfigError, StoragePlugins
from drillspark.plugin_configs.bootstrap import (
    BUILT_IN,
    CLASSPATH_CONNECTION,
    CLASSPATH_PLUGIN,
    DEFAULT_TEMPORARY_WORKSPACE,
    FILE_PLUGIN,
    ROOT_WORKSPACE,
    TMP_WORKSPACE,
    WRITABLE_WORKSPACES,
)
from drillspark.plugin_configs.file import FileConfig
from drillspark.plugin_configs.registry import config_from_json, drill_ships, supported_types
from drillspark.plugin_configs.state import PluginState
from drillspark.server.queries import ConfinedSession
from drillspark.server.shown_paths import location
from drillspark.sql.errors import UnsupportedSqlError, ValidationError
from drillspark.sql.session import SQL_READS, SqlSession, with_default_workspaces

# the option the server itself reads (drillspark.options: effect SERVER)
VERBOSE_ERRORS = "drill.exec.http.rest.errors.verbose"


# The formats drillspark reads of Drill 1.22's bootstrap `dfs`, in the order its /storage
# answers list them (its `dfs` also has `sequencefile`, which drillspark does not read), from
# the one list of formats (drillspark/formats/registry.py)
FORMATS: dict[str, Any] = format_registry.bootstrap_formats(contrib=False, readable=True)
CP_FORMATS = {name: FORMATS[name] for name in ("parquet", "avro", "json", "csvh", "tsv", "csv")}


class DisablingSession(ConfinedSession):
    """A ConfinedSession in which the plugins the catalog disabled cannot be read: a disabled
    built-in one is no `home` / `classpath` of the session (its names resolve nowhere, as in
    drillspark.sql), and a table name under any disabled plugin says how to enable it."""

    # plugins a query cannot read here (disabled, another type, or not yet wired), with the reason
    unqueryable: Mapping[str, str] = {}

    def resolve_table(self, parts: tuple[str, ...], check: bool = True) -> Any:
        if len(parts) > 1 and parts[0].lower() in self.unqueryable:
            raise UnsupportedSqlError(self.unqueryable[parts[0].lower()])
        return super().resolve_table(parts, check)


class Catalog:
    """`workspaces`: the home file plugin's (`dfs`) workspaces the operator gave (they replace those of the same
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
        self.dfs_formats: dict[str, Any] = {}
        self.dfs_default_formats: dict[str, str] = {}
        self.system_options: dict[str, object] = {}
        # Drill's drill.exec.default_temporary_workspace (the server's Spark setting)
        self.temporary_workspace = DEFAULT_TEMPORARY_WORKSPACE
        self.plugins = StoragePlugins(
            {
                CLASSPATH_PLUGIN: FileConfig(_cp_config()),
                FILE_PLUGIN: FileConfig(_dfs_config(self.workspaces)),
                **_drill_ships(),
            },
            fixed=BUILT_IN,
            state=PluginState(state_dir) if state_dir else None,
        )
        given = {k.lower(): v for k, v in workspaces.items()}
        if given and self.plugins.state is not None:  # the command line wins for its names
            self.plugins.apply(
                {FILE_PLUGIN: {"workspaces": _dfs_config(given)["workspaces"]}}, keep=False
            )
        if storage:
            self.plugins.apply(storage, keep=False)
        self._derive()
        # who else hears of a plugin's change (the server: its `file` plugins' Spark catalogs)
        self.listeners: list[Callable[[str, PluginConfig | None], None]] = []
        self.plugins.on_change = self._changed

    def _changed(self, name: str, config: PluginConfig | None) -> None:
        self._derive()
        for listener in list(self.listeners):
            listener(name, config)

    # --------------------------------------------------------------- sessions
    def session(
        self, default_schema: tuple[str, ...] | None, options: dict[str, object]
    ) -> SqlSession:
        """A fresh SqlSession with the catalog's workspaces, the system options, its own
        `options` (an HTTP session's and a request's, checked when they were set), and the
        default schema (checked again: a workspace may be gone)."""
        with self._lock:
            s = DisablingSession(workspaces=dict(self.workspaces))
            s.formats = dict(self.dfs_formats)
            s.default_formats = dict(self.dfs_default_formats)
            # the built-in plugins, unless disabled (then the session does without them)
            s.home = None if FILE_PLUGIN in self.disabled else FILE_PLUGIN
            s.classpath = None if CLASSPATH_PLUGIN in self.disabled else CLASSPATH_PLUGIN
            s.unqueryable = self._unqueryable
            s.plugins = dict(self._sql_plugins)
            s.system_options = dict(self.system_options)
            s.temporary_workspace = self.temporary_workspace
            # storage.plugin_auto_disable: a plugin that failed to start is disabled here too
            s.on_auto_disable = lambda name: self.set_enabled(name, False)
        for name, value in options.items():
            s.set_option(name, value)
        if default_schema is not None:
            s.use(default_schema)
        return s

    def example_schema(self) -> str:
        """A schema of this server for the console's examples (the query page's default schema
        and SQL): a workspace of the home plugin or of another `file` plugin, one the operator
        configured before the built-in `root` and `tmp`; never a disabled or missing plugin."""
        session = self.session(None, {})
        shown = [
            name
            for name in session.schemas()
            if "." in name and name.split(".", 1)[0] != session.classpath
        ]
        built_in = (ROOT_WORKSPACE, TMP_WORKSPACE, "default")
        configured = [name for name in shown if name.split(".", 1)[1] not in built_in]
        return next(iter(configured or shown), "plugin.workspace")

    def request_options(self, options: dict[str, Any]) -> dict[str, object]:
        """A request's `options` by Drill's names, each value in its option's kind: Drill
        reads them as text (`{"store.json.all_text_mode": "true"}` works as `true`, `1` as
        "1"), as session options; a value its option cannot take fails the request
        (ValidationError with Drill's words). A null sets nothing."""
        out: dict[str, object] = {}
        for name, value in options.items():
            try:
                option = REGISTRY[str(name)]
                if value is None:
                    continue
                if isinstance(value, dict | list):
                    raise OptionError(
                        f"'{json.dumps(value)}' is not a valid value for option '{name}' of "
                        f"type {option.KIND}"
                    )
                text = value if isinstance(value, str) else json.dumps(value)
                out[option.name] = REGISTRY.parsed(str(name), text, SESSION)[1]
            except OptionError as e:
                raise ValidationError(e.message) from None
        return out

    # --------------------------------------------------------------- options
    def options_json(self, internal: bool = False) -> list[dict[str, Any]]:
        """/options.json (/internal_options.json with `internal`), as Drill 1.22's: every
        option of the registry, with its system value."""
        with self._lock:
            system = dict(self.system_options)
        return [
            {
                "name": o.name,
                "value": system.get(o.name, o.default),
                "defaultValue": o.text(o.default),
                "accessibleScopes": o.scopes,
                "kind": o.KIND,
                "optionScope": "SYSTEM" if o.name in system else "BOOT",
            }
            for o in REGISTRY.listed(internal)
        ]

    def set_system_option(self, name: str, value: Any, kind: str | None = None) -> object:
        """ALTER SYSTEM SET (a SQL literal's value) or POST /option/{name} (the form's text
        and `kind`): checked as Drill checks it; a value equal to the default is dropped (the
        option shows BOOT again)."""
        try:
            option = REGISTRY[name]
            if kind and kind.upper() != option.KIND:
                raise OptionError(
                    f"Option {option.name} must be of type {option.KIND} but you tried to set "
                    f"to {kind.upper()}."
                )
            option, checked = REGISTRY.checked(name, value, SYSTEM)
        except OptionError as e:
            raise ValidationError(e.message) from None
        with self._lock:
            if checked == option.default:
                self.system_options.pop(option.name, None)
            else:
                self.system_options[option.name] = checked
        return checked

    def reset_system_option(self, name: str) -> None:
        """ALTER SYSTEM RESET of one option (`name`) or all (''): Drill refuses a name it
        does not know."""
        try:
            names = [REGISTRY[name].name] if name else None
        except OptionError as e:
            raise ValidationError(e.message) from None
        with self._lock:
            for n in names if names is not None else list(self.system_options):
                self.system_options.pop(n, None)

    # --------------------------------------------------------------- storage
    def _derive(self) -> None:
        """The sessions' workspaces and the disabled plugins, from the plugins' configs."""
        dfs = self.plugins.get(FILE_PLUGIN)
        assert isinstance(dfs, FileConfig)
        workspaces = {ws: spec["location"] for ws, spec in dfs.workspaces().items()}
        formats = dict(dfs.raw.get("formats") or {})  # the sessions' dfs formats configs
        default_formats = {
            ws: str(spec["defaultInputFormat"])
            for ws, spec in dfs.workspaces().items()
            if spec.get("defaultInputFormat")
        }
        disabled = {n for n in self.plugins.names() if not self._config(n).enabled}
        unqueryable = {
            n.lower(): why for n in self.plugins.names() if (why := self.not_queryable(n))
        }
        with self._lock:
            self.workspaces = workspaces
            self.dfs_formats = formats
            self.dfs_default_formats = default_formats
            self.disabled = disabled
            self._unqueryable = unqueryable
            self._sql_plugins = {
                n: c.raw
                for n in self.plugins.names()
                if (c := self._config(n)).type in SQL_READS
                and n not in unqueryable
                and n not in BUILT_IN  # the sessions' workspaces and cp_root
            }

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
        """Why a query cannot read plugin `name` here, or None (dfs, cp, when enabled: it can)."""
        config = self.plugins.get(name)
        if config is None:
            return None
        if not config.QUERYABLE:
            return (
                f"storage plugin '{name}' is of type '{config.type}', which drillspark does "
                f"not query (it queries these types: {supported_types()})"
            )
        if not config.enabled:
            return f"schema '{name}' is disabled (GET /storage/{name}/enable/true enables it)"
        if name in BUILT_IN or config.type in SQL_READS:
            return None
        return (
            f"storage plugin '{name}' ({config.type}) is configured, but drillspark's SQL "
            f"reads only the {FILE_PLUGIN} and {CLASSPATH_PLUGIN} plugins' tables for now"
        )


def _drill_ships() -> dict[str, PluginConfig]:
    """The disabled plugins Drill ships beside cp and dfs (`s3`, `mongo`, ...), as a Drill
    user finds them on the Storage page: a `file` one with Drill's core formats."""
    out = {}
    for name, raw in drill_ships().items():
        if raw.get("type") == "file":
            raw.setdefault("formats", format_registry.bootstrap_formats(contrib=False))
        out[name] = config_from_json(name, raw)
    return out


def _cp_config() -> dict[str, Any]:
    return {
        "type": "file",
        "connection": CLASSPATH_CONNECTION,
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
                "location": location(path),
                "writable": ws in WRITABLE_WORKSPACES,
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
