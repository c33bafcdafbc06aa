"""Lowering one SQL expression to the plan's expression nodes (plan/expressions.py, built by
sql/drill_expr.py): column paths, literals, operators, CASE/CAST, nested-data functions
(FLATTEN registers a flatten operator), aggregates and window functions (registered with their
SELECT block). A new SQL form gets a `_<sqlglot class name>` method here."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from drillspark.plan.expr_parser import CONVERT_BY_NAME
from drillspark.plan.expressions import (
    INT_MAX,
    LEADING_KEYWORDS,
    Expr,
    FunctionCall,
    Literal,
    to_text,
)
from drillspark.plan.function_kinds import NONDETERMINISTIC, WINDOW_FUNCTIONS, is_aggregate
from drillspark.sql import drill_expr as dx
from drillspark.sql.aggregates import RETYPED, distinct_call, doubled_columns, unwrap_filter
from drillspark.sql.errors import SqlError, UnsupportedSqlError
from drillspark.sql.intervals import IntervalError, interval_literal
from drillspark.sql.syntax import flatten_op

if TYPE_CHECKING:
    from drillspark.sql.block import Block

SAMPLE_STATISTICS = {"stddev", "stddev_samp", "variance", "var_samp"}

# What a function name can be in a plan expression (`a/b`(x) parses, but names nothing).
_FUNCTION_NAME = re.compile(r"[A-Za-z_$][A-Za-z_$0-9]*")


_CONVERT = ("convert_from", "convert_to")

# A SQL number: digits with an optional point and exponent, at least one digit before the
# exponent
_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _plan_number(text: str) -> str:
    """A SQL number as the plan grammar reads it: no leading zeros (`007`), a digit before
    the point (`.5`)."""
    m = re.fullmatch(r"(-?)(\d*)(\.\d*)?([eE][+-]?\d+)?", text)
    if m is None:
        return text
    return m[1] + (m[2].lstrip("0") or "0") + (m[3] or "") + (m[4] or "")


# sqlglot node classes whose Drill function name is not recorded in meta.
FUNCTION_NAMES = {
    "CurrentDate": "current_date",
    "CurrentTimestamp": "current_timestamp",
    "CurrentTime": "current_time",
    "ArraySize": "repeated_count",
    "Pow": "power",
    "StrPosition": "strpos",
    "Ln": "ln",
    "Upper": "upper",
    "Lower": "lower",
}

# Functions Calcite calls without parentheses: an unquoted single name among these is the
# function, never a column (Calcite tries them before columns).
NILADIC = {
    "pi": "pi",
    "localtime": "localtime",
    "localtimestamp": "localtimestamp",
    "current_date": "current_date",
    "current_time": "current_time",
    "current_timestamp": "current_timestamp",
}
# Calcite's niladic session values: the query's user and default schema, constants of the
# statement (Drill: `anonymous` without authentication, '' before any USE)
SESSION_VALUES = ("user", "session_user", "system_user", "current_schema")
# TIMESTAMPADD / TIMESTAMPDIFF units (SQL_TSI_* are JDBC's spellings of the same)
TIME_UNITS = {
    "NANOSECOND",
    "MICROSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
}


class ExprLowering:
    """One expression of a SELECT block to the plan's expression node."""

    def __init__(self, ctx: Block):
        self.ctx = ctx

    def fail(self, message: str, node: exp.Expr, cls: type[SqlError] | None = None) -> SqlError:
        if cls is not None:
            return self.ctx.low.fail(message, node, cls)
        return self.ctx.fail(message, node)

    def lower(self, node: exp.Expr) -> Expr:
        value = self._lower(node)
        parent = node.parent
        if isinstance(parent, exp.Flatten) and parent.this is node:
            self._check_plan_expression(value, parent)
        return value

    def _lower(self, node: exp.Expr) -> Expr:
        ctx = self.ctx
        if ctx.mode == "grouped":
            for key_node, key_name in ctx.group_nodes:
                if node == key_node:
                    return dx.path(key_name)
            if self.is_aggregate(node):
                return self._aggregate(node)
            if isinstance(node, exp.Column | exp.Dot | exp.Bracket) and isinstance(
                _path_base(node), exp.Column
            ):
                raise self.fail(
                    f"expression '{node.sql('drill')}' is neither in GROUP BY nor "
                    "inside an aggregate function",
                    node,
                )
        method = getattr(self, "_" + type(node).__name__, None)
        if method is not None:
            return method(node)
        if isinstance(node, exp.Func):
            return self.function(node)
        raise self.ctx.low.unsupported(
            f"the SQL construct {node.key.upper()} ('{node.sql('drill')}')", node
        )

    # --- references ----------------------------------------------------------------------
    def _Column(self, node: exp.Column) -> Expr:
        if isinstance(node.this, exp.Star):
            raise self.fail("'*' is only allowed alone in the select list", node)
        ident = node.this
        word = (
            ident.name.lower()
            if not node.table and isinstance(ident, exp.Identifier) and not ident.quoted
            else None
        )  # a bare name may be a niladic function
        if word in NILADIC:
            return dx.call(NILADIC[word], [])
        if word in SESSION_VALUES:
            session = self.ctx.low.session
            if word == "current_schema":
                return dx.string(".".join(session.default_schema or ()))
            return dx.string(session.user)
        src, name, rest = self.ctx.resolve(node)
        del src
        return dx.path(name, rest)

    def _Dot(self, node: exp.Dot) -> Expr:
        return self._member_path(node)

    def _Bracket(self, node: exp.Bracket) -> Expr:
        return self._member_path(node)

    def _member_path(self, node: exp.Expr) -> Expr:
        """t.a.b[0].c / a[1][2] / t.m['key']: a column then members and indexes."""
        segs: list[str | int] = []
        cur = node
        while True:
            if isinstance(cur, exp.Dot):
                segs.insert(0, cur.expression.name)
                cur = cur.this
            elif isinstance(cur, exp.Bracket):
                if len(cur.expressions) != 1:
                    raise self.fail("an index takes one value", cur)
                idx = cur.expressions[0]
                if isinstance(idx, exp.Literal) and idx.is_string:
                    segs.insert(0, idx.this)
                elif isinstance(idx, exp.Literal) and idx.this.isdigit():
                    if len(idx.this) > 10 or int(idx.this) > INT_MAX:
                        raise self.fail(
                            f"array index {idx.this[:20]} is out of range (at most {INT_MAX})", idx
                        )
                    segs.insert(0, int(idx.this))
                else:
                    raise self.ctx.low.unsupported(
                        "an array index that is not an integer literal", idx
                    )
                cur = cur.this
            else:
                break
        if isinstance(cur, exp.Column):
            _src, name, rest = self.ctx.resolve(cur)
            return dx.path(name, rest + segs)
        if isinstance(cur, exp.Flatten) and isinstance(node, exp.Bracket):
            # FLATTEN(m)[0], FLATTEN(t.orders)['oid']: an index into the flattened column
            # (Drill refuses the dotted form, FLATTEN(x).y, as "Incompatible types")
            return dx.path(self.flattened(cur), segs)
        if self.ctx.computed is not None and segs:
            # plan paths start at a field: the value is computed into a hidden field first
            base = self.lower(cur)
            found = next((n for n, e in self.ctx.computed if e == base), None)
            if found is None:
                found = self.ctx.low.hidden("item")
                self.ctx.computed.append((found, base))
            return dx.path(found, segs)
        what = "an array index" if isinstance(node, exp.Bracket) else "member access"
        raise self.ctx.low.unsupported(
            f"{what} on a computed value ('{node.sql('drill')}'; "
            "compute it in a subquery and index its column)",
            node,
        )

    # --- literals ------------------------------------------------------------------------
    def _Literal(self, node: exp.Literal) -> Expr:
        if node.is_string:
            return dx.string(node.this)
        if not _NUMBER.fullmatch(node.this):  # sqlglot takes `0E.785` as one number token
            raise self.fail(f"'{node.this[:40]}' is not a number Drill reads", node)
        text = _plan_number(node.this)
        if "e" in text.lower():
            return dx.number(text)
        if "." in text:
            # SQL's 12.3 is DECIMAL(3, 1) in Drill (JSON's 12.3 is DOUBLE), its precision every
            # digit written (0.5 is DECIMAL(2, 1), 00.5 DECIMAL(3, 1)); cast from its text, as a
            # number of the plan is a DOUBLE, which keeps 16 digits of 12345678901234567.25
            digits = node.this.replace(".", "").lstrip("-")
            scale = len(text.split(".")[1])
            precision = max(len(digits), scale, 1)
            return dx.cast(dx.string(text), "VARDECIMAL", (precision, scale))
        return dx.number(text)

    def _Boolean(self, node: exp.Boolean) -> Expr:
        return dx.boolean(bool(node.this))

    def _Null(self, node: exp.Null) -> Expr:
        return dx.NULL

    def _Paren(self, node: exp.Paren) -> Expr:
        return self.lower(node.this)

    def _Neg(self, node: exp.Neg) -> Expr:
        inner = node.this
        if isinstance(inner, exp.Literal) and not inner.is_string:
            return self._Literal(exp.Literal(this="-" + inner.this, is_string=False))
        value = self.lower(inner)
        base = inner
        while isinstance(base, exp.Paren):
            base = base.this
        if (
            isinstance(value, Literal)
            and value.type in ("INT", "BIGINT", "FLOAT8")
            and isinstance(base, exp.Literal)
            and not base.this.startswith("-")
        ):
            # -(5): the negative number, as -5 is (-(2147483648) is an INT)
            return dx.number("-" + _plan_number(base.this))
        return dx.negative(value)

    # --- operators -----------------------------------------------------------------------
    def _binary(self, node: exp.Binary) -> Expr:
        op = dx.BINARY_OPS[type(node).__name__]
        return dx.binary(op, self.lower(node.this), self.lower(node.expression))

    def _row_compare(self, node: exp.Binary) -> Expr:
        """`(a, b) = (x, y)`: every pair equal; `<>`: some pair differs (SQL's row values)."""
        left, right = node.this, node.expression
        if not (isinstance(left, exp.Tuple) and isinstance(right, exp.Tuple)):
            return self._binary(node)
        if len(left.expressions) != len(right.expressions):
            raise self.fail("row values of different sizes are compared", node)
        op = dx.BINARY_OPS[type(node).__name__]
        pairs = [
            dx.binary(op, self.lower(a), self.lower(b))
            for a, b in zip(left.expressions, right.expressions, strict=True)
        ]
        return dx.boolean_chain("and" if op == "==" else "or", pairs)

    _EQ = _NEQ = _row_compare
    _GT = _GTE = _LT = _LTE = _Add = _Sub = _Mul = _Div = _Mod = _binary

    def _And(self, node: exp.And) -> Expr:
        return dx.boolean_chain("and", [self.lower(c) for c in flatten_op(node, exp.And)])

    def _Or(self, node: exp.Or) -> Expr:
        return dx.boolean_chain("or", [self.lower(c) for c in flatten_op(node, exp.Or)])

    def _Not(self, node: exp.Not) -> Expr:
        inner = node.this
        if isinstance(inner, exp.Is):
            return dx.call(self._is_name(inner, negated=True), [self.lower(inner.this)])
        return dx.not_(self.lower(inner))

    def _Is(self, node: exp.Is) -> Expr:
        return dx.call(self._is_name(node, negated=False), [self.lower(node.this)])

    def _is_name(self, node: exp.Is, negated: bool) -> str:
        target = node.expression
        if isinstance(target, exp.Null):
            return "isnotnull" if negated else "isnull"
        if isinstance(target, exp.Boolean):
            word = "true" if target.this else "false"
            return f"is{'not' if negated else ''}{word}"
        raise self.ctx.low.unsupported(f"IS {target.sql('drill')}", node)

    def _Between(self, node: exp.Between) -> Expr:
        v = self.lower(node.this)
        return dx.boolean_chain(
            "and",
            [
                dx.binary(">=", v, self.lower(node.args["low"])),
                dx.binary("<=", v, self.lower(node.args["high"])),
            ],
        )

    def _In(self, node: exp.In) -> Expr:
        if node.args.get("query") is not None:
            raise self.ctx.low.unsupported("IN (subquery) outside a WHERE conjunct", node)
        if not node.expressions:  # sqlglot's `x IN field` (no list): nothing to compare with
            raise self.ctx.low.unsupported(f"IN without a list ('{node.sql('drill')}')", node)
        v = self.lower(node.this)
        return dx.boolean_chain("or", [dx.binary("==", v, self.lower(e)) for e in node.expressions])

    def _Like(self, node: exp.Expr, escape: exp.Expr | None = None) -> Expr:
        # `x NOT LIKE p` is one node with negate=True (there is no Not around it)
        fname = "ilike" if isinstance(node, exp.ILike) else "like"
        args = [self.lower(node.this), self.lower(node.expression)]
        if escape is not None:
            args.append(self.lower(escape))
        for key, value in node.args.items():
            if key not in ("this", "expression", "negate") and value:
                raise self.ctx.low.unsupported(f"{fname.upper()} with {key.upper()}", node)
        call = dx.call(fname, args)
        return dx.not_(call) if node.args.get("negate") else call

    _ILike = _Like

    def _Escape(self, node: exp.Escape) -> Expr:
        inner = node.this
        if not isinstance(inner, exp.Like | exp.ILike | exp.SimilarTo):
            raise self.ctx.low.unsupported(f"ESCAPE after {inner.key.upper()}", node)
        if isinstance(inner, exp.SimilarTo):
            call = dx.call(
                "similar_to",
                [self.lower(inner.this), self.lower(inner.expression), self.lower(node.expression)],
            )
            return dx.not_(call) if inner.args.get("negate") else call
        return self._Like(inner, node.expression)

    def _NullSafeEQ(self, node: exp.Expr) -> Expr:
        # IS NOT DISTINCT FROM: equal, or both NULL
        return dx.call("is_not_distinct_from", [self.lower(node.this), self.lower(node.expression)])

    def _NullSafeNEQ(self, node: exp.Expr) -> Expr:
        return dx.call("is_distinct_from", [self.lower(node.this), self.lower(node.expression)])

    def _SimilarTo(self, node: exp.Expr) -> Expr:
        call = dx.call("similar_to", [self.lower(node.this), self.lower(node.expression)])
        return dx.not_(call) if node.args.get("negate") else call

    def _DPipe(self, node: exp.DPipe) -> Expr:
        # `||` is Drill's concatOperator: NULL if either side is (concat() skips NULLs).
        return dx.call("concatOperator", [self.lower(node.this), self.lower(node.expression)])

    def _Trim(self, node: exp.Trim) -> Expr:
        side = str(node.args.get("position") or "BOTH").upper()
        fname = {"LEADING": "ltrim", "TRAILING": "rtrim", "BOTH": "btrim"}.get(side)
        if fname is None:
            raise self.ctx.low.unsupported(f"TRIM({side} ...)", node)
        if node.args.get("collation") is not None:
            raise self.ctx.low.unsupported("TRIM ... COLLATE", node)
        chars = node.args.get("expression")
        args = [node.this] + ([chars] if chars is not None else [])
        return dx.call(fname, [self.lower(a) for a in args])

    def _Case(self, node: exp.Case) -> Expr:
        subject = node.this
        whens = []
        for when in node.args.get("ifs") or []:
            cond = self.lower(when.this)
            if subject is not None:
                cond = dx.binary("==", self.lower(subject), cond)
            whens.append((cond, self.lower(when.args["true"])))
        default = node.args.get("default")
        return dx.case(whens, self.lower(default) if default is not None else dx.NULL)

    def _If(self, node: exp.If) -> Expr:
        false = node.args.get("false")
        return dx.case(
            [(self.lower(node.this), self.lower(node.args["true"]))],
            self.lower(false) if false is not None else dx.NULL,
        )

    def _Cast(self, node: exp.Cast) -> Expr:
        return dx.cast(self.lower(node.this), *self._drill_type(node.to))

    _TryCast = _Cast

    def _drill_type(self, dtype: exp.DataType) -> tuple[str, tuple[int, ...]]:
        """The Drill type (name, sizes) of a SQL type."""
        if isinstance(dtype.this, exp.Interval):  # INTERVAL <unit> [TO <unit>]
            unit = dtype.this.args.get("unit")
            first = unit.this if isinstance(unit, exp.IntervalSpan) else unit
            word = first.name.upper() if first is not None else "DAY"
            return ("INTERVALYEAR" if word.startswith(("YEAR", "MONTH")) else "INTERVALDAY"), ()
        name = dtype.this.name if hasattr(dtype.this, "name") else str(dtype.this)
        name = name.upper()
        if name in ("SMALLINT", "TINYINT"):  # Drill 1.22 refuses them (DRILL-1959)
            raise self.ctx.low.unsupported(name, dtype)
        drill = dx.CAST_TYPES.get(name)
        if drill is None:
            raise self.ctx.low.unsupported(f"CAST to {dtype.sql('drill')}", dtype)
        for p in dtype.expressions:  # sqlglot also takes names and expressions here
            if not (
                isinstance(p.this, exp.Literal)
                and p.this.is_int
                and 0 <= int(p.this.this) <= 2**31 - 1
            ):
                raise self.fail(
                    f"CAST to {dtype.sql('drill')}: a type's size must be a whole number", p
                )
        params = [int(p.this.this) for p in dtype.expressions]
        if drill in ("VARCHAR", "VARBINARY"):
            return drill, (params[0] if params else dx.DEFAULT_VARCHAR_LENGTH,)
        if drill == "VARDECIMAL":
            p, s = (params + list(dx.DEFAULT_DECIMAL)[len(params) :])[:2]
            return drill, (p, s)
        return drill, ()

    def _RawDrill(self, node: exp.Expr) -> Expr:
        return node.this  # a subquery's value, lowered by sql/subqueries.py

    def _Subquery(self, node: exp.Subquery) -> Expr:
        raise self.ctx.low.unsupported(
            "a subquery in this position (only FROM, IN and scalar subqueries in WHERE are)", node
        )

    def _Exists(self, node: exp.Exists) -> Expr:
        raise self.ctx.low.unsupported("EXISTS (subquery)", node)

    def _Interval(self, node: exp.Interval) -> Expr:
        value, unit = node.this, node.args.get("unit")
        if isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal):
            value = exp.Literal.string("-" + value.this.name)
        if not isinstance(value, exp.Literal) or unit is None:
            raise self.ctx.low.unsupported(
                f"the interval '{node.sql('drill')}' (only INTERVAL 'text' <unit> [TO <unit>] is)",
                node,
            )
        first = unit.this if isinstance(unit, exp.IntervalSpan) else unit
        end = unit.expression.name if isinstance(unit, exp.IntervalSpan) else None
        # `DAY(3)`: a leading field with its precision (sqlglot reads it as a function)
        precision = 2
        if isinstance(first, exp.Func) and isinstance(first.this, exp.Literal):
            start, precision = first.key.upper(), int(first.this.name)
        else:
            start = first.name
        try:
            drill_type, text = interval_literal(value.name, start, end, precision)
        except IntervalError as e:
            raise self.fail(str(e), node) from None
        return dx.cast(dx.string(text), drill_type)

    # --- nested-data and scalar functions ------------------------------------------------
    def _Flatten(self, node: exp.Flatten) -> Expr:
        return dx.path(self.flattened(node))

    def flattened(self, node: exp.Flatten) -> str:
        """The hidden column a flatten operator ahead of the projection writes `node` into."""
        if id(node) in self.ctx.preflattened:  # under an aggregate: flattened ahead of it
            return self.ctx.preflattened[id(node)]
        if self.ctx.mode == "grouped":
            raise self.fail("FLATTEN cannot be used with aggregates in one SELECT", node)
        inner, computed = self.flatten_argument(node)
        name = self.ctx.low.hidden("flatten")
        self.ctx.flattens.append((name, inner, node, computed))
        return name

    def flatten_argument(self, node: exp.Flatten) -> tuple[Expr, list[tuple[str, Expr]]]:
        """FLATTEN `node`'s argument, and the values it indexes (`kvgen(m)[0]['value']`),
        which its flatten operator's own transform writes just ahead of it: the block's
        computed values are written after the flatten operators, and read there they had been
        missing columns, every row flattened to nothing."""
        computed: list[tuple[str, Expr]] = []
        saved = self.ctx.computed
        if saved is not None:  # else an index on a computed value stays refused here
            self.ctx.computed = computed
        try:
            return self.lower(node.this), computed
        finally:
            self.ctx.computed = saved

    def _check_plan_expression(self, value: Expr, node: exp.Expr) -> None:
        """`value`, lowered from FLATTEN `node`'s argument, is a plan expression the plan can
        show, else an error at `node` in the statement: a flatten operator has no place in the
        SQL recorded for it, so a lowering bug would be reported at a column of the generated
        plan instead (one check per FLATTEN)."""
        try:
            to_text(value)
        except (TypeError, ValueError) as e:
            raise self.fail(
                f"'{node.sql('drill')}' cannot be compiled: its plan expression {value!r} "
                f"cannot be written ({e}), a drillspark bug",
                node,
            ) from None

    def _Window(self, node: exp.Window) -> Expr:
        return self.ctx.win.add(node, self)

    def function(self, node: exp.Func) -> Expr:
        fname = self.name(node)
        # a quoted name (`a/b`(x), `true`(x)) no function has
        keyword = fname in LEADING_KEYWORDS and fname not in _CONVERT
        if not _FUNCTION_NAME.fullmatch(fname) or keyword:
            raise self.fail(f"no function is named '{fname}'", node)
        if fname in WINDOW_FUNCTIONS and not self.ctx.win.active:
            raise self.fail(f"{fname.upper()} needs an OVER clause", node)
        if self.is_aggregate(node):
            return self._aggregate(node)
        if fname in _CONVERT or CONVERT_BY_NAME.fullmatch(fname):
            return self._convert(fname, node)
        if not isinstance(node, exp.Anonymous):
            # A keyword modifier (sqlglot keeps it as text, e.g. TRIM's LEADING) would be
            # silently lost by the positional call below.
            for key, value in node.args.items():
                if isinstance(value, str) and value:
                    raise self.ctx.low.unsupported(
                        f"{fname.upper()} with {key.upper()} {value}", node
                    )
        args = self._args(node)
        if fname == "log10" and isinstance(node, exp.Log) and len(args) == 2:
            args = args[1:]  # sqlglot reads LOG10(x) as LOG(10, x)
        return dx.call(fname, [self.lower(a) for a in args])

    def _convert(self, fname: str, node: exp.Func) -> Expr:
        """CONVERT_FROM(x, 'ENCODING') / CONVERT_TO(...), and Drill's names for them,
        convert_from<ENCODING>(x) / convert_to<ENCODING>(x): the plan's two-argument form,
        whose encoding must be a string literal (the plan grammar reads no other)."""
        args = self._args(node)
        by_name = CONVERT_BY_NAME.fullmatch(fname)
        if by_name is not None:
            if len(args) != 1:
                raise self.fail(
                    f"{fname.upper()} takes one argument (CONVERT_{by_name[1].upper()}(x, "
                    f"'{by_name[2].upper()}') is the same), not {len(args)}",
                    node,
                )
            direction, encoding = by_name[1], by_name[2].upper()
            return dx.convert(direction.lower(), self.lower(args[0]), encoding)
        if len(args) != 2 or not (isinstance(args[1], exp.Literal) and args[1].is_string):
            raise self.fail(
                f"{fname.upper()} takes a value and an encoding named by a string literal, "
                f"e.g. {fname.upper()}(x, 'JSON')",
                node,
            )
        return dx.convert(fname[len("convert_") :], self.lower(args[0]), args[1].name)

    def _Extract(self, node: exp.Extract) -> Expr:
        unit = node.this.name.lower()
        return dx.call("date_part", [dx.string(unit), self.lower(node.expression)])

    def _Anonymous(self, node: exp.Anonymous) -> Expr:
        fname = node.name.lower()
        if fname in ("timestampadd", "timestampdiff"):
            args = list(node.expressions)
            if len(args) != 3:
                raise self.fail(f"{fname.upper()} takes a unit and two arguments", node)
            unit = args[0]
            word = unit.name.upper() if isinstance(unit, exp.Column | exp.Var) else ""
            word = word.removeprefix("SQL_TSI_").replace("FRAC_SECOND", "MICROSECOND")
            if word not in TIME_UNITS:
                raise self.fail(f"{fname.upper()}: unknown time unit '{unit.sql('drill')}'", unit)
            return dx.call(fname, [dx.string(word)] + [self.lower(a) for a in args[1:]])
        return self.function(node)

    @staticmethod
    def name(node: exp.Func) -> str:
        if isinstance(node, exp.Anonymous):
            return node.name.lower()
        drill = (node.meta or {}).get("drill_name")
        if drill:
            return str(drill).lower()
        return FUNCTION_NAMES.get(type(node).__name__, node.sql_name().lower())

    @staticmethod
    def _args(node: exp.Func) -> list[exp.Expr]:
        if isinstance(node, exp.Anonymous):
            return list(node.expressions)
        out: list[exp.Expr] = []
        for key in node.arg_types:
            value = node.args.get(key)
            if value is None or isinstance(value, bool | str):
                continue
            if isinstance(value, list):
                out.extend(value)
            else:
                out.append(value)
        return out

    # --- aggregates ----------------------------------------------------------------------
    def is_aggregate(self, node: exp.Expr) -> bool:
        if isinstance(node, exp.Filter):
            return self.is_aggregate(node.this)
        if isinstance(node, exp.AggFunc):
            return True
        return isinstance(node, exp.Anonymous) and is_aggregate(node.name)

    def _Filter(self, node: exp.Filter) -> Expr:
        if not self.is_aggregate(node.this):
            raise self.fail("FILTER (WHERE ...) needs an aggregate function", node)
        return self._aggregate(node)

    def _aggregate(self, node: exp.Expr) -> Expr:
        ctx = self.ctx
        if ctx.mode != "grouped":
            raise self.fail("an aggregate function is not allowed here", node)
        ctx.mode = "input"
        after, ctx.computed = ctx.computed, ctx.pre_aggregate  # computed ahead of the aggregate
        try:
            call = self.aggregate_call(node)
        finally:
            ctx.mode = "grouped"
            ctx.computed = after
        key = to_text(call)  # one hidden column per distinct call (-0.0 is not 0.0)
        if key in ctx.agg_keys:
            return dx.path(ctx.agg_keys[key])
        name = ctx.low.hidden("a")
        ctx.agg_keys[key] = name
        ctx.aggs.append((name, call))
        return dx.path(name)

    def aggregate_call(self, node: exp.Expr, window: bool = False) -> Expr:
        """The plan's call of an aggregate: FILTER (WHERE c) keeps the argument only where c
        holds (aggregates skip NULLs; COUNT(*) counts a constant); f(DISTINCT x) reads x on
        the first row of each distinct value (see aggregates.py)."""
        node, cond = unwrap_filter(node)
        if cond is not None and window:
            raise self.ctx.low.unsupported("FILTER (WHERE ...) on a window function", node)
        assert isinstance(node, exp.Func)
        fname = self.name(node)
        args = self._args(node)
        where = self.lower(cond) if cond is not None else None
        if isinstance(node, exp.Count) and (not args or isinstance(args[0], exp.Star)):
            one = dx.integer(1)
            return dx.call("count", [one if where is None else dx.case([(where, one)], dx.NULL)])
        if args and isinstance(args[0], exp.Distinct):
            inner = args[0].expressions
            if window:
                raise self.fail(
                    "DISTINCT for window aggregate functions is not currently "
                    "supported (DRILL-3182)",
                    node,
                    UnsupportedSqlError,
                )
            if len(inner) != 1 or len(args) != 1:
                raise self.ctx.low.unsupported(
                    f"{fname.upper()}(DISTINCT ...) with several arguments", node
                )
            value = self.lower(inner[0])
            if where is not None:
                value = dx.case([(where, value)], dx.NULL)
            return distinct_call(self.ctx, fname, value)
        if not window and any(self.ctx.has_aggregate(a) for a in args):
            raise self.fail("aggregate functions cannot be nested", node)
        lowered: list[Expr] = [self.lower(a) for a in args]
        retype = RETYPED.get(fname)
        if (
            not window
            and retype
            and len(args) == 1
            and isinstance(args[0], exp.Column)
            and args[0].sql("drill") in self._doubled()
        ):
            lowered[0] = dx.cast(lowered[0], retype)
        if where is not None and lowered:
            lowered[0] = dx.case([(where, lowered[0])], dx.NULL)
        if not window and self.ctx.computed is not None:
            lowered = [self._ahead(a) if _varies(a) else a for a in lowered]
        call: Expr = dx.call(fname, lowered)
        if window and fname in SAMPLE_STATISTICS:
            # over a window Drill computes these from sums: one row gives 0/0, NaN (NULL
            # in an aggregate query)
            single = dx.binary("==", dx.call("count", lowered), dx.integer(1))
            call = dx.case([(single, dx.cast(dx.string("NaN"), "FLOAT8"))], call)
        return call

    def _ahead(self, value: Expr) -> Expr:
        """`value` computed ahead of the aggregate that reads it, as a hidden field: Drill
        answers MAX(RANDOM()), Spark refuses a nondeterministic aggregate argument."""
        name = self.ctx.low.hidden("v")
        assert self.ctx.computed is not None
        self.ctx.computed.append((name, value))
        return dx.path(name)

    def _doubled(self) -> set[str]:
        ctx = self.ctx
        if ctx.doubled is None:
            ctx.doubled = doubled_columns(ctx, self.name)
        return ctx.doubled


def _varies(value: Expr) -> bool:
    """Whether `value` calls a function that is not deterministic (RANDOM)."""
    return any(
        isinstance(e, FunctionCall) and e.name.lower() in NONDETERMINISTIC for e in value.walk()
    )


def lower_expr(ctx: Block, node: exp.Expr) -> Expr:
    """`node`, an expression of the block `ctx`, as the plan's expression node."""
    return ExprLowering(ctx).lower(node)


def lower_into(ctx: Block, computed: list[tuple[str, Expr]], node: exp.Expr) -> Expr:
    """`node` lowered, the values it indexes collected in `computed` (written by the
    caller's `ctx.with_computed` ahead of the operator that reads them)."""
    saved, ctx.computed = ctx.computed, computed
    try:
        return lower_expr(ctx, node)
    finally:
        ctx.computed = saved


def _path_base(node: exp.Expr) -> exp.Expr:
    """What a chain of member accesses and indexes starts at (`t.a.b[0]`: the column)."""
    while isinstance(node, exp.Dot | exp.Bracket):
        node = node.this
    return node
