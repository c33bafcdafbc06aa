"""Parser of Drill's logical expression language (lark, LALR), in two dialects.

* "drill": today's grammar (Drill's ExprParser.g4): `or`/`and`, `==` `=` `!=` `<>`, one
  non-associative `<` `<=` `>` `>=`, `+ - * / %`, `^` (xor), unary `-` and `!`,
  'single-quoted' strings, `true`/`false`, numbers, paths `a.b[0].c` and `` `quoted.name` ``,
  function calls, `cast(x as TYPE)`, `if ... then ... else ... end`,
  `case when ... then ... else ... end`, `convert_from` / `convert_to`.
* "2013": what the seed-era plans use in addition: "double-quoted" strings, `&&` and `||`.

Both also take `null` (a NULL literal; Drill's grammar has none, but plans built from SQL
need one). A syntax error raises ExpressionError with the line and column.
"""

from __future__ import annotations

import functools
import re
from typing import Literal as TypingLiteral

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from drillspark.errors import PlanFailure
from drillspark.plan.depth import RECURSION_LIMIT, room
from drillspark.plan.expressions import (
    BIGINT_MAX,
    BIGINT_MIN,
    INT_MAX,
    INT_MIN,
    LEADING_KEYWORDS,
    OPERATOR_FUNCTIONS,
    Cast,
    Convert,
    Expr,
    FieldPath,
    FunctionCall,
    IfElse,
    Literal,
    SourcePos,
)

# Drill's functions behind CONVERT_FROM(x, 'ENCODING') / CONVERT_TO(x, 'ENCODING') are named
# convert_from<ENCODING> / convert_to<ENCODING> and callable by that name (convert_fromJSON(x),
# convert_toUTF8(x)); the one rule for both languages (sql/expressions.py lowers by it too)
CONVERT_BY_NAME = re.compile(r"convert_(from|to)([a-z0-9_]+)", re.IGNORECASE)

Dialect = TypingLiteral["drill", "2013"]
DIALECTS: tuple[str, ...] = ("drill", "2013")

# Cast target types of ExprParser.g4 -> number of required size arguments.
CAST_TYPES: dict[str, int] = {
    "int": 0,
    "bigint": 0,
    "float4": 0,
    "float8": 0,
    "bit": 0,
    "date": 0,
    "time": 0,
    "timestamp": 0,
    "timestamptz": 0,
    "interval": 0,
    "intervalyear": 0,
    "intervalday": 0,
    "varchar": 1,
    "varbinary": 1,
    "decimal9": 2,
    "decimal18": 2,
    "decimal28dense": 2,
    "decimal28sparse": 2,
    "decimal38dense": 2,
    "decimal38sparse": 2,
    "vardecimal": 2,
}


class ExpressionError(PlanFailure, ValueError):
    """A syntax error in an expression; `line`/`column` are 1-based, `offset` 0-based."""

    def __init__(self, message: str, text: str, line: int, column: int, offset: int):
        self.reason = message
        self.text = text
        self.line = line
        self.column = column
        self.offset = offset
        super().__init__(f"{message} (line {line}, column {column} of expression {text!r})")


_GRAMMAR = r"""
?start: expr

?expr: if_expr | case_expr | or_expr
?expr_no_if: case_expr | or_expr

if_expr: IF expr "then" expr else_part
else_part: "else" "if" expr "then" expr else_part   -> elseif
         | "else" expr_no_if "end"                   -> final_else
case_expr: CASE when_clause+ "else" expr "end"
when_clause: "when" expr "then" expr

?or_expr: and_expr (OR and_expr)*
?and_expr: equ_expr (AND equ_expr)*
?equ_expr: rel_expr (EQU_OP rel_expr)*
?rel_expr: add_expr (REL_OP add_expr)?
?add_expr: mul_expr (add_op mul_expr)*
add_op: PLUS | MINUS
?mul_expr: xor_expr (MUL_OP xor_expr)*
?xor_expr: unary (XOR unary)*

?unary: (PLUS | MINUS)? NUMBER   -> number
      | MINUS atom        -> negative
      | BANG atom         -> not_
      | atom

?atom: TRUE -> true
     | FALSE -> false
     | NULL -> null
     | lookup

?lookup: function_call
       | convert_call
       | cast_call
       | path
       | STRING -> string
       | "(" expr ")"

function_call: IDENT "(" [expr ("," expr)*] ")"
convert_call: CONVERT "(" expr "," STRING ")"
cast_call: CAST "(" expr "as" data_type [REPEAT] ")"
data_type: IDENT ["(" NUMBER ("," NUMBER)* ")"]

path: name_seg (("." name_seg) | index_seg)*
name_seg: IDENT | QUOTED_IDENT
index_seg: "[" NUMBER "]"

IF: "if"
CASE: "case"
CAST: "cast"
REPEAT: "repeat"
TRUE: "true"
FALSE: "false"
NULL: "null"
// a whole word only: `convert_fromJSON(x)` is a call of that function, as Drill lexes it
CONVERT.2: /convert_(?:from|to)(?![A-Za-z_$0-9])/
OR.2: {or_tokens}
AND.2: {and_tokens}
EQU_OP: "==" | "=" | "!=" | "<>"
REL_OP: ">=" | "<=" | ">" | "<"
PLUS: "+"
MINUS: "-"
MUL_OP: "*" | "/" | "%"
XOR: "^"
BANG: "!"
NUMBER: /(0|[1-9][0-9]*)(\.[0-9]*)?([eE][+-]?[0-9]*)?/
IDENT: /[A-Za-z_$][A-Za-z_$0-9]*/
QUOTED_IDENT: /`(?:[^`\\]|\\[\\`])*`/
STRING: {string_re}

%ignore /[ \t\r\n\f]+/
%ignore /\/\/[^\n]*/
%ignore /\/\*(.|\n)*?\*\//
"""

_SQ = r"'(?:[^'\\]|\\[\\'])*'"
_DQ = r'"(?:[^"\\]|\\.)*"'


@functools.cache
def _parser(dialect: str) -> Lark:
    if dialect == "drill":
        grammar = _GRAMMAR.format(
            or_tokens='"or" | "OR" | "Or"', and_tokens='"and" | "AND"', string_re=f"/{_SQ}/"
        )
    elif dialect == "2013":
        grammar = _GRAMMAR.format(
            or_tokens='"or" | "OR" | "Or" | "||"',
            and_tokens='"and" | "AND" | "&&"',
            string_re=f"/{_SQ}|{_DQ}/",
        )
    else:
        raise ValueError(f"unknown expression dialect {dialect!r}; use one of {DIALECTS}")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def parse_expression(text: str, dialect: Dialect = "drill") -> Expr:
    """Parse one expression into the AST; ExpressionError (with line/column) if it is invalid."""
    if not isinstance(text, str):
        raise TypeError(f"an expression is a string, not {type(text).__name__}")
    if not text.strip():
        raise ExpressionError("empty expression", text, 1, 1, 0)
    try:
        with room():
            tree = _parser(dialect).parse(text)
            return _Build(text).transform(tree)
    except VisitError as e:  # an error raised inside the tree builder
        if isinstance(e.orig_exc, ExpressionError):
            raise e.orig_exc from None
        if isinstance(e.orig_exc, RecursionError):
            raise _too_deep(text) from None
        raise
    except UnexpectedInput as e:
        raise _syntax_error(e, text) from None
    except RecursionError:
        raise _too_deep(text) from None


def _too_deep(text: str) -> ExpressionError:
    return ExpressionError(
        f"the expression nests too deeply (Python recursion limit {RECURSION_LIMIT} reached)",
        text[:200],
        1,
        1,
        0,
    )


def _syntax_error(e: UnexpectedInput, text: str) -> ExpressionError:
    if isinstance(e, UnexpectedEOF):
        line = text.count("\n") + 1
        column = len(text) - (text.rfind("\n") + 1) + 1
        return ExpressionError("unexpected end of expression", text, line, column, len(text))
    offset = e.pos_in_stream or 0
    if isinstance(e, UnexpectedCharacters):
        found = text[offset]
        msg = f"unexpected character {found!r}"
        if found == '"':
            msg += " (strings are 'single-quoted' in today's grammar)"
        elif found in "&|":
            msg += " (use 'and' / 'or')"
    else:
        token = e.token  # type: ignore[attr-defined]
        if token.type == "$END":
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
            return ExpressionError("unexpected end of expression", text, line, column, len(text))
        msg = f"unexpected {str(token)!r}"
        expected = sorted(_pretty(t) for t in (e.expected or ()) if not t.startswith("__"))  # type: ignore[attr-defined]
        if token.type == "REL_OP":
            msg += " (comparisons do not chain: parenthesise one side)"
        elif expected and len(expected) <= 8:
            msg += f"; expected {', '.join(expected)}"
    return ExpressionError(msg, text, e.line, e.column, offset)


_NAMES = {
    "RPAR": "')'",
    "LPAR": "'('",
    "COMMA": "','",
    "IDENT": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "QUOTED_IDENT": "a `name`",
    "END": "'end'",
    "THEN": "'then'",
    "ELSE": "'else'",
    "AS": "'as'",
    "RSQB": "']'",
    "LSQB": "'['",
    "DOT": "'.'",
    "WHEN": "'when'",
}


def _pretty(terminal: str) -> str:
    return _NAMES.get(terminal, terminal.lower())


def _pos(item) -> SourcePos:
    # lark always sets positions on tokens it lexed and on rule metadata
    if isinstance(item, Token):
        return SourcePos(item.line or 1, item.column or 1, item.start_pos or 0)
    meta = item.meta if hasattr(item, "meta") else item
    return SourcePos(meta.line, meta.column, meta.start_pos)


def _fits_int(digits: str) -> bool:
    """Whether a run of digits is an INT (checked by length first: int() refuses more than
    4,300 digits)."""
    return len(digits) <= 10 and int(digits) <= INT_MAX


def _number(token: Token, sign: str = "") -> Literal:
    return number_literal(sign + str(token), _pos(token))


def number_literal(text: str, pos: SourcePos | None = None) -> Literal:
    """The literal a number of the grammar (`-12`, `1.5e3`; NUMBER with an optional minus)
    reads as: INT if it fits 32 bits, else BIGINT, else FLOAT8. The SQL lowering builds its
    number literals by this one rule."""
    # more digits than a BIGINT holds read as FLOAT8 (as below) without int(), which refuses
    # more than 4,300 digits
    if "." not in text and "e" not in text.lower() and len(text) <= 21:
        value = int(text)
        if INT_MIN <= value <= INT_MAX:
            return Literal(value, "INT", pos)
        if BIGINT_MIN <= value <= BIGINT_MAX:
            return Literal(value, "BIGINT", pos)
    cleaned = text if not text.lower().endswith(("e", "e+", "e-")) else text.rstrip("eE+-")
    return Literal(float(cleaned), "FLOAT8", pos)


def _unquote(raw: str) -> str:
    body = raw[1:-1]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt) if raw[0] == '"' else nxt)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


@v_args(meta=True)
class _Build(Transformer):
    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def _err(self, message: str, token_or_meta) -> ExpressionError:
        p = _pos(token_or_meta)
        return ExpressionError(message, self.text, p.line, p.column, p.offset)

    # literals
    def number(self, meta, items):
        if len(items) == 2 and items[0] is not None:
            lit = _number(items[1], "-" if items[0] == "-" else "")
            return Literal(lit.value, lit.type, _pos(items[0]))
        return _number(items[-1])

    def true(self, meta, items):
        return Literal(True, "BIT", _pos(items[0]))

    def false(self, meta, items):
        return Literal(False, "BIT", _pos(items[0]))

    def null(self, meta, items):
        return Literal(None, "NULL", _pos(items[0]))

    def string(self, meta, items):
        return Literal(_unquote(str(items[0])), "VARCHAR", _pos(items[0]))

    # paths
    def name_seg(self, meta, items):
        tok = items[0]
        return (_unquote(str(tok)) if tok.type == "QUOTED_IDENT" else str(tok)), tok

    def index_seg(self, meta, items):
        tok = items[0]
        if not str(tok).isdigit():
            raise self._err(f"array index must be a whole number, not {tok}", tok)
        if not _fits_int(str(tok)):
            raise self._err(f"array index {str(tok)[:20]} is out of range (at most {INT_MAX})", tok)
        return int(str(tok)), tok

    def path(self, meta, items):
        return FieldPath(tuple(seg for seg, _ in items), _pos(items[0][1]))

    # operators
    def _chain(self, items, meta, nary: bool = False):
        result = items[0]
        for op, right in zip(items[1::2], items[2::2], strict=True):
            name = OPERATOR_FUNCTIONS.get(str(op), None)
            if name is None:  # 'OR' / 'Or' / 'AND'
                name = OPERATOR_FUNCTIONS[str(op).lower()]
            if (
                nary
                and isinstance(result, FunctionCall)
                and result.name == name
                and result is not items[0]
            ):
                result = FunctionCall(name, (*result.args, right), result.pos)
            else:
                result = FunctionCall(name, (result, right), _pos(meta))
        return result

    def or_expr(self, meta, items):
        return self._chain(items, meta, nary=True)

    def and_expr(self, meta, items):
        return self._chain(items, meta, nary=True)

    def equ_expr(self, meta, items):
        return self._chain(items, meta)

    rel_expr = add_expr = mul_expr = xor_expr = equ_expr

    def add_op(self, meta, items):
        return items[0]

    def negative(self, meta, items):
        return FunctionCall("negative", (items[1],), _pos(items[0]))

    def not_(self, meta, items):
        return FunctionCall("not", (items[1],), _pos(items[0]))

    # calls
    def function_call(self, meta, items):
        name = items[0]
        word = str(name)
        # where the grammar takes no `if` or `case` (after an operator), the lexer reads the
        # word as a name; Drill's lexer never does, so a call by that name is refused
        if word in LEADING_KEYWORDS:
            raise self._err(
                f"{word!r} is a keyword, not a function name (an `{word}` expression that is "
                "an operand needs parentheses)",
                name,
            )
        args = tuple(a for a in items[1:] if a is not None)
        by_name = CONVERT_BY_NAME.fullmatch(word)
        if by_name is not None and len(args) == 1:  # convert_fromJSON(x): Drill's name for it
            return Convert(by_name[1].lower(), args[0], by_name[2].upper(), _pos(name))
        return FunctionCall(word, args, _pos(name))

    def convert_call(self, meta, items):
        kw, expr, enc = items
        return Convert(
            "from" if str(kw) == "convert_from" else "to", expr, _unquote(str(enc)), _pos(kw)
        )

    def cast_call(self, meta, items):
        kw, expr, (type_name, args), repeat = items
        return Cast(expr, type_name.upper(), args, repeat is not None, _pos(kw))

    def data_type(self, meta, items):
        name_tok, *arg_toks = [t for t in items if t is not None]
        name = str(name_tok)
        if name.lower() not in CAST_TYPES or not (name.islower() or name.isupper()):
            raise self._err(
                f"unknown cast type {name!r}; expected one of {', '.join(sorted(CAST_TYPES))}",
                name_tok,
            )
        wanted = CAST_TYPES[name.lower()]
        if len(arg_toks) != wanted:
            raise self._err(
                f"cast type {name} takes {wanted} size argument{'s' if wanted != 1 else ''}, "
                f"got {len(arg_toks)}",
                name_tok,
            )
        for t in arg_toks:
            if not str(t).isdigit():
                raise self._err(f"size of {name} must be a whole number, not {t}", t)
            if not _fits_int(str(t)):
                raise self._err(f"size of {name} is out of range (at most {INT_MAX})", t)
        return name, tuple(int(str(t)) for t in arg_toks)

    # conditionals
    def if_expr(self, meta, items):
        _, cond, then, (branches, else_) = items
        return IfElse(((cond, then), *branches), else_, _pos(items[0]))

    def elseif(self, meta, items):
        cond, then, (branches, else_) = items
        return ((cond, then), *branches), else_

    def final_else(self, meta, items):
        return (), items[0]

    def case_expr(self, meta, items):
        _, *whens, else_ = items
        return IfElse(tuple(whens), else_, _pos(items[0]))

    def when_clause(self, meta, items):
        return items[0], items[1]
