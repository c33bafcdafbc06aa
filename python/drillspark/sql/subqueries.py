"""Subqueries in WHERE and the select list: [NOT] IN, [NOT] EXISTS, comparisons with ANY /
SOME / ALL, and scalar subqueries, uncorrelated or correlated through comparisons in the
subquery's WHERE (`inner.k = outer.k`).

Each subquery is decorrelated into joins of the outer stream with helper relations, then the
subquery's place in the expression is taken by an expression over the helpers' hidden columns
(a `RawDrill` node) that keeps SQL's three-valued logic:
- a positive IN / EXISTS conjunct of WHERE is a `semi-join`, NOT EXISTS an anti `semi-join`,
  an uncorrelated NOT IN conjunct a NOT_IN `semi-join` (no row that matches or might);
- IN elsewhere (correlated NOT IN, IN under OR, in the select list): a left join with the subquery's
  distinct values plus its row and non-NULL counts (a NULL among the values makes a failed
  probe NULL, so NOT IN keeps no row; an empty subquery makes IN false);
- `x op ANY/ALL (q)`: the subquery's count, non-NULL count, MIN and MAX (empty: ANY false,
  ALL true);
- a scalar subquery: aggregated per correlation key and left-joined; an aggregate over no rows
  takes the value the subquery has on an empty input (COUNT 0), more than one row fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.expressions import Expr
from drillspark.plan.operators import (
    Filter,
    GroupingAggregate,
    Join,
    JoinCondition,
    Operator,
    Project,
    SemiJoin,
    Transform,
)
from drillspark.sql import drill_expr as dx
from drillspark.sql import lateral
from drillspark.sql import plan_parts as pp
from drillspark.sql.expressions import lower_expr, lower_into
from drillspark.sql.lower import Rel, column_parts
from drillspark.sql.plan_parts import Pair
from drillspark.sql.syntax import conjuncts

if TYPE_CHECKING:
    from drillspark.sql.block import Block

SINGLE_VALUE_ERROR = "Input for single_value function has more than one row"
COUNT_ROWS = dx.call("count", [dx.integer(1)])  # count(1): the rows of a group


class RawDrill(exp.Expression):
    """A plan expression already lowered (`this`, a plan/expressions.py node): the value a
    subquery was replaced by."""

    arg_types = {"this": True}


def raw(value: Expr) -> RawDrill:
    return RawDrill(this=value)


def query_of(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Subquery | exp.Paren):
        node = node.this
    return node


def without_subqueries(node: exp.Expr) -> exp.Expr:
    """A copy of `node` with its subqueries replaced by NULL (to look at the rest)."""

    def strip(n: exp.Expr) -> exp.Expr:
        if isinstance(n, exp.Subquery | exp.Exists | exp.Any | exp.All | exp.Select) or (
            isinstance(n, exp.In) and n.args.get("query") is not None
        ):
            return exp.null()
        return n

    return node.copy().transform(strip)


def has_subquery(node: exp.Expr) -> bool:
    return node.find(exp.Subquery, exp.Exists, exp.Any, exp.All, exp.Select) is not None or any(
        n.args.get("query") is not None for n in node.find_all(exp.In)
    )


class Correlation:
    """A subquery's copy with its correlated WHERE conjuncts taken out: `pairs` holds
    (outer expression, relationship, inner expression) for `outer REL inner`.

    Any other correlation (a correlated condition that is not such a comparison, an outer
    reference outside WHERE, or a non-equality where the caller needs equalities) makes it
    *general*: the subquery is evaluated once per distinct value of the outer columns it reads
    (the domain, `bind`), joined in as a table whose columns stand for the outer references,
    and `pairs` match each outer column with its domain column (IS NOT DISTINCT FROM)."""

    def __init__(self, ctx: Block, query: exp.Select, where: exp.Expr, equalities: bool = False):
        self.ctx = ctx
        self.original = query
        self.query = query.copy()
        inner = {fold(t.alias_or_name) for t in self.query.find_all(exp.Table)} | {
            fold(n.alias)
            for n in self.query.find_all(exp.Subquery, exp.Unnest, exp.Values)
            if n.alias
        }
        self.outer = {fold(s.alias) for s in ctx.scope.sources if s.alias} - inner
        self.pairs: list[tuple[exp.Expr, str, exp.Expr]] = []
        self.general = False
        self.domain: Rel | None = None
        w = self.query.args.get("where")
        kept: list[exp.Expr] = []
        for c in conjuncts(w.this) if w is not None else []:
            rel = dx.COMPARISONS.get(type(c).__name__)
            if rel is not None and self.refs_outer(c):
                a, b = c.this, c.expression
                if self.refs_outer(a) and not self.refs_outer(b) and self.refs_inner(b):
                    self.pairs.append((a, rel, b))
                    continue
                if self.refs_outer(b) and not self.refs_outer(a) and self.refs_inner(a):
                    self.pairs.append((b, dx.FLIPPED[rel], a))
                    continue
            if self.refs_outer(c):
                self.general = True
            kept.append(c)
        self.query.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
        for key, value in self.query.args.items():
            if key == "where" or not value:
                continue
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, exp.Expr) and self.refs_outer(v):
                    self.general = True
        if equalities and not all(r == "==" for _, r, _ in self.pairs):
            self.general = True
        if self.general:
            self._generalize(where)

    def _generalize(self, node: exp.Expr) -> None:
        """The general form: the whole subquery with each outer column reference replaced by
        a column of the domain table (a hidden name), which joins the subquery's FROM."""
        low = self.ctx.low
        if any(self.original.args.get(k) for k in ("limit", "offset", "fetch")):
            raise low.unsupported("LIMIT in a subquery correlated this way", node)
        q = self.original.copy()
        self.alias = low.hidden("domain")
        self.refs: dict[str, tuple[exp.Column, str]] = {}  # outer column text -> (node, name)

        def swap(n: exp.Expr) -> exp.Expr:
            if isinstance(n, exp.Column) and self.is_outer(n):
                key = n.sql().lower()
                if key not in self.refs:
                    self.refs[key] = (n.copy(), low.hidden("o"))
                return exp.column(self.refs[key][1], table=self.alias, quoted=True)
            return n

        swapped = q.transform(swap)
        assert isinstance(swapped, exp.Select)
        q = swapped
        table = exp.Table(this=exp.to_identifier(self.alias, quoted=True))
        has_from = q.args.get("from_") or q.args.get("from")
        self.query = q.join(table) if has_from else q.from_(table)
        self.pairs = [
            (col, dx.NULL_SAFE, exp.column(name, table=self.alias, quoted=True))
            for col, name in self.refs.values()
        ]

    def bind(self, rel: Rel) -> None:
        """The domain of a general correlation: the distinct values of the outer columns the
        subquery reads, from the outer stream `rel`."""
        if not self.general:
            return
        names = [name for _, name in self.refs.values()]
        op = self.ctx.low.builder.add(
            GroupingAggregate(
                input=rel.op,
                keys=pp.named_all(
                    (name, lower_expr(self.ctx, col)) for col, name in self.refs.values()
                ),
                exprs=(),
            )
        )
        self.domain = Rel(op, names)

    def is_outer(self, col: exp.Column) -> bool:
        parts = column_parts(col)
        return len(parts) >= 2 and fold(parts[0]) in self.outer

    def refs_outer(self, e: exp.Expr) -> bool:
        return any(self.is_outer(c) for c in e.find_all(exp.Column))

    def refs_inner(self, e: exp.Expr) -> bool:
        return any(not self.is_outer(c) for c in e.find_all(exp.Column))


@dataclass
class _Stats:
    rel: Rel  # the outer stream with the stats joined in
    inner: Rel  # the subquery: correlation keys and `v`
    v: str
    keys: list[str]
    outer: list[Expr]  # the outer expressions the keys are compared with
    relationships: list[str]  # how (== or IS NOT DISTINCT FROM)
    empty: Expr  # true when the subquery has no row for the outer row
    cnt: str
    nn: str
    mn: str
    mx: str


class SubqueryLowering:
    def __init__(self, ctx: Block):
        self.ctx = ctx
        self.low = ctx.low

    # ------------------------------------------------------------------ plumbing
    def add(self, op: Operator, columns: list[str] | None, node: exp.Expr | None = None) -> Rel:
        return Rel(self.low.builder.add(op, node), columns)

    def join(
        self,
        left: Rel,
        right: Rel,
        jtype: str,
        conditions: list[JoinCondition],
        node: exp.Expr | None = None,
    ) -> Rel:
        op = Join(left=left.op, right=right.op, type=jtype, conditions=tuple(conditions))  # type: ignore[arg-type]
        return self.add(op, None, node)

    def grouped(
        self,
        rel: Rel,
        keys: Sequence[Pair],
        exprs: Sequence[Pair],
        node: exp.Expr | None = None,
    ) -> Rel:
        """`rel` grouped by `keys` with the aggregates `exprs` (name, expression node)."""
        op = GroupingAggregate(input=rel.op, keys=pp.named_all(keys), exprs=pp.named_all(exprs))
        return self.add(op, [n for n, _ in [*keys, *exprs]], node)

    def lower_select(
        self,
        query: exp.Select,
        values: list[tuple[exp.Expr, str]],
        corr: Correlation | None,
        group: bool = False,
        distinct: bool = False,
    ) -> Rel:
        """`query` selecting the correlation's inner keys (named by `self.keys`) and `values`;
        grouped by the keys when `group`. `distinct`: the right side of a semi-join, where
        only which rows exist counts, so each is kept once (a plain select correlated by
        equalities only)."""
        q = query.copy()
        keys = [(inner, self.low.hidden("k")) for _, _, inner in (corr.pairs if corr else [])]
        self.keys = [k for _, k in keys]
        q.set("expressions", [exp.alias_(e.copy(), n, quoted=True) for e, n in keys + values])
        own_group = q.args.get("group")
        if own_group is None and any(self.ctx.has_aggregate(e) for e, _ in values):
            group = True  # an aggregate value (`x IN (SELECT MAX(..) ...)`): one per key
        # keys correlated by equality only: keys met many times each (TPC-H q22: 1.5 M orders,
        # 100 k customers) make the deduplication pay; a key such as `l_suppkey <> ...` makes
        # nearly every row distinct, and it would not (measured in docs/performance.md)
        equalities = all(r == "==" for _, r, _ in (corr.pairs if corr else []))
        if distinct and equalities and not group and _plain(q):
            q.set("distinct", exp.Distinct())
        if keys and (group or (corr is not None and corr.general and own_group)):
            # per key; a GROUP BY of the subquery's own groups within each key
            extra = list(own_group.expressions) if own_group is not None else []
            q.set("group", exp.Group(expressions=extra + [e.copy() for e, _ in keys]))
        if corr is None or not corr.general:
            return self.low.lower_query(q)
        assert corr.domain is not None, "bind() the general correlation to the outer stream"
        self.low.ctes.append({fold(corr.alias): corr.domain})
        try:
            return self.low.lower_query(q)
        finally:
            self.low.ctes.pop()

    def conditions(self, corr: Correlation) -> list[JoinCondition]:
        return [
            pp.condition(r, lower_expr(self.ctx, outer), pp.column(k))
            for (outer, r, _), k in zip(corr.pairs, self.keys, strict=True)
        ]

    def marked(self, rel: Rel) -> tuple[Rel, str]:
        marker = self.low.hidden("m")
        assert rel.columns is not None
        projections: list[Pair] = [(c, pp.column(c)) for c in rel.columns] + [(marker, dx.TRUE)]
        return self.add(
            Project(input=rel.op, projections=pp.named_all(projections)), rel.columns + [marker]
        ), marker

    def one_column(self, query: exp.Expr, node: exp.Expr, what: str) -> exp.Expr:
        if not isinstance(query, exp.Select):
            raise self.low.unsupported(f"{what} over a set operation", node)
        if len(query.expressions) != 1 or isinstance(query.expressions[0], exp.Star):
            raise self.ctx.fail(f"{what} needs a subquery with exactly one column", node)
        e = query.expressions[0]
        return e.this if isinstance(e, exp.Alias) else e

    # ------------------------------------------------------------------ WHERE conjuncts
    def semi_conjunct(self, rel: Rel, conj: exp.Expr) -> Rel | None:
        """A WHERE conjunct that is `x IN (q)`, `EXISTS (q)` or `NOT EXISTS (q)` as a
        semi-join (anti for NOT EXISTS); None for any other conjunct."""
        negated = isinstance(conj, exp.Not)
        target = conj.this if negated else conj
        if isinstance(target, exp.Paren):
            target = target.unnest()
        if isinstance(target, exp.Exists):
            query = query_of(target.this)
            if not isinstance(query, exp.Select):
                raise self.low.unsupported("EXISTS over a set operation", target)
            if lateral.over_unnest(query):
                return None
            corr = Correlation(self.ctx, query, target)
            if not corr.pairs:
                return None  # uncorrelated: the general form (a row count) is as cheap
            corr.bind(rel)
            inner = self.lower_select(corr.query, [], corr, distinct=True)
            return self.add(
                SemiJoin(
                    left=rel.op,
                    right=inner.op,
                    type="ANTI" if negated else "INNER",
                    conditions=tuple(self.conditions(corr)),
                ),
                rel.columns,
                conj,
            )
        if isinstance(target, exp.In) and target.args.get("query") is not None and negated:
            return self._not_in(rel, target, conj)
        if isinstance(target, exp.In) and target.args.get("query") is not None:
            probe_values: list[Pair] = []  # `split(s, ' ')[0] IN (...)`: see _into
            sub = target.args["query"]
            query = query_of(sub)
            if isinstance(target.this, exp.Tuple) and isinstance(query, exp.Select):
                return self._row_in(rel, target, query, conj)
            if isinstance(query, exp.Select):
                corr = Correlation(self.ctx, query, target)
                corr.bind(rel)
                value = self.one_column(corr.query, sub, "IN")
                name = self.low.hidden("in")
                inner = self.lower_select(corr.query, [(value, name)], corr, distinct=True)
                conds = self.conditions(corr) + [
                    pp.condition(
                        "==", lower_into(self.ctx, probe_values, target.this), dx.path(name)
                    )
                ]
            else:
                inner = self._set_operation(sub)
                assert inner.columns is not None  # one, checked
                conds = [
                    pp.condition(
                        "==",
                        lower_into(self.ctx, probe_values, target.this),
                        dx.path(inner.columns[0]),
                    )
                ]
            rel = self.ctx.with_computed(rel, probe_values)
            return self.add(
                SemiJoin(left=rel.op, right=inner.op, type="INNER", conditions=tuple(conds)),
                rel.columns,
                conj,
            )
        return None

    def _not_in(self, rel: Rel, target: exp.In, conj: exp.Expr) -> Rel | None:
        """`x NOT IN (q)` as a WHERE conjunct, q uncorrelated: a NOT_IN semi-join (Spark's
        null-aware anti join); None for a row of values or a correlated q (the general form)."""
        if isinstance(target.this, exp.Tuple):
            return None
        sub = target.args["query"]
        query = query_of(sub)
        if isinstance(query, exp.Select):
            corr = Correlation(self.ctx, query, target)
            if corr.pairs or corr.general:
                return None
            name = self.low.hidden("in")
            value = self.one_column(corr.query, sub, "IN")
            inner = self.lower_select(corr.query, [(value, name)], corr, distinct=True)
        else:
            inner = self._set_operation(sub)
            assert inner.columns is not None  # one, checked
            name = inner.columns[0]
        probe_values: list[Pair] = []
        cond = pp.condition("==", lower_into(self.ctx, probe_values, target.this), dx.path(name))
        rel = self.ctx.with_computed(rel, probe_values)
        return self.add(
            SemiJoin(left=rel.op, right=inner.op, type="NOT_IN", conditions=(cond,)),
            rel.columns,
            conj,
        )

    def _set_operation(self, sub: exp.Expr) -> Rel:
        """An IN subquery that is a set operation, lowered: it must have one column."""
        inner = self.low.lower_query(sub.this if isinstance(sub, exp.Subquery) else sub)
        if inner.columns is None or len(inner.columns) != 1:
            raise self.ctx.fail("IN needs a subquery with exactly one column", sub)
        return inner

    def _row_in(self, rel: Rel, target: exp.In, query: exp.Select, conj: exp.Expr) -> Rel:
        """`(a, b) IN (SELECT x, y ...)` as a WHERE conjunct: a semi-join on a = x, b = y."""
        probes = list(target.this.expressions)
        corr = Correlation(self.ctx, query, target)
        corr.bind(rel)
        values = [e.this if isinstance(e, exp.Alias) else e for e in corr.query.expressions]
        if len(values) != len(probes) or any(isinstance(v, exp.Star) for v in values):
            raise self.ctx.fail(
                f"IN compares {len(probes)} values with a subquery of {len(values)} columns", target
            )
        names = [self.low.hidden("in") for _ in values]
        inner = self.lower_select(
            corr.query, list(zip(values, names, strict=True)), corr, distinct=True
        )
        conds = self.conditions(corr) + [
            pp.condition("==", lower_expr(self.ctx, p), pp.column(n))
            for p, n in zip(probes, names, strict=True)
        ]
        return self.add(
            SemiJoin(left=rel.op, right=inner.op, type="INNER", conditions=tuple(conds)),
            rel.columns,
            conj,
        )

    # ------------------------------------------------------------------ general rewrite
    def rewrite(self, rel: Rel, node: exp.Expr) -> tuple[Rel, exp.Expr]:
        """Joins the helpers of every subquery in `node` (not inside a nested query) into
        `rel` and replaces each subquery by its value; returns `node` as rewritten."""
        for target in self._targets(node):
            if isinstance(target, exp.Exists):
                rel, value = self._exists(rel, target)
            elif isinstance(target, exp.In):
                rel, value = self._in(rel, target)
            elif isinstance(target, exp.Any | exp.All):
                rel, value = self._quantified(rel, target)
                assert target.parent is not None  # _quantified checked the comparison
                target = target.parent  # the comparison is replaced
            else:
                rel, value = self._scalar(rel, target)
            replacement = raw(value)
            if target is node:
                node = replacement
            else:
                target.replace(replacement)
        return rel, node

    def defer(self, node: exp.Expr) -> tuple[exp.Expr, list[tuple[exp.Expr, str]]]:
        """HAVING: each subquery of `node` is replaced by a hidden column computed after the
        aggregation (`finish`); aggregates of IN / ANY probes are registered now."""
        pending: list[tuple[exp.Expr, str]] = []
        for target in self._targets(node):
            if isinstance(target, exp.In):
                lower_expr(self.ctx, target.this)
            elif isinstance(target, exp.Any | exp.All):
                assert target.parent is not None  # ANY/ALL stand inside a comparison
                target = target.parent
                lower_expr(self.ctx, target.this)
            name = self.low.hidden("having")
            placeholder = raw(dx.path(name))
            if target is node:
                node = placeholder
            else:
                target.replace(placeholder)
            pending.append((target, name))
        return node, pending

    def finish(self, rel: Rel, pending: list[tuple[exp.Expr, str]]) -> Rel:
        for target, name in pending:
            if isinstance(target, exp.Exists):
                rel, value = self._exists(rel, target)
            elif isinstance(target, exp.In):
                rel, value = self._in(rel, target)
            elif isinstance(target.expression, exp.Any | exp.All):
                rel, value = self._quantified(rel, target.expression)
            else:
                rel, value = self._scalar(rel, target)
            rel = self.add(Transform(input=rel.op, transforms=(pp.named(name, value),)), None)
        return rel

    def _targets(self, node: exp.Expr) -> list[exp.Expr]:
        out: list[exp.Expr] = []

        def visit(n: exp.Expr) -> None:
            if isinstance(n, exp.Exists | exp.Any | exp.All) or (
                isinstance(n, exp.In) and n.args.get("query") is not None
            ):
                if isinstance(n, exp.In):
                    visit(n.this)
                out.append(n)
                return
            if isinstance(n, exp.Subquery | exp.Select):
                out.append(n)
                return
            for child in n.iter_expressions():
                visit(child)

        visit(node)
        return out

    def _exists(self, rel: Rel, target: exp.Exists) -> tuple[Rel, Expr]:
        query = query_of(target.this)
        if not isinstance(query, exp.Select):
            raise self.low.unsupported("EXISTS over a set operation", target)
        if lateral.over_unnest(query):
            return lateral.exists(self.ctx, rel, query)
        corr = Correlation(self.ctx, query, target, equalities=True)
        if not corr.pairs:
            inner = self.low.lower_query(corr.query.limit(1))
            count = self.low.hidden("exists")
            inner = self.grouped(inner, [], [(count, COUNT_ROWS)])
            rel = self.join(rel, inner, "INNER", [], target)
            return rel, dx.binary(">", dx.path(count), dx.integer(0))
        corr.bind(rel)
        inner = self.lower_select(corr.query, [], corr)
        inner = self.grouped(inner, [(k, pp.column(k)) for k in self.keys], [])
        inner, marker = self.marked(inner)
        rel = self.join(rel, inner, "LEFT", self.conditions(corr), target)
        return rel, dx.call("isnotnull", [dx.path(marker)])

    def _stats(self, rel: Rel, sub: exp.Expr, node: exp.Expr, minmax: bool) -> _Stats:
        """The subquery's one column (`v`, with the correlation keys), and its count,
        non-NULL count (and MIN, MAX) per correlation key joined into `rel` (a cross join
        of one row when uncorrelated)."""
        query = query_of(sub)
        keys: list[str] = []
        outer: list[exp.Expr] = []
        v = self.low.hidden("v")
        relationships: list[str] = []
        if isinstance(query, exp.Select):
            corr = Correlation(self.ctx, query, node, equalities=True)
            corr.bind(rel)
            value = self.one_column(corr.query, sub, "the subquery")
            inner = self.lower_select(corr.query, [(value, v)], corr)
            keys = list(self.keys)
            outer = [o for o, _, _ in corr.pairs]
            relationships = [r for _, r, _ in corr.pairs]
        else:
            inner = self.low.lower_query(query)
            if inner.columns is None or len(inner.columns) != 1:
                raise self.ctx.fail("the subquery must return exactly one column", sub)
            inner = self.low.rename(inner, [v])
        cnt, nn, mn, mx = (self.low.hidden(p) for p in ("cnt", "nn", "min", "max"))
        exprs: list[Pair] = [(cnt, COUNT_ROWS), (nn, dx.call("count", [dx.path(v)]))]
        if minmax:
            exprs += [(mn, dx.call("min", [dx.path(v)])), (mx, dx.call("max", [dx.path(v)]))]
        stats = self.grouped(inner, [(k, pp.column(k)) for k in keys], exprs)
        outer_exprs = [lower_expr(self.ctx, o) for o in outer]
        conds = [
            pp.condition(r, o, pp.column(k))
            for o, k, r in zip(outer_exprs, keys, relationships, strict=True)
        ]
        rel = self.join(rel, stats, "LEFT" if keys else "INNER", conds, node)
        # no subquery row for this outer row: count NULL, as good as 0
        empty = dx.boolean_chain(
            "or", [dx.call("isnull", [dx.path(cnt)]), dx.binary("==", dx.path(cnt), dx.integer(0))]
        )
        return _Stats(rel, inner, v, keys, outer_exprs, relationships, empty, cnt, nn, mn, mx)

    def _in(self, rel: Rel, target: exp.In) -> tuple[Rel, Expr]:
        x = lower_expr(self.ctx, target.this)
        return self._membership(rel, target.args["query"], target, x)

    def _membership(self, rel: Rel, sub: exp.Expr, node: exp.Expr, x: Expr) -> tuple[Rel, Expr]:
        st = self._stats(rel, sub, node, False)
        # the distinct (key, value) pairs, renamed apart from the stats' columns
        renamed = [self.low.hidden("k") for _ in st.keys]
        v2 = self.low.hidden("v")
        keys: list[Pair] = [(n, pp.column(k)) for k, n in zip(st.keys, renamed, strict=True)]
        distinct = self.grouped(st.inner, [*keys, (v2, pp.column(st.v))], [])
        distinct, marker = self.marked(distinct)
        conds = [
            pp.condition(r, o, pp.column(n))
            for o, n, r in zip(st.outer, renamed, st.relationships, strict=True)
        ]
        rel = self.join(
            st.rel, distinct, "LEFT", [*conds, pp.condition("==", x, pp.column(v2))], node
        )
        value = dx.case(
            [
                (st.empty, dx.FALSE),
                (dx.call("isnotnull", [dx.path(marker)]), dx.TRUE),
                (dx.call("isnull", [x]), dx.NULL),
                (dx.binary(">", dx.path(st.cnt), dx.path(st.nn)), dx.NULL),
            ],
            dx.FALSE,
        )
        return rel, value

    def _quantified(self, rel: Rel, target: exp.Any | exp.All) -> tuple[Rel, Expr]:
        cmp = target.parent
        op = dx.COMPARISONS.get(type(cmp).__name__)
        if op is None or cmp is None or cmp.expression is not target:
            raise self.low.unsupported(
                f"{target.key.upper()} outside a comparison `x op ANY/ALL (subquery)`", target
            )
        every = isinstance(target, exp.All)
        x = lower_expr(self.ctx, cmp.this)
        if op == "==" and not every:
            return self._membership(rel, target.this, cmp, x)
        if op == "!=" and every:
            rel, value = self._membership(rel, target.this, cmp, x)
            return rel, dx.not_(value)
        st = self._stats(rel, target.this, cmp, True)
        if op in ("==", "!="):  # = ALL: every value equals x; <> ANY: some value differs
            decided = dx.boolean_chain(
                "or", [dx.binary("!=", dx.path(st.mn), x), dx.binary("!=", dx.path(st.mx), x)]
            )
            result = dx.boolean(not every)
        else:
            low_side = op in (">", ">=")  # x > ANY: above the minimum; x > ALL: the maximum
            bound = (st.mx if low_side else st.mn) if every else (st.mn if low_side else st.mx)
            holds = dx.binary(op, x, dx.path(bound))
            decided, result = (dx.not_(holds), dx.FALSE) if every else (holds, dx.TRUE)
        value = dx.case(
            [
                (st.empty, dx.boolean(every)),
                (dx.call("isnull", [x]), dx.NULL),
                (
                    dx.boolean_chain(
                        "and", [dx.binary(">", dx.path(st.nn), dx.integer(0)), decided]
                    ),
                    result,
                ),
                (dx.binary(">", dx.path(st.cnt), dx.path(st.nn)), dx.NULL),
            ],
            dx.boolean(every),
        )
        return st.rel, value

    def _scalar(self, rel: Rel, sub: exp.Expr) -> tuple[Rel, Expr]:
        query = query_of(sub)
        if not isinstance(query, exp.Select):
            inner = self.low.lower_query(query)
            return self._single_value(rel, inner, sub)
        corr = Correlation(self.ctx, query, sub, equalities=True)
        value = self.one_column(corr.query, sub, "a scalar subquery")
        if not corr.pairs:
            inner = self.low.lower_query(corr.query)
            return self._single_value(rel, inner, sub)
        corr.bind(rel)
        aggregated = not corr.query.args.get("group") and self.ctx.has_aggregate(value)
        v = self.low.hidden("v")
        if aggregated:
            # one row per key; an outer row without one gets NULL, COUNT included: Drill 1.22
            # answers NULL for `(SELECT COUNT(*) FROM n WHERE n.k = r.k)` without a match
            keyed = self.lower_select(corr.query, [(value, v)], corr, group=True)
            rel = self.join(rel, keyed, "LEFT", self.conditions(corr), sub)
            return rel, dx.path(v)
        keyed = self.lower_select(corr.query, [(value, v)], corr)
        conditions = self.conditions(corr)
        one, count = self.low.hidden("v"), self.low.hidden("rows")
        keyed = self.grouped(
            keyed,
            [(k, pp.column(k)) for k in self.keys],
            [(one, dx.call("any_value", [dx.path(v)])), (count, COUNT_ROWS)],
            sub,
        )
        keyed = self._check_single(keyed, count, sub)
        rel = self.join(rel, keyed, "LEFT", conditions, sub)
        return rel, dx.path(one)

    def _check_single(self, rel: Rel, count: str, node: exp.Expr) -> Rel:
        check = dx.case(
            [
                (
                    dx.binary(">", dx.path(count), dx.integer(1)),
                    dx.call("isnull", [dx.failure(SINGLE_VALUE_ERROR, dx.path(count))]),
                )
            ],
            dx.TRUE,
        )
        return self.add(Filter(input=rel.op, expr=check), rel.columns, node)

    def _single_value(self, rel: Rel, inner: Rel, sub: exp.Expr) -> tuple[Rel, Expr]:
        """An uncorrelated scalar subquery: one row (its value, NULL when it is empty)
        cross-joined; more than one row fails the query, as in Drill."""
        if inner.columns is None or len(inner.columns) != 1:
            raise self.ctx.fail("a scalar subquery must return one column", sub)
        name, count = self.low.hidden("scalar"), self.low.hidden("rows")
        one = self.grouped(
            inner,
            [],
            [(name, dx.call("any_value", [dx.path(inner.columns[0])])), (count, COUNT_ROWS)],
            sub,
        )
        one = self._check_single(one, count, sub)
        rel = self.join(rel, one, "INNER", [], sub)
        return rel, dx.path(name)


def _plain(q: exp.Select) -> bool:
    """A select whose rows DISTINCT may dedupe as they are: no grouping, ordering, limit or
    distinct of its own, no FLATTEN among its values (Drill refuses it under DISTINCT)."""
    own = ("group", "having", "order", "limit", "offset", "distinct", "qualify")
    flat = any(e.find(exp.Flatten) for e in q.expressions)
    return not flat and not any(q.args.get(k) for k in own)
