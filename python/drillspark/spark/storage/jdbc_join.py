"""A join of two tables of one `jdbc` plugin, sent to the database as one SQL statement (Drill
pushes such joins into its `Jdbc(sql=[...])` scan).

Spark's own join push-down (`spark.sql.optimizer.datasourceV2JoinPushdown`) needs bare columns
between the join and both scans; a plan from SQL renames each side's columns (`o$id`) and the
reads convert to Drill's types, so it never fires here. Instead the translator asks
`pushed_join` first: an INNER join whose conditions are all `==` between fields, each side a
scan of the same plugin (or a project of bare fields over one), becomes
`SELECT l."id" AS "o$id", ... FROM "s"."t1" l INNER JOIN "s"."t2" r ON l."id" = r."id"`,
read through Spark's JDBC source with the `query` option, so filters and columns above the
join still go down into it (PushedFilters). The rows get Drill's types as any jdbc read does
(`jdbc.drill_frame`). Anything else answers None and the join runs in Spark."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from drillspark.names import fold
from drillspark.plan import operators as lo
from drillspark.plan.expressions import FieldPath
from drillspark.spark.scope import quote
from drillspark.spark.storage import jdbc
from drillspark.spark.storage.base import StorageEngine


@dataclass(frozen=True)
class _Side:
    """One input of the join: its engine, the table's schema/name in the database, and the
    input's output columns as (output name, the table's column)."""

    engine: jdbc.JdbcEngine
    db_schema: str
    db_table: str
    columns: list[tuple[str, T.StructField]]


def _field(expr: Any) -> str | None:
    """The one name of a bare field reference (`id`), else None."""
    if isinstance(expr, FieldPath) and len(expr.segments) == 1:
        name = expr.segments[0]
        return name if isinstance(name, str) else None
    return None


def _shape(
    ops: Mapping[int, Any], engine_of: Any, op_id: int
) -> tuple[lo.Scan, jdbc.JdbcEngine, list[tuple[str, str]] | None] | None:
    """(scan, its jdbc engine, the renames of a project of bare fields over it) of a join
    input that is such a scan, else None; nothing is asked of the database yet."""
    op = ops.get(op_id)
    renames: list[tuple[str, str]] | None = None
    if isinstance(op, lo.Project):
        renames = []
        for p in op.projections:
            out, src = _field(p.ref), _field(p.expr)
            if out is None or src is None:
                return None
            renames.append((out, src))
        op = ops.get(op.input)
    if not isinstance(op, lo.Scan) or op.ref is not None:
        return None
    engine: StorageEngine = engine_of(op.storage_engine)
    if not isinstance(engine, jdbc.JdbcEngine):
        return None
    if engine.jdbc.options().get("pushDownJoin", "true").lower() == "false":
        return None
    return op, engine, renames


def _side(
    spark: SparkSession, shape: tuple[lo.Scan, jdbc.JdbcEngine, list[tuple[str, str]] | None]
) -> _Side | None:
    op, engine, renames = shape
    cfg = engine.jdbc
    parts, table = jdbc.selection_of(op.selection, engine.name)
    db_schema, db_table, raw = jdbc._resolved(spark, cfg, parts, table)
    fields = {fold(f.name): f for f in raw.schema.fields}
    if renames is None:
        return _Side(engine, db_schema, db_table, [(f.name, f) for f in raw.schema.fields])
    columns = []
    for out, src in renames:
        f = fields.get(fold(src))
        if f is None:
            return None
        columns.append((out, f))
    return _Side(engine, db_schema, db_table, columns)


def _quoted(cfg: jdbc.JdbcConfig, name: str) -> str:
    if cfg.kind == jdbc.MYSQL:
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def pushed_join(
    spark: SparkSession, ops: Mapping[int, Any], engine_of: Any, op: lo.Join
) -> DataFrame | None:
    """`op` run by the database as one statement, or None when it cannot be (see above).
    `ops` are the plan's operators by @id, `engine_of(name)` the run's storage engine."""
    if str(op.type).upper() != "INNER" or op.condition is not None or not op.conditions:
        return None
    if any(c.relationship not in ("==", "=") for c in op.conditions):
        return None
    lshape, rshape = _shape(ops, engine_of, op.left), _shape(ops, engine_of, op.right)
    if lshape is None or rshape is None or lshape[1].name != rshape[1].name:
        return None
    left, right = _side(spark, lshape), _side(spark, rshape)
    if left is None or right is None:
        return None
    cfg = left.engine.jdbc
    lnames = {fold(n): f for n, f in left.columns}
    rnames = {fold(n): f for n, f in right.columns}
    if set(lnames) & set(rnames):
        return None  # names both sides share are merged by the translator's join: its rules
    keys = []
    for c in op.conditions:
        lk, rk = _field(c.left), _field(c.right)
        lf = lnames.get(fold(lk)) if lk else None
        rf = rnames.get(fold(rk)) if rk else None
        if lf is None or rf is None or lf.dataType != rf.dataType:
            return None  # the database would compare other types by its own casts
        if cfg.kind == jdbc.MYSQL and isinstance(lf.dataType, T.StringType):
            return None  # MariaDB compares strings by its collation ('a' = 'A'), Spark does not
        keys.append((lf.name, rf.name))
    q = lambda n: _quoted(cfg, n)  # noqa: E731
    select = [f"l.{q(f.name)} AS {q(n)}" for n, f in left.columns]
    select += [f"r.{q(f.name)} AS {q(n)}" for n, f in right.columns]
    on = " AND ".join(f"l.{q(a)} = r.{q(b)}" for a, b in keys)
    sql = (
        f"SELECT {', '.join(select)} FROM {q(left.db_schema)}.{q(left.db_table)} l "
        f"INNER JOIN {q(right.db_schema)}.{q(right.db_table)} r ON {on}"
    )
    reader = spark.read.format("jdbc").options(**cfg.options()).option("query", sql)
    free = [n for n, f in left.columns + right.columns if jdbc._free_numeric(f)]
    if free:  # as the table reads do: PostgreSQL's numeric without precision is a double
        reader = reader.option("customSchema", ", ".join(f"{quote(n)} DOUBLE" for n in free))
    try:
        return jdbc.drill_frame(reader.load(), cfg.kind)
    except Exception as e:
        raise jdbc.failure(cfg, e, "cannot read the join") from None
