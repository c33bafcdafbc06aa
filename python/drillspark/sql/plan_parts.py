"""The parts of plan operators (plan/operators.py) the lowering builds: named expressions,
orderings, join conditions. An expression the lowering spells as Drill expression text
(sql/drill_expr.py) is parsed here, once, into the plan's expression tree; a ref is one name,
as today's Drill reads it (backquotes dropped, dots kept)."""

from __future__ import annotations

from collections.abc import Iterable

from drillspark.plan.expr_parser import parse_expression
from drillspark.plan.expressions import Expr, FieldPath
from drillspark.plan.operators import (
    Direction,
    JoinCondition,
    NamedExpression,
    NullDirection,
    Ordering,
    Relationship,
)

# (name, expression text): a named expression before its operator is built
Pair = tuple[str, str]


def expr(text: str) -> Expr:
    """Drill expression text as the plan's expression tree."""
    return parse_expression(text, "drill")


def ref(name: str) -> FieldPath:
    """An output field: one name, as Drill's FieldReference reads it."""
    return FieldPath.name(name.replace("`", ""))


def named(name: str, text: str) -> NamedExpression:
    """`name` gets the value of the expression `text`."""
    return NamedExpression(ref(name), expr(text))


def ordering(
    text: str, direction: Direction = "ASC", nulls: NullDirection = "UNSPECIFIED"
) -> Ordering:
    return Ordering(expr(text), direction, nulls)


def condition(relationship: Relationship | str, left: str, right: str) -> JoinCondition:
    """A join condition; `relationship` one of plan.operators.RELATIONSHIPS."""
    return JoinCondition(relationship, expr(left), expr(right))  # type: ignore[arg-type]


def named_all(pairs: Iterable[tuple[str, str]]) -> tuple[NamedExpression, ...]:
    """(name, expression text) pairs as named expressions."""
    return tuple(named(n, e) for n, e in pairs)
