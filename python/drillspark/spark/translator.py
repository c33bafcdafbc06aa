"""The translator: a validated LogicalPlan to Spark DataFrames, one operator at a time.

Each operator family lives in its own module (ops_sources, ops_rows, ops_sets, ops_segments);
this module walks the DAG from the sinks, keeps one translation per operator id (a shared input
is translated once), runs `store` operators and returns the result stream.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import ExecutionError, describe
from drillspark.plan import operators as lo
from drillspark.plan.depth import RECURSION_LIMIT, room
from drillspark.spark import ops_joins, ops_rows, ops_segments, ops_sets, ops_sources, row_errors
from drillspark.spark.expressions import ExpressionCompileError, ExpressionCompiler, Scope
from drillspark.spark.function_catalog import FunctionCatalog
from drillspark.spark.functions import CATALOG
from drillspark.spark.rel import PlanExecutionError, Rel
from drillspark.spark.storage import StorageError, StorageRegistry, WriteReport

Op = TypeVar("Op", bound=lo.Operator)
Handler = Callable[["Translator", Any], Rel]


def _entry(
    cls: type[Op], handler: Callable[[Translator, Op], Rel]
) -> tuple[type[lo.Operator], Handler]:
    # one call per operator, so mypy checks the handler takes that class
    return cls, handler


# Keyed by the plan's operator class (one definition of the set: plan.operators); `store` is
# run by `Translator.run` (it writes, it yields no stream) and user operators by `_custom`.
HANDLERS: dict[type[lo.Operator], Handler] = dict(
    [
        _entry(lo.Scan, ops_sources.scan),
        _entry(lo.Constant, ops_sources.constant),
        _entry(lo.Values, ops_sources.constant),
        _entry(lo.Filter, ops_rows.filter_),
        _entry(lo.Project, ops_rows.project),
        _entry(lo.Transform, ops_rows.transform),
        _entry(lo.Limit, ops_rows.limit),
        _entry(lo.Order, ops_rows.order),
        _entry(lo.Flatten, ops_rows.flatten),
        _entry(lo.Join, ops_sets.join),
        _entry(lo.SemiJoin, ops_joins.semi_join),
        _entry(lo.LateralJoin, ops_joins.lateral_join),
        _entry(lo.Unnest, ops_joins.unnest),
        _entry(lo.Union, ops_sets.union),
        _entry(lo.Except, ops_sets.except_),
        _entry(lo.Intersect, ops_sets.intersect),
        _entry(lo.Segment, ops_segments.segment),
        _entry(lo.CollapsingAggregate, ops_segments.collapsing_aggregate),
        _entry(lo.RunningAggregate, ops_segments.running_aggregate),
        _entry(lo.WindowFrame, ops_segments.window_frame),
        _entry(lo.GroupingAggregate, ops_segments.grouping_aggregate),
        _entry(lo.Window, ops_segments.window),
    ]
)
# Operators with no stream handler, and where they are handled instead.
ELSEWHERE: dict[type[lo.Operator], str] = {
    lo.Store: "Translator.run writes it",
    lo.CustomOperator: "Translator._custom runs the registered Arrow operator",
}


_PY4J_CALL = re.compile(r"An error occurred while calling o\d+\.\w+\.\s*:\s*")
_JAVA_CLASS = re.compile(r"^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error):\s*")


def jvm_message(error: BaseException) -> str:
    """`describe(error)` without py4j's "An error occurred while calling o12.load" preamble
    and the Java exception's class name (the message after them is the useful part)."""
    text = _PY4J_CALL.sub("", describe(error))
    return _JAVA_CLASS.sub("", text)


E = TypeVar("E", bound=ExecutionError)


def _place(e: BaseException) -> dict[str, Any]:
    """The place attributes of `e` (an ExecutionError), to carry over to a re-raised error."""
    names = ("op_id", "op", "property", "detail", "line", "column")
    return {n: getattr(e, n, None) for n in names}


class Translator:
    def __init__(
        self,
        spark: SparkSession,
        operators: list[Any],
        storage: StorageRegistry,
        dialect_2013: bool = False,
        catalog: FunctionCatalog = CATALOG,
        missing_type: str = "VARCHAR",
    ):
        self.spark = spark  # used as given: the translator changes none of its settings
        self.missing_type = missing_type  # Drill type of missing columns (see expressions)
        self.ops = {op.id: op for op in operators}
        self.storage = storage
        self.dialect_2013 = dialect_2013
        self.catalog = catalog
        self._rels: dict[int, Rel] = {}
        # DataFrame (by id; kept alive here) -> its schema, where an operator knew it (Rel.schema)
        self._schemas: dict[int, tuple[DataFrame, T.StructType]] = {}
        self._named: dict[str, Column] = {}  # see Scope.named

    # --- helpers for the operator modules ----------------------------------------------------

    @staticmethod
    def where(op: Any) -> str:
        return f"operator @{op.id} ({op.op}): "

    def fail(self, op: Any, message: str) -> PlanExecutionError:
        """The error for `message` about operator `op`: named in the text and as attributes."""
        return PlanExecutionError(f"{self.where(op)}{message}").locate(
            op_id=op.id, op=op.op, detail=message
        )

    def scope(self, op: Any, df: DataFrame) -> Scope:
        return Scope(df, self.where(op), schema=self.known_schema(df), named=self._named)

    def known_schema(self, df: DataFrame) -> T.StructType | None:
        """`df`'s schema if an operator said what it is (Rel.schema), else None."""
        hit = self._schemas.get(id(df))
        return hit[1] if hit is not None and hit[0] is df else None

    def compiler(
        self,
        op: Any,
        scope: Scope,
        prop: str,
        aggregates: bool = False,
        agg_wrap: Callable[[Column], Column] | None = None,
        window_wrap: Callable[[Column, bool], Column] | None = None,
        source_aggregates: bool = False,
    ) -> ExpressionCompiler:
        return ExpressionCompiler(
            scope,
            self.catalog,
            aggregates,
            agg_wrap,
            prop,
            self.missing_type,
            window_wrap,
            source_aggregates,
        )

    def rel(self, op_id: int) -> Rel:
        if op_id not in self._rels:
            if op_id not in self.ops:
                raise PlanExecutionError(f"no operator with @id {op_id}")
            # inputs first, without recursion: a long operator chain would otherwise hit
            # Python's recursion limit inside some inner operator and name the wrong one
            for dep in self._unbuilt_inputs_first(op_id):
                rel = self._rels[dep] = self._translate(self.ops[dep])
                if rel.schema is not None:
                    self._schemas[id(rel.df)] = (rel.df, rel.schema)
        return self._rels[op_id]

    def _unbuilt_inputs_first(self, op_id: int) -> list[int]:
        """`op_id` and its untranslated (transitive) inputs, inputs before their consumers."""
        order: list[int] = []
        seen = {op_id}
        stack: list[tuple[int, bool]] = [(op_id, False)]
        while stack:
            current, expanded = stack.pop()
            if expanded:
                order.append(current)
                continue
            stack.append((current, True))
            for dep in reversed(self._eager_inputs(self.ops[current])):
                if dep in self.ops and dep not in self._rels and dep not in seen:
                    seen.add(dep)
                    stack.append((dep, False))
        return order

    @staticmethod
    def _eager_inputs(op: Any) -> list[int]:
        """The inputs built before `op`: all but a lateral-join's right side, which its handler
        builds itself while the current left row is set (the unnest there reads it)."""
        if isinstance(op, lo.LateralJoin):
            return [op.left]
        return list(op.input_ids)

    def df(self, op_id: int) -> DataFrame:
        return self.rel(op_id).materialized()

    def input_df(self, op: Any) -> DataFrame:
        return self.df(op.input)

    def pushes_aggregates(self, op: Any) -> bool:
        """Whether `op`'s input reads, through filters, projects and joins only, scans whose
        storage engines run Spark's own aggregates in their source (a database through JDBC,
        which may take the join too): such aggregates keep Spark's functions, the ones the
        source's pushdown knows (spark/functions.py)."""

        def in_source(node: Any) -> bool:
            if isinstance(node, lo.Filter | lo.Project):
                return in_source(self.ops.get(node.input))
            if isinstance(node, lo.Join):
                return in_source(self.ops.get(node.left)) and in_source(self.ops.get(node.right))
            if isinstance(node, lo.Scan):
                engine = self.storage.get(node.storage_engine, self.where(node))
                return bool(engine.pushes_aggregates)
            return False

        return in_source(self.ops.get(op.input))

    # --- translation --------------------------------------------------------------------------

    def _translate(self, op: Any) -> Rel:
        handler = HANDLERS.get(type(op))
        try:
            with row_errors.operator(op.id, op.op):  # the operator a row error names
                if handler is not None:
                    return handler(self, op)
                return self._custom(op)
        except (PlanExecutionError, ExpressionCompileError, StorageError) as e:
            self._placed(e, op)
            raise
        except RecursionError:
            raise self.fail(
                op,
                "its expressions nest too deeply to translate (Python "
                f"recursion limit {RECURSION_LIMIT} reached)",
            ) from None
        except ValueError as e:  # bad arguments found while building (names the operator)
            if isinstance(e, ExecutionError) and e.detail is not None:  # placed already
                raise self._placed(PlanExecutionError(str(e)).locate(**_place(e)), op) from None
            raise self.fail(op, str(e)) from None
        except Exception as e:  # Spark analysis errors: one readable line, no JVM trace
            raise self.fail(op, jvm_message(e)) from e

    def _placed(self, e: E, op: Any) -> E:
        """`e` with the operator it was raised under, unless an inner operator claimed it; its
        `detail` is the message after this operator's place when the message starts so."""
        prefix, text = self.where(op), str(e)
        detail = text.removeprefix(prefix) if text.startswith(prefix) else None
        if e.op_id is None:
            e.locate(op_id=op.id, op=op.op, detail=detail)
        return e

    def _custom(self, op: Any) -> Rel:
        from drillspark.plugins import registered_operator

        cls = registered_operator(op.op)
        if cls is None:
            raise self.fail(op, f"unknown operator {op.op!r}")
        from drillspark.operators.spark import apply_operator  # imports pyarrow: only here

        inputs = list(op.input_ids)
        if len(inputs) != 1:
            raise self.fail(op, "plugin operators take exactly one input")
        props = dict(getattr(op, "properties", {}) or {})
        return Rel(apply_operator(self.df(inputs[0]), cls, props, op_id=op.id))

    def frames(self) -> list[tuple[Any, DataFrame]]:
        """The translated operators with their DataFrames, in topological order."""
        return [(op, self.df(op.id)) for op in self.ops.values() if op.id in self._rels]

    def _returns_rows(self, op: Any) -> bool:
        """Whether the store `op` hands its rows back as the result (a sink engine, or a
        `console:` file target) instead of writing them."""
        target = op.target if isinstance(op.target, dict) else {}
        engine = self.storage.get(op.storage_engine, self.where(op))
        return bool(engine.sink) or str(target.get("file", "")).startswith("console:")

    def writes_files(self) -> bool:
        """Whether running the plan writes files (a store that does not return its rows);
        an unknown storage engine counts as writing (run() reports it)."""
        try:
            return any(op.op == "store" and not self._returns_rows(op) for op in self.ops.values())
        except Exception:
            return True

    def run(self) -> tuple[DataFrame, list[WriteReport]]:
        """Translate the whole plan, write file stores, and return the result stream (the
        console/screen sink's input, else the last sink's input or the plan's last operator)."""
        with room():
            return self._run()

    def _run(self) -> tuple[DataFrame, list[WriteReport]]:
        consumed = {i for op in self.ops.values() for i in op.input_ids}
        roots = [op for op in self.ops.values() if op.id not in consumed]
        if not roots:
            raise PlanExecutionError("the plan has no operators")
        written: list[WriteReport] = []
        result: DataFrame | None = None
        for op in roots:
            if op.op != "store":
                result = self.df(op.id)
                continue
            df = self.input_df(op)
            if self._returns_rows(op):
                result = df
                continue
            engine = self.storage.get(op.storage_engine, self.where(op))
            try:
                written.append(engine.write(df, op.target))
            except StorageError as e:
                raise self.fail(op, str(e)) from None
            except Exception as e:
                raise self.fail(op, f"{describe(e)}") from e
        if result is None:
            result = self._written_frame(written)
        return _python_readable(result), written

    def _written_frame(self, written: list[WriteReport]) -> DataFrame:
        schema = T.StructType(
            [
                T.StructField("path", T.StringType()),
                T.StructField("format", T.StringType()),
                T.StructField("files", T.LongType()),
                T.StructField("rows", T.LongType()),
            ]
        )
        rows = [(w.path, w.format, len(w.files), w.rows) for w in written]
        return self.spark.createDataFrame(rows, schema).select(
            "path", "format", F.col("files"), F.col("rows")
        )


def _python_readable(df: DataFrame) -> DataFrame:
    """The result with its months-days-time intervals (AGE's) as Drill's JDBC text of them:
    Spark cannot hand that type to Python, so any other way the rows could not be read."""
    mixed = [f.name for f in df.schema.fields if isinstance(f.dataType, T.CalendarIntervalType)]
    if not mixed:
        return df
    from drillspark.spark.functions_datetime import period_text

    return df.withColumns({n: period_text(F.col(f"`{n}`")) for n in mixed})
