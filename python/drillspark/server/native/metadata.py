"""The native protocol's metadata requests, which Drill's JDBC driver makes for
DatabaseMetaData (getCatalogs, getSchemas, getTables, getColumns, and the server's
capabilities) and for prepared statements. Catalogs, schemas, tables and columns are the
connection's INFORMATION_SCHEMA, as drillspark's SQL answers it, filtered by the request's LIKE
patterns; no profile is kept for them, as Drill keeps none."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from drillspark.server.native import messages as m
from drillspark.server.native import vectors
from drillspark.server.native.errors import drill_error, error_type_of
from drillspark.server.native.messages import MinorType
from drillspark.server.native.wire import Message

if TYPE_CHECKING:
    from drillspark.server.native.connection import Connection


def like(f: m.LikeFilter | None, fold: bool = False) -> Callable[[str | None], bool]:
    """SQL LIKE with the filter's escape character (`%`, `_`); no filter matches all. As
    Drill 1.22 matches them: case-sensitively, but schema names (`fold`) in any case; the
    escape character only before `%`, `_` or itself ("Invalid escape sequence")."""
    if f is None or f.pattern is None:
        return lambda _: True
    escape = f.escape or ""
    out, i, pattern = [], 0, f.pattern
    while i < len(pattern):
        c = pattern[i]
        if escape and c == escape:
            if i + 1 >= len(pattern) or pattern[i + 1] not in ("%", "_", escape):
                raise ValueError(f"Invalid escape sequence '{pattern}', {i}")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    regex = re.compile("".join(out), re.DOTALL | (re.IGNORECASE if fold else 0))
    return lambda value: value is not None and regex.fullmatch(value) is not None


def _rows(conn: Connection, sql: str) -> list[Any]:
    from drillspark.sql import temporary
    from drillspark.sql.engine import SqlEngine

    session = conn.session
    with session.lock:
        schema, options = session.default_schema, dict(session.options)
    sql_session = conn.app.catalog.session(schema, options)
    sql_session.user = conn.user
    temporary.attach(sql_session, session.temporary)
    sql_session.ports = {k: v for k, v in conn.app.ports().items() if isinstance(v, int)}
    return list(SqlEngine(conn.app.spark, session=sql_session).execute_statement(sql).collect())


def _failed(resp: Any, e: Exception) -> Any:
    resp.status = m.RequestStatus.FAILED
    resp.error = drill_error(conn_message(e), m.ErrorType.SYSTEM)
    return resp


def conn_message(e: Exception) -> str:
    return str(e) or type(e).__name__


# ------------------------------------------------------------------------ requests
def catalogs(conn: Connection, body: bytes) -> Message:
    req = m.GetCatalogsReq.decode(body)
    resp = m.GetCatalogsResp(status=m.RequestStatus.OK)
    try:
        rows = _rows(conn, "SELECT * FROM INFORMATION_SCHEMA.CATALOGS")
    except Exception as e:  # noqa: BLE001 (the client gets the failure)
        return _failed(resp, e)
    try:
        keep = like(req.catalog_name_filter)
    except ValueError as e:
        return _failed(resp, e)
    resp.catalogs = [
        m.CatalogMetadata(catalog_name=r[0], description=r[1], connect=r[2])
        for r in rows
        if keep(r[0])
    ]
    return resp


def schemas(conn: Connection, body: bytes) -> Message:
    req = m.GetSchemasReq.decode(body)
    resp = m.GetSchemasResp(status=m.RequestStatus.OK)
    try:
        rows = _rows(conn, "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA")
    except Exception as e:  # noqa: BLE001
        return _failed(resp, e)
    try:
        cat, sch = like(req.catalog_name_filter), like(req.schema_name_filter, fold=True)
    except ValueError as e:
        return _failed(resp, e)
    resp.schemas = [
        m.SchemaMetadata(catalog_name=r[0], schema_name=r[1], owner=r[2], type=r[3], mutable=r[4])
        for r in sorted(rows, key=lambda r: (r[0], r[1]))
        if cat(r[0]) and sch(r[1])
    ]
    return resp


def tables(conn: Connection, body: bytes) -> Message:
    req = m.GetTablesReq.decode(body)
    resp = m.GetTablesResp(status=m.RequestStatus.OK)
    try:
        rows = _rows(
            conn,
            "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE "
            "FROM INFORMATION_SCHEMA.`TABLES`",
        )
    except Exception as e:  # noqa: BLE001
        return _failed(resp, e)
    try:
        cat, sch, tab = (
            like(req.catalog_name_filter),
            like(req.schema_name_filter, fold=True),
            like(req.table_name_filter),
        )
    except ValueError as e:
        return _failed(resp, e)
    types = set(req.table_type_filter)
    resp.tables = [
        m.TableMetadata(catalog_name=r[0], schema_name=r[1], table_name=r[2], type=r[3])
        for r in sorted(rows, key=lambda r: (r[3], r[0], r[1], r[2]))
        if cat(r[0]) and sch(r[1]) and tab(r[2]) and (not types or r[3] in types)
    ]
    return resp


_COLUMN_CELLS = (
    ("catalog_name", "TABLE_CATALOG"),
    ("schema_name", "TABLE_SCHEMA"),
    ("table_name", "TABLE_NAME"),
    ("column_name", "COLUMN_NAME"),
    ("ordinal_position", "ORDINAL_POSITION"),
    ("default_value", "COLUMN_DEFAULT"),
    ("data_type", "DATA_TYPE"),
    ("char_max_length", "CHARACTER_MAXIMUM_LENGTH"),
    ("char_octet_length", "CHARACTER_OCTET_LENGTH"),
    ("numeric_precision", "NUMERIC_PRECISION"),
    ("numeric_precision_radix", "NUMERIC_PRECISION_RADIX"),
    ("numeric_scale", "NUMERIC_SCALE"),
    ("date_time_precision", "DATETIME_PRECISION"),
    ("interval_type", "INTERVAL_TYPE"),
    ("interval_precision", "INTERVAL_PRECISION"),
    ("column_size", "COLUMN_SIZE"),
)


def columns(conn: Connection, body: bytes) -> Message:
    req = m.GetColumnsReq.decode(body)
    resp = m.GetColumnsResp(status=m.RequestStatus.OK)
    names = ", ".join(cell for _, cell in _COLUMN_CELLS)
    try:
        rows = _rows(conn, f"SELECT {names}, IS_NULLABLE FROM INFORMATION_SCHEMA.`COLUMNS`")
    except Exception as e:  # noqa: BLE001
        return _failed(resp, e)
    try:
        cat, sch, tab, col = (
            like(req.catalog_name_filter),
            like(req.schema_name_filter, fold=True),
            like(req.table_name_filter),
            like(req.column_name_filter),
        )
    except ValueError as e:
        return _failed(resp, e)
    out = []
    for r in sorted(rows, key=lambda r: (r[0], r[1], r[2], r[4] or 0)):
        if not (cat(r[0]) and sch(r[1]) and tab(r[2]) and col(r[3])):
            continue
        cells = {attr: r[i] for i, (attr, _) in enumerate(_COLUMN_CELLS)}
        out.append(m.ColumnMetadata(**cells, is_nullable=r[len(_COLUMN_CELLS)] == "YES"))
    resp.columns = out
    return resp


def server_meta(conn: Connection, body: bytes) -> Message:
    """SERVER_META with the connection's default schema (JDBC's Connection.getSchema())."""
    session = conn.session
    schema = (session.default_schema if session is not None else None) or ()
    meta = dataclasses.replace(SERVER_META, current_schema=".".join(schema))
    return m.GetServerMetaResp(status=m.RequestStatus.OK, server_meta=meta)


HANDLERS: dict[int, tuple[int, Callable[[Connection, bytes], Message]]] = {
    m.RpcType.GET_CATALOGS: (m.RpcType.CATALOGS, catalogs),
    m.RpcType.GET_SCHEMAS: (m.RpcType.SCHEMAS, schemas),
    m.RpcType.GET_TABLES: (m.RpcType.TABLES, tables),
    m.RpcType.GET_COLUMNS: (m.RpcType.COLUMNS, columns),
    m.RpcType.GET_SERVER_META: (m.RpcType.SERVER_META, server_meta),
}


def answer(conn: Connection, rpc_type: int, body: bytes) -> tuple[int, Message]:
    answer_type, handler = HANDLERS[rpc_type]
    return answer_type, handler(conn, body)


# What a Drill 1.22 Drillbit says of itself (GetServerMetaResp, as observed on its user port),
# but Calcite's long keyword list, which JDBC's getSQLKeywords would show
SERVER_META = m.ServerMeta(
    all_tables_selectable=False,
    blob_included_in_max_row_size=True,
    catalog_at_start=True,
    catalog_separator=".",
    catalog_term="catalog",
    column_aliasing_supported=True,
    correlation_names_support=3,  # CN_ANY
    date_time_functions=[
        "CONVERT_TIMEZONE",
        "CURDATE",
        "CURTIME",
        "DAYNAME",
        "DAYOFMONTH",
        "DAYOFWEEK",
        "DAYOFYEAR",
        "HOUR",
        "MINUTE",
        "MONTH",
        "MONTHNAME",
        "NOW",
        "QUARTER",
        "SECOND",
        "TIMESTAMPADD",
        "TIMESTAMPDIFF",
        "TO_DATE",
        "TO_TIMESTAMP",
        "WEEK",
        "YEAR",
    ],
    date_time_literals_support=list(range(17)),
    group_by_support=4,  # GB_UNRELATED
    identifier_casing=3,  # IC_STORES_UPPER
    identifier_quote_string="`",
    like_escape_clause_supported=True,
    max_catalog_name_length=1024,
    max_column_name_length=1024,
    max_cursor_name_length=1024,
    max_schema_name_length=1024,
    max_table_name_length=1024,
    max_user_name_length=1024,
    null_collation=3,  # NC_HIGH
    null_plus_non_null_equals_null=True,
    numeric_functions=[
        "ABS",
        "ACOS",
        "ASIN",
        "ATAN",
        "ATAN2",
        "CBRT",
        "CEILING",
        "COS",
        "COT",
        "DEGREES",
        "EXP",
        "FLOOR",
        "LOG",
        "LOG10",
        "MOD",
        "PI",
        "POWER",
        "RADIANS",
        "RAND",
        "ROUND",
        "SIGN",
        "SIN",
        "SQRT",
        "TAN",
        "TRUNCATE",
    ],
    order_by_support=[1, 2],  # OB_UNRELATED, OB_EXPRESSION
    outer_join_support=[1, 2, 3],  # OJ_LEFT, OJ_RIGHT, OJ_FULL
    quoted_identifier_casing=4,  # IC_SUPPORTS_MIXED
    read_only=False,
    schema_term="schema",
    search_escape_string="\\",
    string_functions=[
        "ASCII",
        "CHAR",
        "CONCAT",
        "DIFFERENCE",
        "INSERT",
        "LCASE",
        "LEFT",
        "LENGTH",
        "LOCATE",
        "LTRIM",
        "REPEAT",
        "REPLACE",
        "RIGHT",
        "RTRIM",
        "SOUNDEX",
        "SPACE",
        "SUBSTRING",
        "UCASE",
    ],
    subquery_support=[1, 2, 3, 5],
    system_functions=["CONVERT", "DATABASE", "IFNULL", "USER"],
    table_term="table",
    union_support=[1, 2],
    current_schema="",
)


# ------------------------------------------------------------------------ prepared statements
def prepared_text(server_info: bytes | None) -> str:
    """The statement a prepared statement's handle stands for (the handle is its text)."""
    return (server_info or b"").decode("utf-8", "replace")


# SQL type name, precision, display size, signed, Java class (JDBC's getObject) by minor type,
# as a Drillbit describes a prepared statement's columns (precision 0 but for character,
# binary and decimal types)
_RESULT_TYPES: dict[int, tuple[str, int, int, bool, str]] = {
    MinorType.BIT: ("BOOLEAN", 0, 1, False, "java.lang.Boolean"),
    MinorType.TINYINT: ("TINYINT", 0, 4, True, "java.lang.Byte"),
    MinorType.SMALLINT: ("SMALLINT", 0, 6, True, "java.lang.Short"),
    MinorType.INT: ("INTEGER", 0, 11, True, "java.lang.Integer"),
    MinorType.BIGINT: ("BIGINT", 0, 20, True, "java.lang.Long"),
    MinorType.FLOAT4: ("FLOAT", 0, 14, True, "java.lang.Float"),
    MinorType.FLOAT8: ("DOUBLE", 0, 24, True, "java.lang.Double"),
    MinorType.VARCHAR: ("CHARACTER VARYING", 65535, 65535, False, "java.lang.String"),
    MinorType.VARBINARY: ("BINARY VARYING", 0, 0, False, "[B"),
    MinorType.DATE: ("DATE", 0, 10, False, "java.sql.Date"),
    MinorType.TIME: ("TIME", 0, 8, False, "java.sql.Time"),
    MinorType.TIMESTAMP: ("TIMESTAMP", 0, 19, False, "java.sql.Timestamp"),
    MinorType.INTERVALDAY: ("INTERVAL DAY TO SECOND", 0, 22, False, "org.joda.time.Period"),
    MinorType.INTERVALYEAR: ("INTERVAL YEAR TO MONTH", 0, 9, False, "org.joda.time.Period"),
    MinorType.MAP: ("STRUCT", 0, 0, False, "java.lang.Object"),
}


def result_column(column: vectors.Column) -> m.ResultColumnMetadata:
    """A prepared statement's column, described as Drill describes it."""
    if column.mode == m.DataMode.REPEATED:
        # Drill names the element's class (an array of BIGINT: java.lang.Long)
        element = _RESULT_TYPES.get(column.minor)
        java = element[4] if element and column.minor != MinorType.MAP else "java.lang.Object"
        name, precision, display, signed = ("ARRAY", 0, 0, False)
    elif column.minor == MinorType.VARDECIMAL:
        p = column.precision or 38
        name, precision, display, signed, java = ("DECIMAL", p, p + 2, True, "java.math.BigDecimal")
    else:
        name, precision, display, signed, java = _RESULT_TYPES.get(
            column.minor, ("CHARACTER VARYING", 65535, 65535, False, "java.lang.String")
        )
    return m.ResultColumnMetadata(
        catalog_name="DRILL",
        schema_name="",
        table_name="",
        column_name=column.name,
        label=column.name,
        data_type=name,
        is_nullable=column.mode == m.DataMode.OPTIONAL,
        precision=precision,
        scale=column.scale or 0,
        signed=signed,
        display_size=display,
        is_aliased=True,
        searchability=4,  # ALL
        updatability=1,  # READ_ONLY
        auto_increment=False,
        case_sensitivity=False,
        sortable=True,
        class_name=java,
        is_currency=False,
    )


def prepare(conn: Connection, sql: str) -> m.CreatePreparedStatementResp:
    """A prepared statement: its result's columns (a query is planned, not run; any other
    statement runs only when executed, and announces no columns) and its handle."""
    from drillspark.sql import statements as st
    from drillspark.sql import temporary
    from drillspark.sql.engine import SqlEngine

    handle = m.PreparedStatementHandle(server_info=sql.encode("utf-8"))
    resp = m.CreatePreparedStatementResp(status=m.RequestStatus.OK)
    cols: list[vectors.Column] = []
    try:
        parts = st.split(sql)
        if len(parts) == 1 and isinstance(st.classify(parts[0][1]), st.Query):
            session = conn.session
            with session.lock:
                schema, options = session.default_schema, dict(session.options)
            sql_session = conn.app.catalog.session(schema, options)
            sql_session.user = conn.user
            temporary.attach(sql_session, session.temporary)
            result = SqlEngine(conn.app.spark, session=sql_session).execute_statement(parts[0][1])
            df = getattr(result, "df", None)
            if df is not None:
                cols = vectors.columns_of([], df.schema, [])
    except Exception as e:  # noqa: BLE001 (the client gets the failure)
        resp.status = m.RequestStatus.FAILED
        resp.error = drill_error(conn.app.shown(str(e)), error_type_of(type(e).__name__, "FAILED"))
        return resp
    resp.prepared_statement = m.PreparedStatement(
        columns=[result_column(c) for c in cols], server_handle=handle
    )
    return resp
