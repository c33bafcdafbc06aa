"""The `fields` Drill records for a view: each select-list column with the type Calcite derives
for it at CREATE VIEW time. A column of a schema-free table is `ANY` (nullable); casts, literals,
COUNT and typed arithmetic have SQL types; `SELECT *` over a schema-free table is one `**`
column of type `DYNAMIC_STAR`. Checked against Drill 1.22 (INFORMATION_SCHEMA.COLUMNS of views
of casts, literals, functions, aggregates, CASE/COALESCE, `||`, arithmetic)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from drillspark.names import fold
from drillspark.spark.storage import metadata as md
from drillspark.sql import catalog
from drillspark.sql.session import SqlSession

INT_RANGE = range(-(2**31), 2**31)
INTEGERS = ("INTEGER", "BIGINT")
CHARS = ("CHAR", "VARCHAR")


@dataclass(frozen=True)
class F:
    type: str
    nullable: bool = True
    precision: int | None = None
    scale: int | None = None
    units: tuple[str, ...] = ()  # INTERVAL start / end unit

    def json(self, name: str) -> dict:
        out: dict = {"name": name, "type": self.type}
        if self.type.startswith("INTERVAL_"):
            out.update(precision=-1, startUnit=self.units[0])
            if len(self.units) > 1:
                out["endUnit"] = self.units[-1]
            out["fractionalSecondPrecision"] = -1
        else:
            if self.precision is not None:
                out["precision"] = self.precision
            if self.scale is not None:
                out["scale"] = self.scale
        out["isNullable"] = self.nullable
        return out


ANY = F("ANY")
DYNAMIC = F("DYNAMIC_STAR")

_CAST_TYPES = {
    "INT": "INTEGER",
    "INTEGER": "INTEGER",
    "BIGINT": "BIGINT",
    "DOUBLE": "DOUBLE",
    "FLOAT": "FLOAT",
    "BOOLEAN": "BOOLEAN",
    "DATE": "DATE",
    "TIME": "TIME",
    "TIMESTAMP": "TIMESTAMP",
    "DATETIME": "TIMESTAMP",
    "VARCHAR": "VARCHAR",
    "TEXT": "VARCHAR",
    "CHAR": "CHAR",
    "VARBINARY": "VARBINARY",
    "BINARY": "VARBINARY",
    "DECIMAL": "DECIMAL",
    "BIGDECIMAL": "DECIMAL",
}


class Scope:
    """The columns a SELECT's FROM clause makes visible: None when one of its sources is
    schema-free (then any name is ANY)."""

    def __init__(self, fields: list[tuple[str, F]] | None):
        self.fields = fields

    def lookup(self, name: str) -> F:
        if self.fields is None:
            return ANY
        for n, f in self.fields:
            if fold(n) == fold(name):
                return f
        return ANY


def view_fields(session: SqlSession, tree: exp.Expr, names: list[str] | None) -> list[dict]:
    """The view's `fields` list; `names` renames the columns (a CREATE VIEW column list)."""
    cols = query_fields(session, tree)
    if names is not None and not any(f == DYNAMIC for _, f in cols):
        cols = [(n, f) for n, (_, f) in zip(names, cols, strict=True)]
    return [f.json(n) for n, f in cols]


def query_fields(session: SqlSession, node: exp.Expr) -> list[tuple[str, F]]:
    if isinstance(node, exp.Subquery):
        return query_fields(session, node.this)
    if isinstance(node, exp.Union | exp.Intersect | exp.Except):
        left = query_fields(session, node.this)
        right = query_fields(session, node.expression)
        if len(left) != len(right):
            return left
        return [(n, _unify([a, b]) or ANY) for (n, a), (_, b) in zip(left, right, strict=True)]
    if isinstance(node, exp.Values):
        return _values_fields(node)
    if not isinstance(node, exp.Select):
        return [("**", DYNAMIC)]
    scope = _scope(session, node)
    out: list[tuple[str, F]] = []
    for i, item in enumerate(node.expressions):
        inner = item.unalias() if isinstance(item, exp.Alias) else item
        if isinstance(inner, exp.Star) or (
            isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star)
        ):
            if scope.fields is None:
                out.append(("**", DYNAMIC))
            else:
                out.extend(scope.fields)
            continue
        name = (
            item.alias
            if isinstance(item, exp.Alias)
            else (inner.name if isinstance(inner, exp.Column) else f"EXPR${i}")
        )
        out.append((name, type_of(inner, scope)))
    return out


def _scope(session: SqlSession, node: exp.Select) -> Scope:
    sources = []
    from_ = node.args.get("from_") or node.args.get("from")
    if from_ is not None:
        sources.append(from_.this)
    sources += [j.this for j in node.args.get("joins") or []]
    fields: list[tuple[str, F]] = []
    for s in sources:
        got = _source_fields(session, s)
        if got is None:
            return Scope(None)
        fields += got
    return Scope(fields)


def _source_fields(session: SqlSession, node: exp.Expr) -> list[tuple[str, F]] | None:
    if isinstance(node, exp.Subquery):
        inner = query_fields(session, node.this)
        alias = node.args.get("alias")
        if alias is not None and alias.columns:
            inner = [(c.name, f) for c, (_, f) in zip(alias.columns, inner, strict=False)]
        return None if any(f == DYNAMIC for _, f in inner) else inner
    if isinstance(node, exp.Values):
        return _values_fields(node)
    if isinstance(node, exp.Table) and not isinstance(node.this, exp.Anonymous):
        parts = tuple(p.name for p in node.parts)
        found = catalog.split_table(session, parts)
        if found is None:
            return None
        ref, name = found
        if ref.is_metadata:
            tables = md.ISCHEMA_TABLES if ref.plugin == catalog.ISCHEMA else md.SYS_TABLES
            key = next((t for t in tables if fold(t) == fold(name)), None)
            if key is None:
                return None
            return [(n, F(_SQL.get(t, t), nullable)) for n, t, nullable in tables[key]]
        view = catalog.find_view(session, ref, name)
        if view is None or view.dynamic:
            return None
        return [(str(f.get("name")), _from_json(f)) for f in view.fields]
    return None


_SQL = {
    "VARCHAR": "VARCHAR",
    "INTEGER": "INTEGER",
    "BIGINT": "BIGINT",
    "BOOLEAN": "BOOLEAN",
    "TIMESTAMP": "TIMESTAMP",
    "DOUBLE": "DOUBLE",
    "FLOAT": "FLOAT",
}


def _from_json(f: dict) -> F:
    t = str(f.get("type", "ANY")).upper()
    units = tuple(u for u in (f.get("startUnit"), f.get("endUnit")) if u)
    return F(t, bool(f.get("isNullable", True)), f.get("precision"), f.get("scale"), units)


def _values_fields(node: exp.Values) -> list[tuple[str, F]]:
    rows = [list(t.expressions) for t in node.expressions]
    if not rows:
        return []
    alias = node.args.get("alias")
    names = (
        [c.name for c in alias.columns]
        if alias is not None and alias.columns
        else [f"EXPR${i}" for i in range(len(rows[0]))]
    )
    scope = Scope([])
    return [
        (n, _unify([type_of(r[i], scope) for r in rows if i < len(r)]) or ANY)
        for i, n in enumerate(names)
    ]


# ----------------------------------------------------------------------------- expressions
def type_of(node: exp.Expr, scope: Scope) -> F:  # noqa: C901 - one case per construct
    if isinstance(node, exp.Paren):
        return type_of(node.this, scope)
    if isinstance(node, exp.Column):
        return scope.lookup(node.name) if not node.table or scope.fields is not None else ANY
    if isinstance(node, exp.Null):
        return F("NULL")
    if isinstance(node, exp.Boolean):
        return F("BOOLEAN", False)
    if isinstance(node, exp.Literal):
        return _literal(node)
    if isinstance(node, exp.Neg):
        return type_of(node.this, scope)
    if isinstance(node, exp.Cast):
        return _cast(node, type_of(node.this, scope))
    if isinstance(node, exp.Interval):
        units = _units(node.args.get("unit"))
        return F("INTERVAL_" + "_".join(units), False, units=units)
    if isinstance(node, exp.CurrentDate):
        return F("DATE", False)
    if isinstance(node, exp.CurrentTimestamp | exp.Localtimestamp):
        return F("TIMESTAMP", False)
    if isinstance(node, exp.CurrentTime | exp.Localtime):
        return F("TIME", False)
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("NOW", "LOCALTIMESTAMP"):
        return F("TIMESTAMP", False)
    if isinstance(node, exp.Window):
        return type_of(node.this, scope)
    if isinstance(node, exp.Count):
        return F("BIGINT", False)
    if isinstance(node, exp.Is):
        return F("BOOLEAN", False)
    if isinstance(node, exp.Not):
        inner = type_of(node.this, scope)
        return F("BOOLEAN", inner.nullable)
    if isinstance(node, exp.DPipe):
        a, b = type_of(node.this, scope), type_of(node.expression, scope)
        if a.type in CHARS and b.type in CHARS and a.precision and b.precision:
            return F("VARCHAR", a.nullable or b.nullable, a.precision + b.precision)
        return ANY
    if isinstance(node, exp.Predicate | exp.And | exp.Or):
        args = [
            type_of(a, scope)
            for a in (node.this, node.args.get("expression"))
            if isinstance(a, exp.Expr)
        ]
        if any(a.type == "ANY" for a in args):
            return F("BOOLEAN", True)
        return F("BOOLEAN", any(a.nullable for a in args))
    if isinstance(node, exp.Add | exp.Sub | exp.Mul):
        return _arith(node, type_of(node.this, scope), type_of(node.expression, scope))
    if isinstance(node, exp.Case):
        branches = [type_of(i.args["true"], scope) for i in node.args.get("ifs") or []]
        default = node.args.get("default")
        if default is not None:
            branches.append(type_of(default, scope))
        t = _unify(branches)
        if t is None:
            return ANY
        return replace(t, nullable=t.nullable or default is None)
    if isinstance(node, exp.Coalesce):
        args = [type_of(node.this, scope)] + [type_of(a, scope) for a in node.expressions]
        t = _unify(args)
        if t is None:
            return ANY
        return replace(t, nullable=all(a.nullable for a in args))
    return ANY


def _literal(node: exp.Literal) -> F:
    if node.is_string:
        return F("CHAR", False, max(len(node.this), 1))
    text = node.this
    if "e" in text.lower():
        return F("DOUBLE", False)
    if "." in text:
        whole, frac = text.split(".", 1)
        digits = len(whole.lstrip("0")) + len(frac)
        return F("DECIMAL", False, max(digits, len(frac), 1), len(frac))
    return F("INTEGER" if int(text) in INT_RANGE else "BIGINT", False)


def _cast(node: exp.Cast, inner: F) -> F:
    to = node.to
    if not isinstance(to, exp.DataType):
        return ANY
    if isinstance(to.this, exp.Interval):
        units = _units(to.this.args.get("unit"))
        return F("INTERVAL_" + "_".join(units), inner.nullable, units=units)
    name = str(getattr(to.this, "name", to.this)).upper()
    params = [
        int(p.this.this) if isinstance(p.this, exp.Literal) else None
        for p in to.expressions
        if isinstance(p, exp.DataTypeParam)
    ]
    base = _CAST_TYPES.get(name)
    if base is None:
        return ANY
    nullable = inner.nullable
    if base in ("VARCHAR", "CHAR", "VARBINARY"):
        return F(base, nullable, params[0] if params and params[0] else 65535)
    if base == "DECIMAL":
        p = params[0] if params and params[0] else 38
        s = params[1] if len(params) > 1 and params[1] is not None else 0
        return F("DECIMAL", nullable, p, s)
    return F(base, nullable)


def _units(unit: exp.Expr | None) -> tuple[str, ...]:
    if isinstance(unit, exp.IntervalSpan):
        return (unit.this.name.upper(), unit.expression.name.upper())
    return (unit.name.upper(),) if unit is not None else ("DAY",)


def _as_decimal(f: F) -> tuple[int, int] | None:
    if f.type == "DECIMAL":
        return (f.precision or 38, f.scale or 0)
    if f.type == "INTEGER":
        return (10, 0)
    if f.type == "BIGINT":
        return (19, 0)
    return None


def _arith(node: exp.Expr, a: F, b: F) -> F:
    nullable = a.nullable or b.nullable
    if "ANY" in (a.type, b.type):
        return ANY
    if a.type in INTEGERS and b.type in INTEGERS:
        return F("BIGINT" if "BIGINT" in (a.type, b.type) else "INTEGER", nullable)
    if "DOUBLE" in (a.type, b.type) or "FLOAT" in (a.type, b.type):
        return F("DOUBLE", nullable)
    da, db = _as_decimal(a), _as_decimal(b)
    if da is None or db is None:
        return ANY
    (p1, s1), (p2, s2) = da, db
    if isinstance(node, exp.Mul):
        p, s = p1 + p2, s1 + s2
    else:
        s = max(s1, s2)
        p = max(p1 - s1, p2 - s2) + s + 1
    return F("DECIMAL", nullable, min(p, 38), s)


def _unify(types: list[F]) -> F | None:
    """The common type of CASE branches / COALESCE arguments / VALUES rows, when simple."""
    known = [t for t in types if t.type != "NULL"]
    if not known:
        return F("NULL") if types else None
    nullable = len(known) != len(types) or any(t.nullable for t in known)
    kinds = {t.type for t in known}
    if kinds <= set(CHARS):
        kind = "CHAR" if kinds == {"CHAR"} else "VARCHAR"
        return F(kind, nullable, max(t.precision or 1 for t in known))
    if kinds <= set(INTEGERS):
        return F("BIGINT" if "BIGINT" in kinds else "INTEGER", nullable)
    if len(kinds) == 1 and "ANY" not in kinds:
        first = known[0]
        if all(t == replace(first, nullable=t.nullable) for t in known):
            return replace(first, nullable=nullable)
    return None
