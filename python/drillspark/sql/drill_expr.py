"""The plan's expression nodes (plan/expressions.py) as the lowering builds them: field paths,
literals, calls, operators (under their canonical function names), casts, CASE. The lowering
builds expressions only through these helpers, so how a SQL form maps onto the plan's nodes
lives in one place; no expression text is written or parsed back (the plan's writer spells
them where a plan is shown or saved)."""

from __future__ import annotations

from collections.abc import Sequence

from drillspark.plan.expr_parser import number_literal
from drillspark.plan.expressions import (
    OPERATOR_FUNCTIONS,
    Cast,
    Convert,
    Expr,
    FieldPath,
    FunctionCall,
    IfElse,
    Literal,
)

# SQL comparisons (sqlglot node names) -> Drill's comparison operators, which are also a
# join condition's `relationship` (the join-condition operator map: written here only; a
# relationship as Spark compares two columns: spark/relationships.py).
COMPARISONS = {"EQ": "==", "NEQ": "!=", "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<="}
NULL_SAFE = "IS NOT DISTINCT FROM"  # a join relationship only, no infix operator
JOIN_RELATIONSHIPS = {**COMPARISONS, "NullSafeEQ": NULL_SAFE}
# a relationship with its two sides swapped (`a < b` is `b > a`)
FLIPPED = {"==": "==", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">=", NULL_SAFE: NULL_SAFE}

# SQL operators -> Drill expression operators (infix in the grammar).
BINARY_OPS = {
    **COMPARISONS,
    "Add": "+",
    "Sub": "-",
    "Mul": "*",
    "Div": "/",
    "Mod": "%",
}

# SQL type names -> Drill's cast type names.
CAST_TYPES = {
    "INT": "INT",
    "INTEGER": "INT",
    "SMALLINT": "INT",
    "TINYINT": "INT",
    "BIGINT": "BIGINT",
    "FLOAT": "FLOAT4",
    "REAL": "FLOAT4",
    "FLOAT4": "FLOAT4",
    "DOUBLE": "FLOAT8",
    "FLOAT8": "FLOAT8",
    "BOOLEAN": "BIT",
    "BIT": "BIT",
    "VARCHAR": "VARCHAR",
    "CHAR": "VARCHAR",
    "NVARCHAR": "VARCHAR",
    "TEXT": "VARCHAR",
    "NCHAR": "VARCHAR",
    "VARBINARY": "VARBINARY",
    "BINARY": "VARBINARY",
    "DATE": "DATE",
    "TIME": "TIME",
    "TIMESTAMP": "TIMESTAMP",
    "DECIMAL": "VARDECIMAL",
    "NUMERIC": "VARDECIMAL",
    "INTERVAL": "INTERVAL",
}
DEFAULT_VARCHAR_LENGTH = 65536
DEFAULT_DECIMAL = (38, 0)

NULL = Literal(None, "NULL")
TRUE = Literal(True, "BIT")
FALSE = Literal(False, "BIT")


def path(field: str, rest: Sequence[str | int] = ()) -> FieldPath:
    """`field` then member names (str) and 0-based array indexes (int)."""
    return FieldPath((field, *rest))


def string(value: str) -> Literal:
    return Literal(value, "VARCHAR")


def number(text: str) -> Literal:
    """A number as SQL wrote it (`-12`, `1.5e3`; no leading zeros): INT, BIGINT or FLOAT8 by
    the plan grammar's rule."""
    return number_literal(text)


def integer(value: int) -> Literal:
    return number_literal(str(value))


def boolean(value: bool) -> Literal:
    return TRUE if value else FALSE


def call(name: str, args: Sequence[Expr] = ()) -> FunctionCall:
    return FunctionCall(name, tuple(args))


def convert(direction: str, expr: Expr, encoding: str) -> Convert:
    """CONVERT_FROM(expr, 'ENCODING') (direction "from") / CONVERT_TO (direction "to")."""
    return Convert(direction, expr, encoding)  # type: ignore[arg-type]


def failure(message: str, detail: Expr) -> FunctionCall:
    """An expression that fails the query with `message: detail` when a row evaluates it (the
    catalog's `raise_error`, a drillspark extension)."""
    return call("raise_error", [call("concat", [string(message + ": "), detail])])


def binary(op: str, left: Expr, right: Expr) -> FunctionCall:
    """`left op right`, `op` one of Drill's infix operators (`==`, `+`, ...)."""
    return FunctionCall(OPERATOR_FUNCTIONS[op], (left, right))


def boolean_chain(op: str, parts: Sequence[Expr]) -> Expr:
    """n-ary `and` / `or` (one part: that part)."""
    return parts[0] if len(parts) == 1 else FunctionCall(OPERATOR_FUNCTIONS[op], tuple(parts))


def negative(expr: Expr) -> FunctionCall:
    return FunctionCall("negative", (expr,))


def not_(expr: Expr) -> FunctionCall:
    return FunctionCall("not", (expr,))


def cast(expr: Expr, drill_type: str, args: Sequence[int] = ()) -> Cast:
    """`expr` cast to the Drill type `drill_type` (`VARCHAR`, with `args` (65536,))."""
    return Cast(expr, drill_type.upper(), tuple(args))


def case(whens: Sequence[tuple[Expr, Expr]], default: Expr) -> IfElse:
    return IfElse(tuple(whens), default)
