"""Flight SQL's metadata commands (what ADBC's adbc_get_objects / adbc_get_table_schema and the
JDBC driver's DatabaseMetaData ask): catalogs, schemas, tables (with their Arrow schemas), table
types, SQL info, and keys (none: Drill has no keys). Catalogs, schemas, tables and columns are
the caller's session's INFORMATION_SCHEMA, as drillspark's SQL answers it, filtered by the
command's LIKE patterns; the answers' Arrow schemas are the ones FlightSql.proto defines."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from drillspark.server.flight import batches
from drillspark.server.flight import messages as fm

CATALOG = "DRILL"  # Drill's one catalog

CATALOGS_SCHEMA = pa.schema([pa.field("catalog_name", pa.string(), nullable=False)])
DB_SCHEMAS_SCHEMA = pa.schema(
    [pa.field("catalog_name", pa.string()), pa.field("db_schema_name", pa.string(), False)]
)
_TABLES_FIELDS = [
    pa.field("catalog_name", pa.string()),
    pa.field("db_schema_name", pa.string()),
    pa.field("table_name", pa.string(), False),
    pa.field("table_type", pa.string(), False),
]
TABLES_SCHEMA = pa.schema(_TABLES_FIELDS)
TABLES_WITH_SCHEMA = pa.schema([*_TABLES_FIELDS, pa.field("table_schema", pa.binary(), False)])
TABLE_TYPES_SCHEMA = pa.schema([pa.field("table_type", pa.string(), False)])
PRIMARY_KEYS_SCHEMA = pa.schema(
    [
        pa.field("catalog_name", pa.string()),
        pa.field("db_schema_name", pa.string()),
        pa.field("table_name", pa.string(), False),
        pa.field("column_name", pa.string(), False),
        pa.field("key_name", pa.string()),
        pa.field("key_sequence", pa.int32(), False),
    ]
)
KEYS_SCHEMA = pa.schema(
    [
        pa.field("pk_catalog_name", pa.string()),
        pa.field("pk_db_schema_name", pa.string()),
        pa.field("pk_table_name", pa.string(), False),
        pa.field("pk_column_name", pa.string(), False),
        pa.field("fk_catalog_name", pa.string()),
        pa.field("fk_db_schema_name", pa.string()),
        pa.field("fk_table_name", pa.string(), False),
        pa.field("fk_column_name", pa.string(), False),
        pa.field("key_sequence", pa.int32(), False),
        pa.field("fk_key_name", pa.string()),
        pa.field("pk_key_name", pa.string()),
        pa.field("update_rule", pa.uint8(), False),
        pa.field("delete_rule", pa.uint8(), False),
    ]
)
_SQL_INFO_VALUE = pa.dense_union(
    [
        pa.field("string_value", pa.string()),
        pa.field("bool_value", pa.bool_()),
        pa.field("bigint_value", pa.int64()),
        pa.field("int32_bitmask", pa.int32()),
        pa.field("string_list", pa.list_(pa.string())),
        pa.field("int32_to_int32_list_map", pa.map_(pa.int32(), pa.list_(pa.int32()))),
    ]
)
SQL_INFO_SCHEMA = pa.schema(
    [pa.field("info_name", pa.uint32(), False), pa.field("value", _SQL_INFO_VALUE, False)]
)
TABLE_TYPES = ["SYSTEM TABLE", "TABLE", "VIEW"]  # INFORMATION_SCHEMA.TABLES' words


def sql_info(version: str) -> dict[int, tuple[int, Any]]:
    """SqlInfo id: (union member, value): the server's name and versions, read-only-ness,
    SQL (no Substrait, no transactions), cancel, and Drill's identifier quoting."""
    return {
        0: (0, "drillspark (Apache Drill SQL on Spark)"),  # FLIGHT_SQL_SERVER_NAME
        1: (0, version),  # FLIGHT_SQL_SERVER_VERSION
        2: (0, pa.__version__),  # FLIGHT_SQL_SERVER_ARROW_VERSION
        3: (1, False),  # FLIGHT_SQL_SERVER_READ_ONLY (CTAS writes)
        4: (1, True),  # FLIGHT_SQL_SERVER_SQL
        5: (1, False),  # FLIGHT_SQL_SERVER_SUBSTRAIT
        8: (3, 0),  # FLIGHT_SQL_SERVER_TRANSACTION: none
        9: (1, True),  # FLIGHT_SQL_SERVER_CANCEL
        500: (1, False),  # SQL_DDL_CATALOG
        501: (1, False),  # SQL_DDL_SCHEMA
        502: (1, True),  # SQL_DDL_TABLE (CREATE TABLE AS)
        503: (3, 3),  # SQL_IDENTIFIER_CASE: case-insensitive
        504: (0, "`"),  # SQL_IDENTIFIER_QUOTE_CHAR
    }


def sql_info_table(version: str, wanted: list[int]) -> pa.Table:
    info = sql_info(version)
    ids = [i for i in (wanted or sorted(info)) if i in info]
    children: list[list[Any]] = [[] for _ in range(6)]
    type_ids, offsets = [], []
    for i in ids:
        member, value = info[i]
        type_ids.append(member)
        offsets.append(len(children[member]))
        children[member].append(value)
    arrays = [
        pa.array(children[k], type=_SQL_INFO_VALUE.field(k).type) for k in range(len(children))
    ]
    union = pa.UnionArray.from_dense(
        pa.array(type_ids, pa.int8()),
        pa.array(offsets, pa.int32()),
        arrays,
        [f.name for f in _SQL_INFO_VALUE],
    )
    return pa.Table.from_arrays([pa.array(ids, pa.uint32()), union], schema=SQL_INFO_SCHEMA)


def like(pattern: str | None) -> Callable[[str | None], bool]:
    """A Flight SQL filter pattern (SQL LIKE: `%`, `_`, `\\` escapes); None matches all."""
    if pattern is None:
        return lambda _: True
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    regex = re.compile("".join(out), re.DOTALL | re.IGNORECASE)  # as Drill matches names
    return lambda value: value is not None and regex.fullmatch(value) is not None


def _catalog_matches(catalog: str | None) -> bool:
    return catalog is None or catalog in ("", CATALOG)


# ------------------------------------------------------------------ the answers
def catalogs(rows: Callable[[str], list[Any]]) -> pa.Table:
    names = sorted({r[0] for r in rows("SELECT CATALOG_NAME FROM INFORMATION_SCHEMA.CATALOGS")})
    return pa.Table.from_pydict({"catalog_name": names}, schema=CATALOGS_SCHEMA)


def db_schemas(rows: Callable[[str], list[Any]], cmd: fm.CommandGetDbSchemas) -> pa.Table:
    keep = like(cmd.db_schema_filter_pattern)
    found = []
    if _catalog_matches(cmd.catalog):
        found = sorted(
            (r[0], r[1])
            for r in rows("SELECT CATALOG_NAME, SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA")
            if keep(r[1])
        )
    return pa.Table.from_pydict(
        {"catalog_name": [c for c, _ in found], "db_schema_name": [s for _, s in found]},
        schema=DB_SCHEMAS_SCHEMA,
    )


# INFORMATION_SCHEMA.COLUMNS' DATA_TYPE as Arrow (the others: their text)
_COLUMN_TYPES: dict[str, Any] = {
    "CHARACTER VARYING": pa.string(),
    "CHARACTER": pa.string(),
    "VARCHAR": pa.string(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "SMALLINT": pa.int16(),
    "TINYINT": pa.int8(),
    "DOUBLE": pa.float64(),
    "FLOAT": pa.float32(),
    "REAL": pa.float32(),
    "BOOLEAN": pa.bool_(),
    "DATE": pa.date32(),
    "TIMESTAMP": pa.timestamp("us", "UTC"),
    "TIME": pa.time64("us"),
    "BINARY VARYING": pa.binary(),
    "BINARY": pa.binary(),
}


def _column_field(name: str, data_type: str, nullable: Any, precision: Any, scale: Any) -> Any:
    kind = (data_type or "").upper()
    if kind == "DECIMAL":
        arrow = pa.decimal128(int(precision or 38), int(scale or 0))
    else:
        arrow = _COLUMN_TYPES.get(kind, pa.string())
    field = pa.field(name, arrow, nullable=str(nullable).upper() != "NO")
    meta = {batches.TYPE_NAME: kind or "ANY", batches.READ_ONLY: "1"}
    if kind == "DECIMAL":
        meta[batches.PRECISION] = str(arrow.precision)
        meta[batches.SCALE] = str(arrow.scale)
    return field.with_metadata(meta)


def tables(
    rows: Callable[[str], list[Any]],
    cmd: fm.CommandGetTables,
    file_schema: Callable[[str, str], pa.Schema | None],
) -> pa.Table:
    """The tables INFORMATION_SCHEMA lists; a table named exactly (no wildcard) that it does
    not list (a file or folder, which Drill never lists) is looked at itself: `file_schema`
    (schema, name) gives its columns, or None if there is no such table."""
    schema_ok, table_ok = like(cmd.db_schema_filter_pattern), like(cmd.table_name_filter_pattern)
    types = set(cmd.table_types)
    found: list[tuple[str, str, str, str]] = []
    if _catalog_matches(cmd.catalog):
        found = sorted(
            (r[0], r[1], r[2], r[3])
            for r in rows(
                "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE "
                "FROM INFORMATION_SCHEMA.`TABLES`"
            )
            if schema_ok(r[1]) and table_ok(r[2]) and (not types or r[3] in types)
        )
    schemas: dict[tuple[str, str], pa.Schema] = {}
    exact = _exact(cmd.db_schema_filter_pattern), _exact(cmd.table_name_filter_pattern)
    if (
        not found
        and exact[0]
        and exact[1]
        and _catalog_matches(cmd.catalog)
        and (not types or "TABLE" in types)
    ):
        schema = file_schema(exact[0], exact[1])
        if schema is not None:
            found = [(CATALOG, exact[0], exact[1], "TABLE")]
            schemas[(exact[0], exact[1])] = schema
    data: dict[str, list[Any]] = {
        "catalog_name": [f[0] for f in found],
        "db_schema_name": [f[1] for f in found],
        "table_name": [f[2] for f in found],
        "table_type": [f[3] for f in found],
    }
    if not cmd.include_schema:
        return pa.Table.from_pydict(data, schema=TABLES_SCHEMA)
    columns: dict[tuple[str, str], list[Any]] = {}
    if found and len(schemas) < len(found):
        for r in rows(
            "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, IS_NULLABLE, "
            "NUMERIC_PRECISION, NUMERIC_SCALE FROM INFORMATION_SCHEMA.COLUMNS "
            "ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION"
        ):
            columns.setdefault((r[0], r[1]), []).append(_column_field(*r[2:]))
    data["table_schema"] = [
        (schemas.get((f[1], f[2])) or pa.schema(columns.get((f[1], f[2]), [])))
        .serialize()
        .to_pybytes()
        for f in found
    ]
    return pa.Table.from_pydict(data, schema=TABLES_WITH_SCHEMA)


def _exact(pattern: str | None) -> str | None:
    """The name a pattern matches when it has no wildcard, else None."""
    if pattern is None or "%" in pattern or "_" in pattern.replace("\\_", ""):
        return None
    return pattern.replace("\\", "")


def table_types() -> pa.Table:
    return pa.Table.from_pydict({"table_type": TABLE_TYPES}, schema=TABLE_TYPES_SCHEMA)


def empty(schema: pa.Schema) -> pa.Table:
    return schema.empty_table()


# the schema each metadata command answers with (GetSchema, and its FlightInfo)
SCHEMAS: dict[type, pa.Schema] = {
    fm.CommandGetCatalogs: CATALOGS_SCHEMA,
    fm.CommandGetDbSchemas: DB_SCHEMAS_SCHEMA,
    fm.CommandGetTableTypes: TABLE_TYPES_SCHEMA,
    fm.CommandGetSqlInfo: SQL_INFO_SCHEMA,
    fm.CommandGetPrimaryKeys: PRIMARY_KEYS_SCHEMA,
    fm.CommandGetExportedKeys: KEYS_SCHEMA,
    fm.CommandGetImportedKeys: KEYS_SCHEMA,
    fm.CommandGetCrossReference: KEYS_SCHEMA,
}


def schema_of(cmd: Any) -> pa.Schema | None:
    if isinstance(cmd, fm.CommandGetTables):
        return TABLES_WITH_SCHEMA if cmd.include_schema else TABLES_SCHEMA
    return SCHEMAS.get(type(cmd))
