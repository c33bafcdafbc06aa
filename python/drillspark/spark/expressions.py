"""Compiling plan expressions (drillspark.plan.expressions) into Spark Columns.

Field paths are resolved against the input's schema so a missing field or member is NULL, as in
Drill (never an analysis error); array indexes past the end are NULL too. Aggregate function
calls are allowed only where the operator takes aggregate expressions; `agg_wrap` lets window
operators turn each aggregate into `agg.over(window)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError
from drillspark.plan.expressions import (
    Cast,
    Convert,
    Expr,
    FieldPath,
    FunctionCall,
    IfElse,
    Literal,
)
from drillspark.spark.casts import CastRefused, cast_column, text_when_mixed
from drillspark.spark.drill_types import drill_type
from drillspark.spark.function_catalog import Arg, FunctionCatalog, UnknownFunctionError
from drillspark.spark.functions import CATALOG
from drillspark.spark.scope import Scope

_LITERAL_TYPES = {
    "INT": T.IntegerType(),
    "BIGINT": T.LongType(),
    "FLOAT8": T.DoubleType(),
    "VARCHAR": T.StringType(),
    "BIT": T.BooleanType(),
}


class ExpressionCompileError(ExecutionError, ValueError):
    """An expression that cannot run; the message names the operator and the position (also
    set as `property`, `line`, `column`; the translator adds `op_id`)."""


E = TypeVar("E", bound=ExecutionError)


class ExpressionCompiler:
    def __init__(
        self,
        scope: Scope,
        catalog: FunctionCatalog = CATALOG,
        aggregates: bool = False,
        agg_wrap: Callable[[Column], Column] | None = None,
        prop: str = "",
        missing_type: str = "VARCHAR",
        window_wrap: Callable[[Column, bool], Column] | None = None,
        source_aggregates: bool = False,
    ):
        self.scope = scope
        # the aggregates run in the input's source (Translator.pushes_aggregates): the
        # catalog's builders keep Spark's own functions, the ones its pushdown knows
        self.source_aggregates = source_aggregates
        # window operators: turns a window function's column into `fn.over(window)` (the
        # flag: whether the operator's frame applies); None elsewhere
        self.window_wrap = window_wrap
        # Drill's type of a column the input lacks: nullable VARCHAR with the V2 JSON reader
        # (today's default), nullable INT with V1. The value is an untyped NULL either way
        # (so it combines with any type, as Drill's implicit casts allow); functions that
        # report types (typeof, ...) see this name through `Arg.missing_type`.
        self.missing_type = missing_type
        self.catalog = catalog
        self.aggregates = aggregates
        self.agg_wrap = agg_wrap
        self.prop = prop
        # compiled Column (by id; kept alive here) -> its expression, for type_of
        self._sources: dict[int, tuple[Column, Expr]] = {}

    def where(self, e: Expr) -> str:
        pos = getattr(e, "pos", None)
        at = f" (line {pos.line}, column {pos.column})" if pos is not None else ""
        prop = f" {self.prop}" if self.prop else ""
        base = self.scope.where.rstrip().rstrip(":")
        return f"{base}{prop}{at}: "

    def error(self, e: Expr, message: str) -> ExpressionCompileError:
        """The error for `message` about expression `e`, placed (operator, property, line)."""
        return self.placed(ExpressionCompileError(f"{self.where(e)}{message}"), e, message)

    def placed(self, err: E, e: Expr, detail: str) -> E:
        pos = getattr(e, "pos", None)
        err.locate(
            property=self.prop or None,
            detail=detail,
            line=pos.line if pos is not None else None,
            column=pos.column if pos is not None else None,
        )
        return err

    def type_of(self, col: Column) -> T.DataType:
        """The Spark type of a compiled argument: the context the function catalog's builders
        ask (integer division, typeof, ...). Field paths and literals are typed from the schema
        and the plan, without asking Spark; other expressions are analyzed over the scope's
        typing frame, where a filter's per-element leaf is a real column."""
        hit = self._sources.get(id(col))
        if hit is None:
            return self.scope.type_of(col)
        e = hit[1]
        if isinstance(e, FieldPath):
            return self.scope.path_type(e)
        if isinstance(e, Literal):
            return _literal_type(e)
        typing = self.scope.typing_scope()
        if typing is self.scope:
            return self.scope.expr_type(e, col)
        twin = ExpressionCompiler(
            typing, self.catalog, self.aggregates, None, self.prop, self.missing_type
        )
        return typing.type_of(twin.compile(e))

    def compile(self, e: Expr, inside_aggregate: bool = False) -> Column:
        col = self._compile(e, inside_aggregate)
        self._sources[id(col)] = (col, e)
        return col

    def _compile(self, e: Expr, inside_aggregate: bool) -> Column:
        if isinstance(e, Literal):
            t = _literal_type(e)
            if isinstance(t, T.NullType):
                return F.lit(None)
            # cast even when the value has the type already: Spark types an integer literal
            # as narrowly as it can (DECIMAL(1,0) beside a decimal), a cast one as a whole INT;
            # by name, since a DataType object costs PySpark a session lookup and a parse
            return F.lit(e.value).cast(t.simpleString())
        if isinstance(e, FieldPath):
            return self.scope.path(e)
        if isinstance(e, Cast):
            try:
                t = drill_type(e.type, *(list(e.args) + [None, None])[:2])
            except ValueError as err:
                raise self.error(e, f"{err}") from None
            if isinstance(t, T.TimeType) and not _time_type_enabled(self.scope):
                raise self.error(
                    e,
                    f"cast to TIME needs Spark's TIME type: set "
                    f"{TIME_TYPE_CONF}=true on the session (drillspark.session() and "
                    "drillspark.configure() do)",
                )
            col = self.compile(e.expr, inside_aggregate)
            if e.repeated:
                return F.transform(col, lambda x: x.cast(t))
            length = e.args[0] if e.type.upper() in ("VARCHAR", "VARBINARY") and e.args else None
            literal = _constant(e.expr)
            try:
                return cast_column(col, self.type_of(col), t, length, literal)
            except CastRefused as err:
                raise self.error(e, str(err)) from None
        if isinstance(e, Convert):
            args = [Arg(self.compile(e.expr, inside_aggregate)), Arg(F.lit(e.encoding), e.encoding)]
            return self._call(f"convert_{e.direction}", args, e)
        if isinstance(e, IfElse):
            exprs = [v for _, v in e.branches] + [e.else_]
            branch_values = [self.compile(v, inside_aggregate) for v in exprs]
            if all(not paths_in(v) for v in exprs) and any(
                isinstance(v, Literal) and isinstance(v.value, str) for v in exprs
            ):
                branch_values = text_when_mixed(
                    branch_values, [self.type_of(v) for v in branch_values]
                )
            out = None
            for (cond, _), v in zip(e.branches, branch_values, strict=False):
                c = self.compile(cond, inside_aggregate)
                if isinstance(cond, Literal) and cond.value is None:
                    c = c.cast("boolean")  # WHEN NULL: never taken
                out = F.when(c, v) if out is None else out.when(c, v)
            assert out is not None
            return out.otherwise(branch_values[-1])
        if isinstance(e, FunctionCall):
            listed = _in_list(e)
            if listed is not None:  # SQL's `x IN (v1, ..., vn)`: one Spark In, not n ORs
                subject, values = listed
                return self.compile(subject, inside_aggregate).isin(
                    *[self.compile(v, inside_aggregate) for v in values]
                )
            try:
                fn = self.catalog.lookup(e.name)
            except UnknownFunctionError as err:
                raise self.placed(
                    UnknownFunctionError(err.name, err.suggestions, self.where(e)), e, str(err)
                ) from None
            is_agg = fn.kind == "aggregate"
            if fn.kind == "window":
                col = self._window_call(e, fn.framed, inside_aggregate)
                return col.cast(fn.over_type) if fn.over_type else col
            if is_agg and not self.aggregates:
                raise self.error(
                    e, f"aggregate function {e.name}() is not allowed here (only in aggregations)"
                )
            if is_agg and inside_aggregate:
                raise self.error(e, f"aggregate {e.name}() nested inside another aggregate")
            args = [self._arg(a, inside_aggregate or is_agg) for a in e.args]
            col = self._call(e.name, args, e)
            if is_agg and self.agg_wrap is not None and not fn.composite:
                col = self.agg_wrap(col)
            return col
        raise self.error(e, f"unsupported expression {e!r}")

    def _window_call(self, e: FunctionCall, framed: bool, inside_aggregate: bool) -> Column:
        if self.window_wrap is None:
            raise self.error(
                e, f"window function {e.name}() is only allowed in a window operator's aggregations"
            )
        if inside_aggregate:
            raise self.error(e, f"window function {e.name}() nested inside an aggregate")
        args = [self._arg(a, inside_aggregate) for a in e.args]
        return self.window_wrap(self._call(e.name, args, e), framed)

    def _arg(self, a: Expr, inside_aggregate: bool) -> Arg:
        col = self.compile(a, inside_aggregate)
        if isinstance(a, Literal):
            return Arg(col, a.value, plan_typed=True, constant=True)
        if isinstance(a, FieldPath) and self.scope.is_missing(a):
            return Arg(col, missing_type=self.missing_type)
        return Arg(col, plan_typed=plan_typed(a, self.scope), constant=not paths_in(a))

    def _call(self, name: str, args: list[Arg], e: Expr) -> Column:
        try:
            return self.catalog.call(name, args, self)
        except ExpressionCompileError:
            raise
        except ValueError as err:
            msg = str(err)
            if self.scope.where and msg.startswith(self.scope.where):  # placed further in
                raise self.placed(
                    ExpressionCompileError(msg), e, msg.removeprefix(self.scope.where)
                ) from None
            raise self.error(e, msg) from None


def plan_typed(e: Expr, scope: Scope) -> bool:
    """Whether Drill's planner knows the type of `e`'s values: literals and CASTs do, a column
    read from schema-free data does not (ANY until run time) but one a CAST computed or a
    database table gave does (marked PLAN_TYPED), and an expression only when every value it
    is made of does (a CASE's conditions do not count). Drill 1.22: `AVG(CAST(d AS
    DECIMAL(9,2)) * 2)` is planned as a DECIMAL, `AVG(d * 1)` is not."""
    if isinstance(e, Literal | Cast):
        return True
    if isinstance(e, IfElse):
        return all(plan_typed(v, scope) for _, v in e.branches) and plan_typed(e.else_, scope)
    if isinstance(e, FunctionCall):
        return all(plan_typed(a, scope) for a in e.args)
    if isinstance(e, FieldPath) and scope.schema is not None:
        return scope.is_plan_typed(e)
    return False  # CONVERT_FROM's type is the data's


def _constant(e: Expr) -> object:
    """The value of a literal, also under the CAST a SQL decimal literal is (`9.999` is
    `cast(9.999 as VARDECIMAL(4, 3))`); None for anything else."""
    while isinstance(e, Cast) and "DECIMAL" in e.type.upper():
        e = e.expr
    return e.value if isinstance(e, Literal) else None


def _in_list(e: FunctionCall) -> tuple[Expr, list[Literal]] | None:
    """(x, [v1, ...]) when `e` is `x == v1 or x == v2 or ...` over literals of one type."""
    if e.name.lower() != "booleanor" or len(e.args) < 3:
        return None
    first = e.args[0]
    if not (isinstance(first, FunctionCall) and first.name == "equal" and len(first.args) == 2):
        return None
    subject = first.args[0]
    values: list[Literal] = []
    for a in e.args:
        if not (
            isinstance(a, FunctionCall)
            and a.name == "equal"
            and len(a.args) == 2
            and isinstance(a.args[1], Literal)
            and a.args[0] == subject
        ):
            return None
        values.append(a.args[1])
    if len({v.type for v in values if v.type != "NULL"}) > 1:
        return None  # mixed types: each comparison keeps its own coercion
    return subject, values


TIME_TYPE_CONF = "spark.sql.timeType.enabled"


def _time_type_enabled(scope: Scope) -> bool:
    return str(scope.df.sparkSession.conf.get(TIME_TYPE_CONF, "false")).lower() == "true"


def _literal_type(e: Literal) -> T.DataType:
    if e.type == "NULL" or e.value is None:
        return T.NullType()
    return _LITERAL_TYPES.get(e.type, T.StringType())


def paths_in(e: Expr) -> list[FieldPath]:
    return [n for n in e.walk() if isinstance(n, FieldPath)]
