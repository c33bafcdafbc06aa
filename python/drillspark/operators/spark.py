"""Running operators and registered functions inside Spark, through public DataFrame APIs
(mapInArrow, applyInArrow and Arrow UDFs), so the same code runs on classic Spark and on
Spark Connect. The three non-public PySpark helpers it needs (Arrow <-> Spark schema
conversion, pickling user modules by value) live in `_pyspark_compat`.

    out = apply_operator(df, "nested-filter", {"path": "a.x", "relationship": ">", "value": 3}, op_id=4)
    out = apply_plan_node(df, {"op": "nested-filter", "@id": 4, "input": 3, "path": "a.x", ...})
    df.select(function_column("drill_my_fn", "x"))
    register_functions(spark)          # registered functions become SQL functions

The output schema is computed at schema time on the driver (the operator's
`output_schema` over `df.schema` in Arrow form), so Spark knows it before anything runs;
the batches never leave the executors.
"""

from __future__ import annotations

import copy
import difflib
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from drillspark import plugins
from drillspark.errors import ExecutionError
from drillspark.operators._pyspark_compat import (
    from_arrow_schema,
    register_pickle_by_value,
    to_arrow_schema,
)
from drillspark.operators.base import SingleInputOperator, conform
from drillspark.operators.errors import OperatorError
from drillspark.operators.fragment import chain_output_schema, run_fragment
from drillspark.operators.limits import BatchLimits

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

OperatorSpec = str | type | SingleInputOperator


class UnknownOperatorError(ExecutionError, LookupError):
    pass


class UnknownPluginFunctionError(ExecutionError, LookupError):
    pass


# ---- operators -------------------------------------------------------------------------
def make_operator(
    spec: OperatorSpec, properties: Mapping[str, Any] | None = None, op_id: object = None
) -> SingleInputOperator:
    """An operator instance from a registered name, a class (with `properties`), or an
    instance (taken as is)."""
    if isinstance(spec, SingleInputOperator):
        if properties:
            raise ValueError("give properties either to the operator instance or here, not both")
        return spec
    cls: type | None = spec if isinstance(spec, type) else None
    if isinstance(spec, str):
        cls = plugins.registered_operator(spec)
        if cls is None:
            close = difflib.get_close_matches(spec.lower(), plugins.operator_names(), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise UnknownOperatorError(f"no operator named '{spec}' is registered{hint}")
    if not (isinstance(cls, type) and issubclass(cls, SingleInputOperator)):
        raise TypeError(
            f"{spec!r} is not a drillspark operator class (derive from "
            "drillspark.operators.SingleInputOperator)"
        )
    return cls(dict(properties or {}), op_id=op_id)


def arrow_schema(df: DataFrame) -> pa.Schema:
    """`df.schema` as the Arrow schema its mapInArrow batches will have."""
    conf = df.sparkSession.conf
    return to_arrow_schema(
        df.schema,
        timezone=conf.get("spark.sql.session.timeZone", None),
        prefers_large_types=str(
            conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false")
        ).lower()
        == "true",
    )


def apply_operator(
    df: DataFrame,
    op: OperatorSpec,
    properties: Mapping[str, Any] | None = None,
    *,
    op_id: object = None,
    limits: BatchLimits | None = None,
) -> DataFrame:
    """Run one operator over every partition of `df` (mapInArrow); returns the output."""
    return apply_operators(df, [make_operator(op, properties, op_id)], limits=limits)


# Keys of a logical-plan node that belong to the plan, not to the operator.
PLAN_KEYS = frozenset({"op", "@id", "input", "memo"})


def apply_plan_node(df: DataFrame, node: Mapping[str, Any]) -> DataFrame:
    """Run the plan node `{"op": name, "@id": n, "input": m, ...properties}` over `df` (the
    DataFrame of its input): every key but op, @id, input and memo is a property."""
    properties = {k: v for k, v in node.items() if k not in PLAN_KEYS}
    return apply_operator(df, node["op"], properties, op_id=node.get("@id"))


def apply_operators(
    df: DataFrame, operators: Sequence[OperatorSpec], *, limits: BatchLimits | None = None
) -> DataFrame:
    """Run a chain of operators (first applied first) in one pass over each partition."""
    ops = [make_operator(op) for op in operators]
    out_schema = chain_output_schema(ops, arrow_schema(df))  # schema time, on the driver
    spark_schema = from_arrow_schema(out_schema)
    for op in ops:
        ship_by_value(type(op))
    return df.mapInArrow(_partition_runner(ops, limits or BatchLimits(), out_schema), spark_schema)


def apply_operator_within(
    df: DataFrame,
    keys: Sequence[str | Column],
    op: OperatorSpec,
    properties: Mapping[str, Any] | None = None,
    *,
    op_id: object = None,
    limits: BatchLimits | None = None,
) -> DataFrame:
    """Run a fresh operator over each group of rows with equal `keys` (groupBy +
    applyInArrow): Drill's segments, where an operator "avoids carrying state between segment
    boundaries". A blocking operator (one whose `finish()` emits) then yields per segment."""
    ops = [make_operator(op, properties, op_id)]
    out_schema = chain_output_schema(ops, arrow_schema(df))
    ship_by_value(type(ops[0]))
    run = _partition_runner(ops, limits or BatchLimits(), out_schema)
    spark_schema = from_arrow_schema(out_schema)
    return df.groupBy(*keys).applyInArrow(run, spark_schema)


def _partition_runner(
    prototypes: list[SingleInputOperator], limits: BatchLimits, out_schema: pa.Schema
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    where = prototypes[-1]._where() if prototypes else "operator chain"

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        ops = [copy.deepcopy(op) for op in prototypes]  # fresh, never-run operators
        try:
            for batch in run_fragment(batches, ops, limits):
                if not batch.schema.equals(out_schema):
                    batch = conform(batch, out_schema, where)
                yield batch
        except OperatorError as error:
            raise error.in_partition(_partition_id()) from error.cause

    return run


def _partition_id() -> int | None:
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.partitionId() if context is not None else None


def ship_by_value(obj: Any) -> None:
    """Make cloudpickle send the code of `obj`'s module by value when executors might not be
    able to import it (a user's script or test module rather than an installed package)."""
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    if module is None or module.__name__ == "__main__":
        return  # __main__ is always pickled by value
    if module.__name__.split(".")[0] in ("drillspark", "pyspark", "pyarrow", "numpy", "pandas"):
        return
    path = getattr(module, "__file__", None) or ""
    if "site-packages" in path or "dist-packages" in path:
        return
    register_pickle_by_value(module)


# ---- functions -------------------------------------------------------------------------
def function_column(name: str, *cols: Column | str) -> Column:
    """A registered vectorized function applied to `cols`, as a Spark Column (scalar: in a
    select or filter; aggregate: in `groupBy(...).agg(...)`)."""
    return spark_udf(name)(*cols)


# name -> (the registration, its UDF). The registration object itself is the key: a UDF
# is reused only while `name` still maps to the very same registration, so re-registering a
# name (even if the new object gets the old one's id) builds a fresh UDF.
_udfs: dict[str, tuple[plugins.RegisteredFunction, Any]] = {}


def spark_udf(name: str) -> Any:
    """The Spark UDF (an Arrow UDF, or a pandas UDF for `style="pandas"`) for a registered
    function; built once per registration."""
    fn = plugins.registered_function(name)
    if fn is None:
        close = difflib.get_close_matches(name.lower(), plugins.function_names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownPluginFunctionError(f"no function named '{name}' is registered{hint}")
    cached = _udfs.get(fn.name)
    if cached is None or cached[0] is not fn:
        cached = _udfs[fn.name] = (fn, _build_udf(fn))
    return cached[1]


def _build_udf(fn: plugins.RegisteredFunction) -> Any:
    import pyspark.sql.functions as F
    from pyspark.sql.functions import ArrowUDFType, PandasUDFType

    returns = fn.options.get("returns")
    if returns is None:
        raise ValueError(
            f"function '{fn.name}' was registered without `returns` (its Spark result type), "
            f"e.g. @drillspark.function('{fn.name}', kind='{fn.kind}', returns='double')"
        )
    ship_by_value(fn.impl)
    impl = fn.impl
    style = fn.options.get("style", "arrow")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "prefer type hints": we pass the kind
        if style == "pandas":
            kind = PandasUDFType.SCALAR if fn.kind == "scalar" else PandasUDFType.GROUPED_AGG
            udf = F.pandas_udf(_named(impl, fn.name), returns, kind)
        elif fn.kind == "scalar":
            udf = F.arrow_udf(_arrow_scalar(impl, fn.name), returns, ArrowUDFType.SCALAR)  # type: ignore[call-overload]
        else:
            udf = F.arrow_udf(_arrow_aggregate(impl, fn.name), returns, ArrowUDFType.GROUPED_AGG)  # type: ignore[call-overload]
    return udf.asNondeterministic() if fn.options.get("deterministic") is False else udf


def _named(impl: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`impl` under the registered name (Spark names result columns after the function)."""

    def call(*args: Any) -> Any:
        return impl(*args)

    call.__name__ = call.__qualname__ = name
    return call


def _arrow_scalar(impl: Callable[..., Any], name: str) -> Callable[..., pa.Array]:
    def scalar(*arrays: pa.Array) -> pa.Array:
        result = impl(*arrays)
        if isinstance(result, pa.ChunkedArray):
            return result.combine_chunks()
        return result if isinstance(result, pa.Array) else pa.array(result)

    scalar.__name__ = scalar.__qualname__ = name
    return scalar


def _arrow_aggregate(impl: Callable[..., Any], name: str) -> Callable[..., Any]:
    def aggregate(*arrays: pa.Array) -> Any:
        result = impl(*arrays)
        return result.as_py() if isinstance(result, pa.Scalar) else result

    aggregate.__name__ = aggregate.__qualname__ = name
    return aggregate


def register_functions(spark: SparkSession, names: Sequence[str] | None = None) -> list[str]:
    """Make registered functions callable from Spark SQL (and so from Drill SQL) in this
    session, under their registered names; returns the names registered. A name that would
    hide a Spark built-in or one of drillspark's own jar functions (the `drill_*` functions
    the extension registers) is refused with an error saying which."""
    done = []
    for name in names if names is not None else plugins.function_names():
        hidden = _function_it_would_hide(spark, name)
        if hidden is not None:
            raise ValueError(f"function '{name}' would hide {hidden}")
        spark.udf.register(name, spark_udf(name))
        done.append(name)
    return done


# Packages of the classes behind functions a registration must never shadow.
_SPARK_BUILTIN_PACKAGE = "org.apache.spark.sql.catalyst."
_DRILLSPARK_JAR_PACKAGES = ("drillspark.", "org.apache.spark.sql.drillspark.")


def _function_it_would_hide(spark: SparkSession, name: str) -> str | None:
    """What registering `name` in `spark` would shadow (None: nothing that matters), found
    through the public catalog API so it also works on Spark Connect."""
    if not spark.catalog.functionExists(name):
        return None
    class_name = spark.catalog.getFunction(name).className or ""
    if class_name.startswith(_SPARK_BUILTIN_PACKAGE):
        return f"Spark's built-in '{name}'; register it as 'drill_{name}' instead"
    if class_name.startswith(_DRILLSPARK_JAR_PACKAGES):
        return (
            f"drillspark's own function '{name}' ({class_name}, from the extension jar); "
            "choose another name"
        )
    return None  # a Python function registered earlier (by us or the user): replaced
