"""Source operators: `scan` (through a storage engine) and `constant` / `values`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.plan import operators as lo
from drillspark.spark.records import names_of, record_of
from drillspark.spark.rel import Rel
from drillspark.spark.scope import quote
from drillspark.spark.storage import stamps

if TYPE_CHECKING:
    from drillspark.spark.translator import Translator


def scan(tr: Translator, op: lo.Scan) -> Rel:
    engine = tr.storage.get(op.storage_engine, tr.where(op))
    if not engine.readable:
        raise tr.fail(op, f"storage engine {op.storage_engine!r} ({engine.kind}) cannot be scanned")
    selection = op.selection
    cap = _row_cap(tr, op) if getattr(engine, "takes_limit", False) else None
    if cap is not None and isinstance(selection, dict):
        selection = {**selection, "limit": cap}  # the engine may ask its source for no more
    with stamps.scan():  # whether the read is one a kept translation can follow (plan_reuse)
        df = engine.read(tr.spark, selection)
    ref = getattr(op, "ref", None)
    if ref is not None:
        # 2013: every record is held under `ref` (`donuts.ppu`)
        cols = [F.col(quote(c)) for c in df.columns]
        df = df.select(*record_of([(names_of(ref), F.struct(*cols))]))
    return Rel(df)


def _row_cap(tr: Translator, op: lo.Scan) -> int | None:
    """How many rows of the scan the plan can use: a limit's end when the scan reaches it alone
    through projects only (each the one consumer of its input), else None. The limit stays in
    the plan; an engine that takes the cap (`takes_limit`: http's `limitQueryParam` and
    paginators) only asks for less."""
    consumers: dict[int, list[Any]] = {}
    for other in tr.ops.values():
        for i in other.input_ids:
            consumers.setdefault(i, []).append(other)
    current: Any = op
    while len(consumers.get(current.id, [])) == 1:
        nxt = consumers[current.id][0]
        if isinstance(nxt, lo.Limit):
            return nxt.last if nxt.last is not None and nxt.last >= 0 else None
        if not isinstance(nxt, lo.Project) or "flatten" in repr(nxt.projections).lower():
            return None
        current = nxt
    return None


def constant(tr: Translator, op: lo.Values | lo.Constant) -> Rel:
    content = op.content
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError as e:
            raise tr.fail(op, f"content is not JSON: {e}") from None
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list) or not all(isinstance(r, dict) for r in content):
        raise tr.fail(op, "content must be a list of records")
    schema = infer_schema(content)
    rows = [(json.dumps(r),) for r in content]
    raw = tr.spark.createDataFrame(rows, "value string")
    parsed = raw.select(F.from_json("value", schema).alias("r"))
    return Rel(parsed.select(*[F.col("r").getField(f.name).alias(f.name) for f in schema.fields]))


# --- types implied by JSON values (Drill: integers BIGINT, floats FLOAT8) ----------------------


def _type_of(value: Any) -> T.DataType:
    if value is None:
        return T.NullType()
    if isinstance(value, bool):
        return T.BooleanType()
    if isinstance(value, int):
        return T.LongType()
    if isinstance(value, float):
        return T.DoubleType()
    if isinstance(value, str):
        return T.StringType()
    if isinstance(value, dict):
        return T.StructType([T.StructField(k, _type_of(v)) for k, v in value.items()])
    if isinstance(value, list):
        et: T.DataType = T.NullType()
        for v in value:
            et = _merge(et, _type_of(v))
        return T.ArrayType(et)
    return T.StringType()


def _merge(a: T.DataType, b: T.DataType) -> T.DataType:
    if isinstance(a, T.NullType):
        return b
    if isinstance(b, T.NullType) or a == b:
        return a
    if {type(a), type(b)} == {T.LongType, T.DoubleType}:
        return T.DoubleType()
    if isinstance(a, T.StructType) and isinstance(b, T.StructType):
        fields = {f.name: f.dataType for f in a.fields}
        for f in b.fields:
            fields[f.name] = _merge(fields.get(f.name, T.NullType()), f.dataType)
        return T.StructType([T.StructField(k, v) for k, v in fields.items()])
    if isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType):
        return T.ArrayType(_merge(a.elementType, b.elementType))
    return T.StringType()  # conflicting kinds: JSON text, as Drill's reader falls back to


def _finish(t: T.DataType) -> T.DataType:
    if isinstance(t, T.NullType):
        return T.StringType()  # an all-null field: nullable VARCHAR (Drill's JSON rule)
    if isinstance(t, T.StructType):
        return T.StructType([T.StructField(f.name, _finish(f.dataType)) for f in t.fields])
    if isinstance(t, T.ArrayType):
        return T.ArrayType(_finish(t.elementType))
    return t


def infer_schema(records: list[dict[str, Any]]) -> T.StructType:
    t: T.DataType = T.StructType([])
    for r in records:
        t = _merge(t, _type_of(r))
    out = _finish(t)
    assert isinstance(out, T.StructType)
    return out
