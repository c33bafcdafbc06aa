"""Segment-wise operators: segment, collapsingaggregate, runningaggregate, windowframe (2013)
and groupingaggregate, window (today's dialect)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from drillspark.spark.ops_rows import sort_column
from drillspark.spark.records import names_of, record_of, set_path
from drillspark.spark.rel import POS, PendingSegment, PlanExecutionError, Rel

if TYPE_CHECKING:
    from drillspark.spark.translator import Translator


def segment(tr: Translator, op: Any) -> Rel:
    """The key goes to `ref`; the records are brought together lazily (see PendingSegment)."""
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    keys = [tr.compiler(op, scope, f"exprs[{i}]").compile(e) for i, e in enumerate(op.exprs)]
    if not keys:
        raise PlanExecutionError(f"{tr.where(op)}segment needs at least one expression")
    key = keys[0] if len(keys) == 1 else F.struct(*[k.alias(f"k{i}") for i, k in enumerate(keys)])
    ref = names_of(op.ref)
    if len(ref) != 1:
        raise PlanExecutionError(f"{tr.where(op)}a segment ref must be a single name")
    return Rel(df.withColumn(ref[0], key), PendingSegment(ref[0], tuple(op.exprs), key))


def _segment_key(tr: Translator, op: Any, within: Any) -> tuple[DataFrame, Column | None,
                                                                  PendingSegment | None]:
    """The input and, when `within` is given, the column holding its segment key."""
    rel = tr.rel(op.input)
    if within is None:
        return rel.materialized(), None, None
    name = names_of(within)
    if rel.segment is not None and name == (rel.segment.ref,):
        return rel.df, rel.segment.key, rel.segment
    df = rel.materialized()
    return df, tr.scope(op, df).path(within), None


def collapsing_aggregate(tr: Translator, op: Any) -> Rel:
    df, key, seg = _segment_key(tr, op, op.within)
    scope = tr.scope(op, df)
    aggs: list[tuple[tuple[str, ...], Column]] = []
    for i, a in enumerate(op.aggregations):
        comp = tr.compiler(op, scope, f"aggregations[{i}].expr", aggregates=True)
        aggs.append((names_of(a.ref), comp.compile(a.expr)))
    carry: list[tuple[tuple[str, ...], Column]] = []
    for c in op.carryovers:
        path = names_of(c)
        if seg is not None and len(seg.keys) == 1 and _same_path(seg.keys[0], c):
            carry.append((path, None))  # type: ignore[arg-type]  # the grouping key itself
        else:
            carry.append((path, scope.path(c)))
    target = scope.path(op.target) if op.target is not None else None
    agg_cols = [v.alias(f"__a{i}") for i, (_, v) in enumerate(aggs)]
    if target is not None:
        chosen = F.struct(*[(v if v is not None else key).alias(f"c{i}")  # type: ignore[union-attr]
                            for i, (_, v) in enumerate(carry)], F.lit(True).alias("_t"))
        agg_cols.append(F.first(F.when(F.coalesce(target, F.lit(False)), chosen),
                                ignorenulls=True).alias("__carry"))
    else:
        agg_cols += [F.first(v).alias(f"__c{i}") for i, (_, v) in enumerate(carry) if v is not None]
    grouped = df.groupBy(key.alias("__key")) if key is not None else df.groupBy()
    out = grouped.agg(*agg_cols)
    fields: list[tuple[tuple[str, ...], Column]] = []
    for i, (path, v) in enumerate(carry):
        if target is not None:
            fields.append((path, F.col("__carry").getField(f"c{i}")))
        else:
            fields.append((path, F.col("__key") if v is None else F.col(f"__c{i}")))
    fields += [(path, F.col(f"__a{i}")) for i, (path, _) in enumerate(aggs)]
    if target is not None:
        # no record whose target is true: the segment gives no output
        out = out.where(F.col("__carry").isNotNull())
    return Rel(out.select(*record_of(fields)))


def _same_path(expr: Any, path: Any) -> bool:
    segs = getattr(expr, "segments", None)
    return segs is not None and [str(s).lower() for s in segs] == \
        [str(s).lower() for s in path.segments]


def running_aggregate(tr: Translator, op: Any) -> Rel:
    """Running values in input order, restarting at each segment of `within`."""
    df, key, _ = _segment_key(tr, op, op.within)
    df = df.withColumn(POS, F.monotonically_increasing_id())
    w = Window.orderBy(POS) if key is None else Window.partitionBy(key).orderBy(POS)
    w = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    scope = tr.scope(op, df)
    for i, a in enumerate(op.aggregations):
        comp = tr.compiler(op, scope, f"aggregations[{i}].expr", aggregates=True,
                           agg_wrap=lambda c: c.over(w))
        df = set_path(df, names_of(a.ref), comp.compile(a.expr))
    order = [F.col(POS)] if key is None else [key.asc_nulls_first(), F.col(POS)]
    return Rel(df.orderBy(*order).drop(POS))


def window_frame(tr: Translator, op: Any) -> Rel:
    """Each record is repeated once per window it falls in: `ref.segment` holds the window's
    target record (its 0-based position in the stream, or in its segment with `within`) and
    `ref.position` the record's offset from the target (-2, -1, 0, ...)."""
    if op.start is None and op.end is None:
        raise PlanExecutionError(f"{tr.where(op)}windowframe needs start or end")
    df, key, _ = _segment_key(tr, op, op.within)
    df = df.withColumn(POS, F.monotonically_increasing_id())
    part = Window.partitionBy(key) if key is not None else Window.partitionBy()
    idx, n = "__drill_idx", "__drill_n"
    df = (df.withColumn(idx, F.row_number().over(part.orderBy(POS)) - 1)
            .withColumn(n, F.count(F.lit(1)).over(part)))
    lo = F.lit(op.start) if op.start is not None else -(F.col(n) - 1)
    hi = F.lit(op.end) if op.end is not None else F.col(n) - 1
    pcol, seg = "__drill_p", "__drill_target"
    df = df.withColumn(pcol, F.explode(F.sequence(lo.cast("long"), hi.cast("long"))))
    df = df.withColumn(seg, F.col(idx) - F.col(pcol))
    df = df.where((F.col(seg) >= 0) & (F.col(seg) < F.col(n)))
    order = ([key.asc_nulls_first()] if key is not None else []) + [F.col(seg), F.col(pcol)]
    df = df.orderBy(*order)
    df = set_path(df, names_of(op.ref.segment), F.col(seg))
    df = set_path(df, names_of(op.ref.position), F.col(pcol))
    return Rel(df.drop(POS, idx, n, pcol, seg))


def grouping_aggregate(tr: Translator, op: Any) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    keys = [(names_of(k.ref), tr.compiler(op, scope, f"keys[{i}].expr").compile(k.expr))
            for i, k in enumerate(op.keys)]
    aggs = [(names_of(e.ref), tr.compiler(op, scope, f"exprs[{i}].expr", aggregates=True)
             .compile(e.expr)) for i, e in enumerate(op.exprs)]
    out = df.groupBy(*[c.alias(f"__k{i}") for i, (_, c) in enumerate(keys)]).agg(
        *[c.alias(f"__a{i}") for i, (_, c) in enumerate(aggs)]) if aggs else \
        df.select(*[c.alias(f"__k{i}") for i, (_, c) in enumerate(keys)]).distinct()
    fields = [(p, F.col(f"__k{i}")) for i, (p, _) in enumerate(keys)]
    fields += [(p, F.col(f"__a{i}")) for i, (p, _) in enumerate(aggs)]
    return Rel(out.select(*record_of(fields)))


def window(tr: Translator, op: Any) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    parts = [tr.compiler(op, scope, f"withins[{i}].expr").compile(w.expr)
             for i, w in enumerate(op.withins)]
    orders = [sort_column(tr.compiler(op, scope, f"orderings[{i}].expr").compile(o.expr),
                          o.direction == "DESC", o.nulls_first)
              for i, o in enumerate(op.orderings)]
    base = Window.partitionBy(*parts)
    if orders:
        base = base.orderBy(*orders)
    start = Window.unboundedPreceding if op.start is None else op.start
    end = (Window.currentRow if orders else Window.unboundedFollowing) if op.end is None \
        else op.end
    w = base.rowsBetween(start, end)
    # ranking/offset functions take no frame; without orderings all rows are peers (Drill:
    # rank() is 1 for every row), which Spark expresses as ordering by a constant
    unframed = base if orders else base.orderBy(F.lit(0))

    def window_wrap(c: Column, framed: bool) -> Column:
        return c.over(w if framed else unframed)

    for i, a in enumerate(op.aggregations):
        comp = tr.compiler(op, scope, f"aggregations[{i}].expr", aggregates=True,
                           agg_wrap=lambda c: c.over(w), window_wrap=window_wrap)
        df = set_path(df, names_of(a.ref), comp.compile(a.expr))
    return Rel(df)
