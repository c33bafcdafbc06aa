"""Lowering a parsed Drill SQL query (sqlglot AST) to a Drill logical plan: the plan's own
model (plan/model.LogicalPlan of plan/operators.py's operators), written as JSON
(docs/logical-plans.md) only where it is shown or saved.

The plan is built bottom-up as a list of operators with integer `@id`s. Columns of a
schema-free table are not known in advance, so names are resolved the way Drill does: a
qualified reference `t.a.b` is field `a` of the table aliased `t`, then member `b`; an
unqualified one is a top-level field; a field that does not exist is NULL at run time.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlglot import exp

from drillspark.formats.text import unescape
from drillspark.names import fold
from drillspark.plan.expressions import Expr
from drillspark.plan.model import LogicalPlan, StorageConfig
from drillspark.plan.operators import (
    Except,
    Filter,
    Intersect,
    Limit,
    Operator,
    Order,
    Ordering,
    Project,
    Scan,
    Store,
    Union,
    Values,
)
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.errors import (
    SqlError,
    SqlSyntaxError,
    UnsupportedSqlError,
    ValidationError,
    position_of,
)
from drillspark.sql.session import JSON_FORMAT_OPTIONS, ResolvedTable, SqlSession
from drillspark.sql.syntax import inside_subquery

STAR = "*"
STAR_DELIMITER = "¦¦"  # Drill's prefix delimiter of one table's star columns (`T0¦¦*`)
DISTINCT_ARG = "$distinct"  # the pre-aggregated argument of COUNT(DISTINCT x)

# JSON options a table function cannot set (lower case)
SESSION_ONLY_JSON_OPTIONS = {"alltextmode", "readnumbersasdouble"}

# Drill's implicit file columns: read only when the query names them.
IMPLICIT_FILE_COLUMNS = ("filename", "filepath", "fqn", "suffix")


@dataclass
class Rel:
    """An operator's output: its id and, when known, its column names."""

    op: int
    columns: list[str] | None
    strict: bool = False  # a view's declared columns: another name is an error, not NULL


@dataclass
class Source:
    """A FROM item visible under `alias`; `fields` maps a lower-cased column name to the
    name it has in the joined stream (None: names pass through unchanged)."""

    alias: str
    rel: Rel
    fields: dict[str, str] | None = None
    names: list[str] | None = None  # its own column names, kept when a join renames them

    @property
    def columns(self) -> list[str] | None:
        """The source's column names as the query sees them (not the join's renamed ones)."""
        return self.names if self.names is not None else self.rel.columns

    def field_name(self, name: str) -> str:
        if self.fields is None:
            return name
        return self.fields.get(fold(name), name)

    def has(self, name: str) -> bool:
        if self.fields is not None and fold(name) in self.fields:
            return True
        return self.columns is not None and fold(name) in {fold(c) for c in self.columns}


@dataclass
class Scope:
    sources: list[Source] = field(default_factory=list)

    def find(self, alias: str) -> Source | None:
        for s in self.sources:
            if fold(s.alias) == fold(alias):
                return s
        return None


class PlanBuilder:
    """Collects operators; `add` gives each its `@id` and remembers where in the SQL text it
    comes from (`node`, and per property prefix such as `projections[0]` in `parts`), so an
    error the translator reports for an operator can point at the query."""

    def __init__(self) -> None:
        self.ops: list[Operator] = []
        self.storage: dict[str, dict] = {}
        self.positions: dict[int, dict[str, int]] = {}

    def add(
        self, op: Operator, node: exp.Expr | None = None, parts: dict[str, exp.Expr] | None = None
    ) -> int:
        """Adds `op` (built without an id) as the next operator; its `@id`."""
        op_id = len(self.ops) + 1
        self.ops.append(replace(op, id=op_id))
        where = {"": start_of(node)} if node is not None else {}
        where.update({k: start_of(n) for k, n in (parts or {}).items()})
        found = {k: v for k, v in where.items() if v is not None}
        if found:
            self.positions[op_id] = found
        return op_id

    def node(self, op_id: int) -> Operator:
        """The operator added with this `@id`."""
        return self.ops[op_id - 1]

    def put(self, op: Operator) -> None:
        """Puts `op` in place of the operator with its `@id` (a rewrite of an added one)."""
        self.ops[op.id - 1] = op


def start_of(node: exp.Expr | None) -> int | None:
    """Offset of the leftmost token of `node` that sqlglot recorded a position for."""
    starts = [
        n.meta["start"]
        for n in (node.walk() if node is not None else [])
        if getattr(n, "meta", None) and "start" in n.meta
    ]
    return min(starts) if starts else None


def _err(cls: type[SqlError], message: str, node: exp.Expr | None, sql: str) -> SqlError:
    """An error placed at the leftmost token of `node` that sqlglot recorded a position for."""
    start = start_of(node)
    if start is None:
        return cls(message, sql)
    line, column = position_of(sql, start)
    return cls(message, sql, line, column)


@dataclass(frozen=True)
class LoweringSteps:
    """The steps a query's lowering recurses into that live above this module (they import
    it): a SELECT block (sql/select.py, whose subqueries lower queries again), a named table
    (sql/catalog.py: metadata tables, views, temporary tables) and the parser (a view's
    text). Handed in by `sql.parser.new_lowering`, so no import points back up here."""

    select: Callable[[Lowering, exp.Select], Rel]
    named_table: Callable[[Lowering, tuple[str, ...], exp.Table], Rel | None]
    parse: Callable[[str], exp.Expr]


class Lowering:
    """Lowers one query. `lower_query(node)` returns the root Rel; `plan()` the whole plan.
    Built by `sql.parser.new_lowering`, which hands in the steps above this module."""

    def __init__(self, session: SqlSession, sql: str, steps: LoweringSteps):
        self.session = session
        self.sql = sql
        self.steps = steps
        self.builder = PlanBuilder()
        self._names = itertools.count()
        self.ctes: list[dict[str, Rel]] = []
        # Helper columns (`$key0`, ...); under SELECT * the ones that joins add reach the
        # output, and the engine drops them from the result.
        self.hidden_names: list[str] = []
        # facts about a whole statement tree, computed once (not per table of it):
        # (what, id(root)) -> (root, answer); the root kept, so its id stays its own
        self._per_statement: dict[tuple[str, int], tuple[exp.Expr, Any]] = {}
        self._tables: dict[tuple[str, ...], ResolvedTable] = {}  # scan(): resolved names

    # ------------------------------------------------------------------ plan assembly
    def plan(self, root: Rel, store: Store | None = None) -> LogicalPlan:
        """The plan of the query whose root is `root`; `store` (reading `root`) writes it."""
        if store is not None:
            self.builder.add(store)
        head = {
            "type": "APACHE_DRILL_LOGICAL",
            "version": 1,
            "generator": {"type": "drillspark.sql", "info": self.sql},
            "options": self.session.plan_options(),
        }
        storage = {
            name: StorageConfig(cfg["type"], {k: v for k, v in cfg.items() if k != "type"})
            for name, cfg in self.builder.storage.items()
        }
        return LogicalPlan(tuple(self.builder.ops), storage, head)

    def hidden(self, prefix: str) -> str:
        name = f"${prefix}{next(self._names)}"
        self.hidden_names.append(name)
        return name

    def fail(
        self, message: str, node: exp.Expr | None, cls: type[SqlError] = ValidationError
    ) -> SqlError:
        return _err(cls, message, node, self.sql)

    def unsupported(self, what: str, node: exp.Expr | None) -> SqlError:
        return _err(UnsupportedSqlError, f"{what} is not supported", node, self.sql)

    # ------------------------------------------------------------------ queries
    def lower_query(self, node: exp.Expr) -> Rel:
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            if with_.args.get("recursive"):  # Drill's parser knows no WITH RECURSIVE
                first = with_.expressions[0]
                raise self.fail(
                    f'Encountered "{first.alias_or_name}": WITH RECURSIVE is not '
                    "supported by Drill",
                    first,
                    SqlSyntaxError,
                )
            frame: dict[str, Rel] = {}
            self.ctes.append(frame)
            try:
                for cte in with_.expressions:
                    rel = self.lower_query(cte.this)  # its own WITH, if any, nests
                    alias = cte.args.get("alias")
                    if alias is not None and alias.columns:  # WITH a (k, v) AS (...)
                        names = [c.name for c in alias.columns]
                        if rel.columns is None or len(names) != len(rel.columns):
                            raise self.fail(
                                "Number of columns must match number of query "
                                "columns (the WITH column list)",
                                alias,
                            )
                        rel = self.rename(rel, names)
                    frame[fold(cte.alias_or_name)] = rel
                return self._lower_body(node)
            finally:
                self.ctes.pop()
        return self._lower_body(node)

    def _lower_body(self, node: exp.Expr) -> Rel:
        if isinstance(node, exp.Subquery):
            return self._modifiers(self.lower_query(node.this), node)
        if isinstance(node, exp.Select):
            return self.steps.select(self, node)
        if isinstance(node, exp.Union | exp.Intersect | exp.Except):
            return self._set_op(node)
        if isinstance(node, exp.Values):
            return self.values(node)
        raise self.unsupported(f"the statement {node.key.upper()}", node)

    def _set_op(self, node: exp.Expr) -> Rel:
        distinct = bool(node.args.get("distinct", True))
        # `a UNION ALL b UNION ALL c ...` is a left-deep tree: take its spine as one n-ary
        # union (a 500-way UNION ALL would otherwise recurse 500 deep here and in Spark).
        spine = [node]
        while (
            isinstance(spine[-1].this, exp.Union)
            and isinstance(node, exp.Union)
            and bool(spine[-1].this.args.get("distinct", True)) == distinct
            and not any(spine[-1].this.args.get(k) for k in ("order", "limit", "offset", "with"))
        ):
            spine.append(spine[-1].this)
        left = self.lower_query(spine[-1].this)
        inputs = [left.op]
        for part in reversed(spine):
            right = self.lower_query(part.expression)
            if left.columns is not None and right.columns is not None:
                if len(left.columns) != len(right.columns):
                    raise self.fail(
                        f"Column count mismatch in {node.key.upper()}: its inputs "
                        f"have {len(left.columns)} and {len(right.columns)} "
                        "columns",
                        part,
                    )
                if [fold(c) for c in left.columns] != [fold(c) for c in right.columns]:
                    right = self.rename(right, left.columns)
                if node.key != "union":
                    right = self._without_nulls(right)
            inputs.append(right.op)
        kind = {"union": Union, "intersect": Intersect, "except": Except}[node.key]
        rel = Rel(self.builder.add(kind(inputs=tuple(inputs), distinct=distinct)), left.columns)
        return self._modifiers(rel, node)

    def _without_nulls(self, rel: Rel) -> Rel:
        """Drill matches INTERSECT / EXCEPT rows as a join does: a row with a NULL in any column
        matches nothing (INTERSECT drops it, EXCEPT keeps it), so the right side's rows with a
        NULL are left out before Spark's NULL-equal set operation."""
        assert rel.columns is not None
        check = dx.boolean_chain("and", [dx.call("isnotnull", [dx.path(c)]) for c in rel.columns])
        return Rel(self.builder.add(Filter(input=rel.op, expr=check)), rel.columns)

    def rename(self, rel: Rel, names: list[str]) -> Rel:
        assert rel.columns is not None
        projections = tuple(
            pp.named(new, pp.column(old)) for old, new in zip(rel.columns, names, strict=True)
        )
        return Rel(self.builder.add(Project(input=rel.op, projections=projections)), list(names))

    def _modifiers(self, rel: Rel, node: exp.Expr) -> Rel:
        """ORDER BY / LIMIT / OFFSET on a set operation or parenthesised query."""
        order = node.args.get("order")
        if order is not None:
            orderings = []
            for o in order.expressions:
                target = o.this
                if (n := ordinal(target)) is not None and rel.columns:
                    k = n - 1
                    if not 0 <= k < len(rel.columns):
                        raise self.fail(f"Ordinal out of range: ORDER BY {target.this}", target)
                    name = rel.columns[k]
                elif isinstance(target, exp.Column) and not target.table:
                    name = target.name
                else:
                    raise self.unsupported("ORDER BY an expression on a set operation", o)
                orderings.append(ordering(pp.column(name), o))
            rel = Rel(
                self.builder.add(Order(input=rel.op, orderings=tuple(orderings))), rel.columns
            )
        return self.limit(rel, node)

    def limit(self, rel: Rel, node: exp.Expr) -> Rel:
        limit = node.args.get("limit")
        offset = node.args.get("offset")
        if limit is None and offset is None:
            return rel
        first = self._int(offset.expression if offset is not None else None, node) or 0
        if isinstance(limit, exp.Fetch):  # OFFSET n ROWS FETCH FIRST m ROWS ONLY
            fetch = self._int(limit.args.get("count"), node)
        elif limit is not None and _is_all(limit.expression):
            fetch = None  # LIMIT ALL: no limit
        else:
            fetch = self._int(limit.expression if limit is not None else None, node)
        op = Limit(input=rel.op, first=first, last=None if fetch is None else first + fetch)
        return Rel(self.builder.add(op), rel.columns)

    def _int(self, node: exp.Expr | None, ctx: exp.Expr) -> int | None:
        if node is None:
            return None
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            return int(node.this)
        raise self.fail("LIMIT and OFFSET take a non-negative integer literal", node or ctx)

    def values(self, node: exp.Values) -> Rel:
        """VALUES rows as a `values` operator, then a project giving each column the type SQL
        gives its literals (INT/BIGINT, DECIMAL(p, s), DOUBLE), not the JSON content's."""
        rows: list[list[exp.Expr]] = []
        names: list[str] | None = None
        alias = node.args.get("alias")
        if alias is not None and alias.columns:
            names = [c.name for c in alias.columns]
        for tup in node.expressions:
            cells = list(tup.expressions)
            if names is None:
                names = [f"EXPR${i}" for i in range(len(cells))]
            if len(cells) != len(names):
                raise self.fail("VALUES rows have different numbers of columns", tup)
            rows.append(cells)
        assert names is not None
        if not all(_is_constant(c) for r in rows for c in r):
            return self._values_of_expressions(node, rows, names)
        types = [_column_type([r[i] for r in rows]) for i in range(len(names))]
        content = []
        for cells in rows:
            record = {}
            for name, cell, typ in zip(names, cells, types, strict=True):
                value = literal_value(cell, self)
                if typ is not None and typ[0] == "VARDECIMAL" and value is not None:
                    value = _number_text(cell)  # exact digits: cast from text, not a double
                record[name] = value
            content.append(record)
        rel = Rel(self.builder.add(Values(content=content), node), names)
        if all(t is None for t in types):
            return rel
        return Rel(
            self.builder.add(
                Project(
                    input=rel.op,
                    projections=tuple(
                        pp.named(n, pp.column(n) if t is None else dx.cast(dx.path(n), *t))
                        for n, t in zip(names, types, strict=True)
                    ),
                ),
                node,
            ),
            names,
        )

    def _values_of_expressions(
        self, node: exp.Values, rows: list[list[exp.Expr]], names: list[str]
    ) -> Rel:
        """VALUES rows with expressions (`(VALUES(CAST(NULL AS INT)), (1 + 1))`): each row a
        SELECT of its cells over one row, the rows one UNION ALL."""
        selects = [
            exp.Select(
                expressions=[
                    exp.Alias(this=cell.copy(), alias=exp.to_identifier(name, quoted=True))
                    for name, cell in zip(names, cells, strict=True)
                ]
            ).from_(exp.Values(expressions=[exp.Tuple(expressions=[exp.Literal.number(1)])]))
            for cells in rows
        ]
        query: exp.Expr = selects[0]
        for sel in selects[1:]:
            query = exp.Union(this=query, expression=sel, distinct=False)
        return self.lower_query(query)

    # ------------------------------------------------------------------ tables
    def table(self, node: exp.Table) -> Rel:
        """A table reference, a CTE name, or `table(dfs.`x`(opt => v, ...))`."""
        if isinstance(node.this, exp.Anonymous) and node.this.name.lower() == "table":
            return self._table_function(node.this)
        parts = tuple(p.name for p in node.parts)
        if len(parts) == 1:
            for frame in reversed(self.ctes):
                if fold(parts[0]) in frame:
                    return frame[fold(parts[0])]
        found = self.steps.named_table(self, parts, node)  # metadata tables, views, temp tables
        return found if found is not None else self.scan(parts, {}, node)

    def _table_function(self, fn: exp.Anonymous) -> Rel:
        if len(fn.expressions) != 1:
            raise self.fail("table() takes one table with options", fn)
        inner = fn.expressions[0]
        path_parts: list[str] = []
        options: dict[str, object] = {}
        node = inner
        while isinstance(node, exp.Dot):
            # `a.b.`t`(...)` nests as Dot(Dot(a, b), `t`(...)): every part of the left side
            path_parts.extend(_dotted_names(node.this))
            node = node.expression
        if isinstance(node, exp.Anonymous):
            path_parts.append(node.this if isinstance(node.this, str) else node.name)
            for kw in node.expressions:
                if not isinstance(kw, exp.Kwarg):
                    raise self.fail("table function options are written name => value", kw)
                value = literal_value(kw.expression, self)
                # Drill unescapes a table function's text once: '\\d' is the regex \d
                options[kw.this.name] = unescape(value) if isinstance(value, str) else value
        else:
            raise self.fail("expected table(plugin.`path`(option => value, ...))", inner)
        return self.scan(tuple(path_parts), options, fn)

    def scan(self, parts: tuple[str, ...], options: dict[str, object], node: exp.Expr) -> Rel:
        try:
            # one trip to the extension's workspace rule per table name and statement (a
            # 500-way UNION ALL over one file resolves it once)
            table = self._tables.get(parts) or self.session.resolve_table(parts)
        except SqlError as e:
            raise _err(type(e), e.message, node, self.sql) from None
        self._tables[parts] = table
        fmt = self._format(table.path, options, table.workspace)
        engine = table.plugin
        self.builder.storage.setdefault(engine, self.engine_config(engine))
        selection = {"format": fmt, "files": [table.path], "table": table.display}
        if engine in self.session.file_plugins():  # s3a://, another folder: its own rule
            ws = self.session.file_workspace(engine, table.workspace)
            if not ws.allow_outside and "://" not in ws.location:
                selection["confine"] = {"workspace": ws.name, "root": ws.location}
        elif engine == self.session.home and not self.session.outside.get(table.workspace, False):
            # the reader checks the workspace again where it opens each file (docs/security.md)
            root = self.session.workspaces[table.workspace]
            selection["confine"] = {"workspace": table.workspace, "root": root}
        if fmt["type"] == "text":  # the translator's text reader reads these two keys
            selection["delimiter"] = fmt.get("fieldDelimiter", ",")
            selection["extractHeader"] = fmt.get("extractHeader", False)
        implicit = self._implicit_columns(node)
        if implicit:
            selection["implicit"] = implicit
        if fmt["type"] == "json":
            used = self._named_anywhere(node)
            if used is not None:
                selection["keepColumns"] = used
        if fmt["type"] not in ("json", "text", "parquet"):
            # the names a format's metadata columns answer to (excel's `_sheets`, ...)
            selection["names"] = sorted({c.name for c in node.root().find_all(exp.Column)})
        if fmt["type"] == "text":
            named = self._star_text_columns(node, implicit)
            if named:
                selection["named"] = named
        return Rel(
            self.builder.add(Scan(storage_engine=engine, selection=selection), node),
            None,
        )

    def _implicit_columns(self, node: exp.Expr) -> list[str]:
        """The implicit file columns the statement names anywhere. They become scan columns;
        when no SELECT list names them they are dropped from a `*` result (Drill's `select *`
        never has them)."""
        return list(self._once_per_statement("implicit", node, self._find_implicit))

    def _find_implicit(self, root: exp.Expr) -> list[str]:
        named = {c.name.lower() for c in root.find_all(exp.Column)}
        found = [n for n in IMPLICIT_FILE_COLUMNS if n in named]
        # names some SELECT list gives its output (`SELECT filename` in a subquery reaches the
        # result through an outer `*`)
        outer = {
            e.alias_or_name.lower()
            for sel in root.find_all(exp.Select)
            for e in sel.expressions
            if isinstance(e, exp.Column | exp.Alias)
        }
        for n in found:
            if n not in outer and n not in self.hidden_names:
                self.hidden_names.append(n)
        return found

    def _named_anywhere(self, node: exp.Expr) -> list[str] | None:
        """Every name the statement holds (tables, aliases and columns alike): a superset of
        the top-level columns it can read from a table, which the JSON reader then keeps alone
        (a wide discovered schema costs tens of milliseconds to send to Python and to analyze,
        per statement). None when the statement may read columns it does not name: a `*` (but
        COUNT(*)) or a table's name as a column (the whole record). (NATURAL joins, which
        would be a third, are refused.)"""
        return self._once_per_statement("named", node, _names_in)

    def _once_per_statement(
        self, what: str, node: exp.Expr, find: Callable[[exp.Expr], Any]
    ) -> Any:
        """`find(root)` of `node`'s statement tree, computed once per tree."""
        root = node.root()
        hit = self._per_statement.get((what, id(root)))
        if hit is None or hit[0] is not root:
            hit = self._per_statement[(what, id(root))] = (root, find(root))
        return hit[1]

    @staticmethod
    def _star_text_columns(node: exp.Expr, implicit: list[str]) -> list[str]:
        """Columns a `SELECT *` over one text table names elsewhere (`WHERE x = ''`, `ORDER BY
        x`): Drill's text reader adds those it lacks to the `*` result, as ''. Only for a
        block whose FROM is this one table; select-list aliases and implicit columns aside."""
        select = node.find_ancestor(exp.Select)
        if (
            select is None
            or not any(isinstance(e, exp.Star) for e in select.expressions)
            or select.args.get("joins")
        ):
            return []
        aliases = {fold(e.alias) for e in select.expressions if isinstance(e, exp.Alias)}
        out: list[str] = []
        for col in select.find_all(exp.Column):
            if inside_subquery(col, select) or not isinstance(col.this, exp.Identifier):
                continue
            name = col.name
            low = name.lower()  # the implicit columns' names, as Drill matches them
            if (
                fold(name) in aliases
                or low in implicit
                or low == "columns"
                or re.fullmatch(r"dir\d+", low)
                or fold(name) in (fold(n) for n in out)
            ):
                continue
            out.append(name)
        return out

    def engine_config(self, engine: str) -> dict:
        if engine in self.session.file_plugins():  # shown masked; the run gets the real one
            from drillspark.plugin_configs import config_from_json

            return config_from_json(engine, self.session.plugins[engine]).to_json(masked=True)
        if engine == self.session.classpath:
            return {
                "type": "file",
                "connection": "file:///",
                "workspaces": {"default": {"location": self.session.cp_root}},
            }
        return {
            "type": "file",
            "connection": "file:///",
            "workspaces": {k: {"location": v} for k, v in self.session.workspaces.items()},
            **({"formats": self.session.formats} if self.session.formats else {}),
        }

    def _format(self, path: str, options: dict[str, object], workspace: str = "") -> dict:
        """The scan's format: a table function's `type` and options, else the config the
        file's extension selects (the format registry's answer, drillspark/formats/); a text
        config's options (the delimiter of csv, tsv, psv, ...) go under a table function's."""
        from drillspark.formats import registry
        from drillspark.formats.base import COMMON_KEYS

        ext = self._extension(path)
        opts = dict(options)
        asked = opts.pop("type", None)
        selected_type, selected = registry.selected(
            ext, self.session.formats, self.session.default_formats.get(workspace)
        )
        ftype = str(asked or selected_type).lower()
        fmt: dict[str, object] = {"type": ftype}
        if ftype == "text" and selected_type == "text":
            fmt.update({k: v for k, v in selected.items() if k not in COMMON_KEYS})
        if ftype == "json":
            for option, key in JSON_FORMAT_OPTIONS.items():
                fmt[key] = self.session.option(option)
            # Drill 1.22's JSON reader takes these two from the session options only: given
            # in a table function they change nothing (docs/drill-differences.md)
            opts = {k: v for k, v in opts.items() if k.lower() not in SESSION_ONLY_JSON_OPTIONS}
        fmt.update(opts)
        return fmt

    @staticmethod
    def _extension(path: str) -> str:
        from drillspark.spark.storage import filesystems

        if filesystems.is_remote(path):  # a file plugin's object store: its first data file
            from pyspark.sql import SparkSession

            files = filesystems.list_files(SparkSession.active(), path)
            path = files[0] if files else path
        if os.path.isdir(path):
            for _root, _dirs, files in sorted(os.walk(path)):
                for f in sorted(files):
                    if not f.startswith((".", "_")):
                        return os.path.splitext(f)[1].lstrip(".").lower()
            return ""
        name = os.path.basename(path)
        for comp in (".gz", ".bz2", ".zip"):
            if name.endswith(comp):
                name = name[: -len(comp)]
        return os.path.splitext(name)[1].lstrip(".").lower()


def ordering(expr: Expr, o: exp.Ordered) -> Ordering:
    """The ordering of the expression `expr` as the ORDER BY item `o` asks."""
    return pp.ordering(
        expr,
        "DESC" if o.args.get("desc") else "ASC",
        "FIRST" if o.args.get("nulls_first") else "LAST",
    )


def _dotted_names(node: exp.Expr) -> list[str]:
    """The names of a dotted path (`s3.root`), outermost first."""
    if isinstance(node, exp.Dot):
        return [*_dotted_names(node.this), node.expression.name]
    return [node.name]


def literal_value(node: exp.Expr, low: Lowering) -> object:
    """A constant (table-function option, VALUES cell) as a Python value."""
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        try:
            number = int(text) if text.lstrip("-").isdigit() else float(text)
        except ValueError:  # sqlglot's `1E` (no exponent digits), or over 4,300 digits
            raise low.fail(f"'{text[:40]}' is not a number Drill reads", node) from None
        if isinstance(number, float) and math.isinf(number):  # past DOUBLE's range, as Drill says
            raise low.fail(f"Numeric literal '{text[:40].upper()}' out of range", node)
        return number
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        value = literal_value(node.this, low)
        assert isinstance(value, int | float)
        return -value
    raise low.fail("expected a literal value", node)


# ====================================================================== helpers

INT_RANGE = range(-(2**31), 2**31)


def _fits_int(text: str) -> bool:
    return len(text.lstrip("-")) <= 10 and int(text) in INT_RANGE


def _number_text(node: exp.Expr) -> str:
    if isinstance(node, exp.Neg):
        return "-" + _number_text(node.this)
    assert isinstance(node, exp.Literal)
    return node.this


def _is_constant(node: exp.Expr) -> bool:
    """A cell `literal_value` reads (a literal, NULL, TRUE / FALSE, a negated number)."""
    return isinstance(node, exp.Boolean | exp.Null | exp.Literal) or (
        isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)
    )


def _column_type(cells: list[exp.Expr]) -> tuple[str, tuple[int, ...]] | None:
    """The SQL type of a VALUES column of numeric literals (NULLs allowed): INT while every
    integer fits, else BIGINT; DECIMAL(p, s) with a decimal point; DOUBLE with an exponent.
    None (keep the values as read) for other columns."""
    texts = [
        _number_text(c)
        for c in cells
        if not isinstance(c, exp.Null)
        if isinstance(c, exp.Literal)
        and not c.is_string
        or isinstance(c, exp.Neg)
        and isinstance(c.this, exp.Literal)
    ]
    if not texts or len(texts) != sum(not isinstance(c, exp.Null) for c in cells):
        return None
    if any("e" in t.lower() for t in texts):
        return "FLOAT8", ()
    if any("." in t for t in texts):
        # Calcite's least restrictive type: an integer counts as DECIMAL(10, 0) (INT) or
        # DECIMAL(19, 0) (BIGINT), a decimal literal by every digit written (0.5: (2, 1)).
        scale = max(len(t.split(".")[1]) if "." in t else 0 for t in texts)
        whole = max(
            len(t.lstrip("-").split(".")[0]) if "." in t else 10 if _fits_int(t) else 19
            for t in texts
        )
        return "VARDECIMAL", (min(max(whole + scale, 1), 38), scale)
    return ("INT" if all(_fits_int(t) for t in texts) else "BIGINT"), ()


def ordinal(target: exp.Expr) -> int | None:
    """The number of an ORDER BY ordinal (`ORDER BY 2`); None for anything else, a number
    that is no whole number too (`ORDER BY 1.5`, `1e9991`: a constant sort key)."""
    number = isinstance(target, exp.Literal) and not target.is_string
    return int(target.this) if number and re.fullmatch(r"[0-9]+", target.this) else None


def column_parts(col: exp.Column) -> list[str]:
    """Identifier names of a column reference, outermost qualifier first."""
    return [p.name for p in col.parts]


def _is_all(node: exp.Expr | None) -> bool:
    """`LIMIT ALL` (sqlglot reads ALL as a column named all)."""
    return (
        isinstance(node, exp.Column)
        and not node.table
        and isinstance(node.this, exp.Identifier)
        and not node.this.quoted
        and node.name.lower() == "all"
    )


def _names_in(root: exp.Expr) -> list[str] | None:
    """Every identifier of the statement `root`, or None (see Lowering._named_anywhere)."""
    if any(not isinstance(s.parent, exp.Count) for s in root.find_all(exp.Star)):
        return None
    tables = {fold(t.alias_or_name) for t in root.find_all(exp.Table)}
    if any(fold(c.name) in tables and not c.table for c in root.find_all(exp.Column)):
        return None
    return sorted({i.name for i in root.find_all(exp.Identifier)})
