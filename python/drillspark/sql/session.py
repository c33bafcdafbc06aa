"""Session state of the SQL front end: workspaces of its home file plugin (Drill's `dfs`), the
default schema set by USE, and the Drill options set by ALTER SESSION."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drillspark.names import fold
from drillspark.options import PLAN_HEAD, REGISTRY, SERVER, SESSION, SYSTEM, Option, OptionError
from drillspark.plugin_configs import bootstrap, enabled
from drillspark.rules import json_options
from drillspark.sql import temporary
from drillspark.sql.errors import TableNotFoundError, ValidationError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Session option -> the JSON format-config key it overrides in each scan (a table function's
# own option wins over the session's): the table the extension reads too.
JSON_FORMAT_OPTIONS = {o.session: o.spellings[0] for o in json_options() if o.session}

ISCHEMA = "information_schema"
SYS = "sys"


# Drill's sample data, served by the classpath plugin (`cp`) as Drill serves it from its classpath: the FoodMart JSON
# files (`employee.json`, `department.json`, ...) of net.hydromatic:foodmart-data-json:0.4, the
# artifact Drill 1.22 ships (Apache License 2.0), which tools/fetch_cp_data.py fetches into the
# package (`make setup`, and the wheel build).
CP_FOLDER = "cp"  # a folder of the package, not a plugin's name


def default_cp_root() -> Path:
    return Path(__file__).resolve().parent.parent / CP_FOLDER


@dataclass
class ResolvedTable:
    """A table reference resolved to a file or directory."""

    plugin: str
    workspace: str
    name: str
    path: str

    @property
    def display(self) -> str:
        return f"{self.plugin}.{self.workspace}.`{self.name}`"


def with_default_workspaces(workspaces: dict[str, Any]) -> dict[str, Any]:
    """`workspaces` (names lower-cased) with the two Drill's bootstrap `dfs` has unless configured:
    `root`, the current directory, and `tmp`, /tmp. The one place of that rule: the SQL
    session, the server's catalog and the CLI (which compares a found server's workspaces
    with a local run's) all apply it."""
    out = {k.lower(): v for k, v in workspaces.items()}
    out.setdefault(bootstrap.ROOT_WORKSPACE, os.getcwd())
    out.setdefault(bootstrap.TMP_WORKSPACE, bootstrap.TMP_LOCATION)
    return out


# plugin types (beside the session's home and classpath file plugins) whose tables SQL reads by name:
# `pg.public.orders` (SqlSession.plugins; catalog.plugin_scan), ``s3.root.`logs/x.json` ``
# (a `file` plugin: its workspaces are schemas, SqlSession.file_workspace)
SQL_READS = ("jdbc", "file", "http", "mongo", "kafka")
# Drill's answer to a statement needing the default schema when none is set
NO_DEFAULT_SCHEMA = "No default schema selected. Select a schema using 'USE schema' command"
FILE = "file"
# Drill's SYSTEM option: a plugin that fails to start is disabled (false: it stays, failing)
AUTO_DISABLE = "storage.plugin_auto_disable"
# a `file` plugin's workspace when its config names none: Drill's `default`, the root, read-only
DEFAULT_WORKSPACE = {"location": "/", "writable": False, "allowAccessOutsideWorkspace": False}


def refuse_foreign_temporary(
    session: SqlSession, plugin: str, workspace: str, name: str, path: str
) -> None:
    """Another session's temporary tables are not there for this one, by any path."""
    if temporary.foreign_owner(session, path) is not None:
        raise TableNotFoundError(
            f"table '{plugin}.{workspace}.{name}' not found: it lies in another session's "
            "temporary tables"
        )


@dataclass
class SqlSession:
    """What USE / ALTER SESSION change. `workspaces` are the workspaces of the home file plugin
    `home` (Drill's `dfs`; name -> folder, or a Drill workspace config `{"location": ...,
    "allowAccessOutsideWorkspace": true}`); `root` is where `dfs.`relative/path`` resolves
    (the working directory by default).
    Table names stay inside their workspace (docs/security.md): only `root`, when no workspace
    was configured, reaches outside it (absolute paths, `..`), as Drill's root `/` does."""

    workspaces: dict[str, Any] = field(default_factory=dict)
    cp_root: str = field(default_factory=lambda: str(default_cp_root()))
    default_schema: tuple[str, ...] | None = None
    # who runs the statements (USER / SESSION_USER): Drill's name for a user without login
    user: str = "anonymous"
    # the options this session set (ALTER SESSION, SET, a REST request's), by Drill's name;
    # `system_options`: the server's (ALTER SYSTEM), which this session falls back to
    options: dict[str, object] = field(default_factory=dict)
    system_options: dict[str, object] = field(default_factory=dict)
    # workspace -> whether names may leave it (Drill's allowAccessOutsideWorkspace)
    outside: dict[str, bool] = field(default_factory=dict)
    # the Spark session whose extension resolves workspace paths (SqlEngine sets it)
    spark_provider: Callable[[], SparkSession] | None = field(
        default=None, repr=False, compare=False
    )
    # storage plugins beside `dfs` and `cp` that SQL reads (`jdbc` and `file` ones): name ->
    # Drill's config, secrets included (never shown: the plan carries them masked)
    plugins: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    # the ports a server that runs the statements listens on (sys.drillbits): http, user
    ports: dict[str, int] = field(default_factory=dict)
    # the `dfs` plugin's own `formats` configs (name -> Drill's format config; drillspark/
    # formats/registry.py adds Drill's bootstrap ones)
    formats: dict[str, dict[str, Any]] = field(default_factory=dict)
    # a `dfs` workspace's `defaultInputFormat` (a `formats` name): files no extension types
    default_formats: dict[str, str] = field(default_factory=dict)
    # Drill's boot option drill.exec.default_temporary_workspace: the writable workspace
    # (`plugin.workspace`, of `dfs` or any `file` plugin, on S3 or HDFS too) that CREATE
    # TEMPORARY TABLE writes to and a temporary table's name resolves in
    temporary_workspace: str = bootstrap.DEFAULT_TEMPORARY_WORKSPACE
    # who else disables a plugin that failed to start, with storage.plugin_auto_disable on
    # (the server: its registry, as REST's enable/false); the session drops it either way
    on_auto_disable: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    # the plugin whose workspaces are `workspaces` (Drill's bootstrap `dfs`), and the one that
    # serves `cp_root` (`cp`); None: disabled (storage={"cp": {"enabled": false}})
    home: str | None = bootstrap.FILE_PLUGIN
    classpath: str | None = bootstrap.CLASSPATH_PLUGIN

    def __post_init__(self) -> None:
        from drillspark.spark.storage.workspaces import workspace_of

        configured = bool(self.workspaces)
        given = {k.lower(): workspace_of(k.lower(), v) for k, v in self.workspaces.items()}
        self.outside = {k: ws.allow_outside for k, ws in given.items()} | self.outside
        # without a configured root, `dfs.root` is the current directory when a statement runs
        self.root_follows_cwd = bootstrap.ROOT_WORKSPACE not in given
        self.workspaces = with_default_workspaces({k: ws.location for k, ws in given.items()})
        self.outside.setdefault(bootstrap.ROOT_WORKSPACE, not configured)

    def follow_cwd(self) -> None:
        """Point `dfs.root` at the current directory again (a notebook may chdir between
        statements) unless the session was given a root."""
        if self.root_follows_cwd:
            self.workspaces[bootstrap.ROOT_WORKSPACE] = os.getcwd()

    # --- options (declared in drillspark.options) ----------------------------------------
    def option(self, name: str) -> object:
        option = REGISTRY.get(name)
        return None if option is None else self.option_setting(option)[0]

    def option_setting(self, option: Option) -> tuple[object, str]:
        """The value of `option` here and the scope that set it (SESSION, SYSTEM or BOOT)."""
        if option.name in self.options:
            return self.options[option.name], "SESSION"
        if option.name in self.system_options:
            return self.system_options[option.name], "SYSTEM"
        return option.default, "BOOT"

    def set_option(self, name: str, value: object, scope: str = SESSION) -> None:
        """SET / ALTER SESSION (or ALTER SYSTEM: `scope`; here it sets the session's value) of a
        SQL literal's value, checked as Drill checks it. As in Drill, a value equal to what the
        session would have without it (the system's, or the default) is not kept."""
        try:
            option, checked = REGISTRY.checked(name, value, scope)
        except OptionError as e:
            raise ValidationError(e.message) from None
        self.options.pop(option.name, None)
        if checked != self.option_setting(option)[0]:
            self.options[option.name] = checked

    def reset(self, name: str, scope: str = SESSION) -> None:
        """RESET of one option (`name`) or all: ALTER SESSION RESET of a name Drill does not
        know does nothing, ALTER SYSTEM RESET refuses it."""
        if name:
            option = REGISTRY.get(name)
            if option is None and scope == SYSTEM:
                raise ValidationError(f"The option '{name.lower()}' does not exist.")
            self.options.pop(option.name if option else name.lower(), None)
        else:
            self.options.clear()

    def changed_options(self) -> dict[str, object]:
        return {**self.system_options, **self.options}

    def plan_options(self) -> dict[str, object]:
        """A plan's head.options: the options every plan lists (PLAN_HEAD), then those this
        session or the system changed, but the server's own (the plan never reads them)."""
        out = {name: self.option(name) for name in PLAN_HEAD}
        for name, value in self.changed_options().items():
            if REGISTRY[name].effect != SERVER:
                out[name] = value
        return out

    # --- plugins that fail to start ------------------------------------------------------
    def auto_disables(self) -> bool:
        """Drill's SYSTEM option storage.plugin_auto_disable (false unless set)."""
        return self.option(AUTO_DISABLE) is True

    def plugin_failed(self, plugin: str, message: str) -> str:
        """`message` (a plugin that cannot start: its database or file system does not
        answer, its driver is missing) as the statement's error. With storage.plugin_auto_disable
        on, the plugin is disabled first, as Drill 1.22 disables it, and the message says so
        in Drill's words; its names resolve nowhere from then on."""
        if not self.auto_disables() or plugin not in self.plugins:
            return message
        self.plugins.pop(plugin, None)
        if self.on_auto_disable is not None:
            self.on_auto_disable(plugin)
        return (
            f"{message}\n\nThe plugin {plugin} will now be disabled "
            f"(see SYSTEM option {AUTO_DISABLE})"
        )

    # --- schemas -------------------------------------------------------------------------
    def built_ins(self) -> tuple[str, ...]:
        """The names of the home and classpath plugins (those enabled)."""
        return tuple(n for n in (self.home, self.classpath) if n is not None)

    def home_workspaces(self) -> dict[str, Any]:
        """The home plugin's workspaces (none when it is disabled)."""
        return self.workspaces if self.home is not None else {}

    def schemas(self) -> list[str]:
        names = [f"{self.classpath}.default"] if self.classpath is not None else []
        if self.home is not None:
            names += [self.home] + [f"{self.home}.{w}" for w in sorted(self.workspaces)]
        for plugin in sorted(self.file_plugins()):
            names += [plugin] + [f"{plugin}.{w}" for w in sorted(self.file_workspaces(plugin))]
        return names

    # --- file plugins beside home and classpath (s3a://bucket, another local folder) ------
    def file_plugins(self) -> list[str]:
        """The `file` plugins SQL reads beside the home and classpath ones (which the session
        holds as its workspaces and cp_root)."""
        return [
            n
            for n, c in self.plugins.items()
            if c.get("type") == FILE and n not in self.built_ins()
        ]

    def file_workspaces(self, plugin: str) -> dict[str, dict[str, Any]]:
        """A file plugin's workspaces (names lower-cased) with Drill's defaults; `default` is
        the root unless configured."""
        config = self.plugins.get(plugin) or {}
        out = {
            str(ws).lower(): {**DEFAULT_WORKSPACE, **(spec if isinstance(spec, dict) else {})}
            for ws, spec in (config.get("workspaces") or {}).items()
        }
        out.setdefault("default", dict(DEFAULT_WORKSPACE))
        return out

    def file_workspace(self, plugin: str, workspace: str) -> Any:
        """The confinement Workspace of `plugin.workspace` (a file plugin's): its location on
        the plugin's file system (`s3a://bucket/prefix`, or a local folder), named as Drill
        names the schema. The plugin's Hadoop settings are set for it first (scoped to it)."""
        from drillspark.spark.storage import filesystems
        from drillspark.spark.storage.workspaces import Workspace

        config = self.plugins[plugin]
        spec = self.file_workspaces(plugin)[workspace]
        connection = str(config.get("connection") or "file:///")
        location = str(spec.get("location") or "/")
        if filesystems.is_remote(connection):
            try:
                filesystems.configure(self._spark(), plugin, connection, config.get("config") or {})
            except filesystems.FileSystemError as e:
                raise ValidationError(str(e)) from None
            location = filesystems.join(connection, location)
        outside = spec.get("allowAccessOutsideWorkspace") in (True, "true")
        return Workspace(f"{plugin}.{workspace}", location, outside)

    def file_writable(self, plugin: str, workspace: str) -> bool:
        spec = self.file_workspaces(plugin).get(workspace) or {}
        return spec.get("writable") in (True, "true")

    def schema_part(self, part: str) -> str:
        """A part of a schema path as the session names it: a plugin, a metadata schema, a
        workspace or `default`, in any spelling that is one name with it (`fold`, as Spark's
        resolver compares), becomes that name as Drill shows it; any other part is lower-cased
        (how it is shown in errors)."""
        key = fold(part)
        workspaces = [w for p in self.file_plugins() for w in self.file_workspaces(p)]
        for name in (
            *self.built_ins(),
            *self.plugins,
            ISCHEMA,
            SYS,
            "default",
            *self.home_workspaces(),
            *workspaces,
        ):
            if fold(name) == key:
                return name
        return part.lower()

    def use(self, schema: tuple[str, ...]) -> str:
        """`USE schema` (and a client's default schema): the session's default schema set, the
        name Drill's answer shows returned; a schema that is not there is refused."""
        metadata = self.schema_part(schema[0]) if schema else ""
        if metadata in (ISCHEMA, SYS) and all(p == "" for p in schema[1:]):
            # the metadata schemas have no workspace (kept as (name, ""), which a server's
            # session gives back here); their tables are looked up by catalog.named_table
            self.default_schema = (metadata, "")
            return metadata
        full = self._schema(schema)
        self.default_schema = full
        if len(schema) == 1 and full[0] in self.file_plugins():
            return full[0]  # Drill 1.22: `USE mydata` is "[mydata]", its default workspace
        return ".".join(full)

    def _schema(self, schema: tuple[str, ...]) -> tuple[str, ...]:
        parts = tuple(schema)
        names = tuple(self.schema_part(p) for p in parts)
        if names and names[0] in self.built_ins():
            plugin = names[0]
            if len(names) == 1:
                return (plugin, bootstrap.ROOT_WORKSPACE if plugin == self.home else "default")
            if len(names) == 2 and (plugin == self.classpath or names[1] in self.workspaces):
                return (plugin, names[1])
        elif names and names[0] in self.file_plugins() and len(names) <= 2:
            workspace = names[1] if len(names) == 2 else "default"
            if workspace in self.file_workspaces(names[0]):
                return (names[0], workspace)
        elif len(names) == 1 and self.home is not None and names[0] in self.workspaces:
            return (self.home, names[0])
        raise ValidationError(
            f"schema [{'.'.join(parts)}] is not valid with respect to either "
            f"root schema or current default schema; known: "
            f"{', '.join(self.schemas())}"
        )

    def schema_folder(self, schema: tuple[str, ...] | None) -> tuple[tuple[str, ...], str]:
        """(plugin, workspace) and the folder of `schema` (or of the default schema: none set
        and no home plugin to default to is Drill's "No default schema selected")."""
        if schema is None and self.default_schema is None and self.home is None:
            raise ValidationError(NO_DEFAULT_SCHEMA)
        default = self.default_schema or (self.home or "", bootstrap.ROOT_WORKSPACE)
        full = default if schema is None else self._schema(schema)
        if full[0] == self.classpath:
            return full, self.cp_root
        if full[0] in self.file_plugins():
            return full, self.file_workspace(full[0], full[1]).location
        return full, self.workspaces[full[1]]

    def take_storage(self, storage: dict[str, Any]) -> None:
        """Drill's plugin configs given to the session (drillspark.session(storage=...)):
        the home plugin's (`dfs`) workspaces join this session's, `jdbc` plugins and other
        `file` plugins (`s3a://bucket`, another folder) become schemas; a disabled plugin
        (plugin_configs.enabled: typed or partial, the home or classpath plugin too) resolves
        nowhere, as in Drill; another plugin SQL cannot read yet is
        refused, saying so."""
        for name, config in storage.items():
            kind = config.get("type")
            if not enabled(config):  # resolves nowhere, as a disabled plugin in Drill
                if name == self.home:
                    self.home = None
                elif name == self.classpath:
                    self.classpath = None
                self.plugins.pop(name, None)
            elif name == self.home and kind in (None, FILE):
                for ws, spec in (config.get("workspaces") or {}).items():
                    spec = spec if isinstance(spec, dict) else {"location": spec}
                    self.workspaces[ws.lower()] = os.path.abspath(spec.get("location", "/"))
                    self.outside[ws.lower()] = spec.get("allowAccessOutsideWorkspace") is True
                    if spec.get("defaultInputFormat"):
                        self.default_formats[ws.lower()] = str(spec["defaultInputFormat"])
                self.formats.update(config.get("formats") or {})
            elif kind in SQL_READS and name not in self.built_ins():
                if kind == FILE:
                    from drillspark.plugin_configs import PluginConfigError, config_from_json

                    try:
                        config_from_json(name, config)
                    except PluginConfigError as e:
                        raise ValidationError(str(e)) from None
                self.plugins[name] = dict(config)
            else:
                raise ValidationError(
                    f"storage plugin '{name}' ({kind or 'partial'}): drillspark's SQL reads "
                    f"the {bootstrap.FILE_PLUGIN} plugin's workspaces, "
                    f"{bootstrap.CLASSPATH_PLUGIN}, and plugins of type "
                    f"{', '.join(SQL_READS)}"
                )

    def plugin(self, part: str) -> tuple[str, dict[str, Any]] | None:
        """(name, config) of the plugin (beside the home, classpath and other file plugins,
        whose tables are files) a schema part names."""
        name = self.schema_part(part)
        config = self.plugins.get(name)
        return None if config is None or config.get("type") == FILE else (name, config)

    # --- tables --------------------------------------------------------------------------
    def resolve_table(self, parts: tuple[str, ...], check: bool = True) -> ResolvedTable:
        """dfs.`path`, dfs.<ws>.`path`, cp.`path`, <ws>.`path` or `path` (default schema)."""
        parts = tuple(parts)
        plugin, workspace, name = self._split(parts)
        path = self.workspace_path(plugin, workspace, name)
        table = ResolvedTable(plugin, workspace, name, path)
        if check and not self._exists(path):
            raise TableNotFoundError(f"table '{'.'.join(parts)}' not found: {self._missing(table)}")
        return table

    def _exists(self, path: str) -> bool:
        from drillspark.spark.storage import filesystems

        if not filesystems.is_remote(path):
            return os.path.exists(path)
        try:
            return filesystems.exists(self._spark(), path)
        except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
            message = self.remote_failure(e, path)
            plugin = self.remote_plugin(path)
            raise ValidationError(
                self.plugin_failed(plugin, message) if plugin else message
            ) from None

    def remote_plugin(self, path: str) -> str | None:
        """The file plugin whose connection `path` lies on (s3a://data is not s3a://database's)."""

        def connection(p: str) -> str:
            return str(self.plugins[p].get("connection") or "").rstrip("/")

        return next(
            (
                p
                for p in self.file_plugins()
                if path == connection(p) or path.startswith(connection(p) + "/")
            ),
            None,
        )

    def remote_failure(self, error: BaseException, path: str) -> str:
        """A remote file system's failure on `path` as one paragraph naming the file plugin
        whose connection it is, its secrets cut out."""
        from drillspark.plugin_configs import config_from_json
        from drillspark.spark.storage import filesystems

        def connection(p: str) -> str:
            return str(self.plugins[p].get("connection") or "").rstrip("/")

        def holds(p: str) -> bool:  # s3a://data is not s3a://database's connection
            return path == connection(p) or path.startswith(connection(p) + "/")

        plugin = next((p for p in self.file_plugins() if holds(p)), "?")
        secrets = config_from_json(plugin, self.plugins[plugin]).secrets() if plugin != "?" else []
        return filesystems.describe(error, plugin, secrets)

    def _missing(self, table: ResolvedTable) -> str:
        """Why `table` was not found. A `cp` table is named as given, never by the package
        folder it was looked for in (a server's path is not the user's to see); a `dfs` table
        by the path it resolved to."""
        if table.plugin != self.classpath:
            return f"{table.display} resolves to {table.path}, which does not exist"
        if not os.path.isdir(self.cp_root):
            return (
                f"{table.display} does not exist (Drill's sample data is not installed here: in "
                "a source checkout, `make setup` fetches it)"
            )
        return f"{table.display} does not exist"

    def workspace_path(self, plugin: str, workspace: str, name: str) -> str:
        """Where `name` lies in the workspace, by the extension's one workspace rule."""
        from drillspark.spark.storage import workspaces as wsp

        if plugin == self.classpath:
            ws = wsp.Workspace(plugin, self.cp_root)
        elif plugin in self.file_plugins():
            ws = self.file_workspace(plugin, workspace)
        else:
            ws = wsp.Workspace(
                workspace, self.workspaces[workspace], self.outside.get(workspace, False)
            )
        try:
            path = wsp.resolve(self._spark(), ws, name)
        except wsp.WorkspaceError as e:
            raise ValidationError(str(e)) from None
        except Exception as e:  # noqa: BLE001 - the JVM's own refusal, e.g. a glob's '{'
            from drillspark.errors import describe

            raise ValidationError(
                f"table `{name}` cannot be resolved in workspace '{ws.name}': {describe(e)}"
            ) from None
        refuse_foreign_temporary(self, plugin, workspace, name, path)
        return path

    def _spark(self) -> SparkSession:
        if self.spark_provider is not None:
            return self.spark_provider()
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        from drillspark.session import session

        return session()

    def _split(self, parts: tuple[str, ...]) -> tuple[str, str, str]:
        head = self.schema_part(parts[0]) if parts else ""
        if head in self.built_ins() and len(parts) >= 2:
            if len(parts) == 2:
                return head, bootstrap.ROOT_WORKSPACE if head == self.home else "default", parts[1]
            workspace = self.schema_part(parts[1])
            if len(parts) == 3 and (head == self.classpath or workspace in self.workspaces):
                return head, workspace, parts[2]
            raise TableNotFoundError(
                f"schema '{'.'.join(parts[:-1])}' not found "
                f"(workspaces: {', '.join(sorted(self.workspaces))})"
            )
        if head in self.file_plugins() and len(parts) >= 2:
            if len(parts) == 2:
                return head, "default", parts[1]
            workspace = self.schema_part(parts[1])
            if len(parts) == 3 and workspace in self.file_workspaces(head):
                return head, workspace, parts[2]
            raise TableNotFoundError(
                f"schema '{'.'.join(parts[:-1])}' not found "
                f"(workspaces of {head}: {', '.join(sorted(self.file_workspaces(head)))})"
            )
        if len(parts) == 2 and self.home is not None and head in self.workspaces:
            return self.home, head, parts[1]
        if len(parts) == 1:
            if self.default_schema is None:
                home = self.home or next(iter(self.file_plugins()), "<plugin>")
                raise TableNotFoundError(
                    f"table '{parts[0]}' not found: no default schema is set; qualify it as "
                    f"{home}.`{parts[0]}` or run USE {home} first"
                )
            plugin, workspace = self.default_schema
            return plugin, workspace, parts[0]
        raise TableNotFoundError(
            f"table '{'.'.join(parts)}' not found: schema "
            f"'{'.'.join(parts[:-1])}' is not a known plugin or workspace"
        )
