"""Record-at-a-time operators: filter, project, transform, limit, order, flatten."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.names import fold, unique_name
from drillspark.plan import operators as lo
from drillspark.plan.expressions import Cast, FieldPath, Literal
from drillspark.spark.expressions import paths_in, plan_typed
from drillspark.spark.nested_filter import crosses_array, element_uses, filter_nested, leaf_type
from drillspark.spark.records import drop_path, names_of, record_of, set_path
from drillspark.spark.rel import Rel
from drillspark.spark.scope import IMPLICIT_COLUMN, PLAN_TYPED, Scope, quote, real_name

if TYPE_CHECKING:
    from drillspark.spark.translator import Translator


LEAF = "__drill_leaf"


class _LeafScope(Scope):
    """A filter's scope where some occurrences of one field path (the plan nodes in `uses`)
    mean the current element of a higher-order function (nested filtering), typed `leaf_type`.
    `typing` holds the scope's typing scope once built (shared by the scopes of one filter)."""

    def __init__(
        self,
        base: Scope,
        uses: list[FieldPath],
        leaf: Column,
        leaf_type: T.DataType,
        typing: list[Scope] | None = None,
    ):
        super().__init__(base.df, base.where, base.columns, base.schema)
        self._base, self._nodes, self._uses = base, uses, {id(u) for u in uses}
        self._leaf, self._leaf_type = leaf, leaf_type
        self._typing = typing if typing is not None else []

    def path(self, path: FieldPath) -> Column:
        return self._leaf if id(path) in self._uses else super().path(path)

    def path_type(self, path: FieldPath) -> T.DataType:
        return self._leaf_type if id(path) in self._uses else super().path_type(path)

    def is_missing(self, path: FieldPath) -> bool:
        return False if id(path) in self._uses else super().is_missing(path)

    def expr_type(self, e: Any, col: Column) -> T.DataType:
        # which occurrences of the path mean the element is a matter of plan nodes, not of
        # equal expressions: no sharing of answers here
        return self.type_of(col)

    def typing_scope(self) -> Scope:
        # a lambda variable has no type outside its function: analyze expressions over a
        # frame where the element is a real (typed, empty) column instead
        if not self._typing:
            df = self._base.df.withColumn(LEAF, F.lit(None).cast(self._leaf_type))
            typing = _LeafScope(Scope(df, self.where), self._nodes, F.col(LEAF), self._leaf_type)
            typing._typing.append(typing)  # its columns analyze as they are
            self._typing.append(typing)
        return self._typing[0]


def filter_(tr: Translator, op: lo.Filter) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    paths = {tuple(str(s).lower() for s in p.segments): p for p in paths_in(op.expr)}
    if len(paths) == 1:
        (path,) = paths.values()
        uses = element_uses(op.expr, path)
        leaf = leaf_type(df.schema, path)
        if uses and leaf is not None and crosses_array(df.schema, path):
            # nested filtering (docs/running-plans.md): prune arrays along the path instead of judging the record as a whole
            typing: list[Scope] = []

            def pred(value: Column) -> Column:
                leaf_scope = _LeafScope(scope, uses, value, leaf, typing)
                return tr.compiler(op, leaf_scope, "expr").compile(op.expr)

            return Rel(filter_nested(df, path, pred))
    cond = tr.compiler(op, scope, "expr").compile(op.expr)
    # where() drops false and null alike, as Drill's filter; the schema is the input's
    return Rel(df.where(cond), schema=scope.schema)


STAR = "*"
STAR_DELIMITER = "¦¦"  # Drill's prefix delimiter of a table's star columns (`T0¦¦*`)


def star_prefix(expr: Any) -> str | None:
    """The prefix a star projection's expr selects: '' for `*`, `p¦¦` for `p¦¦*` (the fields
    named `p¦¦...`); None when `expr` is not a star."""
    if not isinstance(expr, FieldPath) or len(expr.segments) != 1:
        return None
    seg = expr.segments[0]
    if not isinstance(seg, str):
        return None
    if seg == STAR:
        return ""
    if seg.endswith(STAR_DELIMITER + STAR):
        return seg[:-1]
    return None


def project(tr: Translator, op: lo.Project) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    if any(star_prefix(p.expr) is not None for p in op.projections):
        return _star_project(tr, op, df, scope)
    names = _renames(tr, op, scope)
    if names is not None:
        return Rel(df.toDF(*names))
    fields: list[tuple[tuple[str, ...], Column]] = []
    typed: list[str] = []  # DECIMAL columns whose type Drill's planner knows (a CAST's)
    for i, p in enumerate(op.projections):
        value = tr.compiler(op, scope, f"projections[{i}].expr").compile(p.expr)
        path = names_of(p.ref)
        if tr.dialect_2013:
            path = path[1:]  # 2013: the first segment (`output`) names the record itself
        if len(path) == 1 and _typed_decimal(p.expr, value, scope):
            typed.append(path[0])
        if not path:
            t = scope.type_of(value)
            if not isinstance(t, T.StructType):
                raise tr.fail(
                    op,
                    f"projections[{i}]: ref {p.ref.dotted()!r} merges a map into "
                    f"the record, but {p.expr} is not a map",
                )
            fields.extend(((f.name,), value.getField(f.name)) for f in t.fields)
        else:
            fields.append((path, value))
    out = df.select(*record_of(fields))
    for name in typed:  # an AVG above keeps its scale rule (functions._avg)
        out = out.withMetadata(name, {PLAN_TYPED: True})
    return Rel(out)


def _typed_decimal(e: Any, value: Column, scope: Scope) -> bool:
    """Whether a projection is a DECIMAL Drill's planner types (a CAST's, arithmetic on one);
    a literal or a column is never one here (a column keeps its own marker), and only the rest
    needs Spark to analyse its type."""
    if isinstance(e, Literal | FieldPath) or not plan_typed(e, scope):
        return False
    if isinstance(e, Cast):
        return "DECIMAL" in e.type.upper()
    return isinstance(scope.type_of(value), T.DecimalType)


def _renames(tr: Translator, op: lo.Project, scope: Scope) -> list[str] | None:
    """The output names when the project keeps every input column in order, each under one
    single name, none twice (the SQL layer's project above an aggregation: `$g0` -> `name`);
    else None. Such a project is `toDF(names)`: the same Spark plan as selecting each column
    under its name, in one py4j call instead of four per column."""
    if tr.dialect_2013 or scope.schema is None:
        return None
    have = scope.schema.names
    if len(op.projections) != len(have) or len({fold(n) for n in have}) != len(have):
        return None  # (a name twice in the input: let select say it is ambiguous)
    out: list[str] = []
    for p, name in zip(op.projections, have, strict=True):
        e, ref = p.expr, p.ref.segments
        if not (isinstance(e, FieldPath) and len(e.segments) == 1 and len(ref) == 1):
            return None
        if real_name(have, str(e.segments[0])) != name or not isinstance(ref[0], str):
            return None
        out.append(ref[0])
    return out if len({fold(n) for n in out}) == len(out) else None


def _star_project(tr: Translator, op: lo.Project, df: DataFrame, scope: Scope) -> Rel:
    """A project with star projections, as Drill's project runs them: each star stands for
    the input's fields in order (`*`: all of them; `p¦¦*`: those named `p¦¦...`, without the
    prefix; a ref `q¦¦*` puts `q¦¦` in front), and an output name already taken (ignoring
    case) gets the smallest free digit suffix (`floor, *` gives `floor, dept, floor0`)."""
    out: list[Column] = []
    taken: set[str] = set()
    for i, p in enumerate(op.projections):
        ref = names_of(p.ref)
        prefix = star_prefix(p.expr)
        if prefix is None:
            if len(ref) != 1 or ref[0] == STAR:
                raise tr.fail(
                    op,
                    f"projections[{i}]: a project with a star writes single names, "
                    f"not {p.ref.dotted()!r}",
                )
            value = tr.compiler(op, scope, f"projections[{i}].expr").compile(p.expr)
            name = unique_name(ref[0], taken)
            out.append(value.alias(name))
            continue
        target = ref[0] if len(ref) == 1 else ""
        if target != STAR and not target.endswith(STAR_DELIMITER + STAR):
            raise tr.fail(
                op, f"projections[{i}]: the star {p.expr} needs a star ref (`*` or `q¦¦*`)"
            )
        into = target[:-1]
        for f in df.schema.fields:
            c = f.name
            if not c.lower().startswith(prefix.lower()) or f.metadata.get(IMPLICIT_COLUMN):
                continue
            name = unique_name(into + c[len(prefix) :], taken)
            out.append(F.col(quote(c)).alias(name))
    if not out:
        return Rel(df.select())  # every star matched nothing: an empty record per row
    return Rel(df.select(*out))


def transform(tr: Translator, op: lo.Transform) -> Rel:
    df = tr.input_df(op)
    for i, t in enumerate(op.transforms):
        value = tr.compiler(op, tr.scope(op, df), f"transforms[{i}].expr").compile(t.expr)
        df = set_path(df, names_of(t.ref), value)
    return Rel(df)


def limit(tr: Translator, op: lo.Limit) -> Rel:
    df = tr.input_df(op)
    schema = tr.known_schema(df)
    first = op.first or 0
    if first < 0 or (op.last is not None and op.last < first):
        raise tr.fail(op, f"invalid range first={op.first} last={op.last}")
    if first:
        df = df.offset(first)
    if op.last is not None:
        df = df.limit(op.last - first)
    return Rel(df, schema=schema)


def sort_column(col: Column, descending: bool, nulls_first: bool) -> Column:
    if descending:
        return col.desc_nulls_first() if nulls_first else col.desc_nulls_last()
    return col.asc_nulls_first() if nulls_first else col.asc_nulls_last()


def order(tr: Translator, op: lo.Order) -> Rel:
    rel = tr.rel(op.input)
    within = op.within
    df = rel.df if _segment_is(rel, within) else rel.materialized()
    scope = tr.scope(op, df)
    keys = [
        sort_column(
            tr.compiler(op, scope, f"orderings[{i}].expr").compile(o.expr),
            o.direction == "DESC",
            o.nulls_first,
        )
        for i, o in enumerate(op.orderings)
    ]
    if within is not None:
        # ordering within segments: the segments stay together (in key order), sorted inside
        keys = [scope.path(within).asc_nulls_first(), *keys]
    return Rel(df.orderBy(*keys), schema=scope.schema)


def _segment_is(rel: Rel, within: Any) -> bool:
    return rel.segment is not None and within is not None and names_of(within) == (rel.segment.ref,)


def flatten(tr: Translator, op: lo.Flatten) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    value = tr.compiler(op, scope, "expr").compile(op.expr)
    # the extension's generator, with Drill's rules: one record per element of an array, one
    # for a scalar or map, none for an empty array, a null or a missing field
    flat = F.call_function("drill_flatten", value)
    # names resolve against the input's fields, which df's first columns are (unless dropped)
    path = names_of(op.name)
    fields = scope.schema.names if scope.schema else []
    same = [n for n in fields if fold(n) == fold(path[0])]
    known = scope.schema if not op.drop and len(same) < 2 else None
    if known is not None and len(path) == 1:
        # one column, in place of (or after) the one named: one DataFrame for Spark to
        # analyze instead of four
        root = real_name(known.names, path[0])
        out = df.withColumn(root or path[0], flat)
        return Rel(out, schema=_with_field(known, root or path[0], out))
    # the values on their way: a name neither an input column nor the target has
    tmp = "__drill_flatten"
    while fold(tmp) in {fold(n) for n in [*fields, path[0]]}:
        tmp += "_"
    df = df.select("*", flat.alias(tmp))
    if op.drop:
        for p in paths_in(op.expr):
            if all(isinstance(s, str) for s in p.segments):
                df = drop_path(df, tuple(p.segments))  # type: ignore[arg-type]
    return Rel(set_path(df, path, F.col(tmp), known).drop(tmp))


def _with_field(known: T.StructType, name: str, out: DataFrame) -> T.StructType:
    """`out`'s schema: `known` with column `name` as `out` has it, in place of the column of
    that name or after the others (asking Spark for the one column's type is cheaper than a
    wide schema again)."""
    made = out.select(F.col(quote(name))).schema.fields[0]
    fields = list(known.fields)
    new = T.StructField(name, made.dataType, made.nullable, made.metadata)
    if name in known.names:
        fields[known.names.index(name)] = new
    else:
        fields.append(new)
    return T.StructType(fields)
