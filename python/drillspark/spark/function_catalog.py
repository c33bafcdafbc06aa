"""What the function catalog and its families share: the argument and function records, the
catalog class, the function errors, and the literal-argument checks. Its own module so the
families (functions_*.py) import it rather than the catalog that imports them."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pyspark.sql import Column
from pyspark.sql import types as T

from drillspark.errors import ExecutionError

NO_LITERAL: Any = object()
Kind = Literal["scalar", "aggregate", "window"]


@dataclass(frozen=True)
class Arg:
    col: Column
    literal: Any = NO_LITERAL  # the Python value when the argument is a literal
    missing_type: str | None = None  # Drill type name when the argument is a missing column
    # Whether Drill's planner knows the argument's type (a literal, a CAST, an expression of
    # those): a column of schema-free data is ANY to it, typed only at run time. Some answers
    # differ by it (AVG of a DECIMAL).
    plan_typed: bool = False
    # whether the argument is a constant: no column in it (Drill's planner folds such a call
    # to a literal, and some answers differ by it: TIMESTAMPADD of a DATE)
    constant: bool = False

    @property
    def is_literal(self) -> bool:
        return self.literal is not NO_LITERAL


class Context(Protocol):
    def type_of(self, col: Column) -> T.DataType: ...


def over(ctx: object, agg: Column) -> Column:
    """`agg` as the context's operator runs aggregates: `agg.over(window)` in a window
    operator, `agg` itself in a grouping one (see DrillFunction.composite)."""
    wrap = getattr(ctx, "agg_wrap", None)
    return wrap(agg) if wrap is not None else agg


def in_window(ctx: object) -> bool:
    """True when the context's operator runs its aggregates over a window (see `over`)."""
    return getattr(ctx, "agg_wrap", None) is not None


def in_source(ctx: object) -> bool:
    """True when the context's aggregates run in the input's source (a database through JDBC):
    Spark's own aggregate functions are the ones its pushdown knows."""
    return bool(getattr(ctx, "source_aggregates", False))


Builder = Callable[[list[Arg], Context], Column]


@dataclass(frozen=True)
class DrillFunction:
    name: str
    kind: Kind
    build: Builder
    min_args: int = 0
    max_args: int | None = None  # None = any number
    # window functions only: whether the window operator's frame applies (first_value,
    # last_value); ranking and offset functions (rank, lag, ...) take no frame in Spark
    framed: bool = False
    over_type: str | None = None  # window functions: Drill's result type, cast after OVER
    # aggregates whose value is an expression over Spark aggregates (coalesce(bool_and(x),
    # ...)): the builder passes each of those through `over(ctx, agg)` itself, so a window
    # operator applies its window to them rather than to the whole expression
    composite: bool = False


class UnknownFunctionError(ExecutionError, ValueError):
    """A function name the catalog does not know; the message names the closest known names."""

    def __init__(self, name: str, suggestions: Sequence[str], where: str = ""):
        self.name = name
        self.suggestions = list(suggestions)
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        # Drill's own words too, for those who look for them
        super().__init__(
            f"{where}unknown function {name!r} (No match found for function "
            f"signature {name.upper()}){hint}"
        )


class FunctionArgumentError(ExecutionError, ValueError):
    pass


@dataclass
class FunctionCatalog:
    functions: dict[str, DrillFunction] = field(default_factory=dict)

    def add(self, fn: DrillFunction, *aliases: str) -> None:
        """Register `fn` under its names; a name has one owner (a second registration of it
        is a mistake that would leave the first one dead: `replace` says it on purpose)."""
        taken = [n for n in (fn.name, *aliases) if n.lower() in self.functions]
        if taken:
            raise ValueError(f"functions {taken} are registered already")
        self.replace(fn, *aliases)

    def replace(self, fn: DrillFunction, *aliases: str) -> None:
        """Register `fn` in place of a function of its names (a layer over a core builder,
        e.g. the date-time forms of add, which call the numeric one)."""
        for n in (fn.name, *aliases):
            self.functions[n.lower()] = fn

    def names(self) -> list[str]:
        return sorted(self.functions)

    def get(self, name: str) -> DrillFunction | None:
        fn = self.functions.get(name.lower())
        if fn is None:
            fn = _registered(name)
        return fn

    def lookup(self, name: str, where: str = "") -> DrillFunction:
        fn = self.get(name)
        if fn is None:
            close = difflib.get_close_matches(name.lower(), self.names(), n=3, cutoff=0.6)
            raise UnknownFunctionError(name, close, where)
        return fn

    def is_aggregate(self, name: str) -> bool:
        fn = self.get(name)
        return fn is not None and fn.kind == "aggregate"

    def call(self, name: str, args: list[Arg], ctx: Context, where: str = "") -> Column:
        return self.apply(self.lookup(name, where), args, ctx, where, name)

    def apply(
        self,
        fn: DrillFunction,
        args: list[Arg],
        ctx: Context,
        where: str = "",
        name: str | None = None,
    ) -> Column:
        """`fn` (already looked up, e.g. by the expression compiler) applied to `args`."""
        n = len(args)
        if n < fn.min_args or (fn.max_args is not None and n > fn.max_args):
            want = (
                f"{fn.min_args}"
                if fn.max_args == fn.min_args
                else f"{fn.min_args}..{fn.max_args if fn.max_args is not None else 'n'}"
            )
            raise FunctionArgumentError(
                f"{where}{name or fn.name}() takes {want} arguments, got {n}"
            )
        return fn.build(args, ctx)


def _registered(name: str) -> DrillFunction | None:
    """A function registered with `drillspark.function(...)`: a vectorized (Arrow) UDF built
    by drillspark.operators.spark.function_column."""
    from drillspark.plugins import registered_function

    reg = registered_function(name)
    if reg is None:
        return None
    from drillspark.operators.spark import function_column

    return DrillFunction(
        reg.name, reg.kind, lambda a, c: function_column(reg.name, *[x.col for x in a])
    )


# literal arguments and type groups, for every family
INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
FLOATING = (T.FloatType, T.DoubleType)
INTERVAL = (T.DayTimeIntervalType, T.YearMonthIntervalType, T.CalendarIntervalType)
DATETIME = (T.DateType, T.TimestampType, T.TimestampNTZType)


def lit_int(arg: Arg, fn: str, pos: int) -> int:
    if not arg.is_literal or isinstance(arg.literal, bool) or not isinstance(arg.literal, int):
        raise FunctionArgumentError(f"{fn}(): argument {pos} must be an integer literal")
    return arg.literal


def lit_str(arg: Arg, fn: str, pos: int) -> str:
    if not arg.is_literal or not isinstance(arg.literal, str):
        raise FunctionArgumentError(f"{fn}(): argument {pos} must be a string literal")
    return arg.literal


def decimal_at(col: Column, t: T.DecimalType, scale: int) -> Column:
    """ROUND / TRUNC / CEIL / FLOOR of a DECIMAL(p, s) at `scale` (0 <= scale <= s) as Drill
    1.22 types it: DECIMAL(p, scale), its precision kept (Spark's narrows it: CEIL of a
    DECIMAL(38, 6) is DECIMAL(33, 0) there, (38, 0) in Drill); the value always fits, as
    a carry needs no more digits than the places dropped."""
    if 0 <= scale <= t.scale:
        return col.cast(T.DecimalType(t.precision, scale))
    return col


def lit_scale(a: list[Arg], fn: str) -> int:
    """The scale of round/trunc: Spark's round needs a constant, so only a literal will do."""
    if len(a) < 2:
        return 0
    arg = a[1]
    if (
        not arg.is_literal
        or isinstance(arg.literal, bool)
        or not isinstance(arg.literal, int | float)
        or int(arg.literal) != arg.literal
    ):
        raise FunctionArgumentError(
            f"{fn}(): argument 2 (the scale) must be an integer "
            "literal; a column or expression is not supported"
        )
    return int(arg.literal)


JAVA_REGEX_SPECIALS = "[]()|^-+*?{}$\\."


def java_quote(text: str) -> str:
    """`text` as a Java regex matching it literally."""
    return "".join("\\" + ch if ch in JAVA_REGEX_SPECIALS else ch for ch in text)
