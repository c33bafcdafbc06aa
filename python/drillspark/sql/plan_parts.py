"""The parts of plan operators (plan/operators.py) the lowering builds: named expressions,
orderings, join conditions, over expressions that are plan/expressions.py nodes (built by
sql/drill_expr.py; nothing here parses text). A ref is one name, as today's Drill reads it
(backquotes dropped, dots kept)."""

from __future__ import annotations

from collections.abc import Iterable

from drillspark.plan.expressions import Expr, FieldPath
from drillspark.plan.operators import (
    Direction,
    JoinCondition,
    NamedExpression,
    NullDirection,
    Ordering,
    Relationship,
)

# (name, expression): a named expression before its operator is built
Pair = tuple[str, Expr]


def column(name: str, *rest: str | int) -> FieldPath:
    """The field `name`, then members (str) and 0-based indexes (int) (drill_expr.path)."""
    return FieldPath((name, *rest))


def ref(name: str) -> FieldPath:
    """An output field: one name, as Drill's FieldReference reads it."""
    return FieldPath.name(name.replace("`", ""))


def named(name: str, value: Expr) -> NamedExpression:
    """`name` gets the value of the expression `value`."""
    return NamedExpression(ref(name), value)


def ordering(
    value: Expr, direction: Direction = "ASC", nulls: NullDirection = "UNSPECIFIED"
) -> Ordering:
    return Ordering(value, direction, nulls)


def condition(relationship: Relationship | str, left: Expr, right: Expr) -> JoinCondition:
    """A join condition; `relationship` one of plan.operators.RELATIONSHIPS."""
    return JoinCondition(relationship, left, right)  # type: ignore[arg-type]


def named_all(pairs: Iterable[Pair]) -> tuple[NamedExpression, ...]:
    """(name, expression) pairs as named expressions."""
    return tuple(named(n, e) for n, e in pairs)
