"""Segment-wise operators: segment, collapsingaggregate, runningaggregate, windowframe (2013)
and groupingaggregate, window (today's dialect)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F

from drillspark.names import fold
from drillspark.plan import operators as lo
from drillspark.spark.expressions import paths_in
from drillspark.spark.ops_rows import sort_column
from drillspark.spark.records import Path, names_of, record_of, set_path
from drillspark.spark.rel import POS, PendingSegment, Rel
from drillspark.spark.scope import quote

# Drill's logical Window keeps an absent bound as Long.MIN_VALUE; Long.MAX_VALUE (Spark's
# unboundedFollowing) is how a plan says UNBOUNDED FOLLOWING
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1

if TYPE_CHECKING:
    from drillspark.spark.translator import Translator


def segment(tr: Translator, op: lo.Segment) -> Rel:
    """The key goes to `ref`; the records are brought together lazily (see PendingSegment)."""
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    keys = [tr.compiler(op, scope, f"exprs[{i}]").compile(e) for i, e in enumerate(op.exprs)]
    if not keys:
        raise tr.fail(op, "segment needs at least one expression")
    value = keys[0] if len(keys) == 1 else F.struct(*[k.alias(f"k{i}") for i, k in enumerate(keys)])
    ref = names_of(op.ref)
    if len(ref) != 1:
        raise tr.fail(op, "a segment ref must be a single name")
    key = value
    if any(fold(p.root) == fold(ref[0]) for e in op.exprs for p in paths_in(e)):
        # the ref replaces a field the key reads: later operators group by the stored key,
        # since recomputing it would read the replaced field
        key = F.col(quote(ref[0]))
    return Rel(df.withColumn(ref[0], value), PendingSegment(ref[0], tuple(op.exprs), key))


def _segment_key(
    tr: Translator, op: Any, within: Any
) -> tuple[DataFrame, Column | None, PendingSegment | None]:
    """The input and, when `within` is given, the column holding its segment key."""
    rel = tr.rel(op.input)
    if within is None:
        return rel.materialized(), None, None
    name = names_of(within)
    if rel.segment is not None and name == (rel.segment.ref,):
        return rel.df, rel.segment.key, rel.segment
    df = rel.materialized()
    return df, tr.scope(op, df).path(within), None


def collapsing_aggregate(tr: Translator, op: lo.CollapsingAggregate) -> Rel:
    """One record per segment. Carryovers come from the segment's last record (with `target`:
    its last record whose target is true, and no output without one), as Drill's reference
    interpreter overwrites them record by record; `max_by` over the input position says
    "last" whatever the partitioning."""
    df, key, seg = _segment_key(tr, op, op.within)
    aggs: list[tuple[Path, Column]] = []
    scope = tr.scope(op, df)
    for i, a in enumerate(op.aggregations):
        comp = tr.compiler(op, scope, f"aggregations[{i}].expr", aggregates=True)
        aggs.append((names_of(a.ref), comp.compile(a.expr)))
    carry: list[tuple[Path, Column | None]] = []  # None: the segment key itself
    for c in op.carryovers:
        is_key = seg is not None and len(seg.keys) == 1 and _same_path(seg.keys[0], c)
        carry.append((names_of(c), None if is_key else scope.path(c)))
    target = scope.path(op.target) if op.target is not None else None
    agg_cols = [v.alias(f"__a{i}") for i, (_, v) in enumerate(aggs)]
    picked = [(i, v) for i, (_, v) in enumerate(carry) if v is not None or target is not None]
    if picked:
        df = df.withColumn(POS, F.monotonically_increasing_id())
        chosen = F.struct(
            *[
                (v if v is not None else key).alias(f"c{i}")  # type: ignore[union-attr]
                for i, v in picked
            ],
            F.lit(True).alias("_t"),
        )
        pos = F.col(POS) if target is None else F.when(F.coalesce(target, F.lit(False)), F.col(POS))
        agg_cols.append(F.max_by(chosen, pos).alias("__carry"))  # null positions never win
    grouped = df.groupBy(key.alias("__key")) if key is not None else df.groupBy()
    out = grouped.agg(*agg_cols)
    fields: list[tuple[Path, Column]] = []
    taken = {i for i, _ in picked}
    for i, (path, _) in enumerate(carry):
        fields.append((path, F.col("__carry").getField(f"c{i}") if i in taken else F.col("__key")))
    # Drill writes the aggregations first and the carryovers over them: on a name clash the
    # carryover wins
    carried = {tuple(fold(n) for n in path) for path, _ in carry}
    fields += [
        (path, F.col(f"__a{i}"))
        for i, (path, _) in enumerate(aggs)
        if tuple(fold(n) for n in path) not in carried
    ]
    if target is not None:
        # no record whose target is true: the segment gives no output
        out = out.where(F.col("__carry").isNotNull())
    return Rel(out.select(*record_of(fields)))


def _same_path(expr: Any, path: Any) -> bool:
    segs = getattr(expr, "segments", None)
    return segs is not None and [fold(str(s)) for s in segs] == [
        fold(str(s)) for s in path.segments
    ]


def running_aggregate(tr: Translator, op: lo.RunningAggregate) -> Rel:
    """Running values in input order, restarting at each segment of `within`."""
    df, key, _ = _segment_key(tr, op, op.within)
    seg = "__drill_segment"  # the key as of the input (an aggregation may replace its fields)
    df = df.withColumn(POS, F.monotonically_increasing_id())
    if key is not None:
        df = df.withColumn(seg, key)
    w = Window.orderBy(POS) if key is None else Window.partitionBy(seg).orderBy(POS)
    w = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    scope = tr.scope(op, df)
    cols = [
        (
            names_of(a.ref),
            tr.compiler(
                op, scope, f"aggregations[{i}].expr", aggregates=True, agg_wrap=lambda c: c.over(w)
            ).compile(a.expr),
        )
        for i, a in enumerate(op.aggregations)
    ]
    order = [F.col(POS)] if key is None else [F.col(seg).asc_nulls_first(), F.col(POS)]
    return Rel(_assign(df, cols).orderBy(*order).drop(POS, seg))


def _assign(df: DataFrame, cols: list[tuple[Path, Column]]) -> DataFrame:
    """`df` with each (ref, value) written, every value computed from `df` as it is (one
    select), so a value never reads an earlier one's output."""
    tmp = [f"__drill_v{i}" for i in range(len(cols))]
    df = df.select("*", *[c.alias(t) for t, (_, c) in zip(tmp, cols, strict=True)])
    for t, (path, _) in zip(tmp, cols, strict=True):
        df = set_path(df, path, F.col(t))
    return df.drop(*tmp)


def window_frame(tr: Translator, op: lo.WindowFrame) -> Rel:
    """Each record is repeated once per window it falls in: `ref.segment` holds the window's
    target record (its 0-based position in the stream, or in its segment with `within`) and
    `ref.position` the record's offset from the target (-2, -1, 0, ...)."""
    if op.start is None and op.end is None:
        raise tr.fail(op, "windowframe needs start or end")
    df, key, _ = _segment_key(tr, op, op.within)
    df = df.withColumn(POS, F.monotonically_increasing_id())
    part = Window.partitionBy(key) if key is not None else Window.partitionBy()
    idx, n = "__drill_idx", "__drill_n"
    df = df.withColumn(idx, F.row_number().over(part.orderBy(POS)) - 1).withColumn(
        n, F.count(F.lit(1)).over(part)
    )
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


def grouping_aggregate(tr: Translator, op: lo.GroupingAggregate) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    in_source = tr.pushes_aggregates(op)
    keys = [
        (names_of(k.ref), tr.compiler(op, scope, f"keys[{i}].expr").compile(k.expr))
        for i, k in enumerate(op.keys)
    ]
    aggs = [
        (
            names_of(e.ref),
            tr.compiler(
                op, scope, f"exprs[{i}].expr", aggregates=True, source_aggregates=in_source
            ).compile(e.expr),
        )
        for i, e in enumerate(op.exprs)
    ]
    names = [p[0] for p, _ in keys + aggs if len(p) == 1]
    if len(names) == len(keys) + len(aggs) and len({fold(n) for n in names}) == len(names):
        # single names, none twice: the record is the grouping's own output, named at once
        # (a select renaming it after would be one more DataFrame for Spark to analyze)
        return Rel(_grouped(df, [(p[0], c) for p, c in keys], [(p[0], c) for p, c in aggs]))
    out = _grouped(
        df,
        [(f"__k{i}", c) for i, (_, c) in enumerate(keys)],
        [(f"__a{i}", c) for i, (_, c) in enumerate(aggs)],
    )
    fields = [(p, F.col(f"__k{i}")) for i, (p, _) in enumerate(keys)]
    fields += [(p, F.col(f"__a{i}")) for i, (p, _) in enumerate(aggs)]
    return Rel(out.select(*record_of(fields)))


def _grouped(
    df: DataFrame, keys: list[tuple[str, Column]], aggs: list[tuple[str, Column]]
) -> DataFrame:
    """The groups of `df` by `keys` with `aggs` computed (without aggs: the distinct keys),
    each column named as given, keys first."""
    key_cols = [c.alias(n) for n, c in keys]
    if not aggs:
        return df.select(*key_cols).distinct()
    return df.groupBy(*key_cols).agg(*[c.alias(n) for n, c in aggs])


def window(tr: Translator, op: lo.Window) -> Rel:
    df = tr.input_df(op)
    scope = tr.scope(op, df)
    parts = [
        tr.compiler(op, scope, f"withins[{i}].expr").compile(w.expr)
        for i, w in enumerate(op.withins)
    ]
    orders = [
        sort_column(
            tr.compiler(op, scope, f"orderings[{i}].expr").compile(o.expr),
            o.direction == "DESC",
            o.nulls_first,
        )
        for i, o in enumerate(op.orderings)
    ]
    base = Window.partitionBy(*parts)
    if orders:
        base = base.orderBy(*orders)
    w = _frame(base, op.start, op.end, bool(orders), op.frame_units_rows is not False)
    # ranking/offset functions take no frame; without orderings all rows are peers (Drill:
    # rank() is 1 for every row), which Spark expresses as ordering by a constant
    unframed = base if orders else base.orderBy(F.lit(0))

    def window_wrap(c: Column, framed: bool) -> Column:
        return c.over(w if framed else unframed)

    cols = [
        (
            names_of(a.ref),
            tr.compiler(
                op,
                scope,
                f"aggregations[{i}].expr",
                aggregates=True,
                agg_wrap=lambda c: c.over(w),
                window_wrap=window_wrap,
            ).compile(a.expr),
        )
        for i, a in enumerate(op.aggregations)
    ]
    return Rel(_assign(df, cols))


def _frame(
    base: WindowSpec, start: int | None, end: int | None, ordered: bool, rows: bool = True
) -> WindowSpec:
    """The window's frame. No bounds: SQL's default frame (Drill's WindowPOP without bounds),
    from the partition's start to the current row and its peers when ordered, the whole
    partition otherwise. Any bound given: a ROWS frame (a RANGE frame when not `rows`), an
    absent start meaning unbounded preceding and an absent end the current row (ordered) or
    unbounded following."""
    start = None if start is None or start <= LONG_MIN else start
    end = None if end is None or end <= LONG_MIN else end  # MIN_VALUE: Drill's "absent"
    if start is None and end is None:
        if ordered:
            return base.rangeBetween(Window.unboundedPreceding, Window.currentRow)
        return base.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    lo = Window.unboundedPreceding if start is None else start
    hi = (
        (Window.currentRow if ordered else Window.unboundedFollowing)
        if end is None
        else Window.unboundedFollowing
        if end >= LONG_MAX
        else end
    )
    return base.rowsBetween(lo, hi) if rows else base.rangeBetween(lo, hi)
