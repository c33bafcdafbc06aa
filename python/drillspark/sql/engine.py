"""Running SQL statements: queries go through the Drill logical plan and the translator
(`drillspark.run`); USE, ALTER SESSION, SHOW, DESCRIBE and EXPLAIN are answered here, CREATE
VIEW / CREATE TABLE AS / DROP by sql/ddl.py."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from drillspark.errors import ExecutionError
from drillspark.formats import registry as format_registry
from drillspark.names import fold
from drillspark.plan.errors import PlanError
from drillspark.plan.expressions import to_text
from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import Filter, Flatten, Project, Scan
from drillspark.plugin_configs import bootstrap
from drillspark.result import DrillResult, StatementResult
from drillspark.spark.storage import metadata as md
from drillspark.spark.storage.views import jackson_pretty, list_views
from drillspark.sql import catalog, ddl
from drillspark.sql import statements as st
from drillspark.sql.errors import (
    QueryPlanError,
    SqlError,
    ValidationError,
    position_of,
    shift_error,
)
from drillspark.sql.parser import CompiledQuery, compile_query
from drillspark.sql.session import NO_DEFAULT_SCHEMA, SqlSession
from drillspark.sql.temporary import temporary_tables

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# The statements' answers are the API's StatementResult (show, to_pandas, ... as query results).
RowsResult = StatementResult


class SqlEngine:
    """Executes Drill SQL text with one SqlSession (USE and ALTER SESSION persist between
    statements). `spark` is created on the first query when not given."""

    def __init__(
        self,
        spark: SparkSession | None = None,
        session: SqlSession | None = None,
        spark_factory: Callable[[], SparkSession] | None = None,
        reuse_plans: bool = True,
    ):
        self._spark = spark
        self._spark_factory = spark_factory
        # a query's translation kept while the files it read are unchanged (spark/plan_reuse.py):
        # BI clients, notebooks and benchmarks send the same statements again and again
        self.reuse_plans = reuse_plans
        self.session = session or SqlSession()
        if self.session.spark_provider is None:  # table paths are resolved by the extension
            self.session.spark_provider = lambda: self.spark

    @property
    def has_spark(self) -> bool:
        return self._spark is not None

    @property
    def spark(self) -> SparkSession:
        if self._spark is None:
            from pyspark.sql import SparkSession

            active = SparkSession.getActiveSession()
            if active is None and self._spark_factory is not None:
                active = self._spark_factory()
            if active is None:
                from drillspark.session import session

                active = session()
            self._spark = active
        return self._spark

    # ------------------------------------------------------------------ entry points
    def execute(self, text: str) -> list[DrillResult | StatementResult]:
        """Run every ';'-separated statement of `text`; the results in order."""
        results = []
        self.session.follow_cwd()
        for offset, stmt in st.split(text):
            try:
                results.append(self.execute_statement(stmt))
            except SqlError as e:
                raise shift_error(e, text, offset) from None
        return results

    def execute_statement(self, text: str) -> DrillResult | StatementResult:
        stmt = st.classify(text)
        handler = getattr(self, "_" + type(stmt).__name__.lower())
        try:
            return handler(stmt)
        except SqlError as e:
            if e.sql is None:
                e.sql = text
                e.args = (e._paragraph(),)
            raise

    def compile(self, text: str) -> CompiledQuery:
        return compile_query(text, self.session)

    # ------------------------------------------------------------------ queries
    def _query(self, stmt: st.Query) -> DrillResult:
        result = self.run_plan(self.compile(stmt.text))
        result.statement = stmt.text  # runtime failures name the query
        return result

    def run_plan(self, compiled: CompiledQuery) -> DrillResult:
        try:
            from drillspark.api import run
            from drillspark.plan import validate
        except ImportError as e:
            raise SqlError(
                "running queries needs the plan translator (drillspark.run), which "
                f"this build does not have ({e})"
            ) from None
        try:
            plan = validate(compiled.plan)
            # the plugins' real configs (the plan shows them with their secrets masked)
            result = run(
                plan,
                spark=self.spark,
                storage=dict(self.session.plugins) or None,
                reuse=("user", self.session.user) if self.reuse_plans else None,
            )
        except (ValueError, RuntimeError) as e:
            located = plan_failure(e, compiled)
            if located is None:
                raise
            raise located from None
        hidden = compiled.hidden
        if hidden:
            result.map_df(lambda df: df.drop(*[c for c in hidden if c in df.columns]))
        return result

    def _explain(self, stmt: st.Explain) -> RowsResult:
        try:
            compiled = self.compile(stmt.query)
        except SqlError as e:
            raise shift_error(e, stmt.text, stmt.query_offset) from None
        text = compiled.plan.to_json_text()
        return RowsResult(["text", "json"], [[summary(compiled.plan), text]], text=text)

    # ------------------------------------------------------------------ session statements
    def _use(self, stmt: st.Use) -> RowsResult:
        name = self.session.use(stmt.schema)
        return RowsResult(["ok", "summary"], [[True, f"Default schema changed to [{name}]"]])

    def _setoption(self, stmt: st.SetOption) -> RowsResult:
        if stmt.value is None:
            self.session.reset(stmt.name, stmt.scope.upper())
            # Drill 1.22: "planner.slice_target updated." / "ALL updated." (ALTER SESSION
            # resets any name)
            return RowsResult(["ok", "summary"], [[True, f"{stmt.name or 'ALL'} updated."]])
        self.session.set_option(stmt.name, stmt.value, stmt.scope.upper())
        return RowsResult(["ok", "summary"], [[True, f"{stmt.name} updated."]])

    def _showschemas(self, stmt: st.ShowSchemas) -> RowsResult:
        names = catalog.schema_names(self.session)
        if stmt.like is not None:
            names = [n for n in names if like(n, stmt.like)]
        return RowsResult(["SCHEMA_NAME"], [[n] for n in names])

    def _showfiles(self, stmt: st.ShowFiles) -> RowsResult:
        return show_files(self.session, stmt.schema)

    def _showtables(self, stmt: st.ShowTables) -> RowsResult:
        in_plugin = catalog.plugin_tables(self.session, stmt.schema)  # mongo.db's collections
        if in_plugin is not None:
            schema, names = in_plugin
            names = [n for n in names if stmt.like is None or like(n, stmt.like)]
            return RowsResult(["TABLE_SCHEMA", "TABLE_NAME"], [[schema, n] for n in names])
        if stmt.schema is None:
            ref = catalog.default_ref(self.session)
            if ref is None:
                raise ValidationError(NO_DEFAULT_SCHEMA)
        else:
            ref = catalog.resolve_schema(self.session, stmt.schema)
        if ref.plugin == catalog.ISCHEMA:
            names = list(md.ISCHEMA_TABLES)
        elif ref.plugin == catalog.SYS:
            names = list(md.SYS_TABLES)
        else:  # Drill lists the views of a workspace, not its files
            files = ref.plugin == self.session.home or ref.plugin in self.session.file_plugins()
            listed = catalog.listing(self.session, ref, ()) if files else None
            # a view file linking out of a confined workspace is no view of it (never read); a
            # remote workspace's (s3a://, hdfs://) are read through the session
            spark = self.session._spark() if listed and "://" in listed[0] else None
            names = [v.name for v in list_views(*listed, spark=spark)] if listed else []
        if stmt.like is not None:
            names = [n for n in names if like(n, stmt.like)]
        return RowsResult(["TABLE_SCHEMA", "TABLE_NAME"], [[ref.name, n] for n in names])

    def _describe(self, stmt: st.Describe) -> RowsResult:
        fields = describe_fields(self.session, stmt.table)
        if stmt.column is not None:
            fields = [f for f in fields if fold(f.name) == fold(stmt.column)]
        if stmt.like is not None:
            fields = [f for f in fields if like(f.name, stmt.like)]
        rows = [
            [f.name, md.column_attributes(f)["DATA_TYPE"], "YES" if f.nullable else "NO"]
            for f in fields
        ]
        return RowsResult(["COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE"], rows)

    def _describeschema(self, stmt: st.DescribeSchema) -> RowsResult:
        try:
            ref = catalog.resolve_schema(self.session, stmt.schema)
        except ValidationError:
            raise ValidationError(f"Invalid schema name [{'.'.join(stmt.schema)}]") from None
        return RowsResult(
            ["schema", "properties"], [[ref.name, schema_properties(self.session, ref)]]
        )

    # ------------------------------------------------------------------ DDL (sql/ddl.py)
    def _createview(self, stmt: st.CreateView) -> RowsResult:
        return ddl.create_view(self, stmt)

    def _createtable(self, stmt: st.CreateTable) -> RowsResult:
        return ddl.create_table(self, stmt)

    def _drop(self, stmt: st.Drop) -> RowsResult:
        return ddl.drop(self, stmt)

    def close(self) -> None:
        """End the session: its temporary tables are dropped."""
        ddl.close_session(self)


def like(text: str, pattern: str) -> bool:
    """SQL LIKE as SHOW ... LIKE and DESCRIBE t 'pattern' apply it (case-insensitive)."""
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, text, re.I | re.S) is not None


def describe_fields(session: SqlSession, parts: tuple[str, ...]) -> list[md.SqlField]:
    """DESCRIBE's columns: a view's or metadata table's declared columns; none for a file or
    folder (Drill knows a schema-free table's columns only when it reads it); a database
    table's from its catalog."""
    fields = catalog.plugin_fields(session, tuple(parts))
    if fields is not None:
        return fields
    found = catalog.split_table(session, parts)
    if found is None:
        schema = ".".join(parts[:-1]) or f"{session.home}.default"
        raise ValidationError(f"Unknown table [{parts[-1]}] in schema [{schema}]")
    ref, name = found
    if ref.is_metadata:
        tables = md.ISCHEMA_TABLES if ref.plugin == catalog.ISCHEMA else md.SYS_TABLES
        key = next((t for t in tables if fold(t) == fold(name)), None)
        if key is not None:
            return [md.SqlField(n, t, nullable) for n, t, nullable in tables[key]]
    else:
        view = catalog.find_view(session, ref, name)
        if view is not None:
            return [md.SqlField.of(f) for f in view.fields]
        if ref == catalog.temp_schema(session) and temporary_tables(session).find(name):
            return []
        try:
            session.resolve_table(tuple(parts))
            return []
        except SqlError:
            pass
    raise ValidationError(f"Unknown table [{name}] in schema [{ref.name}]")


def schema_properties(session: SqlSession, ref: catalog.SchemaRef) -> str:
    """DESCRIBE SCHEMA's `properties`: the storage plugin config (Jackson-pretty JSON)."""
    if ref.plugin == catalog.ISCHEMA:
        config: dict[str, Any] = {"type": "InfoSchemaConfig", "enabled": True}
    elif ref.plugin == catalog.SYS:
        config = {"type": "SystemTablePluginConfig", "enabled": True}
    else:
        config = {
            "type": "file",
            "connection": (
                bootstrap.CLASSPATH_CONNECTION if ref.plugin == session.classpath else "file:///"
            ),
            "formats": FORMATS_CONFIG,
            "authMode": "SHARED_USER",
            "enabled": True,
        }
        if ref.plugin == session.home:
            config.update(
                location=catalog.folder_of(session, ref),
                writable=catalog.writable(session, ref),
                defaultInputFormat=None,
                allowAccessOutsideWorkspace=False,
            )
    return jackson_pretty(config)


# The formats of Drill's bootstrap dfs / cp plugin config (drillspark/formats/registry.py).
FORMATS_CONFIG: dict[str, Any] = format_registry.bootstrap_formats(contrib=False)


def _quoted(parts: Sequence[str]) -> str:
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def show_files(session: SqlSession, schema: tuple[str, ...] | None) -> RowsResult:
    """Drill's SHOW FILES [IN schema[.`sub/folder`]]: the entries of a workspace folder, of a
    folder under it, or the one file it names. The folder is named by the one workspace rule
    (`catalog.listing`): in a confined workspace a name that leaves it is refused as a read
    would be, and a symlink entry that leads out is listed as the link itself."""
    columns = [
        "name",
        "isDirectory",
        "isFile",
        "length",
        "owner",
        "group",
        "permissions",
        "accessTime",
        "modificationTime",
    ]
    if schema is None:
        ref = catalog.default_ref(session)
        if ref is None or ref.plugin not in (*session.built_ins(), *session.file_plugins()):
            shown = ref.name if ref is not None else ""
            raise ValidationError(
                "SHOW FILES is supported in workspace type schema only. "
                f"Schema [{shown}] is not a workspace schema."
            )
        sub: tuple[str, ...] = ()
    else:
        parts = tuple(schema)
        ref = None
        for n in (2, 1):
            if len(parts) >= n:
                ref = catalog._absolute(session, tuple(session.schema_part(p) for p in parts[:n]))
                if ref is not None:
                    sub = parts[n:]
                    break
        if ref is None:
            ref, sub = catalog.resolve_schema(session, ()), parts
        if ref.plugin not in (*session.built_ins(), *session.file_plugins()):
            raise ValidationError(
                "SHOW FILES is supported in workspace type schema only. "
                f"Schema [{ref.name}] is not a workspace schema."
            )
    found = catalog.listing(session, ref, sub)
    if found is None:
        return RowsResult(columns, [])
    path, leads_out = found
    if "://" in path:  # a file plugin on s3a:// or hdfs://
        return RowsResult(columns, [list(e) for e in catalog.remote_entries(session, path)])
    if os.path.isfile(path):
        entry = md.file_entry(os.path.dirname(path), os.path.basename(path), leads_out)
        entries = [entry] if entry is not None else []
    else:
        entries = md.file_entries(path, leads_out)
    return RowsResult(columns, [list(e) for e in entries])


def summary(plan: LogicalPlan) -> str:
    """One line per operator, e.g. `00 scan dfs [json] .../x.json`."""
    lines = []
    for op in plan.operators:
        detail = ""
        if isinstance(op, Scan):
            sel = op.selection if isinstance(op.selection, dict) else {}
            fmt = sel.get("format", {}).get("type") if isinstance(sel.get("format"), dict) else None
            detail = f" {op.storage_engine}{f' [{fmt}]' if fmt else ''} {sel.get('table', '')}"
        elif isinstance(op, Flatten):
            detail = f" {op.name.root} = flatten({to_text(op.expr)})"
        elif isinstance(op, Filter):
            detail = f" {to_text(op.expr)}"
        elif isinstance(op, Project):
            detail = " " + ", ".join(f"{p.ref.root} = {to_text(p.expr)}" for p in op.projections)
        src = f" <- {', '.join(map(str, op.input_ids))}" if op.input_ids else ""
        lines.append(f"{op.id:02d} {op.op}{detail}{src}")
    return "\n".join(lines)


def plan_failure(error: Exception, compiled: CompiledQuery) -> SqlError | None:
    """A QueryPlanError for a translator or plan-validation failure naming an operator: the
    message, the plan operator, and the position of the SQL that produced it; None for
    failures of another kind (a file that cannot be read names its own place). The place
    comes from the error's attributes (`op_id`, `property`, `detail` of an ExecutionError;
    the first issue with an operator of a PlanError); positions in the generated plan JSON
    mean nothing to the user and are left out."""
    place = _failure_place(error)
    if place is None:
        return None
    op_id, prop, detail = place
    ops = {o.id: o.op for o in compiled.plan.operators}
    where = " ".join(x for x in (f"@{op_id}", str(ops.get(op_id, "")), prop) if x)
    message = f"{detail.strip()} (plan operator {where})"
    sql = compiled.sql
    offset = compiled.position(op_id, prop) if sql is not None else None
    if sql is None or offset is None:
        return QueryPlanError(message, sql)
    line, column = position_of(sql, offset)
    return QueryPlanError(message, sql, line, column)


def _failure_place(error: Exception) -> tuple[int, str, str] | None:
    """(operator @id, property, message) of a failure that names a plan operator."""
    if isinstance(error, ExecutionError):
        if error.op_id is None or error.detail is None:
            return None
        return int(error.op_id), error.property or "", error.detail
    if isinstance(error, PlanError):
        for issue in error.errors:
            if issue.op_id is not None:
                return issue.op_id, _property_of(issue.path), issue.message
    return None


def _property_of(path: str) -> str:
    """`storageengine` for the JSON path `$.query[2].storageengine` ('' for the operator)."""
    if not path.startswith("$.query["):
        return ""
    rest = path[len("$.query[") :]
    return rest[rest.find("]") + 1 :].lstrip(".")
