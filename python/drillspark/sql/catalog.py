"""What a session's schemas hold, as Drill names them: the schemas (`dfs.<workspace>`,
`cp.default`, `information_schema`, `sys`), their writability, the views and temporary tables in
them, and the table lookup the lowering calls before it treats a name as a file
(`named_table`): INFORMATION_SCHEMA / sys tables become scans of the metadata storage engines,
views expand to their query, temporary tables scan their session folder."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from drillspark.names import fold
from drillspark.options import REGISTRY
from drillspark.plan.operators import Scan
from drillspark.plugin_configs import bootstrap
from drillspark.spark.storage import filesystems
from drillspark.spark.storage import metadata as md
from drillspark.spark.storage import workspaces as wsp
from drillspark.spark.storage.views import (
    VIEW_SUFFIX,
    ViewFile,
    ViewFileError,
    read_view,
    view_path,
)
from drillspark.sql.errors import SqlError, TableNotFoundError, ValidationError
from drillspark.sql.session import (
    ISCHEMA,
    SYS,
    SqlSession,
    refuse_foreign_temporary,
)
from drillspark.sql.temporary import temporary_tables

if TYPE_CHECKING:
    from drillspark.sql.lower import Lowering, Rel

MAX_VIEW_DEPTH = 32  # a view that (indirectly) reads itself stops here


@dataclass(frozen=True)
class SchemaRef:
    """A resolved schema: `plugin` (dfs, cp, information_schema, sys) and `workspace`."""

    plugin: str
    workspace: str = ""

    @property
    def name(self) -> str:
        return f"{self.plugin}.{self.workspace}" if self.workspace else self.plugin

    @property
    def is_metadata(self) -> bool:
        return self.plugin in (ISCHEMA, SYS)


# ----------------------------------------------------------------------------- schemas
def writable(session: SqlSession, ref: SchemaRef) -> bool:
    """Drill's dfs.tmp is the writable workspace; a session may name others in `writable`;
    another file plugin's workspace is writable when its config says so."""
    if ref.plugin in session.file_plugins():
        return session.file_writable(ref.plugin, ref.workspace)
    if ref.plugin != session.home:
        return False
    extra = getattr(session, "writable", None)
    if isinstance(extra, dict) and ref.workspace in extra:
        return bool(extra[ref.workspace])
    return ref.workspace in bootstrap.WRITABLE_WORKSPACES


def folder_of(session: SqlSession, ref: SchemaRef) -> str | None:
    ws = workspace_of(session, ref)
    return ws.location if ws is not None else None


def workspace_name(session: SqlSession, ref: SchemaRef) -> str:
    """The workspace a dfs schema is (dfs.default is dfs.root unless configured)."""
    if ref.workspace == "default" and "default" not in session.workspaces:
        return bootstrap.ROOT_WORKSPACE
    return ref.workspace


def workspace_of(session: SqlSession, ref: SchemaRef) -> wsp.Workspace | None:
    """The workspace (folder, confinement) of a `dfs` or `cp` schema, as the workspace rule
    takes it; None for the metadata schemas."""
    if ref.plugin == session.classpath:
        return wsp.Workspace(ref.plugin, session.cp_root)
    if ref.plugin in session.file_plugins():
        return session.file_workspace(ref.plugin, ref.workspace)
    if ref.plugin == session.home:
        name = workspace_name(session, ref)
        location = session.workspaces.get(name)
        if location is None:
            return None
        return wsp.Workspace(name, location, bool(session.outside.get(name, False)))
    return None


def listing(
    session: SqlSession, ref: SchemaRef, sub: tuple[str, ...]
) -> tuple[str, md.LeadsOut | None] | None:
    """(the folder or file SHOW FILES lists, the check of its symlink entries) for `sub`
    under the schema's folder, by the one workspace rule (the reads' rule, docs/security.md):
    a name that leaves a confined workspace is refused with the reads' error; a symlink entry
    that leads out is listed as the link itself. None when the schema has no folder."""
    ws = workspace_of(session, ref)
    if ws is None:
        return None
    spark = session._spark()
    try:
        path = wsp.resolve(spark, ws, "/".join(sub), listing=True)
    except wsp.WorkspaceError as e:
        raise ValidationError(str(e)) from None
    refuse_foreign_temporary(session, ref.plugin, ref.name, "/".join(sub), path)
    # Drill's behaviour (the unconfigured root, allowAccessOutside...); an object store has no
    # symlinks
    if ws.allow_outside or filesystems.is_remote(path):
        return path, None
    return path, lambda folder, name: wsp.leads_out(spark, ws, folder, name)


def remote_entries(session: SqlSession, path: str) -> list[tuple]:
    """SHOW FILES of a folder (or the one file) on a file plugin's remote file system, in
    the rows `metadata.file_entries` gives for local ones."""
    spark = session._spark()
    try:
        found = filesystems.entries(spark, path)
    except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
        raise ValidationError(session.remote_failure(e, path)) from None
    return [e.row() for e in found]


def dfs_workspaces(session: SqlSession) -> list[str]:
    """The home plugin's workspaces as schemas (with `default`; none when it is disabled)."""
    if session.home is None:
        return []
    names = set(session.workspaces) | {"default"}
    return sorted(names)


def schema_names(session: SqlSession) -> list[str]:
    """The schemas as Drill lists them (SHOW SCHEMAS, INFORMATION_SCHEMA.SCHEMATA); a `jdbc`
    plugin's are the plugin and its database's schemas (asked of the database)."""
    load_file_schemas(session)
    return (
        [f"{session.home}.{w}" for w in dfs_workspaces(session)]
        + [ISCHEMA, SYS]
        + ([f"{session.classpath}.default"] if session.classpath is not None else [])
        + [
            f"{p}.{w}"
            for p in sorted(session.file_plugins())
            for w in sorted(session.file_workspaces(p))
        ]
        + plugin_schema_names(session)
    )


def load_file_schemas(session: SqlSession) -> None:
    """Drill 1.22 asks every file plugin's file system when it lists schemas: one that cannot
    answer (an S3 endpoint down) fails SHOW SCHEMAS naming it (filesystems.load_schema)."""
    for plugin in sorted(session.file_plugins()):
        workspaces = sorted(session.file_workspaces(plugin))
        location = session.file_workspace(plugin, workspaces[0]).location
        if filesystems.is_remote(location):
            try:
                filesystems.load_schema(session._spark(), plugin, location)
            except filesystems.FileSystemError as e:
                raise ValidationError(session.plugin_failed(plugin, str(e))) from None


def plugin_schema_names(session: SqlSession) -> list[str]:
    from drillspark.spark.storage import jdbc

    out: list[str] = []
    for name, config in sorted(session.plugins.items()):
        if name in session.file_plugins():
            continue
        if config.get("type") == "http":  # a connection that takes a table name is a schema
            from drillspark.spark.storage import http

            out += [name] + [f"{name}.{c}" for c in http.schemas(config)]
            continue
        if config.get("type") == "mongo":  # each database is a schema
            from drillspark.spark.storage import mongo

            try:
                found = mongo.databases(session._spark(), name, config)
            except mongo.MongoError as e:
                raise ValidationError(str(e)) from None
            out += [f"{name}.{d}" for d in found]  # the databases, not the plugin (as Drill)
            continue
        if config.get("type") == "kafka":  # the plugin is the one schema; topics are tables
            out.append(name)
            continue
        try:
            found = jdbc.list_schemas(session._spark(), config, name)
        except jdbc.JdbcUnreachable as e:
            if session.auto_disables():  # Drill then fails the listing and disables it
                raise ValidationError(session.plugin_failed(name, str(e))) from None
            continue  # a database that cannot be reached is left out, as Drill leaves it out
        except jdbc.JdbcError:
            continue
        out += [name] + [f"{name}.{s}" for s in found]
    return out


def plugin_tables(
    session: SqlSession, parts: tuple[str, ...] | list[str] | None
) -> tuple[str, list[str]] | None:
    """SHOW TABLES IN a `mongo` database (its collections) or an `http` connection (none, as
    Drill lists): (schema name, table names); None when `parts` names no such schema."""
    if not parts:
        return None
    plugin = session.plugin(parts[0])
    if plugin is None or plugin[1].get("type") not in ("mongo", "http", "kafka", "jdbc"):
        return None
    name, config = plugin
    if config.get("type") == "jdbc":  # the database's own catalog (jdbc.show_tables)
        from drillspark.spark.storage import jdbc

        try:
            return jdbc.show_tables(session._spark(), config, list(parts[1:]), name)
        except jdbc.JdbcError as e:
            raise ValidationError(str(e)) from None
    if config.get("type") == "kafka":  # the plugin's topics
        from drillspark.spark.storage import kafka

        if len(parts) != 1:
            return None
        try:
            return name, kafka.topics(session._spark(), name, config)
        except kafka.KafkaError as e:
            raise ValidationError(str(e)) from None
    if config.get("type") == "http":
        from drillspark.spark.storage import http

        if len(parts) == 2 and any(c.lower() == parts[1].lower() for c in http.schemas(config)):
            return f"{name}.{parts[1]}", []
        return None
    from drillspark.spark.storage import mongo

    if len(parts) != 2:
        return None
    try:
        spark = session._spark()
        db = next(
            (d for d in mongo.databases(spark, name, config) if fold(d) == fold(parts[1])), None
        )
        if db is None:
            return None
        return f"{name}.{db}", mongo.collections(spark, name, config, db)
    except mongo.MongoError as e:
        raise ValidationError(str(e)) from None


def plugin_fields(session: SqlSession, parts: tuple[str, ...]) -> list[md.SqlField] | None:
    """DESCRIBE's columns of a `jdbc` plugin's table (`pg.sales.orders`), from the database's
    catalog; of a `kafka` topic, Drill's dynamic star (`**`, DYNAMIC_STAR: its columns are
    known when read); None when `parts` names no such plugin."""
    plugin = session.plugin(parts[0]) if len(parts) > 1 else None
    if plugin is not None and plugin[1].get("type") == "kafka":
        from drillspark.spark.storage import kafka

        try:
            kafka.table_selection(session._spark(), plugin[0], plugin[1], tuple(parts[1:]))
        except kafka.KafkaError as e:
            raise TableNotFoundError(str(e)) from None
        return [md.DYNAMIC_STAR]
    if plugin is None or plugin[1].get("type") in ("http", "mongo"):  # known when read
        return None
    from drillspark.spark.storage import jdbc

    name, config = plugin
    try:
        columns = jdbc.list_columns(
            session._spark(), config, list(parts[1:-1]) or None, parts[-1], name
        )
    except jdbc.JdbcError as e:
        raise TableNotFoundError(str(e)) from None
    return [c.field for c in columns]


def schema_configs(session: SqlSession) -> list[dict]:
    """The ischema engine's config: each schema with its type, writability and folder."""
    out = []
    for w in dfs_workspaces(session):
        assert session.home is not None
        ref = SchemaRef(session.home, w)
        out.append(
            {
                "name": ref.name,
                "type": "file",
                "mutable": writable(session, ref),
                "location": folder_of(session, ref),
                "plugin": session.home,
                "workspace": w,
                "confined": not session.outside.get(workspace_name(session, ref), False),
                # dfs.default is dfs.root: list its views once
                "views": not (w == "default" and "default" not in session.workspaces),
            }
        )
    out.append({"name": ISCHEMA, "type": "ischema", "mutable": False})
    out.append({"name": SYS, "type": "system-tables", "mutable": False})
    if session.classpath is not None:  # Drill's sample data: no files or views listed
        out.append(
            {
                "name": f"{session.classpath}.default",
                "type": "file",
                "mutable": False,
                "location": session.cp_root,
                "plugin": session.classpath,
                "workspace": "default",
                "listed": False,
            }
        )
    for plugin in sorted(session.file_plugins()):
        for w in sorted(session.file_workspaces(plugin)):
            ws = session.file_workspace(plugin, w)
            out.append(
                {
                    "name": f"{plugin}.{w}",
                    "type": "file",
                    "mutable": session.file_writable(plugin, w),
                    "location": ws.location,
                    "plugin": plugin,
                    "workspace": w,
                    "confined": not ws.allow_outside,
                }
            )
    for name, config in sorted(session.plugins.items()):
        if config.get("type") == "jdbc":  # the plugin and its database's schemas (jdbc.py)
            from drillspark.spark.storage import jdbc

            out += jdbc.ischema_entries(session._spark(), config, name)
        if config.get("type") == "http":  # the plugin, and each connection taking a table name
            from drillspark.spark.storage import http

            names = [name, *(f"{name}.{c}" for c in http.schemas(config))]
            out += [{"name": n, "type": "http", "mutable": False, "views": False} for n in names]
        if config.get("type") == "mongo":  # each database (not the plugin: Drill lists none)
            from drillspark.spark.storage import mongo

            try:  # its collections are its tables, of columns known when read (`**`)
                spark = session._spark()
                found = {
                    d: mongo.collections(spark, name, config, d)
                    for d in mongo.databases(spark, name, config)
                }
            except mongo.MongoError as e:
                raise ValidationError(str(e)) from None
            out += [
                {
                    "name": f"{name}.{d}",
                    "type": "mongo",
                    "mutable": False,
                    "views": False,
                    "tables": t,
                }
                for d, t in found.items()
            ]
        if config.get("type") == "kafka":  # the plugin is the one schema, its topics tables
            from drillspark.spark.storage import kafka

            try:
                topics = kafka.topics(session._spark(), name, config)
            except kafka.KafkaError as e:
                raise ValidationError(str(e)) from None
            out.append(
                {"name": name, "type": "kafka", "mutable": False, "views": False, "tables": topics}
            )
    return out


def resolve_schema(session: SqlSession, parts: tuple[str, ...] | list[str]) -> SchemaRef:
    """A schema path (`dfs.tmp`, `tmp`, `dfs`, `sys`, ...) relative to the root, else to the
    default schema, as Drill resolves it."""
    parts = tuple(session.schema_part(p) for p in parts)
    ref = _absolute(session, parts)
    if ref is not None:
        return ref
    default = session.default_schema
    if default is not None and default[0] == session.home and len(parts) == 0:
        return SchemaRef(default[0], default[1])
    raise ValidationError(
        f"Schema [{'.'.join(parts)}] is not valid with respect to either "
        "root schema or current default schema."
    )


def _absolute(session: SqlSession, parts: tuple[str, ...]) -> SchemaRef | None:
    if not parts:
        return None
    head = parts[0]
    if head in (ISCHEMA, SYS) and len(parts) == 1:
        return SchemaRef(head)
    if head == session.home:
        if len(parts) == 1:
            return SchemaRef(head, "default")
        if len(parts) == 2 and (parts[1] in session.workspaces or parts[1] == "default"):
            return SchemaRef(head, parts[1])
        return None
    if head == session.classpath and (len(parts) == 1 or parts[1:] == ("default",)):
        return SchemaRef(head, "default")
    if head in session.file_plugins() and len(parts) <= 2:
        workspace = parts[1] if len(parts) == 2 else "default"
        return SchemaRef(head, workspace) if workspace in session.file_workspaces(head) else None
    if len(parts) == 1 and session.home is not None and head in session.workspaces:
        return SchemaRef(session.home, head)
    default = session.default_schema
    if (  # a workspace of the default schema's file plugin (USE mydata; ... t.tt)
        len(parts) == 1
        and default
        and default[0] in session.file_plugins()
        and head in session.file_workspaces(default[0])
    ):
        return SchemaRef(default[0], head)
    return None


def default_ref(session: SqlSession) -> SchemaRef | None:
    d = session.default_schema
    if not d:
        return None
    return SchemaRef(d[0], d[1] if len(d) > 1 else "")


def split_table(session: SqlSession, parts: tuple[str, ...]) -> tuple[SchemaRef, str] | None:
    """(schema, table name) of a table reference when its schema is a known one; None when
    the name is not of that form (then the file lookup reports it)."""
    parts = tuple(parts)
    if len(parts) >= 2:
        ref = _absolute(session, tuple(session.schema_part(p) for p in parts[:-1]))
        if ref is not None:
            return ref, parts[-1]
        return None
    if len(parts) == 1:
        ref = default_ref(session)
        if ref is not None:
            return ref, parts[0]
    return None


# ----------------------------------------------------------------------------- views
def find_view(session: SqlSession, ref: SchemaRef, name: str) -> ViewFile | None:
    if ref.plugin != session.home and ref.plugin not in session.file_plugins():
        return None
    folder = folder_of(session, ref)
    if not folder:
        return None
    path = view_path(folder, name)
    if filesystems.is_remote(path):  # s3a://, hdfs://: the view file by the workspace rule
        return _remote_view(session, ref, name, path)
    if not os.path.isfile(path):
        return None
    ws = workspace_of(session, ref)
    if os.path.islink(path) and ws is not None and not ws.allow_outside:
        # a view file linked out of a confined workspace is refused as its table would be
        if ref.plugin == session.home:
            session.workspace_path(ref.plugin, ws.name, name + VIEW_SUFFIX)
        else:
            session.workspace_path(ref.plugin, ref.workspace, name + VIEW_SUFFIX)
    try:
        return read_view(path)
    except ViewFileError as e:
        raise ValidationError(str(e)) from None


def _remote_view(session: SqlSession, ref: SchemaRef, name: str, path: str) -> ViewFile | None:
    """The view `name` of a file plugin's workspace on s3a:// or hdfs://, or None. The name
    is asked of the workspace rule first: a name that leaves the key prefix is no view."""
    try:
        path = session.workspace_path(ref.plugin, ref.workspace, name + VIEW_SUFFIX)
    except ValidationError:
        return None  # the table lookup that follows refuses the name, saying why
    spark = session._spark()
    try:
        if not filesystems.is_file(spark, path):
            return None
    except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
        raise ValidationError(session.remote_failure(e, path)) from None
    try:
        return read_view(path, spark)
    except ViewFileError as e:
        raise ValidationError(f"storage plugin '{ref.plugin}': {e}") from None


# ----------------------------------------------------------------------------- temporary tables


def temp_schema(session: SqlSession) -> SchemaRef:
    """The session's default temporary workspace (Drill's boot option
    drill.exec.default_temporary_workspace, `dfs.tmp` unless set): `plugin.workspace`."""
    text = str(getattr(session, "temporary_workspace", "") or bootstrap.DEFAULT_TEMPORARY_WORKSPACE)
    plugin, _, workspace = text.partition(".")
    plugin = session.schema_part(plugin)
    return SchemaRef(plugin, session.schema_part(workspace) if workspace else "default")


def temp_folder(session: SqlSession) -> str:
    """The folder (or `s3a://`, `hdfs://` prefix) of the temporary workspace, which must be a
    writable workspace of `dfs` or another `file` plugin; else a clear error naming it."""
    ref = temp_schema(session)
    known = ref.plugin == session.home and (
        ref.workspace in session.workspaces or ref.workspace == "default"
    )
    known = known or (
        ref.plugin in session.file_plugins()
        and ref.workspace in session.file_workspaces(ref.plugin)
    )
    folder = folder_of(session, ref) if known else None
    if not folder:
        raise ValidationError(
            f"Default temporary workspace [{ref.name}] (drill.exec.default_temporary_workspace) "
            "is not a workspace of a file storage plugin"
        )
    if not writable(session, ref):
        raise ValidationError(
            f"Default temporary workspace [{ref.name}] (drill.exec.default_temporary_workspace) "
            "is not writable"
        )
    return folder


# ----------------------------------------------------------------------------- the lookup
def named_table(low: Lowering, parts: tuple[str, ...], node: exp.Expr) -> Rel | None:
    """The Rel of a metadata table, view or temporary table named `parts`, or None."""
    session = low.session
    plugin = session.plugin(parts[0]) if len(parts) > 1 else None
    if plugin is not None:
        return plugin_scan(low, plugin[0], plugin[1], parts[1:], node)
    if len(parts) == 1 and temporary_tables(session).find(parts[0]) is not None:
        # a name without a schema is the session's temporary table first (as Drill), whatever
        # the default schema (none over REST without USE)
        return _temporary_scan(low, parts[0], node)
    found = split_table(session, parts)
    if found is None:
        return None
    ref, name = found
    if ref.is_metadata:
        return metadata_scan(low, ref, name, node)
    if ref == temp_schema(session):
        temp = _temporary_scan(low, name, node)
        if temp is not None:
            return temp
    view = find_view(session, ref, name)
    if view is not None:
        return expand_view(low, ref, view, node)
    return None


def plugin_scan(
    low: Lowering, name: str, config: dict[str, Any], parts: tuple[str, ...], node: exp.Expr
) -> Rel:
    """A table of a `jdbc` plugin (`pg.public.orders`; `pg.orders` in the database's current
    schema): resolved now by Drill's name rules, so a missing one is an error at its place in
    the SQL; the plan carries the plugin's config with its secrets masked (EXPLAIN and
    profiles show it) and the run gets the real one (SqlEngine.run_plan)."""
    from drillspark.plugin_configs import config_from_json
    from drillspark.spark.storage import jdbc
    from drillspark.sql.lower import Rel

    if config.get("type") == "http":
        return http_scan(low, name, config, parts, node)
    if config.get("type") == "mongo":
        return mongo_scan(low, name, config, parts, node)
    if config.get("type") == "kafka":
        return kafka_scan(low, name, config, parts, node)
    try:
        engine_config = jdbc.JdbcConfig.of(name, config)
        schema, table, frame = jdbc.resolved_frame(
            low.session._spark(), engine_config, list(parts[:-1]), parts[-1]
        )
    except jdbc.JdbcUnreachable as e:
        raise low.fail(low.session.plugin_failed(name, str(e)), node, TableNotFoundError) from None
    except jdbc.JdbcError as e:
        raise low.fail(str(e), node, TableNotFoundError) from None
    low.builder.storage.setdefault(name, config_from_json(name, config).to_json(masked=True))
    selection = {"schema": schema, "table": table}
    scan = low.builder.add(Scan(storage_engine=name, selection=selection), node)
    # the database table's columns are known: another name is Drill's "Column 'x' not found"
    return Rel(scan, list(frame.columns), strict=True)


def http_scan(
    low: Lowering, name: str, config: dict[str, Any], parts: tuple[str, ...], node: exp.Expr
) -> Rel:
    """A connection of an `http` plugin (``api.conn``, ``api.conn.`tail` ``); the WHERE
    clause's `param = 'value'` conjuncts on the connection's `params` go into the request
    and leave the filter, as Drill pushes them (spark/storage/http.py)."""
    from drillspark.plugin_configs import config_from_json
    from drillspark.spark.storage import http
    from drillspark.sql.lower import Rel

    try:
        selection: dict[str, Any] = http.table_selection(name, config, parts, low.session._spark())
    except http.HttpPluginError as e:
        raise low.fail(str(e), node, TableNotFoundError) from None
    params = http.pushable_params(config, selection["connection"])
    pushed = _push_params(node, params) if params else {}
    if pushed:
        selection["params"] = pushed
    try:
        http.check_url_parameters(low.session._spark(), name, config, selection)
    except http.HttpPluginError as e:
        # at the table's place; not "Table not found" (the table is there: its request lacks
        # a value; Drill 1.22 calls it a PARSE ERROR)
        raise low.fail(str(e), node) from None
    low.builder.storage.setdefault(name, config_from_json(name, config).to_json(masked=True))
    return Rel(low.builder.add(Scan(storage_engine=name, selection=selection), node), None)


def mongo_scan(
    low: Lowering, name: str, config: dict[str, Any], parts: tuple[str, ...], node: exp.Expr
) -> Rel:
    """A collection of a `mongo` plugin (``mongo.db.collection``), resolved on the server now so
    that a missing one is an error at its place in the SQL (spark/storage/mongo.py)."""
    from drillspark.plugin_configs import config_from_json
    from drillspark.spark.storage import mongo
    from drillspark.sql.lower import Rel

    try:
        selection = mongo.table_selection(low.session._spark(), name, config, parts)
    except mongo.MongoError as e:
        raise low.fail(str(e), node, TableNotFoundError) from None
    low.builder.storage.setdefault(name, config_from_json(name, config).to_json(masked=True))
    return Rel(low.builder.add(Scan(storage_engine=name, selection=selection), node), None)


def kafka_scan(
    low: Lowering, name: str, config: dict[str, Any], parts: tuple[str, ...], node: exp.Expr
) -> Rel:
    """A topic of a `kafka` plugin (``kafka.`topic` ``), resolved on the cluster now so that a
    missing one is an error at its place in the SQL; the session's `store.kafka.*` options go
    into the selection (spark/storage/kafka.py)."""
    from drillspark.plugin_configs import config_from_json
    from drillspark.spark.storage import kafka
    from drillspark.sql.lower import Rel

    try:
        selection = kafka.table_selection(low.session._spark(), name, config, parts)
    except kafka.KafkaError as e:
        raise low.fail(str(e), node, TableNotFoundError) from None
    selection.update(kafka.selection_options(low.session.option))
    pushed = _kafka_pushed(node, kafka.PUSHABLE)
    if pushed:
        selection["pushed"] = pushed
    low.builder.storage.setdefault(name, config_from_json(name, config).to_json(masked=True))
    return Rel(low.builder.add(Scan(storage_engine=name, selection=selection), node), None)


_KAFKA_OPS = {exp.EQ: "=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _integer(e: exp.Expr) -> int | None:
    """An integer literal's value (a negated one too), else None."""
    neg = isinstance(e, exp.Neg)
    lit = e.this if neg else e
    if not isinstance(lit, exp.Literal) or lit.is_string:
        return None
    try:
        value = int(lit.this)
    except ValueError:
        return None
    return -value if neg else value


def _kafka_pushed(table: exp.Expr, columns: dict[str, str]) -> list[list[Any]]:
    """The WHERE conjuncts of the SELECT that reads `table` alone that compare one of
    `columns` (folded name -> name) with an integer (=, <, <=, >, >=, IN, BETWEEN), as
    ``[column, op, value]``, and ORs of ANDs of them as ``["or", [[...], ...]]``; the WHERE
    keeps them (the read is narrowed, every row still
    checked), as Drill's KafkaPushDownFilterIntoScan does."""
    select = table.parent.parent if isinstance(table.parent, exp.From) else None
    if not isinstance(select, exp.Select) or select.args.get("joins"):
        return []
    where = select.args.get("where")
    if where is None:
        return []
    names = {fold(table.alias_or_name)}

    def column(e: exp.Expr) -> str | None:
        if isinstance(e, exp.Column) and (not e.table or fold(e.table) in names):
            return columns.get(fold(e.name))
        return None

    def conjuncts(e: exp.Expr) -> list[exp.Expr]:
        e = e.unnest()
        return [c.unnest() for c in e.flatten()] if isinstance(e, exp.And) else [e]

    def items(c: exp.Expr) -> list[list[Any]]:
        """What one conjunct pushes: comparisons, IN, BETWEEN, or an OR of ANDs of them
        (["or", [[...], ...]]: the union of the disjuncts' ranges; none if a disjunct pushes
        nothing, since that disjunct alone could allow any message)."""
        if isinstance(c, exp.Or):
            alts = [[i for x in conjuncts(d) for i in items(x)] for d in c.flatten()]
            return [["or", alts]] if all(alts) else []
        if isinstance(c, exp.Binary) and type(c) in _KAFKA_OPS:
            op = _KAFKA_OPS[type(c)]
            name, value = column(c.left), _integer(c.right)
            if name is None or value is None:
                name, value, op = column(c.right), _integer(c.left), _FLIPPED[op]
            if name is not None and value is not None:
                return [[name, op, value]]
        elif isinstance(c, exp.In) and column(c.this) and not c.args.get("query"):
            values = [_integer(v) for v in c.expressions]
            if values and all(v is not None for v in values):
                return [[column(c.this), "in", values]]
        elif isinstance(c, exp.Between) and column(c.this):
            low, high = _integer(c.args["low"]), _integer(c.args["high"])
            if low is not None and high is not None:
                return [[column(c.this), ">=", low], [column(c.this), "<=", high]]
        return []

    return [i for c in conjuncts(where.this) for i in items(c)]


def _push_params(table: exp.Expr, params: dict[str, str]) -> dict[str, str]:
    """Take `col = literal` conjuncts on `params` (folded name -> name) out of the WHERE of the
    SELECT that reads `table` alone; their values by parameter name."""
    select = table.parent.parent if isinstance(table.parent, exp.From) else None
    if not isinstance(select, exp.Select) or select.args.get("joins"):
        return {}
    where = select.args.get("where")
    if where is None:
        return {}
    names = {fold(table.alias_or_name)}
    conjuncts = _conjuncts(where.this)
    pushed: dict[str, str] = {}
    kept = []
    for c in conjuncts:
        col, lit = (c.left, c.right) if isinstance(c, exp.EQ) else (None, None)
        if isinstance(lit, exp.Column) and isinstance(col, exp.Literal):
            col, lit = lit, col
        if (
            isinstance(col, exp.Column)
            and isinstance(lit, exp.Literal)
            and (not col.table or fold(col.table) in names)
            and fold(col.name) in params
            and params[fold(col.name)] not in pushed
        ):
            pushed[params[fold(col.name)]] = lit.this
        else:
            kept.append(c)
    if pushed:
        select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
    return pushed


def _conjuncts(cond: exp.Expr) -> list[exp.Expr]:
    """The ANDed conditions of a WHERE, parentheses around them or around ANDs taken off
    (`(a = 'x' AND (b = 'y'))` is `a = 'x'`, `b = 'y'`)."""
    cond = cond.unnest()
    if isinstance(cond, exp.And):
        return [*_conjuncts(cond.left), *_conjuncts(cond.right)]
    return [cond]


def _temporary_scan(low: Lowering, name: str, node: exp.Expr) -> Rel | None:
    path = temporary_tables(low.session).find(name)
    if path is None:
        return None
    ref = temp_schema(low.session)
    folder = temp_folder(low.session)
    if filesystems.is_remote(folder):
        rel_path = path[len(folder.rstrip("/")) + 1 :]
    else:
        rel_path = os.path.relpath(path, folder)
    return low.scan((ref.plugin, ref.workspace, rel_path), {}, node)


def metadata_scan(low: Lowering, ref: SchemaRef, name: str, node: exp.Expr) -> Rel:
    from drillspark.sql.lower import Rel

    tables = md.ISCHEMA_TABLES if ref.plugin == ISCHEMA else md.SYS_TABLES
    key = next((t for t in tables if fold(t) == fold(name)), None)
    if key is None:
        raise low.fail(f"Object '{name}' not found within '{ref.plugin}'", node, TableNotFoundError)
    if ref.plugin == ISCHEMA and key != "CATALOGS" and low.session.auto_disables():
        schema_names(low.session)  # a plugin that cannot start fails here and is disabled
    if ref.plugin == SYS and key not in md.SYS_READABLE:
        raise low.unsupported(f"the system table sys.{key}", node)
    low.builder.storage.setdefault(ref.plugin, engine_config(low.session, ref.plugin))
    op = Scan(storage_engine=ref.plugin, selection={"table": key})
    # its columns are fixed: another name is Drill's "Column 'x' not found in any table"
    return Rel(low.builder.add(op, node), [c for c, _, _ in tables[key]], strict=True)


def engine_config(session: SqlSession, plugin: str) -> dict:
    if plugin == ISCHEMA:
        return {"type": "ischema", "schemas": schema_configs(session)}
    return {
        "type": "system-tables",
        "http_port": session.ports.get("http"),
        "user_port": session.ports.get("user"),
        "options": option_rows(session),
        "internal_options": option_rows(session, internal=True),
    }


def option_rows(session: SqlSession, internal: bool = False) -> list[list]:
    """sys.options rows (sys.internal_options with `internal`), as Drill 1.22 gives them:
    every option of the registry (drillspark.options), with this session's value (name,
    kind, accessibleScopes, val, status, optionScope, description). `status` is CHANGED when
    the value is not the default, whoever set it; `optionScope` says who did."""
    rows = []
    for option in REGISTRY.listed(internal):
        value, scope = session.option_setting(option)
        status = "DEFAULT" if value == option.default else "CHANGED"
        row = [option.name, option.SQL_KIND, option.scopes, option.text(value), status, scope]
        rows.append([*row, option.description])
    return rows


# ----------------------------------------------------------------------------- view expansion
def expand_view(low: Lowering, ref: SchemaRef, view: ViewFile, node: exp.Expr) -> Rel:
    """Lower the view's query in place: under the view's own default schema, without the outer
    query's CTEs, then renamed to the view's field names."""
    from drillspark.sql.lower import _err

    stack = low.__dict__.setdefault("_views", [])
    key = (ref.name, view.name)
    if key in stack or len(stack) >= MAX_VIEW_DEPTH:
        raise low.fail(
            f"view {ref.name}.{view.name} reads itself (through "
            f"{' -> '.join('.'.join(k) for k in stack)})",
            node,
        )
    saved = (low.sql, low.ctes, low.session.default_schema)
    stack.append(key)
    try:
        low.sql = view.sql
        low.ctes = []
        path = tuple(low.session.schema_part(p) for p in view.schema_path)
        low.session.default_schema = path if len(path) == 2 else None
        try:
            rel = low.lower_query(low.steps.parse(view.sql))
        except SqlError as e:
            raise _err(
                type(e), f"view {ref.name}.`{view.name}`: {e.message}", node, saved[0]
            ) from None
    finally:
        stack.pop()
        low.sql, low.ctes, low.session.default_schema = saved
    if view.dynamic:
        return rel
    names = [str(f.get("name")) for f in view.fields]
    if rel.columns is not None and len(rel.columns) == len(names) and rel.columns != names:
        rel = low.rename(rel, names)
    if rel.columns is not None:
        rel = replace(rel, strict=True)
    return rel
