"""Window functions of one SELECT block: named windows (`WINDOW w AS (...)`, `OVER w`,
`OVER (w ORDER BY ...)`), the frames Drill accepts, and the `window` operators (one per
distinct window specification) that compute them ahead of the projection. In an aggregate
query the windows read the grouped rows (`SUM(SUM(x)) OVER ()`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from sqlglot import exp

from drillspark.names import fold
from drillspark.plan.expressions import Expr
from drillspark.plan.operators import Ordering, Window
from drillspark.sql import drill_expr as dx
from drillspark.sql import plan_parts as pp
from drillspark.sql.errors import UnsupportedSqlError
from drillspark.sql.lower import Rel, ordering

if TYPE_CHECKING:
    from drillspark.sql.lower import Lowering

# the window operator's unbounded ends: Drill's Long.MIN_VALUE / Long.MAX_VALUE
UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING = -(1 << 63), (1 << 63) - 1

# functions whose value depends on the row order: Drill (Calcite) wants an ORDER BY
NEED_ORDER = {"rank", "dense_rank", "percent_rank", "cume_dist"}
# functions that take no frame: Drill refuses one written with them, except NTILE's
UNFRAMED = {"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead"}
NO_FRAME = UNFRAMED - {"ntile"}


class CallLowering(Protocol):
    """What a window function needs of the expression lowering that meets it (its calls and
    arguments are lowered in the block's current mode): sql/expressions.ExprLowering."""

    def lower(self, node: exp.Expr) -> Expr: ...

    def aggregate_call(self, node: exp.Expr, window: bool = False) -> Expr: ...

    def is_aggregate(self, node: exp.Expr) -> bool: ...

    def function(self, node: exp.Func) -> Expr: ...

    def name(self, node: exp.Func) -> str: ...


@dataclass
class WindowCall:
    """One function over a window: its output field and the window operator's settings."""

    name: str
    call: Expr
    withins: list[Expr]
    orderings: list[Ordering]
    frame: dict = field(default_factory=dict)  # the window operator's bound fields

    def key(self) -> tuple:
        """Calls of one key share a window operator."""
        return (tuple(self.withins), tuple(self.orderings), tuple(sorted(self.frame.items())))


class WindowLowering:
    """Collects the window functions of a SELECT block while its expressions are lowered."""

    def __init__(self, low: Lowering, node: exp.Select):
        self.low = low
        self.node = node
        self.calls: list[WindowCall] = []
        self.active = False  # lowering a window function's own call
        self._named: dict[str, exp.Window] | None = None

    # ------------------------------------------------------------------ named windows
    def named(self) -> dict[str, exp.Window]:
        if self._named is None:
            self._named = {}
            for w in self.node.args.get("windows") or []:
                name = fold(w.this.name)
                if name in self._named:
                    raise self.low.fail(f"Duplicate window names not allowed ('{w.this.name}')", w)
                self._named[name] = w
        return self._named

    def resolve(self, node: exp.Window, seen: tuple[str, ...] = ()) -> exp.Window:
        """The window specification `node` stands for: a reference to a named window, refined
        by an ORDER BY or frame of its own, is merged into one specification."""
        ref = node.args.get("alias")
        if ref is None or not ref.name:
            return node
        name = fold(ref.name)
        base = self.named().get(name)
        if base is None:
            raise self.low.fail(f"Window '{ref.name}' not found", node)
        if name in seen:
            raise self.low.fail(f"window '{ref.name}' refers to itself", node)
        base = self.resolve(base, seen + (name,))
        if node.args.get("partition_by"):
            raise self.low.fail("PARTITION BY not allowed with existing window reference", node)
        if node.args.get("order") is not None and base.args.get("order") is not None:
            raise self.low.fail("ORDER BY not allowed in both base and referenced windows", node)
        if base.args.get("spec") is not None and (
            node.args.get("order") is not None or node.args.get("spec") is not None
        ):
            raise self.low.fail("Referenced window cannot have framing declarations", node)
        out = node.copy()
        out.set("alias", None)
        out.set("partition_by", [p.copy() for p in base.args.get("partition_by") or []])
        if out.args.get("order") is None and base.args.get("order") is not None:
            out.set("order", base.args["order"].copy())
        if out.args.get("spec") is None and base.args.get("spec") is not None:
            out.set("spec", base.args["spec"].copy())
        return out

    # ------------------------------------------------------------------ one function
    def add(self, node: exp.Window, ex: CallLowering) -> Expr:
        """Registers `fn OVER (...)`; returns the path of its output field. The call, the
        partitions and the orderings are lowered now, in the block's current mode (input
        columns, or group keys and aggregates in an aggregate query)."""
        spec = self.resolve(node)
        fn = node.this
        if not isinstance(fn, exp.Func):  # `t.LAST_VALUE(c1) OVER (...)`: a member, not a call
            raise self.low.unsupported("OVER after something that is not a function call", fn)
        fname = _function_name(fn, ex)
        order = spec.args.get("order")
        if fname in NEED_ORDER and order is None:
            raise self.low.fail(
                f"{fname.upper()} function requires ORDER BY clause in window "
                "specification (RANK or DENSE_RANK functions require ORDER BY "
                "clause in window specification)",
                node,
            )
        if fname in ("lag", "lead"):
            self._check_offset(fn, fname)
        if self.active:
            raise self.low.fail("window functions cannot be nested", node)
        self.active = True
        try:
            call = ex.aggregate_call(fn, window=True) if ex.is_aggregate(fn) else ex.function(fn)
            withins = [ex.lower(p) for p in spec.args.get("partition_by") or []]
            orderings = (
                [ordering(ex.lower(o.this), o) for o in order.expressions]
                if order is not None
                else []
            )
        finally:
            self.active = False
        frame = spec.args.get("spec")
        if frame is not None and fname in NO_FRAME:
            raise self.low.fail(
                "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions "
                f"({fname.upper()})",
                frame,
            )
        bounds = self.frame(frame, order is not None) if frame is not None else {}
        if fname in UNFRAMED:
            bounds = {}
        name = self.low.hidden("win")
        self.calls.append(WindowCall(name, call, withins, orderings, bounds))
        return dx.path(name)

    def _check_offset(self, fn: exp.Expr, fname: str) -> None:
        args = (
            fn.expressions
            if isinstance(fn, exp.Anonymous)
            else [a for a in (fn.args.get("offset"), fn.args.get("default")) if a is not None]
        )
        if isinstance(fn, exp.Anonymous):
            args = args[1:]
        ok = not args or (
            len(args) == 1
            and isinstance(args[0], exp.Literal)
            and not args[0].is_string
            and args[0].this == "1"
        )
        if not ok:
            raise self.low.fail(
                f"Function {fname.upper()} only supports "
                "(<value expression>) or (<value expression>, 1) (DRILL-3596)",
                fn,
                UnsupportedSqlError,
            )

    def frame(self, frame: exp.WindowSpec, ordered: bool) -> dict:
        """The window operator's bounds for a written frame. n PRECEDING is -n, CURRENT ROW 0,
        n FOLLOWING n, UNBOUNDED PRECEDING/FOLLOWING Long.MIN_VALUE/MAX_VALUE; one bound
        ends at the current row. RANGE from UNBOUNDED PRECEDING to CURRENT ROW is SQL's
        default frame (no bounds); other RANGE frames count peer groups
        (`frameUnitsRows: false`; CURRENT ROW to CURRENT ROW: the row and its peers). Drill
        itself runs only the default frame, ROWS UNBOUNDED PRECEDING, RANGE over the whole
        partition and RANGE CURRENT ROW to CURRENT ROW (DRILL-3188); the other ROWS frames
        run here as well, RANGE frames with offsets do not."""
        kind = str(frame.args.get("kind") or "").upper()
        if kind == "RANGE" and not ordered:
            raise self.low.fail("Window specification must contain an ORDER BY clause", frame)

        def bound(value: object, side: object, is_end: bool) -> int:
            if value is None and is_end:
                return 0
            text = str(value).upper() if not isinstance(value, exp.Expr) else ""
            where = str(side or "").upper()
            if text == "UNBOUNDED":
                return UNBOUNDED_FOLLOWING if where == "FOLLOWING" else UNBOUNDED_PRECEDING
            if text == "CURRENT ROW":
                return 0
            if (
                kind == "ROWS"
                and isinstance(value, exp.Literal)
                and not value.is_string
                and value.this.isdigit()
                and where in ("PRECEDING", "FOLLOWING")
            ):
                return -int(value.this) if where == "PRECEDING" else int(value.this)
            raise self.low.fail(
                "This type of window frame is currently not "
                f"supported ({frame.sql('drill')}; DRILL-3188)",
                frame,
                UnsupportedSqlError,
            )

        start = bound(frame.args.get("start"), frame.args.get("start_side"), False)
        end = bound(frame.args.get("end"), frame.args.get("end_side"), True)
        if start > end or start == UNBOUNDED_FOLLOWING or end == UNBOUNDED_PRECEDING:
            raise self.low.fail(f"the window frame {frame.sql('drill')} is empty", frame)
        if kind == "RANGE":
            if (start, end) == (UNBOUNDED_PRECEDING, 0):
                return {}
            if (start, end) != (UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING):
                return {"frame_units_rows": False, "start": start, "end": end}
        return {"start": start, "end": end}

    # ------------------------------------------------------------------ operators
    def operators(self, rel: Rel) -> Rel:
        """One `window` operator per distinct specification, in order of first use."""
        groups: dict[tuple, list[WindowCall]] = {}
        for c in self.calls:
            groups.setdefault(c.key(), []).append(c)
        for calls in groups.values():
            first = calls[0]
            op = Window(
                input=rel.op,
                withins=pp.named_all((self.low.hidden("w"), w) for w in first.withins),
                orderings=tuple(first.orderings),
                aggregations=pp.named_all((c.name, c.call) for c in calls),
                **first.frame,
            )
            rel = Rel(self.low.builder.add(op), None)
        return rel


def _function_name(fn: exp.Expr, ex: CallLowering) -> str:
    if isinstance(fn, exp.Filter):
        fn = fn.this
    return ex.name(fn) if isinstance(fn, exp.Func) else ""
