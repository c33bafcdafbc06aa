"""Lowering a parsed Drill SQL query (sqlglot AST) to a Drill logical plan (the JSON format of
drill-semantics.md §a, the one `drillspark.plan.parse` reads).

The plan is built bottom-up as a list of operators with integer `@id`s. Columns of a
schema-free table are not known in advance, so names are resolved the way Drill does: a
qualified reference `t.a.b` is field `a` of the table aliased `t`, then member `b`; an
unqualified one is a top-level field; a field that does not exist is NULL at run time.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

from sqlglot import exp

from drillspark.sql import drill_expr as dx
from drillspark.sql.errors import (
    SqlError,
    SqlSyntaxError,
    UnsupportedSqlError,
    ValidationError,
    position_of,
)
from drillspark.sql.session import JSON_FORMAT_OPTIONS, OPTION_DEFAULTS, SqlSession

STAR = "*"
DISTINCT_ARG = "$distinct"  # the pre-aggregated argument of COUNT(DISTINCT x)

# Extension -> Drill format type for `dfs` tables without a table function `type`.
FORMAT_BY_EXTENSION = {
    "json": "json", "csv": "text", "csvh": "text", "tsv": "text", "psv": "text", "txt": "text",
    "parquet": "parquet", "avro": "avro", "seq": "sequencefile",
}
TEXT_DEFAULTS = {
    "csv": {"fieldDelimiter": ",", "extractHeader": False},
    "csvh": {"fieldDelimiter": ",", "extractHeader": True},
    "tsv": {"fieldDelimiter": "\t", "extractHeader": False},
    "psv": {"fieldDelimiter": "|", "extractHeader": False},
}

AGGREGATES = {
    "count", "sum", "avg", "min", "max", "stddev", "stddev_pop", "stddev_samp", "variance",
    "var_pop", "var_samp", "any_value", "bool_and", "bool_or", "every", "bit_and", "bit_or",
}
WINDOW_ONLY = {"rank", "dense_rank", "row_number", "percent_rank", "cume_dist", "ntile",
               "lead", "lag", "first_value", "last_value"}

# sqlglot node classes whose Drill function name is not recorded in meta.
FUNCTION_NAMES = {
    "Trim": "btrim", "CurrentDate": "current_date", "CurrentTimestamp": "current_timestamp",
    "CurrentTime": "current_time", "ArraySize": "repeated_count", "Pow": "power",
    "StrPosition": "strpos", "Ln": "ln", "Upper": "upper", "Lower": "lower",
}


@dataclass
class Rel:
    """An operator's output: its id and, when known, its column names."""

    op: int
    columns: list[str] | None


@dataclass
class Source:
    """A FROM item visible under `alias`; `fields` maps a lower-cased column name to the
    name it has in the joined stream (None: names pass through unchanged)."""

    alias: str
    rel: Rel
    fields: dict[str, str] | None = None

    def field_name(self, name: str) -> str:
        if self.fields is None:
            return name
        return self.fields.get(name.lower(), name)

    def has(self, name: str) -> bool:
        if self.fields is not None:
            return name.lower() in self.fields
        return self.rel.columns is not None and name.lower() in {c.lower() for c in
                                                                   self.rel.columns}


@dataclass
class Scope:
    sources: list[Source] = field(default_factory=list)

    def find(self, alias: str) -> Source | None:
        for s in self.sources:
            if s.alias.lower() == alias.lower():
                return s
        return None


class PlanBuilder:
    """Collects operators; `add` gives each its `@id`."""

    def __init__(self) -> None:
        self.ops: list[dict] = []
        self.storage: dict[str, dict] = {}

    def add(self, op: dict) -> int:
        op_id = len(self.ops) + 1
        self.ops.append({"@id": op_id, **op})
        return op_id


def _err(cls: type[SqlError], message: str, node: exp.Expression | None, sql: str) -> SqlError:
    """An error placed at the leftmost token of `node` that sqlglot recorded a position for."""
    starts = [n.meta["start"] for n in (node.walk() if node is not None else [])
              if getattr(n, "meta", None) and "start" in n.meta]
    if not starts:
        return cls(message, sql)
    line, column = position_of(sql, min(starts))
    return cls(message, sql, line, column)


class Lowering:
    """Lowers one query. `lower_query(node)` returns the root Rel; `plan()` the whole plan."""

    def __init__(self, session: SqlSession, sql: str):
        self.session = session
        self.sql = sql
        self.builder = PlanBuilder()
        self._names = itertools.count()
        self.ctes: list[dict[str, Rel]] = []
        # Helper columns (`$key0`, ...); under SELECT * the ones that joins add reach the
        # output, and the engine drops them from the result.
        self.hidden_names: list[str] = []

    # ------------------------------------------------------------------ plan assembly
    def plan(self, root: Rel, store: dict | None = None) -> dict:
        if store is not None:
            self.builder.add({"op": "store", "input": root.op, **store})
        options = {k: self.session.option(k) for k in OPTION_DEFAULTS}
        options.update(self.session.changed_options())
        return {
            "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1,
                     "generator": {"type": "drillspark.sql", "info": self.sql},
                     "options": options},
            "storage": self.builder.storage,
            "query": self.builder.ops,
        }

    def hidden(self, prefix: str) -> str:
        name = f"${prefix}{next(self._names)}"
        self.hidden_names.append(name)
        return name

    def fail(self, message: str, node: exp.Expression | None,
             cls: type[SqlError] = ValidationError) -> SqlError:
        return _err(cls, message, node, self.sql)

    def unsupported(self, what: str, node: exp.Expression | None) -> SqlError:
        return _err(UnsupportedSqlError, f"{what} is not supported", node, self.sql)

    # ------------------------------------------------------------------ queries
    def lower_query(self, node: exp.Expression) -> Rel:
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            frame: dict[str, Rel] = {}
            self.ctes.append(frame)
            try:
                for cte in with_.expressions:
                    frame[cte.alias_or_name.lower()] = self._lower_body(cte.this)
                return self._lower_body(node)
            finally:
                self.ctes.pop()
        return self._lower_body(node)

    def _lower_body(self, node: exp.Expression) -> Rel:
        if isinstance(node, exp.Subquery):
            return self._modifiers(self.lower_query(node.this), node)
        if isinstance(node, exp.Select):
            return SelectLowering(self, node).lower()
        if isinstance(node, exp.Union | exp.Intersect | exp.Except):
            return self._set_op(node)
        if isinstance(node, exp.Values):
            return self._values(node)
        raise self.unsupported(f"the statement {node.key.upper()}", node)

    def _set_op(self, node: exp.Expression) -> Rel:
        left = self.lower_query(node.this)
        right = self.lower_query(node.expression)
        if left.columns is not None and right.columns is not None:
            if len(left.columns) != len(right.columns):
                raise self.fail(f"{node.key.upper()} inputs have different numbers of columns "
                                f"({len(left.columns)} and {len(right.columns)})", node)
            if [c.lower() for c in left.columns] != [c.lower() for c in right.columns]:
                right = self.rename(right, left.columns)
        op = {"union": "union", "intersect": "intersect", "except": "Except"}[node.key]
        distinct = bool(node.args.get("distinct", True))
        rel = Rel(self.builder.add({"op": op, "inputs": [left.op, right.op],
                                    "distinct": distinct}), left.columns)
        return self._modifiers(rel, node)

    def rename(self, rel: Rel, names: list[str]) -> Rel:
        assert rel.columns is not None
        projections = [{"ref": new, "expr": dx.path(old)} for old, new in zip(rel.columns, names,
                                                                              strict=True)]
        return Rel(self.builder.add({"op": "project", "input": rel.op,
                                     "projections": projections}), list(names))

    def _modifiers(self, rel: Rel, node: exp.Expression) -> Rel:
        """ORDER BY / LIMIT / OFFSET on a set operation or parenthesised query."""
        order = node.args.get("order")
        if order is not None:
            orderings = []
            for o in order.expressions:
                target = o.this
                if isinstance(target, exp.Literal) and not target.is_string and rel.columns:
                    name = rel.columns[int(target.this) - 1]
                elif isinstance(target, exp.Column) and not target.table:
                    name = target.name
                else:
                    raise self.unsupported("ORDER BY an expression on a set operation", o)
                orderings.append(ordering(dx.path(name), o))
            rel = Rel(self.builder.add({"op": "order", "input": rel.op, "orderings": orderings}),
                      rel.columns)
        return self.limit(rel, node)

    def limit(self, rel: Rel, node: exp.Expression) -> Rel:
        limit = node.args.get("limit")
        offset = node.args.get("offset")
        if limit is None and offset is None:
            return rel
        first = self._int(offset.expression if offset is not None else None, node) or 0
        if isinstance(limit, exp.Fetch):  # OFFSET n ROWS FETCH FIRST m ROWS ONLY
            fetch = self._int(limit.args.get("count"), node)
        else:
            fetch = self._int(limit.expression if limit is not None else None, node)
        op = {"op": "limit", "input": rel.op, "first": first,
              "last": None if fetch is None else first + fetch}
        return Rel(self.builder.add(op), rel.columns)

    def _int(self, node: exp.Expression | None, ctx: exp.Expression) -> int | None:
        if node is None:
            return None
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            return int(node.this)
        raise self.fail("LIMIT and OFFSET take a non-negative integer literal", node or ctx)

    def _values(self, node: exp.Values) -> Rel:
        rows = []
        names: list[str] | None = None
        alias = node.args.get("alias")
        if alias is not None and alias.columns:
            names = [c.name for c in alias.columns]
        for tup in node.expressions:
            values = [literal_value(v, self) for v in tup.expressions]
            if names is None:
                names = [f"EXPR${i}" for i in range(len(values))]
            if len(values) != len(names):
                raise self.fail("VALUES rows have different numbers of columns", tup)
            rows.append(dict(zip(names, values, strict=True)))
        return Rel(self.builder.add({"op": "values", "content": rows}), names)

    # ------------------------------------------------------------------ tables
    def table(self, node: exp.Table) -> Rel:
        """A table reference, a CTE name, or `table(dfs.`x`(opt => v, ...))`."""
        if isinstance(node.this, exp.Anonymous) and node.this.name.lower() == "table":
            return self._table_function(node.this)
        parts = tuple(p.name for p in node.parts)
        if len(parts) == 1:
            for frame in reversed(self.ctes):
                if parts[0].lower() in frame:
                    return frame[parts[0].lower()]
        return self.scan(parts, {}, node)

    def _table_function(self, fn: exp.Anonymous) -> Rel:
        if len(fn.expressions) != 1:
            raise self.fail("table() takes one table with options", fn)
        inner = fn.expressions[0]
        path_parts: list[str] = []
        options: dict[str, object] = {}
        node = inner
        while isinstance(node, exp.Dot):
            path_parts.append(node.this.name)
            node = node.expression
        if isinstance(node, exp.Anonymous):
            path_parts.append(node.this if isinstance(node.this, str) else node.name)
            for kw in node.expressions:
                if not isinstance(kw, exp.Kwarg):
                    raise self.fail("table function options are written name => value", kw)
                options[kw.this.name] = literal_value(kw.expression, self)
        else:
            raise self.fail("expected table(plugin.`path`(option => value, ...))", inner)
        return self.scan(tuple(path_parts), options, fn)

    def scan(self, parts: tuple[str, ...], options: dict[str, object],
             node: exp.Expression) -> Rel:
        try:
            table = self.session.resolve_table(parts)
        except SqlError as e:
            raise _err(type(e), e.message, node, self.sql) from None
        fmt = self._format(table.path, options)
        engine = table.plugin
        self.builder.storage.setdefault(engine, self._engine(engine))
        selection = {"format": fmt, "files": [table.path], "table": table.display}
        if fmt["type"] == "text":  # the translator's text reader reads these two keys
            selection["delimiter"] = fmt.get("fieldDelimiter", ",")
            selection["extractHeader"] = fmt.get("extractHeader", False)
        return Rel(self.builder.add({"op": "scan", "storageengine": engine,
                                     "selection": selection}), None)

    def _engine(self, engine: str) -> dict:
        if engine == "cp":
            return {"type": "file", "connection": "file:///",
                    "workspaces": {"default": {"location": self.session.cp_root}}}
        return {"type": "file", "connection": "file:///",
                "workspaces": {k: {"location": v} for k, v in self.session.workspaces.items()}}

    def _format(self, path: str, options: dict[str, object]) -> dict:
        ext = self._extension(path)
        opts = dict(options)
        ftype = str(opts.pop("type", FORMAT_BY_EXTENSION.get(ext, "json"))).lower()
        fmt: dict[str, object] = {"type": ftype}
        if ftype == "text":
            fmt.update(TEXT_DEFAULTS.get(ext, {}))
        if ftype == "json":
            for option, key in JSON_FORMAT_OPTIONS.items():
                fmt[key] = self.session.option(option)
        fmt.update(opts)
        return fmt

    @staticmethod
    def _extension(path: str) -> str:
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


def ordering(expr: str, o: exp.Ordered) -> dict:
    desc = bool(o.args.get("desc"))
    return {"order": "DESC" if desc else "ASC", "expr": expr,
            "nullDirection": "FIRST" if o.args.get("nulls_first") else "LAST"}


def literal_value(node: exp.Expression, low: Lowering) -> object:
    """A constant (table-function option, VALUES cell) as a Python value."""
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        return int(text) if text.lstrip("-").isdigit() else float(text)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        value = literal_value(node.this, low)
        assert isinstance(value, int | float)
        return -value
    raise low.fail("expected a literal value", node)


# ====================================================================== SELECT


@dataclass
class Item:
    """One select-list entry after naming."""

    node: exp.Expression
    name: str
    star: bool = False


class SelectLowering:
    """Lowers one SELECT block: FROM/joins, WHERE, FLATTEN, GROUP BY/HAVING, windows,
    projection, DISTINCT, ORDER BY, LIMIT."""

    def __init__(self, low: Lowering, node: exp.Select):
        self.low = low
        self.node = node
        self.scope = Scope()
        self.flattens: list[tuple[str, str]] = []  # (name, expr) in evaluation order
        self.aggs: list[tuple[str, str]] = []
        self.agg_keys: dict[str, str] = {}
        self.windows: list[tuple[str, exp.Window, str]] = []
        self.group_nodes: list[tuple[exp.Expression, str]] = []
        self.distinct_args: set[str] = set()
        self.mode = "input"  # or "grouped": columns must be group keys

    def fail(self, message: str, node: exp.Expression | None) -> SqlError:
        return self.low.fail(message, node)

    # ------------------------------------------------------------------ driver
    # SELECT clauses this lowering reads; any other clause present is rejected by name.
    HANDLED = {"expressions", "from", "from_", "joins", "where", "group", "having", "order",
               "limit", "offset", "distinct", "with", "with_", "kind"}

    def _check_clauses(self) -> None:
        node = self.node
        if not node.expressions:
            raise _err(SqlSyntaxError, "SELECT needs at least one expression", node,
                       self.low.sql)
        for key, value in node.args.items():
            if value and key not in self.HANDLED:
                target = value if isinstance(value, exp.Expression) else node
                raise self.low.unsupported(f"the {key.upper()} clause", target)
        distinct = node.args.get("distinct")
        if isinstance(distinct, exp.Distinct) and distinct.args.get("on") is not None:
            raise self.low.unsupported("DISTINCT ON", distinct)
        for j in node.args.get("joins") or []:
            if j.args.get("method"):
                raise self.low.unsupported(f"{j.args['method']} JOIN", j)
            if j.args.get("using"):
                raise self.low.unsupported("JOIN ... USING", j)

    def lower(self) -> Rel:
        node = self.node
        self._check_clauses()
        rel = self._from()
        where = node.args.get("where")
        if where is not None:
            rel = self._filter(rel, where.this)
        items = self._items()
        self._all_items = items
        grouped = bool(node.args.get("group")) or any(
            self._has_aggregate(i.node) for i in items) or node.args.get("having") is not None
        if grouped:
            rel, projections = self._grouped(rel, items)
        else:
            projections = [self._projection(i) for i in items]
        has_star = any(i.star for i in items)
        order_hidden: list[dict] = []
        orderings = self._orderings(items, order_hidden, has_star)
        rel = self._pre_project(rel)
        visible = [i.name for i in items if not i.star]
        if has_star:
            # SELECT * keeps every input field: extra items are added to the record as a
            # Drill `transform` does (no project, which would need the field list).
            extra = [p for p in projections if p["ref"] != STAR]
            if extra:
                rel = Rel(self.low.builder.add({"op": "transform", "input": rel.op,
                                                "transforms": extra}), None)
            else:
                rel = Rel(rel.op, None)
        else:
            rel = Rel(self.low.builder.add({"op": "project", "input": rel.op,
                                            "projections": projections + order_hidden}),
                      visible + [p["ref"] for p in order_hidden])
        if node.args.get("distinct"):
            if order_hidden:
                raise self.fail("ORDER BY of a SELECT DISTINCT must use selected columns",
                                node.args["order"])
            rel = self._distinct(rel)
        if orderings:
            rel = Rel(self.low.builder.add({"op": "order", "input": rel.op,
                                            "orderings": orderings}), rel.columns)
        rel = self.low.limit(rel, node)
        if order_hidden:
            rel = Rel(self.low.builder.add({"op": "project", "input": rel.op, "projections": [
                {"ref": n, "expr": dx.path(n)} for n in visible]}), visible)
        return rel

    # ------------------------------------------------------------------ FROM and joins
    def _from(self) -> Rel:
        from_ = self.node.args.get("from_") or self.node.args.get("from")
        if from_ is None:
            # A SELECT without FROM reads one empty row (Drill's VALUES(0)).
            return Rel(self.low.builder.add({"op": "values", "content": [{"$dummy": 0}]}), [])
        joins = self.node.args.get("joins") or []
        first = self._source(from_.this)
        if not joins:
            self.scope.sources.append(first)
            return first.rel
        sides = [first] + [self._source(j.this) for j in joins]
        self._check_aliases(sides)
        self.scope.sources.extend(sides)
        renamed = self._rename_for_join(sides)
        rel = renamed[0].rel
        for j, side in zip(joins, renamed[1:], strict=True):
            rel = self._join(rel, side, j)
        return rel

    def _source(self, node: exp.Expression) -> Source:
        alias_node = node.args.get("alias")
        alias = alias_node.name if alias_node is not None else ""
        if isinstance(node, exp.Table):
            rel = self.low.table(node)
            if not alias:
                alias = node.name if not isinstance(node.this, exp.Anonymous) else ""
        elif isinstance(node, exp.Subquery):
            rel = self.low.lower_query(node.this)
        elif isinstance(node, exp.Values):
            rel = self.low._values(node)
            alias_node = None  # the column aliases name the VALUES columns already
        elif isinstance(node, exp.Unnest | exp.Lateral):
            raise self.low.unsupported("LATERAL / UNNEST", node)
        else:
            raise self.low.unsupported(f"{node.key.upper()} in FROM", node)
        if alias_node is not None and alias_node.columns:
            names = [c.name for c in alias_node.columns]
            if rel.columns is None or len(names) != len(rel.columns):
                raise self.fail("column aliases need a subquery with that many columns",
                                alias_node)
            rel = self.low.rename(rel, names)
        return Source(alias, rel)

    def _check_aliases(self, sides: list[Source]) -> None:
        seen: set[str] = set()
        for s in sides:
            if s.alias.lower() in seen:
                raise self.fail(f"duplicate table alias '{s.alias}' in FROM", self.node)
            seen.add(s.alias.lower())

    def _referenced(self) -> dict[str, set[str]]:
        """Column names each alias is referenced with anywhere in this SELECT block."""
        refs: dict[str, set[str]] = {}
        aliases = {e.alias.lower() for e in self.node.expressions if isinstance(e, exp.Alias)}
        schema_free = [s for s in self.scope.sources if s.rel.columns is None]
        for col in self.node.find_all(exp.Column):
            if _inside_subquery(col, self.node) or isinstance(col.this, exp.Star):
                continue
            parts = column_parts(col)
            if len(parts) >= 2 and self.scope.find(parts[0]) is not None:
                refs.setdefault(parts[0].lower(), set()).add(parts[1].lower())
            elif len(parts) == 1 and parts[0].lower() in aliases:
                continue  # ORDER BY / HAVING naming a select-list alias
            elif len(parts) >= 1:
                owners = [s for s in self.scope.sources if s.has(parts[0])]
                if not owners and len(schema_free) == 1:
                    owners = schema_free
                if len(owners) == 1:
                    refs.setdefault(owners[0].alias.lower(), set()).add(parts[0].lower())
                else:
                    raise self.fail(f"column '{parts[0]}' is ambiguous in a join of "
                                    "schema-free tables: qualify it with a table alias", col)
        return refs

    def _rename_for_join(self, sides: list[Source]) -> list[Source]:
        """Gives each side's referenced columns a name unique in the join (`alias$column`) so
        both inputs' records can be merged; SELECT * keeps names (Drill merges them)."""
        stars = [e for e in self.node.expressions if isinstance(e, exp.Star)]
        if stars:
            return sides
        refs = self._referenced()
        for s in sides:
            cols = sorted(refs.get(s.alias.lower(), set()))
            if not cols:
                cols = []
            s.fields = {c: f"{s.alias}${c}" for c in cols}
            projections = [{"ref": s.fields[c], "expr": dx.path(c)} for c in cols]
            if not projections:  # a side used only for its row count
                projections = [{"ref": f"{s.alias}$", "expr": "1"}]
            s.rel = Rel(self.low.builder.add({"op": "project", "input": s.rel.op,
                                              "projections": projections}),
                        [p["ref"] for p in projections])
        return sides

    def _join(self, left: Rel, right: Source, j: exp.Join) -> Rel:
        side = (j.args.get("side") or "").upper()
        kind = (j.args.get("kind") or "").upper()
        jtype = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FULL": "FULL"}.get(side, "INNER")
        on = j.args.get("on")
        if j.args.get("using"):
            raise self.low.unsupported("JOIN ... USING", j)
        conditions: list[dict] = []
        residual: list[exp.Expression] = []
        if on is not None:
            for conj in _conjuncts(on):
                cond = self._join_condition(conj, right)
                if cond is None:
                    residual.append(conj)
                else:
                    conditions.append(cond)
        elif kind != "CROSS" and jtype != "INNER":
            raise self.fail("an outer join needs an ON condition", j)
        if residual and jtype != "INNER":
            raise self.low.unsupported(
                "an outer join condition that is not a comparison between the two sides", j)
        columns = None
        if left.columns is not None and right.rel.columns is not None:
            columns = left.columns + right.rel.columns
        rel = Rel(self.low.builder.add({"op": "join", "left": left.op, "right": right.rel.op,
                                        "type": jtype, "conditions": conditions}), columns)
        if residual:
            rel = Rel(self.low.builder.add({"op": "filter", "input": rel.op,
                                            "expr": dx.boolean_chain("and", [
                                                self.expr(c) for c in residual])}), columns)
        return rel

    def _join_condition(self, conj: exp.Expression, right: Source) -> dict | None:
        rels = {"EQ": "==", "NEQ": "!=", "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<="}
        flip = {"==": "==", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}
        rel = rels.get(type(conj).__name__)
        if rel is None:
            return None
        sides = [self._sides(conj.this), self._sides(conj.expression)]
        r = right.alias.lower()
        if sides[0] and sides[1] and r not in sides[0] and sides[1] == {r}:
            return {"relationship": rel, "left": self.expr(conj.this),
                    "right": self.expr(conj.expression)}
        if sides[0] and sides[1] and sides[0] == {r} and r not in sides[1]:
            return {"relationship": flip[rel], "left": self.expr(conj.expression),
                    "right": self.expr(conj.this)}
        return None

    def _sides(self, node: exp.Expression) -> set[str]:
        out = set()
        for col in node.find_all(exp.Column):
            src, _f, _rest = self._resolve(col)
            out.add(src.alias.lower())
        return out

    # ------------------------------------------------------------------ WHERE
    def _filter(self, rel: Rel, cond: exp.Expression) -> Rel:
        plain: list[exp.Expression] = []
        for conj in _conjuncts(cond):
            if isinstance(conj, exp.In) and conj.args.get("query") is not None:
                rel = self._in_subquery(rel, conj)
            elif isinstance(conj, exp.Exists) or (isinstance(conj, exp.Not)
                                                  and isinstance(conj.this, exp.Exists)):
                rel = self._exists(rel, conj)
            elif conj.find(exp.Subquery, exp.Exists) is not None and not isinstance(
                    conj, exp.In):
                rel = self._scalar_subqueries(rel, conj, plain)
            else:
                plain.append(conj)
        if plain:
            if any(c.find(exp.Flatten) for c in plain):
                raise self.fail("FLATTEN in WHERE: filter a flattened column in an outer "
                                "query (Drill needs a subquery for that)", cond)
            rel = Rel(self.low.builder.add({"op": "filter", "input": rel.op, "expr":
                                            dx.boolean_chain("and", [self.expr(c)
                                                                     for c in plain])}),
                      rel.columns)
        return rel

    def _exists(self, rel: Rel, conj: exp.Expression) -> Rel:
        """[NOT] EXISTS (subquery). Equality conditions on outer columns in the subquery's
        WHERE become join keys over the subquery's distinct key values (a semi join, or for
        NOT EXISTS a left join keeping the unmatched rows); without them the subquery's row
        count decides."""
        negated = isinstance(conj, exp.Not)
        exists = conj.this if negated else conj
        query = exists.this.this if isinstance(exists.this, exp.Subquery) else exists.this
        if not isinstance(query, exp.Select):
            raise self.low.unsupported("EXISTS over a set operation", exists)
        query = query.copy()
        pairs = self._correlations(query, exists)
        if not pairs:
            inner = self.low.lower_query(query.limit(1))
            count = self.low.hidden("exists")
            inner = Rel(self.low.builder.add({"op": "groupingaggregate", "input": inner.op,
                                              "keys": [], "exprs": [
                                                  {"ref": count, "expr": "count(1)"}]}), [count])
            rel = Rel(self.low.builder.add({"op": "join", "left": rel.op, "right": inner.op,
                                            "type": "INNER", "conditions": []}), None)
            op = "==" if negated else ">"
            return Rel(self.low.builder.add({"op": "filter", "input": rel.op, "expr":
                                             dx.binary(op, dx.path(count), "0")}), None)
        keys = [self.low.hidden("key") for _ in pairs]
        query.set("expressions", [exp.alias_(inner_e, k, quoted=True)
                                  for (inner_e, _), k in zip(pairs, keys, strict=True)])
        query.set("distinct", exp.Distinct())
        inner = self.low.lower_query(query)
        conditions = [{"relationship": "==", "left": self.expr(outer_e), "right": dx.path(k)}
                      for (_, outer_e), k in zip(pairs, keys, strict=True)]
        if not negated:
            return Rel(self.low.builder.add({"op": "join", "left": rel.op, "right": inner.op,
                                             "type": "INNER", "conditions": conditions}), None)
        marker = self.low.hidden("matched")
        inner = Rel(self.low.builder.add({"op": "project", "input": inner.op, "projections": [
            {"ref": k, "expr": dx.path(k)} for k in keys] + [{"ref": marker, "expr": "true"}]}),
            keys + [marker])
        rel = Rel(self.low.builder.add({"op": "join", "left": rel.op, "right": inner.op,
                                        "type": "LEFT", "conditions": conditions}), None)
        return Rel(self.low.builder.add({"op": "filter", "input": rel.op,
                                         "expr": dx.call("isnull", [dx.path(marker)])}), None)

    def _correlations(self, query: exp.Select,
                      exists: exp.Expression) -> list[tuple[exp.Expression, exp.Expression]]:
        """Removes `inner = outer` conjuncts from the subquery's WHERE; (inner, outer) pairs.
        Any other reference to an outer table is unsupported."""
        inner_aliases = {t.alias_or_name.lower() for t in query.find_all(exp.Table)} | {
            sq.alias.lower() for sq in query.find_all(exp.Subquery) if sq.alias}
        outer_aliases = {s.alias.lower() for s in self.scope.sources if s.alias}

        def is_outer(col: exp.Column) -> bool:
            parts = column_parts(col)
            return len(parts) >= 2 and parts[0].lower() in outer_aliases - inner_aliases

        def refs_outer(e: exp.Expression) -> bool:
            return any(is_outer(c) for c in e.find_all(exp.Column))

        pairs: list[tuple[exp.Expression, exp.Expression]] = []
        where = query.args.get("where")
        kept: list[exp.Expression] = []
        for c in (_conjuncts(where.this) if where is not None else []):
            if isinstance(c, exp.EQ) and refs_outer(c):
                left, right = c.this, c.expression
                if refs_outer(right) and not refs_outer(left):
                    pairs.append((left, right))
                    continue
                if refs_outer(left) and not refs_outer(right):
                    pairs.append((right, left))
                    continue
            if refs_outer(c):
                raise self.low.unsupported("a correlated condition other than inner = outer "
                                           "in EXISTS", c)
            kept.append(c)
        query.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
        if any(refs_outer(e) for e in query.expressions) or any(
                refs_outer(j) for j in query.args.get("joins") or []):
            raise self.low.unsupported("outer references outside the WHERE of EXISTS", exists)
        return pairs

    def _in_subquery(self, rel: Rel, node: exp.In) -> Rel:
        """`x IN (SELECT y ...)` as an inner join with the distinct values of y."""
        sub = node.args["query"]
        inner = self.low.lower_query(sub.this if isinstance(sub, exp.Subquery) else sub)
        if inner.columns is None or len(inner.columns) != 1:
            raise self.fail("IN (subquery) needs a subquery with exactly one column", sub)
        key = self.low.hidden("in")
        inner = self.low.rename(inner, [key])
        inner = Rel(self.low.builder.add({"op": "groupingaggregate", "input": inner.op,
                                          "keys": [{"ref": key, "expr": dx.path(key)}],
                                          "exprs": []}), [key])
        cond = {"relationship": "==", "left": self.expr(node.this), "right": dx.path(key)}
        return Rel(self.low.builder.add({"op": "join", "left": rel.op, "right": inner.op,
                                         "type": "INNER", "conditions": [cond]}), None)

    def _scalar_subqueries(self, rel: Rel, conj: exp.Expression,
                           plain: list[exp.Expression]) -> Rel:
        """Uncorrelated scalar subqueries become a cross join with their one-row result."""
        for sub in list(conj.find_all(exp.Subquery)):
            if isinstance(sub.parent, exp.Exists):
                raise self.low.unsupported("EXISTS (subquery)", sub.parent)
            inner = self.low.lower_query(sub.this)
            if inner.columns is None or len(inner.columns) != 1:
                raise self.fail("a scalar subquery must return one column", sub)
            name = self.low.hidden("scalar")
            inner = self.low.rename(inner, [name])
            rel = Rel(self.low.builder.add({"op": "join", "left": rel.op, "right": inner.op,
                                            "type": "INNER", "conditions": []}), None)
            sub.replace(exp.column(exp.to_identifier(name, quoted=True)))
            self.scope.sources.append(Source(name, Rel(inner.op, [name])))
        if conj.find(exp.Exists) is not None:
            raise self.low.unsupported("EXISTS (subquery)", conj)
        plain.append(conj)
        return rel

    # ------------------------------------------------------------------ select list
    def _items(self) -> list[Item]:
        items: list[Item] = []
        used: set[str] = set()
        for i, e in enumerate(self.node.expressions):
            if isinstance(e, exp.Star) or (isinstance(e, exp.Column)
                                           and isinstance(e.this, exp.Star)):
                expanded = self._expand_star(e)
                if expanded is None:
                    items.append(Item(e, STAR, star=True))
                    continue
                for col in expanded:
                    name, n = col.name, 0
                    while name.lower() in used:
                        name = f"{col.name}{n}"
                        n += 1
                    used.add(name.lower())
                    items.append(Item(col, name))
                continue
            if isinstance(e, exp.Alias):
                name = e.alias
            elif isinstance(e, exp.Column) and not isinstance(e.this, exp.Star) \
                    and len(column_parts(e)) == self._qualifier_len(e) + 1:
                name = e.name
            else:
                name = f"EXPR${i}"
            base, n = name, 0
            while name.lower() in used:
                name = f"{base}{n}"
                n += 1
            used.add(name.lower())
            items.append(Item(e.this if isinstance(e, exp.Alias) else e, name))
        return items

    def _expand_star(self, star: exp.Expression) -> list[exp.Column] | None:
        """`*` / `t.*` as column references when the sources' columns are known (subqueries
        with explicit select lists); None for schema-free tables."""
        sources = self.scope.sources
        if isinstance(star, exp.Column) and star.table:
            src = self.scope.find(star.table)
            if src is None:
                raise self.fail(f"table '{star.table}' not found", star)
            sources = [src]
        if not sources or any(s.rel.columns is None for s in sources):
            return None
        cols = []
        for s in sources:
            for c in s.rel.columns or []:
                table = exp.to_identifier(s.alias, quoted=True) if s.alias else None
                cols.append(exp.Column(this=exp.to_identifier(c, quoted=True), table=table))
        return cols

    def _qualifier_len(self, col: exp.Column) -> int:
        parts = column_parts(col)
        return 1 if len(parts) >= 2 and self.scope.find(parts[0]) is not None else 0

    def _projection(self, item: Item) -> dict:
        if item.star:
            return {"ref": STAR, "expr": dx.path(STAR)}
        node = item.node
        if isinstance(node, exp.Flatten) and not self._name_is_read(item):
            # A bare FLATTEN writes straight into its output column (under SELECT * it
            # replaces the input column of that name).
            inner = self.expr(node.this)
            self.flattens.append((item.name, inner))
            return {"ref": item.name, "expr": dx.path(item.name)}
        return {"ref": item.name, "expr": self.expr(node)}

    def _name_is_read(self, item: Item) -> bool:
        """Whether another expression of this SELECT reads an input column named like
        `item` (then its FLATTEN must not overwrite that column before the projection)."""
        if any(i.star for i in self._all_items):
            return False
        name = item.name.lower()
        for i in self._all_items:
            for col in i.node.find_all(exp.Column):
                parts = column_parts(col)
                if self._qualifier_len(col) < len(parts) and \
                        parts[self._qualifier_len(col)].lower() == name and i is not item:
                    return True
        return False

    def _pre_project(self, rel: Rel) -> Rel:
        """Flatten and window operators that the projection reads from."""
        for name, expr in self.flattens:
            rel = Rel(self.low.builder.add({"op": "flatten", "input": rel.op, "name": name,
                                            "expr": expr, "drop": False}), None)
        for name, win, fn in self.windows:
            spec = win
            withins = [{"ref": self.low.hidden("w"), "expr": self.expr(p)}
                       for p in spec.args.get("partition_by") or []]
            order = spec.args.get("order")
            orderings = [ordering(self.expr(o.this), o) for o in order.expressions] \
                if order is not None else []
            op = {"op": "window", "input": rel.op, "withins": withins, "orderings": orderings,
                  "aggregations": [{"ref": name, "expr": fn}]}
            frame = spec.args.get("spec")
            if frame is not None:
                op.update(_frame_bounds(frame, self))
            rel = Rel(self.low.builder.add(op), None)
        return rel

    # ------------------------------------------------------------------ grouping
    def _has_aggregate(self, node: exp.Expression) -> bool:
        for n in node.walk():
            if isinstance(n, exp.Window):
                continue
            is_agg = isinstance(n, exp.AggFunc) or (isinstance(n, exp.Anonymous)
                                                    and n.name.lower() in AGGREGATES)
            in_window = isinstance(node, exp.Window) or any(
                isinstance(p, exp.Window) for p in _ancestors(n, node))
            if is_agg and not in_window:
                return True
        return False

    def _grouped(self, rel: Rel, items: list[Item]) -> tuple[Rel, list[dict]]:
        if any(i.star for i in items):
            raise self.fail("SELECT * cannot be used with GROUP BY or aggregates", self.node)
        if any(i.node.find(exp.Flatten) for i in items):
            raise self.fail("FLATTEN together with GROUP BY or aggregates: flatten in a "
                            "subquery and aggregate in the outer query (as in Drill)", self.node)
        keys: list[dict] = []
        group = self.node.args.get("group")
        for g in (group.expressions if group is not None else []):
            target = self._select_ref(g, items)
            name = self.low.hidden("g")
            keys.append({"ref": name, "expr": self.expr(target)})
            self.group_nodes.append((target, name))
        self.mode = "grouped"
        projections = [{"ref": i.name, "expr": self.expr(i.node)} for i in items]
        having = self.node.args.get("having")
        having_expr = self.expr(having.this) if having is not None else None
        order = self.node.args.get("order")
        self._grouped_order_exprs = {
            idx: self.expr(o.this) for idx, o in enumerate(order.expressions if order else [])
            if self._order_name(o.this, items) is None}
        if self.distinct_args:
            rel, keys = self._distinct_pre_aggregate(rel, keys)
        rel = Rel(self.low.builder.add({"op": "groupingaggregate", "input": rel.op,
                                        "keys": keys, "exprs": [
                                            {"ref": n, "expr": e} for n, e in self.aggs]}),
                  [k["ref"] for k in keys] + [n for n, _ in self.aggs])
        if having_expr is not None:
            rel = Rel(self.low.builder.add({"op": "filter", "input": rel.op,
                                            "expr": having_expr}), rel.columns)
        return rel, projections

    def _distinct_pre_aggregate(self, rel: Rel, keys: list[dict]) -> tuple[Rel, list[dict]]:
        """COUNT(DISTINCT x) and friends: first group by the keys and x, then aggregate the
        distinct x values (one DISTINCT argument, no other aggregates)."""
        if len(self.distinct_args) > 1 or any(DISTINCT_ARG not in e for _, e in self.aggs):
            raise self.low.unsupported("DISTINCT aggregates mixed with other aggregates or "
                                       "over different arguments", self.node)
        (arg,) = self.distinct_args
        inner = keys + [{"ref": DISTINCT_ARG, "expr": arg}]
        rel = Rel(self.low.builder.add({"op": "groupingaggregate", "input": rel.op,
                                        "keys": inner, "exprs": []}),
                  [k["ref"] for k in inner])
        return rel, [{"ref": k["ref"], "expr": dx.path(k["ref"])} for k in keys]

    def _select_ref(self, g: exp.Expression, items: list[Item]) -> exp.Expression:
        """GROUP BY 1 / GROUP BY alias -> the select expression."""
        if isinstance(g, exp.Literal) and not g.is_string:
            idx = int(g.this) - 1
            if not 0 <= idx < len(items):
                raise self.fail(f"GROUP BY ordinal {g.this} is out of range", g)
            return items[idx].node
        if isinstance(g, exp.Column) and not g.table:
            for i in items:
                if i.name.lower() == g.name.lower() and not self._is_input_column(g):
                    return i.node
        return g

    def _is_input_column(self, col: exp.Column) -> bool:
        return any(s.has(col.name) for s in self.scope.sources)

    # ------------------------------------------------------------------ ORDER BY
    def _order_name(self, target: exp.Expression, items: list[Item]) -> str | None:
        """The output column an ORDER BY item names: ordinal, select alias or select
        expression; None when it needs a hidden column."""
        if isinstance(target, exp.Literal) and not target.is_string:
            k = int(target.this) - 1
            if not 0 <= k < len(items) or items[k].star:
                raise self.fail(f"ORDER BY ordinal {target.this} is out of range", target)
            return items[k].name
        if isinstance(target, exp.Column) and len(column_parts(target)) == 1:
            for i in items:
                if not i.star and i.name.lower() == target.name.lower():
                    return i.name
        for i in items:
            if not i.star and i.node == target:
                return i.name
        return None

    def _orderings(self, items: list[Item], hidden: list[dict], star: bool) -> list[dict]:
        order = self.node.args.get("order")
        if order is None:
            return []
        out = []
        for idx, o in enumerate(order.expressions):
            name = self._order_name(o.this, items)
            if name is None and star:
                # the output still has every input field: order by the expression itself
                out.append(ordering(self.expr(o.this), o))
                continue
            if name is None:
                name = self.low.hidden("o")
                if self.mode == "grouped":
                    expr = self._grouped_order_exprs[idx]
                else:
                    expr = self.expr(o.this)
                hidden.append({"ref": name, "expr": expr})
            out.append(ordering(dx.path(name), o))
        return out

    def _distinct(self, rel: Rel) -> Rel:
        if rel.columns is None:
            raise self.low.unsupported("SELECT DISTINCT *", self.node)
        keys = [{"ref": c, "expr": dx.path(c)} for c in rel.columns]
        return Rel(self.low.builder.add({"op": "groupingaggregate", "input": rel.op,
                                         "keys": keys, "exprs": []}), rel.columns)

    # ------------------------------------------------------------------ expressions
    def _resolve(self, col: exp.Column) -> tuple[Source, str, list[str | int]]:
        """(source, stream field name, member path) of a column reference."""
        parts = column_parts(col)
        if len(parts) >= 2:
            src = self.scope.find(parts[0])
            if src is not None:
                return src, src.field_name(parts[1]), list(parts[2:])
            if len(self.scope.sources) >= 1 and self.scope.find(parts[0]) is None \
                    and not any(s.has(parts[0]) for s in self.scope.sources):
                raise self.fail(f"table '{parts[0]}' not found: Drill needs the table alias "
                                f"to reach into a map (write t.{'.'.join(parts)})", col)
        owners = [s for s in self.scope.sources if s.has(parts[0])]
        schema_free = [s for s in self.scope.sources if s.rel.columns is None]
        if len(owners) == 1:
            src = owners[0]
        elif len(self.scope.sources) == 1:
            src = self.scope.sources[0]
        elif not owners and len(schema_free) == 1:
            src = schema_free[0]  # the only source whose columns are not known
        elif not self.scope.sources:
            raise self.fail(f"column '{parts[0]}' not found: the query has no FROM", col)
        else:
            raise self.fail(f"column '{parts[0]}' is ambiguous: qualify it with a table alias",
                            col)
        return src, src.field_name(parts[0]), list(parts[1:])

    def expr(self, node: exp.Expression) -> str:
        return ExprLowering(self).lower(node)


def _frame_bounds(frame: exp.WindowSpec, sel: SelectLowering) -> dict:
    def bound(value: object, side: object) -> int | None:
        text = str(value).upper() if not isinstance(value, exp.Expression) else None
        if text == "UNBOUNDED":
            return None
        if text == "CURRENT ROW":
            return 0
        if isinstance(value, exp.Literal) and not value.is_string:
            n = int(value.this)
            return -n if str(side).upper() == "PRECEDING" else n
        raise sel.low.unsupported("this window frame bound", frame)

    if str(frame.args.get("kind", "")).upper() == "RANGE":
        raise sel.low.unsupported("RANGE window frames", frame)
    return {"start": bound(frame.args.get("start"), frame.args.get("start_side")),
            "end": bound(frame.args.get("end"), frame.args.get("end_side"))}


class ExprLowering:
    """One expression of a SELECT block to a Drill expression string."""

    def __init__(self, sel: SelectLowering):
        self.sel = sel

    def fail(self, message: str, node: exp.Expression) -> SqlError:
        return self.sel.fail(message, node)

    def lower(self, node: exp.Expression) -> str:
        sel = self.sel
        if sel.mode == "grouped":
            for key_node, key_name in sel.group_nodes:
                if node == key_node:
                    return dx.path(key_name)
            if self._is_aggregate(node):
                return self._aggregate(node)
            if isinstance(node, exp.Column | exp.Dot | exp.Bracket) and \
                    node.find(exp.Column) is not None:
                raise self.fail(f"expression '{node.sql('drill')}' is neither in GROUP BY nor "
                                "inside an aggregate function", node)
        method = getattr(self, "_" + type(node).__name__, None)
        if method is not None:
            return method(node)
        if isinstance(node, exp.Func):
            return self._function(node)
        raise self.sel.low.unsupported(f"the SQL construct {node.key.upper()} "
                                       f"('{node.sql('drill')}')", node)

    # --- references ----------------------------------------------------------------------
    def _Column(self, node: exp.Column) -> str:
        if isinstance(node.this, exp.Star):
            raise self.fail("'*' is only allowed alone in the select list", node)
        src, name, rest = self.sel._resolve(node)
        del src
        return dx.path(name, rest)

    def _Dot(self, node: exp.Dot) -> str:
        return self._member_path(node)

    def _Bracket(self, node: exp.Bracket) -> str:
        return self._member_path(node)

    def _member_path(self, node: exp.Expression) -> str:
        """t.a.b[0].c / a[1][2] / t.m['key']: a column then members and indexes."""
        segs: list[str | int] = []
        cur = node
        while True:
            if isinstance(cur, exp.Dot):
                segs.insert(0, cur.expression.name)
                cur = cur.this
            elif isinstance(cur, exp.Bracket):
                if len(cur.expressions) != 1:
                    raise self.fail("an index takes one value", cur)
                idx = cur.expressions[0]
                if isinstance(idx, exp.Literal) and idx.is_string:
                    segs.insert(0, idx.this)
                elif isinstance(idx, exp.Literal) and idx.this.isdigit():
                    segs.insert(0, int(idx.this))
                else:
                    raise self.sel.low.unsupported("an array index that is not an integer "
                                                   "literal", idx)
                cur = cur.this
            else:
                break
        if isinstance(cur, exp.Column):
            _src, name, rest = self.sel._resolve(cur)
            return dx.path(name, rest + segs)
        base = self.lower(cur)
        if all(isinstance(s, int) for s in segs) and len(segs) == 1:
            return dx.call("drill_item", [base, str(segs[0])])
        raise self.sel.low.unsupported("member access on a computed value", node)

    # --- literals ------------------------------------------------------------------------
    def _Literal(self, node: exp.Literal) -> str:
        if node.is_string:
            return dx.string(node.this)
        text = node.this
        if "e" in text.lower():
            return text
        if "." in text:
            # SQL's 12.3 is DECIMAL(3, 1) in Drill (JSON's 12.3 is DOUBLE).
            digits = text.replace(".", "").lstrip("-").lstrip("0") or "0"
            scale = len(text.split(".")[1])
            precision = max(len(digits), scale, 1)
            return dx.cast(text, f"VARDECIMAL({precision}, {scale})")
        return text

    def _Boolean(self, node: exp.Boolean) -> str:
        return "true" if node.this else "false"

    def _Null(self, node: exp.Null) -> str:
        return dx.NULL

    def _Paren(self, node: exp.Paren) -> str:
        return self.lower(node.this)

    def _Neg(self, node: exp.Neg) -> str:
        inner = node.this
        if isinstance(inner, exp.Literal) and not inner.is_string:
            return self._Literal(exp.Literal(this="-" + inner.this, is_string=False))
        return f"(-{self.lower(inner)})"

    # --- operators -----------------------------------------------------------------------
    def _binary(self, node: exp.Binary) -> str:
        op = dx.BINARY_OPS[type(node).__name__]
        return dx.binary(op, self.lower(node.this), self.lower(node.expression))

    _EQ = _NEQ = _GT = _GTE = _LT = _LTE = _Add = _Sub = _Mul = _Div = _Mod = _binary

    def _And(self, node: exp.And) -> str:
        return dx.boolean_chain("and", [self.lower(c) for c in _flatten_op(node, exp.And)])

    def _Or(self, node: exp.Or) -> str:
        return dx.boolean_chain("or", [self.lower(c) for c in _flatten_op(node, exp.Or)])

    def _Not(self, node: exp.Not) -> str:
        inner = node.this
        if isinstance(inner, exp.Is):
            return dx.call(self._is_name(inner, negated=True), [self.lower(inner.this)])
        return f"!({self.lower(inner)})"

    def _Is(self, node: exp.Is) -> str:
        return dx.call(self._is_name(node, negated=False), [self.lower(node.this)])

    def _is_name(self, node: exp.Is, negated: bool) -> str:
        target = node.expression
        if isinstance(target, exp.Null):
            return "isnotnull" if negated else "isnull"
        if isinstance(target, exp.Boolean):
            word = "true" if target.this else "false"
            return f"is{'not' if negated else ''}{word}"
        raise self.sel.low.unsupported(f"IS {target.sql('drill')}", node)

    def _Between(self, node: exp.Between) -> str:
        v = self.lower(node.this)
        return dx.boolean_chain("and", [dx.binary(">=", v, self.lower(node.args["low"])),
                                        dx.binary("<=", v, self.lower(node.args["high"]))])

    def _In(self, node: exp.In) -> str:
        if node.args.get("query") is not None:
            raise self.sel.low.unsupported("IN (subquery) outside a WHERE conjunct", node)
        v = self.lower(node.this)
        return dx.boolean_chain("or", [dx.binary("==", v, self.lower(e))
                                       for e in node.expressions])

    def _Like(self, node: exp.Like) -> str:
        return dx.call("like", [self.lower(node.this), self.lower(node.expression)])

    def _ILike(self, node: exp.ILike) -> str:
        return dx.call("ilike", [self.lower(node.this), self.lower(node.expression)])

    def _SimilarTo(self, node: exp.Expression) -> str:
        return dx.call("similar_to", [self.lower(node.this), self.lower(node.expression)])

    def _DPipe(self, node: exp.DPipe) -> str:
        return dx.call("concat", [self.lower(node.this), self.lower(node.expression)])

    def _Case(self, node: exp.Case) -> str:
        subject = node.this
        whens = []
        for when in node.args.get("ifs") or []:
            cond = self.lower(when.this)
            if subject is not None:
                cond = dx.binary("==", self.lower(subject), cond)
            whens.append((cond, self.lower(when.args["true"])))
        default = node.args.get("default")
        return dx.case(whens, self.lower(default) if default is not None else dx.NULL)

    def _If(self, node: exp.If) -> str:
        false = node.args.get("false")
        return dx.case([(self.lower(node.this), self.lower(node.args["true"]))],
                       self.lower(false) if false is not None else dx.NULL)

    def _Cast(self, node: exp.Cast) -> str:
        return dx.cast(self.lower(node.this), self._drill_type(node.to))

    _TryCast = _Cast

    def _drill_type(self, dtype: exp.DataType) -> str:
        name = dtype.this.name if hasattr(dtype.this, "name") else str(dtype.this)
        name = name.upper()
        drill = dx.CAST_TYPES.get(name)
        if drill is None:
            raise self.sel.low.unsupported(f"CAST to {dtype.sql('drill')}", dtype)
        params = [p.this.this if isinstance(p.this, exp.Literal) else p.sql()
                  for p in dtype.expressions]
        if drill in ("VARCHAR", "VARBINARY"):
            return f"{drill}({params[0] if params else dx.DEFAULT_VARCHAR_LENGTH})"
        if drill == "VARDECIMAL":
            p, s = (list(params) + list(map(str, dx.DEFAULT_DECIMAL))[len(params):])[:2]
            return f"VARDECIMAL({p}, {s})"
        return drill

    def _Subquery(self, node: exp.Subquery) -> str:
        raise self.sel.low.unsupported("a subquery in this position (only FROM, IN and "
                                       "scalar subqueries in WHERE are)", node)

    def _Exists(self, node: exp.Exists) -> str:
        raise self.sel.low.unsupported("EXISTS (subquery)", node)

    def _Interval(self, node: exp.Interval) -> str:
        raise self.sel.low.unsupported("INTERVAL literals", node)

    # --- nested-data and scalar functions ------------------------------------------------
    def _Flatten(self, node: exp.Flatten) -> str:
        if self.sel.mode == "grouped":
            raise self.fail("FLATTEN cannot be used with aggregates in one SELECT", node)
        inner = self.lower(node.this)
        name = self.sel.low.hidden("flatten")
        self.sel.flattens.append((name, inner))
        return dx.path(name)

    def _Window(self, node: exp.Window) -> str:
        if self.sel.mode == "grouped":
            raise self.sel.low.unsupported("window functions over an aggregate query", node)
        fn = node.this
        saved, self.sel.mode = self.sel.mode, "window"
        try:
            call = self._aggregate_call(fn) if self._is_aggregate(fn) else self._function(fn)
        finally:
            self.sel.mode = saved
        name = self.sel.low.hidden("win")
        self.sel.windows.append((name, node, call))
        return dx.path(name)

    def _function(self, node: exp.Func) -> str:
        fname = self._name(node)
        if fname in WINDOW_ONLY and self.sel.mode != "window":
            raise self.fail(f"{fname.upper()} needs an OVER clause", node)
        if self._is_aggregate(node):
            return self._aggregate(node)
        return dx.call(fname, [self.lower(a) for a in self._args(node)])

    def _Extract(self, node: exp.Extract) -> str:
        unit = node.this.name.lower()
        return dx.call(f"extract{unit}", [self.lower(node.expression)])

    @staticmethod
    def _name(node: exp.Func) -> str:
        if isinstance(node, exp.Anonymous):
            return node.name.lower()
        drill = (node.meta or {}).get("drill_name")
        if drill:
            return str(drill).lower()
        return FUNCTION_NAMES.get(type(node).__name__, node.sql_name().lower())

    @staticmethod
    def _args(node: exp.Func) -> list[exp.Expression]:
        if isinstance(node, exp.Anonymous):
            return list(node.expressions)
        out: list[exp.Expression] = []
        for key in node.arg_types:
            value = node.args.get(key)
            if value is None or isinstance(value, bool | str):
                continue
            if isinstance(value, list):
                out.extend(value)
            else:
                out.append(value)
        return out

    # --- aggregates ----------------------------------------------------------------------
    def _is_aggregate(self, node: exp.Expression) -> bool:
        if isinstance(node, exp.AggFunc):
            return True
        return isinstance(node, exp.Anonymous) and node.name.lower() in AGGREGATES

    def _aggregate(self, node: exp.Expression) -> str:
        sel = self.sel
        if sel.mode != "grouped":
            raise self.fail("an aggregate function is not allowed here", node)
        sel.mode = "input"
        try:
            call = self._aggregate_call(node)
        finally:
            sel.mode = "grouped"
        if call in sel.agg_keys:
            return dx.path(sel.agg_keys[call])
        name = sel.low.hidden("a")
        sel.agg_keys[call] = name
        sel.aggs.append((name, call))
        return dx.path(name)

    def _aggregate_call(self, node: exp.Expression) -> str:
        assert isinstance(node, exp.Func)
        fname = self._name(node)
        args = self._args(node)
        if isinstance(node, exp.Count) and (not args or isinstance(args[0], exp.Star)):
            return "count(1)"
        if args and isinstance(args[0], exp.Distinct):
            inner = args[0].expressions
            if len(inner) != 1 or len(args) != 1 or self.sel.mode == "window":
                raise self.sel.low.unsupported(f"{fname.upper()}(DISTINCT ...) with several "
                                               "arguments or in a window", node)
            self.sel.distinct_args.add(self.lower(inner[0]))
            return dx.call(fname, [dx.path(DISTINCT_ARG)])
        if any(self.sel._has_aggregate(a) for a in args):
            raise self.fail("aggregate functions cannot be nested", node)
        return dx.call(fname, [self.lower(a) for a in args])


# ====================================================================== helpers


def column_parts(col: exp.Column) -> list[str]:
    """Identifier names of a column reference, outermost qualifier first."""
    return [p.name for p in col.parts]


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _flatten_op(node: exp.Expression, cls: type) -> list[exp.Expression]:
    if isinstance(node, cls):
        return _flatten_op(node.this, cls) + _flatten_op(node.expression, cls)
    return [node]


def _ancestors(node: exp.Expression, stop: exp.Expression):
    p = node.parent
    while p is not None and p is not stop:
        yield p
        p = p.parent


def _inside_subquery(node: exp.Expression, block: exp.Expression) -> bool:
    return any(isinstance(p, exp.Subquery | exp.Select) for p in _ancestors(node, block))
