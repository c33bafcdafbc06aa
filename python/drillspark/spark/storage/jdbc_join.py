"""Joins of tables of one `jdbc` plugin, sent to the database as one SQL statement (Drill
pushes such joins into its `Jdbc(sql=[...])` scan), with what sits above them: filters,
columns, aggregates, LIMIT and top-N, and further tables of the same plugin.

A plan from SQL renames each side's columns (`o$id`) and every jdbc read converts its columns
to Drill's types (`jdbc.drill_column`); between a join and its scans that hides the scans from
Spark's join push-down (`spark.sql.optimizer.datasourceV2JoinPushdown`), which wants bare
columns there. So the translator asks `pushed_join` first: an INNER, LEFT or RIGHT join (the
types Spark 4.3's push-down carries) whose conditions are all comparisons between fields of
comparable types, each side a scan of the same plugin, a project of bare fields over one, or
such a join itself, is rebuilt as Spark's join of the plugin's catalog tables, bare (each table under an alias of its own), with the renames and Drill's conversions
put above the join. Spark's own push-down then sends the joins as one statement
(`PushedJoins`) and takes filters, columns, aggregates (`PushedAggregates`), LIMIT and top-N
(`PushedTopN`) above them into it, as it does for one table; whatever it declines runs in
Spark with the same answers.

A FULL join (Spark's push-down has none: its connector JoinType is INNER, LEFT_OUTER or
RIGHT_OUTER), and a table with a PostgreSQL `numeric` of no precision among the join's columns
(the catalog cannot read it: jdbc._load), are sent as a statement of our own for two tables
through Spark's JDBC `query` option (filters and columns still go into it, aggregates and
limits do not). Anything else answers None and the join runs in Spark."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.names import fold
from drillspark.plan import operators as lo
from drillspark.plan.expressions import FieldPath
from drillspark.spark.relationships import NULL_SAFE, ORDERING, RELATIONSHIPS
from drillspark.spark.scope import quote
from drillspark.spark.storage import jdbc
from drillspark.spark.storage.base import StorageEngine

# Spark's join push-down into a DSv2 source (JDBC's): off by default in Spark
JOIN_PUSHDOWN = "spark.sql.optimizer.datasourceV2JoinPushdown"


@dataclass(frozen=True)
class _Side:
    """One input of the join: its engine, the table's schema/name in the database, and the
    input's output columns as (output name, the table's column)."""

    engine: jdbc.JdbcEngine
    db_schema: str
    db_table: str
    columns: list[tuple[str, T.StructField]]


@dataclass(frozen=True)
class _Bare:
    """An input rebuilt over the plugin's catalog tables: `df` the tables (each under its
    alias) joined without renames or conversions, `columns` the input's output columns as
    (output name, the qualified column in `df`, the table's column)."""

    engine: jdbc.JdbcEngine
    df: DataFrame
    columns: list[tuple[str, str, T.StructField]]


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
    db_schema, db_table, _ = jdbc.resolved_frame(spark, cfg, parts, table)
    schema = jdbc.catalog_schema(spark, cfg, db_schema, db_table)
    fields = {fold(f.name): f for f in schema.fields}
    if renames is None:
        return _Side(engine, db_schema, db_table, [(f.name, f) for f in schema.fields])
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


# the join types Spark 4.3's join push-down carries (its connector JoinType: INNER_JOIN,
# LEFT_OUTER_JOIN, RIGHT_OUTER_JOIN; a FULL join stays a Spark join over two pushed scans)
_SPARK_JOINS = {"INNER": "inner", "LEFT": "left", "RIGHT": "right"}
# the joins a statement of our own sends (FULL too: see `pushed_join`), and SQL's spelling
_STATEMENT_JOINS = {
    "INNER": "INNER JOIN",
    "LEFT": "LEFT OUTER JOIN",
    "RIGHT": "RIGHT OUTER JOIN",
    "FULL": "FULL OUTER JOIN",
}
_SQL_RELATIONSHIPS = {"==": "=", "!=": "<>"}
_EXACT = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.DecimalType)
_STRINGS = (T.StringType, T.CharType, T.VarcharType)


def _comparable(a: T.DataType, b: T.DataType) -> bool:
    """Whether the database compares values of `a` and `b` as Spark does: one type, or two
    exact numbers (Spark casts one to the other's decimal, the database does the same)."""
    return a == b or (isinstance(a, _EXACT) and isinstance(b, _EXACT))


def _keys(
    op: lo.Join,
    cfg: jdbc.JdbcConfig,
    left: list[tuple[str, T.StructField]],
    right: list[tuple[str, T.StructField]],
    kinds: Mapping[str, str] = _SPARK_JOINS,
) -> list[tuple[str, str, str]] | None:
    """The (left output name, relationship, right output name) conditions of `op`, when the
    database may compare them as Spark would: an INNER, LEFT or RIGHT join whose conditions
    are all comparisons (= <> < <= > >=) between bare fields of comparable types, no name on
    both sides, no MariaDB/MySQL strings (compared by the database's collation, 'a' = 'A'), no
    ordering (< <= > >=) of strings (ordered by the database's collation, 'a' < 'B')."""
    if str(op.type).upper() not in kinds or op.condition is not None:
        return None
    if not op.conditions or any(
        c.relationship not in RELATIONSHIPS or c.relationship == NULL_SAFE for c in op.conditions
    ):
        return None
    lnames = {fold(n): (n, f) for n, f in left}
    rnames = {fold(n): (n, f) for n, f in right}
    if set(lnames) & set(rnames):
        return None  # names both sides share are merged by the translator's join: its rules
    keys: list[tuple[str, str, str]] = []
    for c in op.conditions:
        lk, rk = _field(c.left), _field(c.right)
        lf = lnames.get(fold(lk)) if lk else None
        rf = rnames.get(fold(rk)) if rk else None
        if lf is None or rf is None or not _comparable(lf[1].dataType, rf[1].dataType):
            return None  # the database would compare other types by its own casts
        if cfg.kind == jdbc.MYSQL and isinstance(lf[1].dataType, T.StringType):
            return None
        if c.relationship in ORDERING and isinstance(lf[1].dataType, _STRINGS):
            return None  # ordered by the database's collation ('a' < 'B'), Spark's by bytes
        keys.append((lf[0], str(c.relationship), rf[0]))
    return keys


def _bare(
    spark: SparkSession, ops: Mapping[int, Any], engine_of: Any, op_id: int, aliases: Any
) -> _Bare | None:
    """Input `op_id` over the plugin's catalog tables (see `_Bare`), or None."""
    op = ops.get(op_id)
    if isinstance(op, lo.Join):
        left = _bare(spark, ops, engine_of, op.left, aliases)
        right = _bare(spark, ops, engine_of, op.right, aliases) if left else None
        if left is None or right is None or left.engine.name != right.engine.name:
            return None
        keys = _keys(
            op,
            left.engine.jdbc,
            [(n, f) for n, _, f in left.columns],
            [(n, f) for n, _, f in right.columns],
        )
        if keys is None:
            return None
        lq = {n: q for n, q, _ in left.columns}
        rq = {n: q for n, q, _ in right.columns}
        on: Column | None = None
        for a, rel, b in keys:
            cond = RELATIONSHIPS[rel](F.col(lq[a]), F.col(rq[b]))
            on = cond if on is None else on & cond
        df = left.df.join(right.df, on=on, how=_SPARK_JOINS[str(op.type).upper()])
        return _Bare(left.engine, df, left.columns + right.columns)
    shape = _shape(ops, engine_of, op_id)
    side = _side(spark, shape) if shape is not None else None
    if side is None:
        return None
    cfg = side.engine.jdbc
    if any(jdbc.free_numeric(f) for _, f in side.columns):
        return None  # the catalog cannot read it (see the module's note)
    alias = f"t{next(aliases)}"
    table = jdbc.catalog_table(spark, cfg, side.db_schema, side.db_table).alias(alias)
    columns = [(n, f"{alias}.{quote(f.name)}", f) for n, f in side.columns]
    return _Bare(side.engine, table, columns)


def pushed_join(
    spark: SparkSession, ops: Mapping[int, Any], engine_of: Any, op: lo.Join
) -> DataFrame | None:
    """`op` run by the database as one statement, or None when it cannot be (see above).
    `ops` are the plan's operators by @id, `engine_of(name)` the run's storage engine."""
    kind = str(op.type).upper()
    if kind == "FULL":
        return _statement_join(spark, ops, engine_of, op)
    if kind not in _SPARK_JOINS:
        return None
    bare = _bare(spark, ops, engine_of, op.id, itertools.count(1))
    if bare is not None:
        cfg = bare.engine.jdbc
        spark.conf.set(JOIN_PUSHDOWN, "true")
        columns = [
            jdbc.drill_column(T.StructField(n, f.dataType, f.nullable, f.metadata), cfg.kind, q)
            for n, q, f in bare.columns
        ]
        try:
            return bare.df.select(*columns)
        except Exception as e:
            raise jdbc.failure(cfg, e, "cannot read the join") from None
    return _statement_join(spark, ops, engine_of, op)


def _statement_join(
    spark: SparkSession, ops: Mapping[int, Any], engine_of: Any, op: lo.Join
) -> DataFrame | None:
    """A join of two tables, one of them with a `numeric` of no precision, as a statement of
    our own read through Spark's JDBC `query` option (those columns as DOUBLE)."""
    lshape, rshape = _shape(ops, engine_of, op.left), _shape(ops, engine_of, op.right)
    if lshape is None or rshape is None or lshape[1].name != rshape[1].name:
        return None
    left, right = _side(spark, lshape), _side(spark, rshape)
    if left is None or right is None:
        return None
    cfg = left.engine.jdbc
    if str(op.type).upper() == "FULL" and cfg.kind == jdbc.MYSQL:
        return None  # MariaDB and MySQL have no FULL JOIN
    keys = _keys(op, cfg, left.columns, right.columns, _STATEMENT_JOINS)
    if keys is None:
        return None
    lnames = {n: f.name for n, f in left.columns}
    rnames = {n: f.name for n, f in right.columns}
    q = lambda n: _quoted(cfg, n)  # noqa: E731
    select = [f"l.{q(f.name)} AS {q(n)}" for n, f in left.columns]
    select += [f"r.{q(f.name)} AS {q(n)}" for n, f in right.columns]
    on = " AND ".join(
        f"l.{q(lnames[a])} {_SQL_RELATIONSHIPS.get(rel, rel)} r.{q(rnames[b])}"
        for a, rel, b in keys
    )
    sql = (
        f"SELECT {', '.join(select)} FROM {q(left.db_schema)}.{q(left.db_table)} l "
        f"{_STATEMENT_JOINS[str(op.type).upper()]} {q(right.db_schema)}.{q(right.db_table)} r "
        f"ON {on}"
    )
    reader = spark.read.format("jdbc").options(**cfg.options()).option("query", sql)
    free = [n for n, f in left.columns + right.columns if jdbc.free_numeric(f)]
    if free:  # as the table reads do: PostgreSQL's numeric without precision is a double
        reader = reader.option("customSchema", ", ".join(f"{quote(n)} DOUBLE" for n in free))
    try:
        return jdbc.drill_frame(reader.load(), cfg.kind)
    except Exception as e:
        raise jdbc.failure(cfg, e, "cannot read the join") from None
