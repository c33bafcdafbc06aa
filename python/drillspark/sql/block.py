"""The one context every clause of a SELECT block is lowered in (`Block`): the statement's
lowering (`low`: the plan being built, fresh names, the session, errors at a SQL position),
the block's syntax node, its scope and how a column reference resolves in it, and the state
the clauses hand each other while the block is lowered (what the select list flattens, the
aggregates and group keys, the values an expression indexes, the window calls).

The clause modules (`from_clause`, `where`, `grouping`, `select_list`, `order_by`, driven
by `select`) and the construct families they use (`expressions`, `subqueries`, `joins`,
`lateral`, `aggregates`, `windows`) all take a `Block` and use only its public names, so no
module reaches into another's private methods; this module imports none of them back."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.expressions import Expr
from drillspark.plan.function_kinds import is_aggregate
from drillspark.plan.operators import Flatten, Transform
from drillspark.sql import plan_parts as pp
from drillspark.sql.errors import SqlError
from drillspark.sql.lower import STAR_DELIMITER, Lowering, Rel, Scope, Source, column_parts
from drillspark.sql.syntax import inside_subquery
from drillspark.sql.windows import WindowLowering


def star_prefix(s: Source) -> str:
    """The prefix of a whole join side's fields (`alias¦¦`, as Drill's `T0¦¦` star prefix)."""
    return f"{s.alias}{STAR_DELIMITER}"


@dataclass
class JoinRenaming:
    """What a join's sides are renamed by (from_clause): the sources a star of the select
    list covers, the column names each alias is referenced with."""

    starred: list[Source] = field(default_factory=list)
    refs: dict[str, set[str]] = field(default_factory=dict)


class Block:
    """One SELECT block being lowered: what its clauses share."""

    def __init__(self, low: Lowering, node: exp.Select):
        self.low = low
        self.node = node
        self.scope = Scope()
        # (name, expr, the FLATTEN in the statement, the values expr indexes) in evaluation order
        self.flattens: list[tuple[str, Expr, exp.Expr, list[tuple[str, Expr]]]] = []
        self.aggs: list[tuple[str, Expr]] = []
        self.agg_keys: dict[str, str] = {}  # a call's canonical text -> its field
        self.win = WindowLowering(low, node)
        self.group_nodes: list[tuple[exp.Expr, str]] = []
        # f(DISTINCT x): the distinct arguments, and the calls reading them (call -> f, x)
        self.distinct_args: dict[Expr, str] = {}  # x -> its first-row marker field
        self.distinct_calls: dict[Expr, tuple[str, Expr]] = {}
        self.doubled: set[str] | None = None  # aggregates.doubled_columns, once per block
        self.mode = "input"  # or "grouped": columns must be group keys
        # Values an index or member access reads that are no column (`split(s, ' ')[1]`): the
        # stage being lowered collects (hidden name, expression) here, and a `transform` ahead
        # of the operator that reads them writes them; None where that is not done (HAVING)
        self.computed: list[tuple[str, Expr]] | None = None
        self.pre_aggregate: list[tuple[str, Expr]] = []  # those aggregates and keys read
        # JOIN ... USING: (column, its joined value) in order (sql/joins.py)
        self.using_columns: list[tuple[str, exp.Expr]] = []
        # FLATTENs under an aggregate, flattened ahead of it: id(node) -> hidden column
        self.preflattened: dict[int, str] = {}
        self.renaming = JoinRenaming()  # set by from_clause before the sides are renamed
        # ORDER BY items of a grouped block that name no output column, lowered over the
        # groups (grouping), by position, for order_by to project
        self.grouped_order_exprs: dict[int, Expr] = {}

    def fail(self, message: str, node: exp.Expr | None) -> SqlError:
        return self.low.fail(message, node)

    # ------------------------------------------------------------------ resolution
    def resolve(self, col: exp.Column) -> tuple[Source, str, list[str | int]]:
        """(source, stream field name, member path) of a column reference."""
        parts = column_parts(col)
        sources = self.scope.sources
        if len(parts) >= 2:
            src = self.scope.find(parts[0])
            if src is not None:
                if src.rel.strict and not src.has(parts[1]):
                    raise self.fail(f"Column '{parts[1]}' not found in table '{parts[0]}'", col)
                return src, src.field_name(parts[1]), list(parts[2:])
            if (
                len(sources) >= 1
                and self.scope.find(parts[0]) is None
                and not any(s.has(parts[0]) for s in sources)
            ):
                raise self.fail(
                    f"table '{parts[0]}' not found: Drill needs the table alias "
                    f"to reach into a map (write t.{'.'.join(parts)})",
                    col,
                )
        owners = [s for s in sources if s.has(parts[0])]
        schema_free = [s for s in sources if s.columns is None]
        if len(owners) == 1:
            src = owners[0]
        elif len(sources) == 1:
            src = sources[0]
        elif not owners and len(schema_free) == 1:
            src = schema_free[0]  # the only source whose columns are not known
        elif not sources:
            raise self.fail(f"column '{parts[0]}' not found: the query has no FROM", col)
        else:
            raise self.fail(f"column '{parts[0]}' is ambiguous: qualify it with a table alias", col)
        if src.rel.strict and not src.has(parts[0]):
            raise self.fail(f"Column '{parts[0]}' not found in any table", col)
        return src, src.field_name(parts[0]), list(parts[1:])

    def sides(self, node: exp.Expr) -> set[str]:
        """The (folded) aliases of the sources the columns of `node` resolve to."""
        out = set()
        for col in node.find_all(exp.Column):
            src, _f, _rest = self.resolve(col)
            out.add(fold(src.alias))
        return out

    def starred_by(self, star: exp.Expr) -> list[Source]:
        """The sources a `*` / `t.*` of the select list covers."""
        if isinstance(star, exp.Column) and star.table:
            src = self.scope.find(star.table)
            if src is None:
                raise self.fail(f"table '{star.table}' not found", star)
            return [src]
        return list(self.scope.sources)

    def qualifier_len(self, col: exp.Column) -> int:
        """1 when `col`'s first part names a source of this block (`t.x`), else 0."""
        parts = column_parts(col)
        return 1 if len(parts) >= 2 and self.scope.find(parts[0]) is not None else 0

    def has_aggregate(self, node: exp.Expr) -> bool:
        """Whether `node` holds an aggregate of this block: not a window function itself
        (`SUM(x) OVER ()`), but an aggregate inside one (`SUM(SUM(x)) OVER ()`) or inside its
        window specification."""
        for n in node.walk():
            is_agg = isinstance(n, exp.AggFunc) or (
                isinstance(n, exp.Anonymous) and is_aggregate(n.name)
            )
            if not is_agg or (n is not node and inside_subquery(n, node)):
                continue
            parent = n.parent
            if isinstance(parent, exp.Filter) and parent.this is n:
                parent = parent.parent
                n = n.parent
            if isinstance(parent, exp.Window) and parent.this is n:
                continue
            return True
        return False

    # ------------------------------------------------------------------ plan
    def with_computed(self, rel: Rel, computed: list[tuple[str, Expr]]) -> Rel:
        """`rel` with the computed values an expression indexes written to hidden fields."""
        if not computed:
            return rel
        op = self.low.builder.add(Transform(input=rel.op, transforms=pp.named_all(computed)))
        return Rel(op, None if rel.columns is None else rel.columns + [n for n, _ in computed])

    def flatten_operators(self, rel: Rel) -> Rel:
        """The flatten operators of the FLATTENs lowered so far, over `rel`."""
        for name, expr, node, computed in self.flattens:
            rel = self.with_computed(rel, computed)
            rel = Rel(
                self.low.builder.add(
                    Flatten(input=rel.op, name=pp.ref(name), expr=expr, drop=False), node
                ),
                None,
            )
        return rel
