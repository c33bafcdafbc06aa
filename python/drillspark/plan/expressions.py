"""The expression AST of Drill logical plans (typed, immutable, with source positions).

Operators are not kept as symbols: like Drill's FunctionCallFactory, the parser maps each one
to a canonical function name (see OPERATOR_FUNCTIONS), so `a + b` and `add(a, b)` are the same
tree. Positions (`pos`) never take part in equality.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal as TypingLiteral

DrillType = TypingLiteral["INT", "BIGINT", "FLOAT8", "VARCHAR", "BIT", "NULL"]

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1

# Binary operator symbol -> canonical Drill function name (FunctionCallFactory / FunctionNames).
OPERATOR_FUNCTIONS: dict[str, str] = {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "/": "divide",
    "%": "modulo",
    "^": "xor",
    "==": "equal",
    "=": "equal",
    "!=": "not_equal",
    "<>": "not_equal",
    ">": "greater_than",
    "<": "less_than",
    ">=": "greater_than_or_equal_to",
    "<=": "less_than_or_equal_to",
    "or": "booleanOr",
    "||": "booleanOr",
    "and": "booleanAnd",
    "&&": "booleanAnd",
}
# Unary operators.
UNARY_FUNCTIONS: dict[str, str] = {"-": "negative", "!": "not"}

# Canonical function name -> (symbol printed, precedence); higher binds tighter.
_INFIX: dict[str, tuple[str, int]] = {
    "booleanOr": ("or", 1),
    "booleanAnd": ("and", 2),
    "equal": ("==", 3),
    "not_equal": ("!=", 3),
    "greater_than": (">", 4),
    "less_than": ("<", 4),
    "greater_than_or_equal_to": (">=", 4),
    "less_than_or_equal_to": ("<=", 4),
    "add": ("+", 5),
    "subtract": ("-", 5),
    "multiply": ("*", 6),
    "divide": ("/", 6),
    "modulo": ("%", 6),
    "xor": ("^", 7),
}

# Words the grammar reserves; a path segment spelled like one must be backquoted when printed.
KEYWORDS = frozenset(
    [
        "if",
        "then",
        "else",
        "end",
        "case",
        "when",
        "cast",
        "as",
        "repeat",
        "true",
        "false",
        "null",
        "convert_from",
        "convert_to",
        "and",
        "or",
        "AND",
        "OR",
        "Or",
    ]
)
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z_$0-9]*\Z")


@dataclass(frozen=True)
class SourcePos:
    """Where a node starts in the expression text: 1-based line and column, 0-based offset."""

    line: int
    column: int
    offset: int


@dataclass(frozen=True)
class Expr:
    """Base of all expression nodes."""

    def __str__(self) -> str:
        return to_text(self)

    def children(self) -> tuple[Expr, ...]:
        return ()

    def walk(self):
        """This node and all nodes below it, depth first."""
        yield self
        for child in self.children():
            yield from child.walk()


@dataclass(frozen=True)
class Literal(Expr):
    """A constant: `type` is the Drill type (numbers: INT if it fits 32 bits, else BIGINT,
    else FLOAT8; strings VARCHAR; booleans BIT; `null` NULL)."""

    value: int | float | str | bool | None
    type: DrillType
    pos: SourcePos | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def of(value: int | float | str | bool | None) -> Literal:
        """The literal Drill would read for a Python value."""
        if value is None:
            return Literal(None, "NULL")
        if isinstance(value, bool):
            return Literal(value, "BIT")
        if isinstance(value, int):
            if INT_MIN <= value <= INT_MAX:
                return Literal(value, "INT")
            if BIGINT_MIN <= value <= BIGINT_MAX:
                return Literal(value, "BIGINT")
            return Literal(float(value), "FLOAT8")
        if isinstance(value, float):
            return Literal(value, "FLOAT8")
        return Literal(str(value), "VARCHAR")


Segment = str | int  # a name, or an array index


@dataclass(frozen=True)
class FieldPath(Expr):
    """A field reference `a.b[0].c`: names are `str`, array indexes `int`. The first segment is
    always a name."""

    segments: tuple[Segment, ...]
    pos: SourcePos | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.segments or not isinstance(self.segments[0], str):
            raise ValueError(f"a field path starts with a name, got {self.segments!r}")

    @staticmethod
    def of(*segments: Segment) -> FieldPath:
        return FieldPath(tuple(segments))

    @staticmethod
    def name(name: str) -> FieldPath:
        """A path of one name segment (the name may contain dots)."""
        return FieldPath((name,))

    @property
    def root(self) -> str:
        return self.segments[0]  # type: ignore[return-value]

    def child(self, segment: Segment) -> FieldPath:
        return FieldPath((*self.segments, segment))

    def dotted(self) -> str:
        """Plain `a.b[0]` spelling without quoting (for messages and 2013 refs)."""
        out = ""
        for i, s in enumerate(self.segments):
            out += f"[{s}]" if isinstance(s, int) else (s if i == 0 else f".{s}")
        return out


@dataclass(frozen=True)
class FunctionCall(Expr):
    """A call by name; operators appear here under their canonical names (OPERATOR_FUNCTIONS).
    `booleanAnd` / `booleanOr` are n-ary (two or more arguments)."""

    name: str
    args: tuple[Expr, ...] = ()
    pos: SourcePos | None = field(default=None, compare=False, repr=False)

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(frozen=True)
class Cast(Expr):
    """`cast(expr as TYPE)`; `type` is upper-case (`VARCHAR`), `args` the precision/scale or
    length (`varchar(10)` -> (10,)), `repeated` for `repeat`."""

    expr: Expr
    type: str
    args: tuple[int, ...] = ()
    repeated: bool = False
    pos: SourcePos | None = field(default=None, compare=False, repr=False)

    def children(self) -> tuple[Expr, ...]:
        return (self.expr,)


@dataclass(frozen=True)
class Convert(Expr):
    """`convert_from(expr, 'ENCODING')` (direction "from") or `convert_to(...)` ("to")."""

    direction: TypingLiteral["from", "to"]
    expr: Expr
    encoding: str
    pos: SourcePos | None = field(default=None, compare=False, repr=False)

    def children(self) -> tuple[Expr, ...]:
        return (self.expr,)


@dataclass(frozen=True)
class IfElse(Expr):
    """`if c1 then v1 else if c2 then v2 else v3 end` and `case when ... end` (Drill builds the
    same IfExpression for both)."""

    branches: tuple[tuple[Expr, Expr], ...]
    else_: Expr
    pos: SourcePos | None = field(default=None, compare=False, repr=False)

    def children(self) -> tuple[Expr, ...]:
        return (*(e for b in self.branches for e in b), self.else_)


# --- printing -----------------------------------------------------------------------------------


def quote_name(name: str) -> str:
    """A name segment as the grammar reads it: bare if it is an identifier, else backquoted."""
    if _IDENT.match(name) and name not in KEYWORDS:
        return name
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def quote_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def path_text(path: FieldPath) -> str:
    out = ""
    for i, s in enumerate(path.segments):
        if isinstance(s, int):
            out += f"[{s}]"
        else:
            out += quote_name(s) if i == 0 else "." + quote_name(s)
    return out


def _number_text(value: int | float, type_: str) -> str:
    if type_ == "FLOAT8":
        text = repr(float(value))
        if text in ("inf", "-inf"):  # a literal too big for a double reads back as infinity
            return text.replace("inf", "1e999")
        if text == "nan":
            return f"cast({quote_string(text)} as float8)"
        if "." not in text and "e" not in text:
            text += ".0"
        # A FLOAT8 that reads back as an integer must keep its fraction mark.
        return text
    return str(value)


def to_text(expr: Expr) -> str:
    """The expression in today's grammar; parse_expression(to_text(e)) == e."""
    return _text(expr, 0)


def _text(e: Expr, outer: int) -> str:
    if isinstance(e, Literal):
        if e.type == "NULL":
            return "null"
        if e.type == "BIT":
            return "true" if e.value else "false"
        if e.type == "VARCHAR":
            return quote_string(str(e.value))
        text = _number_text(e.value, e.type)  # type: ignore[arg-type]
        if e.type == "BIGINT" and INT_MIN <= int(e.value) <= INT_MAX:  # type: ignore[arg-type]
            return f"cast({text} as bigint)"
        return text
    if isinstance(e, FieldPath):
        return path_text(e)
    if isinstance(e, Cast):
        t = e.type.lower() + (f"({', '.join(map(str, e.args))})" if e.args else "")
        return f"cast({_text(e.expr, 0)} as {t}{' repeat' if e.repeated else ''})"
    if isinstance(e, Convert):
        return f"convert_{e.direction}({_text(e.expr, 0)}, {quote_string(e.encoding)})"
    if isinstance(e, IfElse):
        parts = []
        for i, (c, v) in enumerate(e.branches):
            parts.append(("if " if i == 0 else "else if ") + f"{_text(c, 0)} then {_text(v, 0)}")
        return "(" + " ".join(parts) + f" else {_text(e.else_, 0)} end)"
    if isinstance(e, FunctionCall):
        return _call_text(e)
    raise TypeError(f"not an expression node: {e!r}")


def _call_text(e: FunctionCall) -> str:
    infix = _INFIX.get(e.name)
    if infix and len(e.args) >= 2 and (len(e.args) == 2 or e.name in ("booleanAnd", "booleanOr")):
        symbol = infix[0]
        # Every operator call is parenthesised: the text then keeps the exact tree shape
        # (left-associativity, non-associative comparisons, n-ary and/or).
        return "(" + f" {symbol} ".join(_text(a, 0) for a in e.args) + ")"
    if e.name in ("negative", "not") and len(e.args) == 1:
        arg = e.args[0]
        inner = _text(arg, 0)
        if not (isinstance(arg, FieldPath) or inner.startswith("(")):
            inner = f"({inner})"
        return ("-" if e.name == "negative" else "!") + inner
    return f"{_function_name(e.name)}({', '.join(_text(a, 0) for a in e.args)})"


# Keywords that can start an expression: the lexer never reads them as a function's name.
# The others (`then(`, `repeat(`, `and(`) are names where an expression starts, so they parse
# as calls (SQL's REPEAT('x', 3) lowers to `repeat(...)`) and print as such.
LEADING_KEYWORDS = frozenset(
    ["if", "case", "cast", "true", "false", "null", "convert_from", "convert_to"]
)


def _function_name(name: str) -> str:
    # Names the lexer would take as keywords cannot be called directly; they never occur in
    # parsed trees, so a constructed tree with such a name is a programming error.
    if not _IDENT.match(name) or name in LEADING_KEYWORDS:
        raise ValueError(f"function name {name!r} cannot be written in Drill's expression grammar")
    return name
