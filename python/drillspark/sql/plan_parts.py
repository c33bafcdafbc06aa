"""The parts of plan operators (plan/operators.py) the lowering builds: named expressions,
orderings, join conditions. An expression is a plan/expressions.py node: built as one where
the lowering has it as a node already (a field, `column`), else spelled as Drill expression
text (sql/drill_expr.py) and parsed here, once. A ref is one name, as today's Drill reads it
(backquotes dropped, dots kept)."""

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

# an expression: Drill expression text, or the node itself
Text = str | Expr
# (name, expression): a named expression before its operator is built
Pair = tuple[str, Text]


def expr(text: Text) -> Expr:
    """The plan's expression tree of `text` (parsed when it is Drill expression text)."""
    return text if isinstance(text, Expr) else parse_expression(text, "drill")


def column(name: str, *rest: str | int) -> FieldPath:
    """The field `name`, then members (str) and 0-based indexes (int): the node of
    drill_expr.path(name, rest), built without spelling and parsing it."""
    return FieldPath((name, *rest))


def ref(name: str) -> FieldPath:
    """An output field: one name, as Drill's FieldReference reads it."""
    return FieldPath.name(name.replace("`", ""))


def named(name: str, text: Text) -> NamedExpression:
    """`name` gets the value of the expression `text`."""
    return NamedExpression(ref(name), expr(text))


def ordering(
    text: Text, direction: Direction = "ASC", nulls: NullDirection = "UNSPECIFIED"
) -> Ordering:
    return Ordering(expr(text), direction, nulls)


def condition(relationship: Relationship | str, left: Text, right: Text) -> JoinCondition:
    """A join condition; `relationship` one of plan.operators.RELATIONSHIPS."""
    return JoinCondition(relationship, expr(left), expr(right))  # type: ignore[arg-type]


def named_all(pairs: Iterable[Pair]) -> tuple[NamedExpression, ...]:
    """(name, expression) pairs as named expressions."""
    return tuple(named(n, e) for n, e in pairs)
