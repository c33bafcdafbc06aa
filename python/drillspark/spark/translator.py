"""The translator: a validated LogicalPlan to Spark DataFrames, one operator at a time.

Each operator family lives in its own module (ops_sources, ops_rows, ops_sets, ops_segments);
this module walks the DAG from the sinks, keeps one translation per operator id (a shared input
is translated once), runs `store` operators and returns the result stream.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.errors import describe
from drillspark.plan.depth import RECURSION_LIMIT, room
from drillspark.spark import ops_joins, ops_rows, ops_segments, ops_sets, ops_sources
from drillspark.spark.expressions import ExpressionCompiler, ExpressionError, Scope
from drillspark.spark.functions import CATALOG, FunctionCatalog
from drillspark.spark.rel import PlanExecutionError, Rel
from drillspark.spark.storage import StorageError, StorageRegistry, WriteReport

Handler = Callable[["Translator", Any], Rel]

HANDLERS: dict[str, Handler] = {
    "scan": ops_sources.scan,
    "constant": ops_sources.constant,
    "values": ops_sources.constant,
    "filter": ops_rows.filter_,
    "project": ops_rows.project,
    "transform": ops_rows.transform,
    "limit": ops_rows.limit,
    "order": ops_rows.order,
    "flatten": ops_rows.flatten,
    "join": ops_sets.join,
    "semi-join": ops_joins.semi_join,
    "lateral-join": ops_joins.lateral_join,
    "unnest": ops_joins.unnest,
    "union": ops_sets.union,
    "except": ops_sets.except_,
    "intersect": ops_sets.intersect,
    "segment": ops_segments.segment,
    "collapsingaggregate": ops_segments.collapsing_aggregate,
    "runningaggregate": ops_segments.running_aggregate,
    "windowframe": ops_segments.window_frame,
    "groupingaggregate": ops_segments.grouping_aggregate,
    "window": ops_segments.window,
}


_PY4J_CALL = re.compile(r"An error occurred while calling o\d+\.\w+\.\s*:\s*")
_JAVA_CLASS = re.compile(r"^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error):\s*")


def jvm_message(error: BaseException) -> str:
    """`describe(error)` without py4j's "An error occurred while calling o12.load" preamble
    and the Java exception's class name (the message after them is the useful part)."""
    text = _PY4J_CALL.sub("", describe(error))
    return _JAVA_CLASS.sub("", text)


class Translator:
    def __init__(self, spark: SparkSession, operators: list[Any], storage: StorageRegistry,
                 dialect_2013: bool = False, catalog: FunctionCatalog = CATALOG,
                 missing_type: str = "VARCHAR"):
        self.spark = spark  # used as given: the translator changes none of its settings
        self.missing_type = missing_type  # Drill type of missing columns (see expressions)
        self.ops = {op.id: op for op in operators}
        self.storage = storage
        self.dialect_2013 = dialect_2013
        self.catalog = catalog
        self._rels: dict[int, Rel] = {}

    # --- helpers for the operator modules ----------------------------------------------------

    @staticmethod
    def where(op: Any) -> str:
        return f"operator @{op.id} ({op.op}): "

    def scope(self, op: Any, df: DataFrame) -> Scope:
        return Scope(df, self.where(op))

    def compiler(self, op: Any, scope: Scope, prop: str, aggregates: bool = False,
                 agg_wrap: Callable[[Column], Column] | None = None,
                 window_wrap: Callable[[Column, bool], Column] | None = None,
                 ) -> ExpressionCompiler:
        return ExpressionCompiler(scope, self.catalog, aggregates, agg_wrap, prop,
                                  self.missing_type, window_wrap)

    def rel(self, op_id: int) -> Rel:
        if op_id not in self._rels:
            if op_id not in self.ops:
                raise PlanExecutionError(f"no operator with @id {op_id}")
            # inputs first, without recursion: a long operator chain would otherwise hit
            # Python's recursion limit inside some inner operator and name the wrong one
            for dep in self._unbuilt_inputs_first(op_id):
                self._rels[dep] = self._translate(self.ops[dep])
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
            for dep in reversed(list(self.ops[current].input_ids)):
                if dep in self.ops and dep not in self._rels and dep not in seen:
                    seen.add(dep)
                    stack.append((dep, False))
        return order

    def df(self, op_id: int) -> DataFrame:
        return self.rel(op_id).materialized()

    def input_df(self, op: Any) -> DataFrame:
        return self.df(op.input)

    # --- translation --------------------------------------------------------------------------

    def _translate(self, op: Any) -> Rel:
        name = op.op
        handler = HANDLERS.get(name) or HANDLERS.get(name.lower())
        try:
            if handler is not None:
                return handler(self, op)
            return self._custom(op)
        except (PlanExecutionError, ExpressionError, StorageError):
            raise
        except RecursionError:
            raise PlanExecutionError(f"{self.where(op)}its expressions nest too deeply to "
                                     f"translate (Python recursion limit {RECURSION_LIMIT} "
                                     "reached)") from None
        except ValueError as e:  # bad arguments found while building (names the operator)
            msg = str(e)
            raise PlanExecutionError(msg if msg.startswith("operator @") else
                                     f"{self.where(op)}{msg}") from None
        except Exception as e:  # Spark analysis errors: one readable line, no JVM trace
            raise PlanExecutionError(f"{self.where(op)}{jvm_message(e)}") from e

    def _custom(self, op: Any) -> Rel:
        from drillspark.plugins import registered_operator

        cls = registered_operator(op.op)
        if cls is None:
            raise PlanExecutionError(f"{self.where(op)}unknown operator {op.op!r}")
        from drillspark.operators.spark import apply_operator  # imports pyarrow: only here

        inputs = list(op.input_ids)
        if len(inputs) != 1:
            raise PlanExecutionError(f"{self.where(op)}plugin operators take exactly one input")
        props = dict(getattr(op, "properties", {}) or {})
        return Rel(apply_operator(self.df(inputs[0]), cls, props, op_id=op.id))

    def frames(self) -> list[tuple[Any, DataFrame]]:
        """The translated operators with their DataFrames, in topological order."""
        return [(op, self.df(op.id)) for op in self.ops.values() if op.id in self._rels]

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
            target = op.target if isinstance(op.target, dict) else {}
            engine = self.storage.get(op.storage_engine, self.where(op))
            if engine.sink or str(target.get("file", "")).startswith("console:"):
                result = df
                continue
            try:
                written.append(engine.write(df, op.target))
            except StorageError as e:
                raise PlanExecutionError(f"{self.where(op)}{e}") from None
            except Exception as e:
                raise PlanExecutionError(f"{self.where(op)}{describe(e)}") from e
        if result is None:
            result = self._written_frame(written)
        return result, written

    def _written_frame(self, written: list[WriteReport]) -> DataFrame:
        schema = T.StructType([T.StructField("path", T.StringType()),
                               T.StructField("format", T.StringType()),
                               T.StructField("files", T.LongType()),
                               T.StructField("rows", T.LongType())])
        rows = [(w.path, w.format, len(w.files), w.rows) for w in written]
        return self.spark.createDataFrame(rows, schema).select(
            "path", "format", F.col("files"), F.col("rows"))
