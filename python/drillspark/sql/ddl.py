"""CREATE VIEW, CREATE [TEMPORARY] TABLE AS, DROP TABLE / VIEW, with Drill 1.22's checks, answers
and messages (asked of Drill itself: `[ok, summary]` rows, `Fragment` / `Number of records
written` for CTAS, VALIDATION errors for immutable schemas, name clashes and missing objects).

Views are stored as Drill stores them (`name.view.drill` in the workspace folder, see
spark/storage/views.py), written beside it under a unique name and renamed into place; two
CREATE VIEW of one view run one after the other. CTAS writes a folder of data files named as
Drill names them (`0_0_0.parquet`, ...). DROP TABLE removes only a table: a data file, or a
folder holding data files of one format, in sub-folders too (as CTAS with PARTITION BY and
Drill's own writers leave them; nothing of another kind). A table that is a symlink (inside
its workspace: the workspace rule refuses one leading out) is dropped as Drill drops it: the
link goes, what it points to stays."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Any, Protocol

from drillspark.formats import registry as format_registry
from drillspark.formats.base import FormatError
from drillspark.names import fold
from drillspark.plan.operators import Order, Store
from drillspark.result import StatementResult
from drillspark.spark.storage import filesystems
from drillspark.spark.storage.views import (
    VIEW_SUFFIX,
    ViewExistsError,
    ViewFileError,
    delete_remote_view,
    view_lock,
    view_path,
    write_remote_view,
    write_view,
)
from drillspark.sql import catalog
from drillspark.sql import statements as st
from drillspark.sql.catalog import SchemaRef
from drillspark.sql.errors import SqlError, ValidationError, shift_error
from drillspark.sql.temporary import temporary_tables

if TYPE_CHECKING:
    from drillspark.result import DrillResult
    from drillspark.sql.parser import CompiledQuery
    from drillspark.sql.session import SqlSession


class Engine(Protocol):
    """What DDL needs of the SQL engine (sql/engine.SqlEngine, which calls DDL): named here,
    so that DDL does not import the engine back, not even for its type hints."""

    session: SqlSession

    def run_plan(self, compiled: CompiledQuery) -> DrillResult: ...


# what a DDL statement answers (the engine's RowsResult is the same class)
RowsResult = StatementResult

# the files a table may hold: every format's extensions (the format registry's), compressed too
DATA_EXTENSIONS = format_registry.data_extensions() | {"gz", "bz2", "zip"}


def _ok(ok: bool, summary: str) -> RowsResult:
    return RowsResult(["ok", "summary"], [[ok, summary]])


def target_schema(engine: Engine, parts: tuple[str, ...]) -> tuple[SchemaRef, str]:
    """The schema an object named `parts` is created in / dropped from, and its name."""
    session = engine.session
    name = parts[-1]
    if len(parts) == 1:
        ref = catalog.default_ref(session)
        if ref is None:
            raise ValidationError(
                "Root schema is immutable. Drill does not allow creating or "
                "deleting tables or views in the root schema. Select a "
                "schema using 'USE schema' command."
            )
        return ref, name
    schema = tuple(session.schema_part(p) for p in parts[:-1])
    ref = catalog._absolute(session, schema)
    if ref is None:
        current = (
            ".".join(session.default_schema)
            if session.default_schema
            else "No default schema selected"
        )
        raise ValidationError(
            f"Schema [{'.'.join(parts[:-1])}] is not valid with respect to "
            f"either root schema or current default schema.\n\n"
            f"Current default schema: {current}"
        )
    return ref, name


def _mutable(engine: Engine, ref: SchemaRef, name: str | None = None) -> str:
    """The folder of a writable schema, else Drill's immutable-schema error. With `name`, the
    name must also stay inside the workspace (the one workspace rule: no `..`, absolute
    paths, links out or look-alikes)."""
    session = engine.session
    folder = catalog.folder_of(session, ref)
    if not catalog.writable(session, ref) or not folder:
        # Drill names the home plugin's default workspace and the classpath plugin by the
        # plugin alone
        alone = ref.plugin == session.classpath or (
            ref.plugin == session.home and ref.workspace == "default"
        )
        shown = ref.plugin if alone else ref.name
        raise ValidationError(f"Unable to create or drop objects. Schema [{shown}] is immutable.")
    home = ref.plugin == session.home and ref.workspace in session.workspaces
    if name is not None and (home or ref.plugin in session.file_plugins()):  # s3.out, ...
        session.workspace_path(ref.plugin, ref.workspace, name)
    return folder


def _check_names(names: list[str]) -> None:
    seen = set()
    for n in names:
        if fold(n) in seen:
            raise ValidationError(f"Duplicate column name [{n}]")
        seen.add(fold(n))


def _compile(engine: Engine, query: str) -> tuple[Any, Any, Any]:
    """(tree, Lowering, root Rel) of a DDL statement's query."""
    from drillspark.sql.parser import new_lowering, parse_query

    tree = parse_query(query)
    low = new_lowering(engine.session, query)
    return tree, low, low.lower_query(tree)


def _located(e: SqlError, stmt: Any) -> SqlError:
    return shift_error(e, stmt.text, stmt.query_offset)


# ----------------------------------------------------------------------------- views
def create_view(engine: Engine, stmt: st.CreateView) -> RowsResult:
    if stmt.replace and stmt.if_not_exists:
        raise ValidationError(
            "Create view statement cannot have both <OR REPLACE> and <IF NOT EXISTS> clause"
        )
    ref, name = target_schema(engine, stmt.name)
    folder = _mutable(engine, ref, name)
    path = view_path(folder, name)
    with view_lock(path):  # one CREATE VIEW of this view at a time: each sees the last one's
        return _create_view(engine, stmt, ref, name, folder, path)


def _create_view(
    engine: Engine, stmt: st.CreateView, ref: SchemaRef, name: str, folder: str, path: str
) -> RowsResult:
    from drillspark.sql.view_fields import view_fields

    temporary = ref == catalog.temp_schema(engine.session)
    temp = temporary_tables(engine.session).find(name) if temporary else None
    table_exists = _exists(engine, _join(folder, name)) or temp is not None
    view_exists = _is_file(engine, path)
    if stmt.if_not_exists and (view_exists or table_exists):
        return _ok(
            False, f"A table or view with given name [{name}] already exists in schema [{ref.name}]"
        )
    if table_exists:
        raise ValidationError(
            f"A non-view table with given name [{name}] already exists in schema [{ref.name}]"
        )
    if view_exists and not stmt.replace:
        raise ValidationError(
            f"A view with given name [{name}] already exists in schema [{ref.name}]"
        )
    try:
        tree, _low, root = _compile(engine, stmt.query)  # checks the query, as Drill does
    except SqlError as e:
        raise _located(e, stmt) from None
    fields = view_fields(engine.session, tree, None)
    dynamic = any(f["type"] == "DYNAMIC_STAR" for f in fields)
    if stmt.columns is not None:
        count = len(root.columns) if root.columns is not None else None
        if dynamic or count is None or count != len(stmt.columns):
            raise ValidationError(
                "view's field list and the view's query field list have different counts."
            )
        _check_names(list(stmt.columns))
        fields = view_fields(engine.session, tree, list(stmt.columns))
    else:  # the select list's own names (the plan may have renamed a duplicate)
        _check_names([f["name"] for f in fields if f["type"] != "DYNAMIC_STAR"])
    schema_path = list(engine.session.default_schema or ())
    try:
        if filesystems.is_remote(path):  # s3a://, hdfs://: one upload, or a rename (HDFS)
            _mutable(engine, ref, name)
            spark = engine.session._spark()
            write_remote_view(
                spark, path, name, stmt.query.strip(), fields, schema_path, stmt.replace
            )
        else:
            write_view(
                path,
                name,
                stmt.query.strip(),
                fields,
                schema_path,
                replace=stmt.replace,
                # the name is asked of the workspace rule again once the folder is open
                confined=lambda: _mutable(engine, ref, name),
            )
    except ViewExistsError:  # another process created it meanwhile
        raise ValidationError(
            f"A view with given name [{name}] already exists in schema [{ref.name}]"
        ) from None
    except ViewFileError as e:
        raise ValidationError(
            f"View '{name}' was not written in schema [{ref.name}]: {e}"
        ) from None
    verb = "replaced" if view_exists else "created"
    return _ok(True, f"View '{name}' {verb} successfully in '{ref.name}' schema")


def drop(engine: Engine, stmt: st.Drop) -> RowsResult:
    if stmt.kind != "VIEW" and _jdbc_target(engine, stmt.name) is not None:
        return _drop_jdbc_table(engine, stmt)
    if (
        stmt.kind != "VIEW"
        and len(stmt.name) == 1
        and temporary_tables(engine.session).find(stmt.name[0]) is not None
    ):  # a name without a schema is the session's temporary table first, as Drill drops it
        return _drop_table(engine, catalog.temp_schema(engine.session), stmt.name[0], False)
    ref, name = target_schema(engine, stmt.name)
    if stmt.kind == "VIEW":
        return _drop_view(engine, ref, name, stmt.if_exists)
    return _drop_table(engine, ref, name, stmt.if_exists)


def _join(folder: str, name: str) -> str:
    return (
        folder.rstrip("/") + "/" + name
        if filesystems.is_remote(folder)
        else os.path.join(folder, name)
    )


def _exists(engine: Engine, path: str) -> bool:
    """Whether `path` exists, on this machine or a file plugin's remote file system."""
    if not filesystems.is_remote(path):
        return os.path.exists(path)
    try:
        return filesystems.exists(engine.session._spark(), path)
    except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
        raise ValidationError(engine.session.remote_failure(e, path)) from None


def _is_file(engine: Engine, path: str) -> bool:
    if not filesystems.is_remote(path):
        return os.path.isfile(path)
    spark = engine.session._spark()
    try:
        return filesystems.is_file(spark, path)
    except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
        raise ValidationError(engine.session.remote_failure(e, path)) from None


def _drop_view(engine: Engine, ref: SchemaRef, name: str, if_exists: bool) -> RowsResult:
    folder = _mutable(engine, ref, name)
    path = view_path(folder, name)
    if filesystems.is_remote(path):
        try:
            deleted = delete_remote_view(engine.session._spark(), path)
        except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
            raise ValidationError(engine.session.remote_failure(e, path)) from None
        if deleted:
            return _ok(True, f"View [{name}] deleted successfully from schema [{ref.name}].")
    elif os.path.isfile(path):
        os.remove(path)
        return _ok(True, f"View [{name}] deleted successfully from schema [{ref.name}].")
    if _exists(engine, _join(folder, name)):
        raise ValidationError(f"[{name}] is not a VIEW in schema [{ref.name}]")
    if if_exists:
        return _ok(False, f"View [{name}] not found in schema [{ref.name}].")
    raise ValidationError(f"Unknown view [{name}] in schema [{ref.name}].")


def _drop_table(engine: Engine, ref: SchemaRef, name: str, if_exists: bool) -> RowsResult:
    temps = temporary_tables(engine.session)
    if ref == catalog.temp_schema(engine.session):
        temp = temps.find(name)
        if temp is not None:
            try:
                temps.forget(name)
            except Exception as e:  # noqa: BLE001  (a remote file system's failure)
                raise ValidationError(engine.session.remote_failure(e, temp)) from None
            return _ok(True, f"Temporary table [{name}] dropped")
    folder = _mutable(engine, ref, name)
    if filesystems.is_remote(folder):  # a file plugin on s3a:// or hdfs://
        return _drop_remote_table(engine, ref, name, if_exists)
    path = os.path.normpath(os.path.join(folder, name))
    if not path.startswith(os.path.normpath(folder) + os.sep) or not os.path.exists(path):
        if if_exists:
            return _ok(False, f"Table [{name}] not found")
        raise ValidationError(f"Table [{name}] not found")
    _check_is_table(path, ref, name)
    try:
        if os.path.islink(path):
            os.unlink(path)  # as Drill: the link goes, what it points to stays
        elif os.path.isdir(path):
            shutil.rmtree(path)  # never follows a link inside the folder (it removes the link)
        else:
            os.remove(path)
    except OSError as e:
        # e.g. the folder was swapped for a symlink after it was checked: nothing is followed
        raise ValidationError(
            f"Table [{name}] in schema [{ref.name}] was not dropped: it changed while it was "
            f"dropped ({e.strerror or e})"
        ) from None
    return _ok(True, f"Table [{name}] dropped")


def _drop_remote_table(engine: Engine, ref: SchemaRef, name: str, if_exists: bool) -> RowsResult:
    """DROP TABLE in a file plugin's writable workspace on another file system: the name by
    the workspace rule, then the data files under it (a folder holding anything else is not
    a table, as on local disk)."""
    session = engine.session
    path = session.workspace_path(ref.plugin, ref.workspace, name)
    spark = session._spark()
    try:
        if not filesystems.exists(spark, path):
            if if_exists:
                return _ok(False, f"Table [{name}] not found")
            raise ValidationError(f"Table [{name}] not found")
        files = filesystems.list_files(spark, path)
        if not files or any(_extension(f.rsplit("/", 1)[-1]) not in DATA_EXTENSIONS for f in files):
            raise ValidationError(
                f"[{name}] in schema [{ref.name}] is not a table: only data "
                "files and folders of data files are dropped"
            )
        filesystems.delete(spark, path)
    except ValidationError:
        raise
    except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
        raise ValidationError(session.remote_failure(e, path)) from None
    return _ok(True, f"Table [{name}] dropped")


def _check_is_table(path: str, ref: SchemaRef, name: str) -> None:
    """Refuse to drop anything but a data file or a folder of data files of one format (in
    sub-folders too, as Drill drops them)."""
    if os.path.isfile(path):
        if _extension(os.path.basename(path)) not in DATA_EXTENSIONS or path.endswith(VIEW_SUFFIX):
            raise ValidationError(
                f"[{name}] in schema [{ref.name}] is not a table: only data "
                "files and folders of data files are dropped"
            )
        return
    formats = set()
    for _folder, folders, files in os.walk(path):
        # hidden and bookkeeping files and folders (.crc, _SUCCESS) go with the table
        folders[:] = [f for f in folders if not f.startswith((".", "_"))]
        for file in files:
            if file.startswith((".", "_")):
                continue
            ext = _extension(file)
            if ext not in DATA_EXTENSIONS:
                raise ValidationError(
                    "Table contains different file formats. \nDrop Table is only "
                    "supported for directories that contain homogeneous file "
                    "formats consumable by Drill"
                )
            formats.add(ext)
    if not formats:
        raise ValidationError(
            "No files were found and no default format is set on the "
            f"queried workspace.\n\nworkspace: {ref.name}\ntable: {name}"
        )
    if len(formats) > 1:
        raise ValidationError(
            "Table contains different file formats. \nDrop Table is only "
            "supported for directories that contain homogeneous file "
            "formats consumable by Drill"
        )


def _extension(name: str) -> str:
    for comp in (".gz", ".bz2", ".zip"):
        if name.endswith(comp):
            name = name[: -len(comp)]
    return os.path.splitext(name)[1].lstrip(".").lower()


# ----------------------------------------------------------------------------- CTAS
def create_table(engine: Engine, stmt: st.CreateTable) -> RowsResult:
    if _jdbc_target(engine, stmt.name) is not None:
        return _create_jdbc_table(engine, stmt)
    session = engine.session
    temps = temporary_tables(session)
    temp_ref = catalog.temp_schema(session)
    if stmt.temporary and len(stmt.name) == 1:
        ref, name = temp_ref, stmt.name[0]  # Drill's default temporary workspace
    else:
        ref, name = target_schema(engine, stmt.name)
    if stmt.temporary:
        catalog.temp_folder(session)  # a temporary workspace that is none: said, named
    folder = _mutable(engine, ref, name)  # an immutable schema first, as Drill checks it
    if stmt.temporary and ref != temp_ref:
        raise ValidationError(
            "Temporary tables are not allowed to be created / dropped "
            f"outside of default temporary workspace [{temp_ref.name}]."
        )
    # a temporary table may not shadow a table or view either (Drill 1.22)
    exists = (
        _exists(engine, _join(folder, name))
        or _is_file(engine, view_path(folder, name))
        or (ref == temp_ref and temps.find(name) is not None)
    )
    if exists:
        message = f"A table or view with given name [{name}] already exists in schema [{ref.name}]"
        if stmt.if_not_exists:
            return _ok(False, message)
        raise ValidationError(message)
    fmt = str(session.option("store.format")).lower()
    try:
        _plugin, store = format_registry.store_format(fmt)
    except FormatError:
        raise ValidationError(
            f"unsupported store.format '{fmt}' for CREATE TABLE AS "
            f"(drillspark writes {', '.join(format_registry.store_formats())})"
        ) from None
    if stmt.partition and fmt != "parquet":  # Drill's other writers cannot partition
        raise ValidationError(f"{fmt} format does not support auto-partitioning.")
    if stmt.temporary:
        try:
            path = temps.folder_for(folder, name, session._spark())
        except Exception as e:  # noqa: BLE001  (a remote file system's failure, from the JVM)
            raise ValidationError(session.remote_failure(e, folder)) from None
    else:
        path = _join(folder, name)
    try:
        compiled = _ctas_plan(engine, stmt, path, fmt)
    except SqlError as e:
        raise _located(e, stmt) from None
    result = engine.run_plan(compiled)
    rows = sum(w.rows for w in result.written)
    _drill_file_names(path, store.extension)
    if stmt.temporary:
        temps.folders[name] = path
    return RowsResult(["Fragment", "Number of records written"], [["0_0", rows]])


def _ctas_plan(engine: Engine, stmt: st.CreateTable, path: str, fmt: str) -> Any:
    from drillspark.sql.parser import CompiledQuery

    _tree, low, root = _compile(engine, stmt.query)
    if stmt.columns is not None:
        names = root.columns
        if names is None:  # SELECT * of a schema-free table: its columns once analysed
            from drillspark.spark.single_pass import disabled

            with disabled():  # only the DataFrame's columns are wanted
                query = engine.run_plan(CompiledQuery(low.plan(root), None, sql=stmt.query))
            names = list(query.df.columns)
        if len(names) != len(stmt.columns):
            raise ValidationError(
                "table's field list and the table's query field list have different counts."
            )
        _check_names(list(stmt.columns))
        root = low.rename(_known(root, names), list(stmt.columns))
    else:  # the select list's own names (the plan may have renamed a duplicate)
        from drillspark.sql.view_fields import query_fields

        _check_names([n for n, f in query_fields(engine.session, _tree) if n != "**"])
    if stmt.partition and root.columns is not None:
        known = {fold(c) for c in root.columns}
        for c in stmt.partition:
            if fold(c) not in known:
                raise ValidationError(f"Partition column {c} is not in the SELECT list of CTAS!")
    if stmt.partition:
        # Drill writes one file per partition value; the rows read back are the same, so the
        # partition columns only order the write here.
        from drillspark.sql import plan_parts as pp
        from drillspark.sql.lower import Rel

        orderings = tuple(pp.ordering(pp.column(c), "ASC", "LAST") for c in stmt.partition)
        root = Rel(low.builder.add(Order(input=root.op, orderings=orderings)), root.columns)
    # a file plugin's workspace (s3.out) is written by that plugin's engine
    plugin = next(
        (
            p
            for p in engine.session.file_plugins()
            if path.startswith(
                engine.session.file_workspace(p, "default").location.rstrip("/") + "/"
            )
        ),
        engine.session.home,
    )
    if plugin is None:
        raise ValidationError(f"no file storage plugin holds {path}")
    low.builder.storage.setdefault(plugin, low.engine_config(plugin))
    store = Store(
        input=root.op,
        storage_engine=plugin,
        target={"path": path, "format": fmt, "table": stmt.name[-1]},
    )
    return CompiledQuery(
        low.plan(root, store=store),
        ["Fragment", "Number of records written"],
        target=path,
        sql=stmt.query,
        positions=low.builder.positions,
    )


def _known(rel: Any, names: list[str]) -> Any:
    from drillspark.sql.lower import Rel

    return Rel(rel.op, list(names))


def _drill_file_names(path: str, ext: str) -> None:
    """Spark's part files renamed as Drill names a fragment's files: 0_0_0.<ext>, 0_0_1, ..."""
    if not os.path.isdir(path):
        return
    files = sorted(n for n in os.listdir(path) if not n.startswith((".", "_")))
    for i, n in enumerate(files):
        os.rename(os.path.join(path, n), os.path.join(path, f"0_0_{i}.{ext}"))
    for n in os.listdir(path):  # checksums of the old names
        if n.startswith(".") and n.endswith(".crc"):
            os.remove(os.path.join(path, n))


# ----------------------------------------------------------------------------- jdbc targets
def _jdbc_target(engine: Engine, parts: tuple[str, ...]) -> tuple[str, dict[str, Any]] | None:
    """(plugin, config) when `parts` names a table of a `jdbc` plugin (`pgw.public.t`)."""
    found = engine.session.plugin(parts[0]) if len(parts) >= 2 else None
    return found if found is not None and found[1].get("type") == "jdbc" else None


def _jdbc_refusal(e: Exception) -> SqlError:
    """The engine's refusal as Drill's VALIDATION error (its one paragraph names the plugin)."""
    return ValidationError(str(e))


def _create_jdbc_table(engine: Engine, stmt: st.CreateTable) -> RowsResult:
    """CTAS into a `writable` jdbc plugin: checked before the query runs (Drill refuses an
    immutable schema or a taken name at validation), then the plan's `store` writes it
    (spark/storage/jdbc.py: a staging table renamed into place)."""
    from drillspark.plugin_configs import config_from_json
    from drillspark.spark.storage import jdbc
    from drillspark.sql.parser import CompiledQuery

    found = _jdbc_target(engine, stmt.name)
    assert found is not None
    plugin, config = found
    schema, name = list(stmt.name[1:-1]), stmt.name[-1]
    if stmt.temporary:
        raise ValidationError(
            "Temporary tables are not allowed to be created / dropped "
            f"outside of default temporary workspace [{catalog.temp_schema(engine.session).name}]."
        )
    if stmt.partition:
        raise ValidationError(
            f"PARTITION BY is not supported for a table of jdbc storage plugin '{plugin}'"
        )
    try:
        jdbc.new_table(engine.session._spark(), config, schema, name, plugin)
    except jdbc.TableExistsError as e:
        if stmt.if_not_exists:
            return _ok(False, str(e))
        raise _jdbc_refusal(e) from None
    except jdbc.JdbcError as e:
        raise _jdbc_refusal(e) from None
    try:
        _tree, low, root = _compile(engine, stmt.query)
        if stmt.columns is not None:
            if root.columns is None or len(root.columns) != len(stmt.columns):
                raise ValidationError(
                    "table's field list and the table's query field list have different counts."
                )
            _check_names(list(stmt.columns))
            root = low.rename(root, list(stmt.columns))
    except SqlError as e:
        raise _located(e, stmt) from None
    low.builder.storage.setdefault(plugin, config_from_json(plugin, config).to_json(masked=True))
    store = Store(input=root.op, storage_engine=plugin, target={"schema": schema, "table": name})
    compiled = CompiledQuery(
        low.plan(root, store=store),
        ["Fragment", "Number of records written"],
        target=".".join(stmt.name),
        sql=stmt.query,
        positions=low.builder.positions,
    )
    result = engine.run_plan(compiled)
    rows = sum(w.rows for w in result.written)
    return RowsResult(["Fragment", "Number of records written"], [["0_0", rows]])


def _drop_jdbc_table(engine: Engine, stmt: st.Drop) -> RowsResult:
    """DROP TABLE of a `writable` jdbc plugin's table, by Drill's name rules."""
    from drillspark.spark.storage import jdbc

    found = _jdbc_target(engine, stmt.name)
    assert found is not None
    plugin, config = found
    schema, name = list(stmt.name[1:-1]), stmt.name[-1]
    try:
        jdbc.drop_table(engine.session._spark(), config, schema, name, plugin)
    except jdbc.JdbcTableMissing:
        if stmt.if_exists:
            return _ok(False, f"Table [{name}] not found")
        raise ValidationError(f"Table [{name}] not found") from None
    except jdbc.JdbcError as e:
        raise _jdbc_refusal(e) from None
    return _ok(True, f"Table [{name}] dropped")


def close_session(engine: Engine) -> None:
    """Drop the session's temporary tables (Drill drops them when the session closes)."""
    temporary_tables(engine.session).drop_all()
