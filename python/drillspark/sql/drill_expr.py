"""Spelling of Drill logical-plan expressions (docs/logical-plans.md, "Expressions"): quoted
paths, literals, operator and cast syntax. The lowering builds expression strings only
through these helpers, so the dialect lives in one place."""

from __future__ import annotations

from collections.abc import Sequence

# SQL comparisons (sqlglot node names) -> Drill's comparison operators, which are also a
# join condition's `relationship` (the join-condition operator map: written here only).
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


def quote_name(name: str) -> str:
    """One path segment in backticks (a dot inside stays part of the name)."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def path(field: str, rest: Sequence[str | int] = ()) -> str:
    """`field` then member names (str) and 0-based array indexes (int)."""
    out = quote_name(field)
    for seg in rest:
        out += f"[{seg}]" if isinstance(seg, int) else "." + quote_name(seg)
    return out


def string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def call(name: str, args: Sequence[str]) -> str:
    return f"{name}({', '.join(args)})"


def failure(message: str, detail: str) -> str:
    """An expression that fails the query with `message: detail` when a row evaluates it (the
    catalog's `raise_error`, a drillspark extension)."""
    return call("raise_error", [call("concat", [string(message + ": "), detail])])


def binary(op: str, left: str, right: str) -> str:
    return f"({left} {op} {right})"


def boolean_chain(op: str, parts: Sequence[str]) -> str:
    """n-ary `and` / `or`."""
    return parts[0] if len(parts) == 1 else "(" + f" {op} ".join(parts) + ")"


def cast(expr: str, drill_type: str) -> str:
    return f"cast({expr} as {drill_type})"


def case(whens: Sequence[tuple[str, str]], default: str) -> str:
    body = " ".join(f"when {c} then {v}" for c, v in whens)
    return f"(case {body} else {default} end)"


NULL = "null"
