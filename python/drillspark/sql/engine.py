"""Running SQL statements: queries go through the Drill logical plan and the translator
(`drillspark.run`); USE, ALTER SESSION, SHOW and EXPLAIN are answered here."""

from __future__ import annotations

import datetime as _dt
import fnmatch
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from drillspark.sql import statements as st
from drillspark.sql.errors import QueryPlanError, SqlError, TableNotFoundError, position_of
from drillspark.sql.parser import CompiledQuery, compile_query
from drillspark.sql.session import SqlSession

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class RowsResult:
    """The answer of a statement that needs no Spark job (USE, SHOW FILES, EXPLAIN, ...)."""

    columns: list[str]
    data: list[list[Any]] = field(default_factory=list)
    text: str | None = None  # shown as is instead of a table (EXPLAIN's plan JSON)

    def rows(self) -> list[dict[str, Any]]:
        """Records as dicts, like DrillResult.rows()."""
        return [dict(zip(self.columns, r, strict=True)) for r in self.data]

    def __iter__(self) -> Iterator[list[Any]]:
        return iter([list(r) for r in self.data])

    def __len__(self) -> int:
        return len(self.data)


class SqlEngine:
    """Executes Drill SQL text with one SqlSession (USE and ALTER SESSION persist between
    statements). `spark` is created on the first query when not given."""

    def __init__(self, spark: SparkSession | None = None, session: SqlSession | None = None,
                 spark_factory: Callable[[], SparkSession] | None = None):
        self._spark = spark
        self._spark_factory = spark_factory
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
                import drillspark

                active = drillspark.session()
            self._spark = active
        return self._spark

    # ------------------------------------------------------------------ entry points
    def execute(self, text: str) -> list[Any]:
        """Run every ';'-separated statement of `text`; the results in order."""
        results = []
        for offset, stmt in st.split(text):
            try:
                results.append(self.execute_statement(stmt))
            except SqlError as e:
                raise _shift(e, text, offset) from None
        return results

    def execute_statement(self, text: str) -> Any:
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
    def _query(self, stmt: st.Query) -> Any:
        result = self.run_plan(self.compile(stmt.text))
        result.statement = stmt.text  # runtime failures name the query
        return result

    def run_plan(self, compiled: CompiledQuery) -> Any:
        try:
            from drillspark.api import run
            from drillspark.plan import parse
        except ImportError as e:
            raise SqlError("running queries needs the plan translator (drillspark.run), which "
                           f"this build does not have ({e})") from None
        try:
            plan = parse(json.dumps(compiled.plan))
            result = run(plan, spark=self.spark)
        except (ValueError, RuntimeError) as e:
            located = plan_failure(e, compiled)
            if located is None:
                raise
            raise located from None
        present = [c for c in compiled.hidden if c in result.df.columns]
        if present:
            result.df = result.df.drop(*present)
        return result

    def _explain(self, stmt: st.Explain) -> RowsResult:
        try:
            compiled = self.compile(stmt.query)
        except SqlError as e:
            raise _shift(e, stmt.text, stmt.query_offset) from None
        text = plan_json(compiled.plan)
        return RowsResult(["text", "json"], [[summary(compiled.plan), text]], text=text)

    # ------------------------------------------------------------------ session statements
    def _use(self, stmt: st.Use) -> RowsResult:
        name = self.session.use(stmt.schema)
        return RowsResult(["ok", "summary"], [[True, f"Default schema changed to [{name}]"]])

    def _setoption(self, stmt: st.SetOption) -> RowsResult:
        if stmt.value is None:
            self.session.reset(stmt.name)
            what = stmt.name or "all options"
            return RowsResult(["ok", "summary"], [[True, f"{what} reset."]])
        self.session.set_option(stmt.name, stmt.value)
        return RowsResult(["ok", "summary"], [[True, f"{stmt.name} updated."]])

    def _showschemas(self, stmt: st.ShowSchemas) -> RowsResult:
        names = self.session.schemas()
        if stmt.like is not None:
            pattern = stmt.like.replace("%", "*").replace("_", "?")
            names = [n for n in names if fnmatch.fnmatch(n, pattern)]
        return RowsResult(["SCHEMA_NAME"], [[n] for n in names])

    def _showfiles(self, stmt: st.ShowFiles) -> RowsResult:
        return show_files(self.session, stmt.schema)

    def _showtables(self, stmt: st.ShowTables) -> RowsResult:
        schema, folder = self.session.schema_folder(stmt.schema)
        files = show_files(self.session, stmt.schema)
        rows = [[".".join(schema), r[0]] for r in files.data if not r[0].startswith(".")]
        return RowsResult(["TABLE_SCHEMA", "TABLE_NAME"], rows)

    def _describe(self, stmt: st.Describe) -> Any:
        self.session.resolve_table(stmt.table)  # a clear error for a missing table
        compiled = self.compile(f"select * from {_quoted(stmt.table)} limit 0")
        columns = describe_columns(self.run_plan(compiled))
        return RowsResult(["COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE"], columns)


def describe_columns(result: Any) -> list[list[Any]]:
    """(name, Drill type, nullable) for each column of a query result, from its Spark schema
    (arrays are REPEATED in Drill: `ARRAY<type>` here, as Drill's RowSet schemas print it)."""
    from pyspark.sql import types as T

    from drillspark.spark.drill_types import drill_name_of

    def name_of(t: Any) -> str:
        if isinstance(t, T.ArrayType):
            return f"ARRAY<{name_of(t.elementType)}>"
        try:
            return drill_name_of(t)
        except Exception:  # a type Drill has no name for
            return t.simpleString().upper()

    return [[f.name, name_of(f.dataType), "YES" if f.nullable else "NO"]
            for f in result.df.schema.fields]


def _quoted(parts: Sequence[str]) -> str:
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def show_files(session: SqlSession, schema: tuple[str, ...] | None) -> RowsResult:
    """Drill's SHOW FILES: the entries of a workspace folder."""
    full, folder = session.schema_folder(schema)
    if not os.path.isdir(folder):
        raise TableNotFoundError(f"workspace {'.'.join(full)} resolves to {folder}, which is "
                                 "not a folder")
    rows = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        try:
            info = os.stat(path)
        except OSError:
            continue
        rows.append([name, stat.S_ISDIR(info.st_mode), stat.S_ISREG(info.st_mode), info.st_size,
                     _owner(info.st_uid), stat.filemode(info.st_mode)[1:],
                     _dt.datetime.fromtimestamp(info.st_mtime, _dt.UTC).replace(tzinfo=None)])
    return RowsResult(["name", "isDirectory", "isFile", "length", "owner", "permissions",
                       "modificationTime"], rows)


def _owner(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


def plan_json(plan: dict) -> str:
    """The plan as the model prints it (plan.to_json()) when the plan package is present."""
    try:
        from drillspark.plan import parse
    except ImportError:
        return json.dumps(plan, indent=2)
    return parse(json.dumps(plan)).to_json_text()


def summary(plan: dict) -> str:
    """One line per operator, e.g. `00 scan dfs [json] .../x.json`."""
    lines = []
    for op in plan.get("query", []):
        name = op.get("op")
        detail = ""
        if name == "scan":
            sel = op.get("selection", {})
            detail = f" {op.get('storageengine')} [{sel.get('format', {}).get('type')}] " \
                     f"{sel.get('table', '')}"
        elif name == "flatten":
            detail = f" {op.get('name')} = flatten({op.get('expr')})"
        elif name == "filter":
            detail = f" {op.get('expr')}"
        elif name == "project":
            detail = " " + ", ".join(f"{p['ref']} = {p['expr']}" for p in op["projections"])
        inputs = [op[k] for k in ("input", "left", "right") if k in op] + op.get("inputs", [])
        src = f" <- {', '.join(map(str, inputs))}" if inputs else ""
        lines.append(f"{op['@id']:02d} {name}{detail}{src}")
    return "\n".join(lines)


# "operator @2 (project) projections[0].expr (line 1, column 1): message" (translator) and
# "<plan>:1:1034: @id 3 $.query[2].storageengine: message" (plan validation); the line and
# column there are positions in the generated plan JSON, which mean nothing to the user.
_OPERATOR_FAILURE = re.compile(
    r"operator @(?P<id>\d+) \((?P<op>[^)]*)\)(?: (?P<prop>[^\s:(]+))?(?: \(line \d+, "
    r"column \d+\))?: (?P<msg>.*)", re.S)
_PLAN_FAILURE = re.compile(
    r"<plan>:\d+:\d+: @id (?P<id>\d+) \$\.query\[\d+\]\.?(?P<prop>\S*): (?P<msg>.*)", re.S)


def plan_failure(error: Exception, compiled: CompiledQuery) -> SqlError | None:
    """A QueryPlanError for a translator or plan-validation failure naming an operator: the
    message, the plan operator, and the position of the SQL that produced it; None for
    failures of another kind (a file that cannot be read names its own place)."""
    text = str(error)
    m = _OPERATOR_FAILURE.search(text) or _PLAN_FAILURE.search(text)
    if m is None:
        return None
    op_id = int(m["id"])
    prop = m["prop"] or ""
    ops = {o["@id"]: o.get("op") for o in compiled.plan.get("query", [])}
    where = " ".join(x for x in (f"@{op_id}", str(ops.get(op_id, "")), prop) if x)
    message = f"{m['msg'].strip()} (plan operator {where})"
    sql = compiled.sql
    offset = compiled.position(op_id, prop) if sql is not None else None
    if sql is None or offset is None:
        return QueryPlanError(message, sql)
    line, column = position_of(sql, offset)
    return QueryPlanError(message, sql, line, column)


def _shift(e: SqlError, text: str, offset: int) -> SqlError:
    """Re-place an error found in a statement at its position in the whole `text`."""
    if e.line is None or e.column is None or e.sql is None:
        return type(e)(e.message, text if e.sql is None else e.sql, e.line, e.column)
    lines = e.sql.splitlines(keepends=True)
    local = sum(len(x) for x in lines[: e.line - 1]) + e.column - 1
    line, column = position_of(text, offset + local)
    return type(e)(e.message, text, line, column)
