"""Logical plan operators: one frozen dataclass per Drill operator.

Every operator has `id` (its `@id`), `memo`, and refers to its inputs by id. `OP` is the JSON
`op` name and `ROLE` the operator class of the seed document:

* "source" (0): no input (scan, values, constant)
* "single" (1): exactly one `input`
* "multi"  (M): two or more inputs (`left`/`right` for joins, `inputs` for set operations)
* "sink"   (K): one `input` and no output stream (store)

Refs (`ref`, `within`, `carryovers`, ...) are FieldPath values. In today's dialect a ref is one
name segment (Drill's FieldReference does not split dots: "output.deptId" is one column name);
in the 2013 dialect it is a dotted path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from drillspark.plan.expressions import Expr, FieldPath

Role = Literal["source", "single", "multi", "sink"]
JoinType = Literal["INNER", "LEFT", "RIGHT", "FULL", "ANTI", "NOT_IN"]  # ANTI, NOT_IN: semi-join
Direction = Literal["ASC", "DESC"]
NullDirection = Literal["FIRST", "LAST", "UNSPECIFIED"]
RelPath = tuple[str | int, ...]
Relationship = Literal["==", "!=", "<", "<=", ">", ">=", "IS NOT DISTINCT FROM"]

JOIN_TYPES: tuple[str, ...] = ("INNER", "LEFT", "RIGHT", "FULL")
# IS NOT DISTINCT FROM: equal, or both NULL (SQL's null-safe equality, as Drill's joins)
RELATIONSHIPS: tuple[str, ...] = ("==", "!=", "<", "<=", ">", ">=", "IS NOT DISTINCT FROM")
# Storage engine name Drill's planner gives the result sink (DrillScreenRel); needs no config.
SCREEN = "--SCREEN--"


@dataclass(frozen=True)
class NamedExpression:
    """`{ref, expr}`: write the value of `expr` to `ref`."""

    ref: FieldPath
    expr: Expr


@dataclass(frozen=True)
class Ordering:
    """`{order, expr, nullDirection}`. 2013's `nullCollation` first/last maps to FIRST/LAST; its
    default (no nullCollation) is FIRST, today's default is UNSPECIFIED (= nulls sort high:
    last ascending, first descending)."""

    expr: Expr
    direction: Direction = "ASC"
    null_direction: NullDirection = "UNSPECIFIED"

    @property
    def nulls_first(self) -> bool:
        if self.null_direction == "UNSPECIFIED":
            return self.direction == "DESC"
        return self.null_direction == "FIRST"


@dataclass(frozen=True)
class JoinCondition:
    relationship: Relationship
    left: Expr
    right: Expr


@dataclass(frozen=True)
class FrameRef:
    """windowframe `ref: {segment, position}`: where the window's segment key and the
    record's position within the window are written."""

    segment: FieldPath
    position: FieldPath


@dataclass(frozen=True, kw_only=True)
class Operator:
    OP: ClassVar[str] = ""
    ROLE: ClassVar[Role] = "single"

    id: int = 0  # 0: not numbered yet (the SQL lowering's PlanBuilder.add numbers it)
    memo: str | None = None

    @property
    def op(self) -> str:
        return self.OP

    @property
    def role(self) -> Role:
        return self.ROLE

    @property
    def input_ids(self) -> tuple[int, ...]:
        """Ids of the operators this one reads, in order (left before right)."""
        return ()

    def expressions(self) -> tuple[tuple[RelPath, Expr], ...]:
        """(JSON path relative to the operator, expression) for every expression held, e.g.
        (("projections", 0, "expr"), <expr>)."""
        return ()


@dataclass(frozen=True, kw_only=True)
class SingleInput(Operator):
    input: int

    @property
    def input_ids(self) -> tuple[int, ...]:
        return (self.input,)


# --- sources ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Scan(Operator):
    """Read `selection` (engine-specific JSON) from the storage engine `storage_engine`;
    2013: `ref` nests each record under that name."""

    OP: ClassVar[str] = "scan"
    ROLE: ClassVar[Role] = "source"
    storage_engine: str
    selection: Any = None
    ref: FieldPath | None = None


@dataclass(frozen=True, kw_only=True)
class Values(Operator):
    """Today's `values`: constant records (`content`, a JSON array of records)."""

    OP: ClassVar[str] = "values"
    ROLE: ClassVar[Role] = "source"
    content: Any


@dataclass(frozen=True, kw_only=True)
class Constant(Operator):
    """2013's `constant` (became `values`): `content` is a JSON array of records."""

    OP: ClassVar[str] = "constant"
    ROLE: ClassVar[Role] = "source"
    content: Any


@dataclass(frozen=True, kw_only=True)
class Unnest(Operator):
    """Today's `unnest`: the elements of the array `column` of the current lateral row."""

    OP: ClassVar[str] = "unnest"
    ROLE: ClassVar[Role] = "source"
    column: FieldPath


# --- multi-input --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Join(Operator):
    """Join `left` and `right` on all `conditions` (none: cartesian). 2013's type "outer" is
    FULL."""

    OP: ClassVar[str] = "join"
    ROLE: ClassVar[Role] = "multi"
    left: int
    right: int
    type: JoinType = "INNER"
    conditions: tuple[JoinCondition, ...] = ()
    # a name both inputs have: "merge" keeps one field (the left's where there is a left
    # record); "rename" (drillspark, for SQL's SELECT * over a join) keeps both, the right
    # one renamed with a digit as Drill names it (`dept0`)
    duplicates: Literal["merge", "rename"] = "merge"
    # drillspark: a condition over both inputs' fields that must hold too (an outer join's ON
    # that is no list of comparisons: `a.x = b.y OR a.z = b.z`); a name must not be in both
    condition: Expr | None = None

    @property
    def input_ids(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def expressions(self) -> tuple[tuple[RelPath, Expr], ...]:
        found = tuple(
            item
            for i, c in enumerate(self.conditions)
            for item in ((("conditions", i, "left"), c.left), (("conditions", i, "right"), c.right))
        )
        return found + ((("condition",), self.condition),) if self.condition is not None else found


@dataclass(frozen=True, kw_only=True)
class SemiJoin(Join):
    """Today's `semi-join`: rows of `left` that have a match in `right` (type INNER), or that
    have none (type ANTI, drillspark's anti form), or for which SQL's `NOT IN` holds (type
    NOT_IN: no right row whose conditions are true or unknown)."""

    OP: ClassVar[str] = "semi-join"


@dataclass(frozen=True, kw_only=True)
class LateralJoin(Operator):
    """Today's `lateral-join`: each `left` row joined with the rows its `right` side (an
    unnest of that row) produces."""

    OP: ClassVar[str] = "lateral-join"
    ROLE: ClassVar[Role] = "multi"
    left: int
    right: int
    type: JoinType = "INNER"  # LEFT keeps left rows whose right side is empty

    @property
    def input_ids(self) -> tuple[int, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, kw_only=True)
class SetOperator(Operator):
    ROLE: ClassVar[Role] = "multi"
    inputs: tuple[int, ...]
    distinct: bool = False

    @property
    def input_ids(self) -> tuple[int, ...]:
        return self.inputs


@dataclass(frozen=True, kw_only=True)
class Union(SetOperator):
    OP: ClassVar[str] = "union"


@dataclass(frozen=True, kw_only=True)
class Except(SetOperator):
    OP: ClassVar[str] = "Except"  # Drill's type name really is capitalised


@dataclass(frozen=True, kw_only=True)
class Intersect(SetOperator):
    OP: ClassVar[str] = "intersect"


# --- sink ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Store(SingleInput):
    """Write the input to `storage_engine` (None or "--SCREEN--": the query result) at
    `target` (engine-specific JSON). `partition` exists only in 2013 plans."""

    OP: ClassVar[str] = "store"
    ROLE: ClassVar[Role] = "sink"
    storage_engine: str | None = None
    target: Any = None
    partition: Any = None


# --- single input -------------------------------------------------------------------------------


def _named(prop: str, items: tuple[NamedExpression, ...]) -> tuple[tuple[RelPath, Expr], ...]:
    return tuple(((prop, i, "expr"), n.expr) for i, n in enumerate(items))


def _orderings(prop: str, items: tuple[Ordering, ...]) -> tuple[tuple[RelPath, Expr], ...]:
    return tuple(((prop, i, "expr"), o.expr) for i, o in enumerate(items))


@dataclass(frozen=True, kw_only=True)
class Project(SingleInput):
    OP: ClassVar[str] = "project"
    projections: tuple[NamedExpression, ...]

    def expressions(self):
        return _named("projections", self.projections)


@dataclass(frozen=True, kw_only=True)
class Filter(SingleInput):
    OP: ClassVar[str] = "filter"
    expr: Expr

    def expressions(self):
        return ((("expr",), self.expr),)


@dataclass(frozen=True, kw_only=True)
class Transform(SingleInput):
    OP: ClassVar[str] = "transform"
    transforms: tuple[NamedExpression, ...]

    def expressions(self):
        return _named("transforms", self.transforms)


@dataclass(frozen=True, kw_only=True)
class Order(SingleInput):
    OP: ClassVar[str] = "order"
    orderings: tuple[Ordering, ...]
    within: FieldPath | None = None

    def expressions(self):
        return _orderings("orderings", self.orderings)


@dataclass(frozen=True, kw_only=True)
class Limit(SingleInput):
    """Records [first, last) of the input, numbered from 0; None = unbounded."""

    OP: ClassVar[str] = "limit"
    first: int | None = None
    last: int | None = None


@dataclass(frozen=True, kw_only=True)
class Flatten(SingleInput):
    """One output record per element of `expr` (an array), written to `name`; `drop` removes
    the fields `expr` references. The JSON key is `name` (2013 plans also write `ref`)."""

    OP: ClassVar[str] = "flatten"
    name: FieldPath
    expr: Expr
    drop: bool = False

    def expressions(self):
        return ((("expr",), self.expr),)


@dataclass(frozen=True, kw_only=True)
class Segment(SingleInput):
    """2013: group records with equal `exprs` together; the segment key goes to `ref`."""

    OP: ClassVar[str] = "segment"
    ref: FieldPath
    exprs: tuple[Expr, ...]

    def expressions(self):
        return tuple((("exprs", i), e) for i, e in enumerate(self.exprs))


@dataclass(frozen=True, kw_only=True)
class WindowFrame(SingleInput):
    """2013: for each record, the records at relative positions start..end (None:
    unbounded), within the segment `within` if given."""

    OP: ClassVar[str] = "windowframe"
    ref: FrameRef
    within: FieldPath | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, kw_only=True)
class CollapsingAggregate(SingleInput):
    """2013: collapse each segment (`within`; all input if None) into one record holding
    `carryovers` and `aggregations`; `target` picks the record carryovers come from."""

    OP: ClassVar[str] = "collapsingaggregate"
    aggregations: tuple[NamedExpression, ...]
    within: FieldPath | None = None
    target: FieldPath | None = None
    carryovers: tuple[FieldPath, ...] = ()

    def expressions(self):
        return _named("aggregations", self.aggregations)


@dataclass(frozen=True, kw_only=True)
class RunningAggregate(SingleInput):
    OP: ClassVar[str] = "runningaggregate"
    aggregations: tuple[NamedExpression, ...]
    within: FieldPath | None = None

    def expressions(self):
        return _named("aggregations", self.aggregations)


@dataclass(frozen=True, kw_only=True)
class GroupingAggregate(SingleInput):
    """Today's GROUP BY: `keys` and aggregate `exprs`."""

    OP: ClassVar[str] = "groupingaggregate"
    keys: tuple[NamedExpression, ...]
    exprs: tuple[NamedExpression, ...]

    def expressions(self):
        return _named("keys", self.keys) + _named("exprs", self.exprs)


@dataclass(frozen=True, kw_only=True)
class Window(SingleInput):
    """Today's window: partitions `withins`, `orderings`, `aggregations` over the frame
    start..end rows (None: unbounded). `frame_units_rows` False (JSON `frameUnitsRows`, as in
    Drill's physical WindowPOP) makes start..end a RANGE frame: offsets count peer groups of
    the orderings (0..0: the current row and its peers)."""

    OP: ClassVar[str] = "window"
    aggregations: tuple[NamedExpression, ...]
    withins: tuple[NamedExpression, ...] = ()
    orderings: tuple[Ordering, ...] = ()
    start: int | None = None
    end: int | None = None
    frame_units_rows: bool | None = None

    def expressions(self):
        return (
            _named("withins", self.withins)
            + _named("aggregations", self.aggregations)
            + _orderings("orderings", self.orderings)
        )


# --- user operators -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CustomOperator(Operator):
    """An operator registered with `drillspark.plugins.operator(name)`: `op` as written,
    its inputs (from `input` or `inputs`), and all other properties as plain JSON.
    `single_input` records whether the JSON used `input` (one id) rather than `inputs`."""

    ROLE: ClassVar[Role] = "single"
    op_name: str
    inputs: tuple[int, ...] = ()
    properties: Mapping[str, Any] = field(default_factory=dict)
    single_input: bool = True

    @property
    def op(self) -> str:
        return self.op_name

    @property
    def input_ids(self) -> tuple[int, ...]:
        return self.inputs

    @property
    def role(self) -> Role:
        if not self.inputs:
            return "source"
        return "single" if self.single_input else "multi"


BUILTIN_OPERATORS: dict[str, type[Operator]] = {
    cls.OP: cls
    for cls in (
        Scan,
        Values,
        Constant,
        Unnest,
        Join,
        SemiJoin,
        LateralJoin,
        Union,
        Except,
        Intersect,
        Store,
        Project,
        Filter,
        Transform,
        Order,
        Limit,
        Flatten,
        Segment,
        WindowFrame,
        CollapsingAggregate,
        RunningAggregate,
        GroupingAggregate,
        Window,
    )
}
# Operators only the 2013 dialect has; `sequence` is syntax, expanded by the parser.
OPERATORS_2013 = frozenset(
    {"constant", "segment", "windowframe", "collapsingaggregate", "sequence"}
)
# Operators only today's dialect has.
OPERATORS_TODAY = frozenset(
    {
        "values",
        "groupingaggregate",
        "window",
        "Except",
        "intersect",
        "unnest",
        "lateral-join",
        "semi-join",
    }
)


def role_of(op: Operator) -> Role:
    return op.role


def plugin_role(name: str) -> Role | None:
    """The operator class a registered plugin operator needs, from the `drill_role` its runtime
    base class declares (drillspark.operators.base, read here by name so the plan layer needs
    no Arrow): a SingleInputOperator reads exactly one `input`, a BatchSource none. None when
    the name is not registered or its class says nothing (then `input` or `inputs` will do)."""
    from drillspark import plugins

    declared = getattr(plugins.registered_operator(name), "drill_role", None)
    if declared == "single":
        return "single"
    if declared == "source":
        return "source"
    return None
