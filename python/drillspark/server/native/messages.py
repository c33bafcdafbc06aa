"""The messages of Drill 1.22's user protocol that drillspark speaks, as dataclasses for the
codec in wire.py: each field's number and kind are those of Drill's public protocol
definition (its `.proto` files: GeneralRPC, User, UserBitShared, Types); only the fields
drillspark reads or writes are declared (the codec skips the others)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from drillspark.server.native.wire import Message, pb

RPC_VERSION = 5  # the user protocol's version Drill 1.22's clients and servers speak


class RpcMode(IntEnum):
    REQUEST = 0
    RESPONSE = 1
    RESPONSE_FAILURE = 2
    PING = 3
    PONG = 4


class RpcType(IntEnum):
    HANDSHAKE = 0
    ACK = 1
    GOODBYE = 2
    RUN_QUERY = 3
    CANCEL_QUERY = 4
    REQUEST_RESULTS = 5
    QUERY_DATA = 6
    QUERY_HANDLE = 7
    GET_SERVER_META = 8
    SERVER_META = 9
    QUERY_RESULT = 10
    RESUME_PAUSED_QUERY = 11
    GET_QUERY_PLAN_FRAGMENTS = 12
    QUERY_PLAN_FRAGMENTS = 13
    GET_CATALOGS = 14
    GET_SCHEMAS = 15
    GET_TABLES = 16
    GET_COLUMNS = 17
    CATALOGS = 18
    SCHEMAS = 19
    TABLES = 20
    COLUMNS = 21
    CREATE_PREPARED_STATEMENT = 22
    PREPARED_STATEMENT = 23
    SASL_MESSAGE = 24


class HandshakeStatus(IntEnum):
    SUCCESS = 1
    RPC_VERSION_MISMATCH = 2
    AUTH_FAILED = 3
    UNKNOWN_FAILURE = 4
    AUTH_REQUIRED = 5


class QueryType(IntEnum):
    SQL = 1
    LOGICAL = 2
    PHYSICAL = 3
    EXECUTION = 4
    PREPARED_STATEMENT = 5


class QueryState(IntEnum):
    STARTING = 0
    RUNNING = 1
    COMPLETED = 2
    CANCELED = 3
    FAILED = 4
    CANCELLATION_REQUESTED = 5
    ENQUEUED = 6
    PREPARING = 7
    PLANNING = 8


class ErrorType(IntEnum):
    CONNECTION = 0
    DATA_READ = 1
    DATA_WRITE = 2
    FUNCTION = 3
    PARSE = 4
    PERMISSION = 5
    PLAN = 6
    RESOURCE = 7
    SYSTEM = 8
    UNSUPPORTED_OPERATION = 9
    VALIDATION = 10
    EXECUTION_ERROR = 11
    INTERNAL_ERROR = 12
    UNSPECIFIED_ERROR = 13
    PLUGIN = 14


class RequestStatus(IntEnum):
    UNKNOWN_STATUS = 0
    OK = 1
    FAILED = 2
    TIMEOUT = 3


class SaslStatus(IntEnum):
    SASL_UNKNOWN = 0
    SASL_START = 1
    SASL_IN_PROGRESS = 2
    SASL_SUCCESS = 3
    SASL_FAILED = 4


class MinorType(IntEnum):
    LATE = 0
    MAP = 1
    TINYINT = 3
    SMALLINT = 4
    INT = 5
    BIGINT = 6
    DATE = 12
    TIME = 13
    TIMESTAMP = 16
    FLOAT4 = 18
    FLOAT8 = 19
    BIT = 20
    VARCHAR = 24
    VARBINARY = 26
    UINT1 = 29
    UINT4 = 31
    NULL = 37
    INTERVALYEAR = 38
    INTERVALDAY = 39
    LIST = 40
    VARDECIMAL = 43
    DICT = 44


class DataMode(IntEnum):
    OPTIONAL = 0
    REQUIRED = 1
    REPEATED = 2


# ------------------------------------------------------------------------ framing (GeneralRPC)
@dataclass
class RpcHeader(Message):
    mode: int | None = pb(1, "enum")
    coordination_id: int | None = pb(2, "int32")
    rpc_type: int | None = pb(3, "int32")


@dataclass
class Ack(Message):
    ok: bool | None = pb(1, "bool")


# ------------------------------------------------------------------------ handshake (User)
@dataclass
class Property(Message):
    key: str | None = pb(1, "string")
    value: str | None = pb(2, "string")


@dataclass
class UserProperties(Message):
    properties: list[Property] = pb(1, Property, repeated=True)


@dataclass
class UserCredentials(Message):
    user_name: str | None = pb(1, "string")


@dataclass
class RpcEndpointInfos(Message):
    name: str | None = pb(1, "string")
    version: str | None = pb(2, "string")
    major_version: int | None = pb(3, "uint32")
    minor_version: int | None = pb(4, "uint32")
    patch_version: int | None = pb(5, "uint32")
    application: str | None = pb(6, "string")
    build_number: int | None = pb(7, "uint32")
    version_qualifier: str | None = pb(8, "string")


@dataclass
class UserToBitHandshake(Message):
    channel: int | None = pb(1, "enum")
    support_listening: bool | None = pb(2, "bool")
    rpc_version: int | None = pb(3, "int32")
    credentials: UserCredentials | None = pb(4, UserCredentials)
    properties: UserProperties | None = pb(5, UserProperties)
    support_complex_types: bool | None = pb(6, "bool")
    support_timeout: bool | None = pb(7, "bool")
    client_infos: RpcEndpointInfos | None = pb(8, RpcEndpointInfos)
    sasl_support: int | None = pb(9, "enum")


@dataclass
class BitToUserHandshake(Message):
    rpc_version: int | None = pb(2, "int32")
    status: int | None = pb(3, "enum")
    error_id: str | None = pb(4, "string")
    error_message: str | None = pb(5, "string")
    server_infos: RpcEndpointInfos | None = pb(6, RpcEndpointInfos)
    authentication_mechanisms: list[str] = pb(7, "string", repeated=True)
    supported_methods: list[int] = pb(8, "enum", repeated=True)
    encrypted: bool | None = pb(9, "bool")
    max_wrapped_size: int | None = pb(10, "int32")


@dataclass
class SaslMessage(Message):
    mechanism: str | None = pb(1, "string")
    data: bytes | None = pb(2, "bytes")
    status: int | None = pb(3, "enum")


# ------------------------------------------------------------------------ queries
@dataclass
class QueryId(Message):
    part1: int | None = pb(1, "sfixed64")
    part2: int | None = pb(2, "sfixed64")


@dataclass
class PreparedStatementHandle(Message):
    server_info: bytes | None = pb(1, "bytes")


@dataclass
class RunQuery(Message):
    results_mode: int | None = pb(1, "enum")
    type: int | None = pb(2, "enum")
    plan: str | None = pb(3, "string")
    prepared_statement_handle: PreparedStatementHandle | None = pb(5, PreparedStatementHandle)
    autolimit_rowcount: int | None = pb(6, "int32")


@dataclass
class ParsingError(Message):
    start_column: int | None = pb(2, "int32")
    start_row: int | None = pb(3, "int32")
    end_column: int | None = pb(4, "int32")
    end_row: int | None = pb(5, "int32")


@dataclass
class DrillbitEndpoint(Message):
    address: str | None = pb(1, "string")
    user_port: int | None = pb(2, "int32")
    control_port: int | None = pb(3, "int32")
    data_port: int | None = pb(4, "int32")
    version: str | None = pb(6, "string")


@dataclass
class DrillPBError(Message):
    error_id: str | None = pb(1, "string")
    endpoint: DrillbitEndpoint | None = pb(2, DrillbitEndpoint)
    error_type: int | None = pb(3, "enum")
    message: str | None = pb(4, "string")
    parsing_error: list[ParsingError] = pb(6, ParsingError, repeated=True)


@dataclass
class QueryResult(Message):
    query_state: int | None = pb(1, "enum")
    query_id: QueryId | None = pb(2, QueryId)
    error: list[DrillPBError] = pb(3, DrillPBError, repeated=True)


@dataclass
class MajorType(Message):
    minor_type: int | None = pb(1, "enum")
    mode: int | None = pb(2, "enum")
    width: int | None = pb(3, "int32")
    precision: int | None = pb(4, "int32")
    scale: int | None = pb(5, "int32")
    time_zone: int | None = pb(6, "int32")


@dataclass
class NamePart(Message):
    type: int | None = pb(1, "enum")
    name: str | None = pb(2, "string")


@dataclass
class SerializedField(Message):
    major_type: MajorType | None = pb(1, MajorType)
    name_part: NamePart | None = pb(2, NamePart)
    child: list[SerializedField] = pb(3, "self", repeated=True)
    value_count: int | None = pb(4, "int32")
    var_byte_length: int | None = pb(5, "int32")
    buffer_length: int | None = pb(7, "int32")


@dataclass
class RecordBatchDef(Message):
    record_count: int | None = pb(1, "int32")
    field: list[SerializedField] = pb(2, SerializedField, repeated=True)
    carries_two_byte_selection_vector: bool | None = pb(3, "bool")
    affected_rows_count: int | None = pb(4, "int32")


@dataclass
class QueryData(Message):
    query_id: QueryId | None = pb(1, QueryId)
    row_count: int | None = pb(2, "int32")
    def_: RecordBatchDef | None = pb(3, RecordBatchDef)
    affected_rows_count: int | None = pb(4, "int32")


# ------------------------------------------------------------------------ metadata (User)
@dataclass
class LikeFilter(Message):
    pattern: str | None = pb(1, "string")
    escape: str | None = pb(2, "string")


@dataclass
class GetCatalogsReq(Message):
    catalog_name_filter: LikeFilter | None = pb(1, LikeFilter)


@dataclass
class CatalogMetadata(Message):
    catalog_name: str | None = pb(1, "string")
    description: str | None = pb(2, "string")
    connect: str | None = pb(3, "string")


@dataclass
class GetCatalogsResp(Message):
    status: int | None = pb(1, "enum")
    catalogs: list[CatalogMetadata] = pb(2, CatalogMetadata, repeated=True)
    error: DrillPBError | None = pb(3, DrillPBError)


@dataclass
class GetSchemasReq(Message):
    catalog_name_filter: LikeFilter | None = pb(1, LikeFilter)
    schema_name_filter: LikeFilter | None = pb(2, LikeFilter)


@dataclass
class SchemaMetadata(Message):
    catalog_name: str | None = pb(1, "string")
    schema_name: str | None = pb(2, "string")
    owner: str | None = pb(3, "string")
    type: str | None = pb(4, "string")
    mutable: str | None = pb(5, "string")


@dataclass
class GetSchemasResp(Message):
    status: int | None = pb(1, "enum")
    schemas: list[SchemaMetadata] = pb(2, SchemaMetadata, repeated=True)
    error: DrillPBError | None = pb(3, DrillPBError)


@dataclass
class GetTablesReq(Message):
    catalog_name_filter: LikeFilter | None = pb(1, LikeFilter)
    schema_name_filter: LikeFilter | None = pb(2, LikeFilter)
    table_name_filter: LikeFilter | None = pb(3, LikeFilter)
    table_type_filter: list[str] = pb(4, "string", repeated=True)


@dataclass
class TableMetadata(Message):
    catalog_name: str | None = pb(1, "string")
    schema_name: str | None = pb(2, "string")
    table_name: str | None = pb(3, "string")
    type: str | None = pb(4, "string")


@dataclass
class GetTablesResp(Message):
    status: int | None = pb(1, "enum")
    tables: list[TableMetadata] = pb(2, TableMetadata, repeated=True)
    error: DrillPBError | None = pb(3, DrillPBError)


@dataclass
class GetColumnsReq(Message):
    catalog_name_filter: LikeFilter | None = pb(1, LikeFilter)
    schema_name_filter: LikeFilter | None = pb(2, LikeFilter)
    table_name_filter: LikeFilter | None = pb(3, LikeFilter)
    column_name_filter: LikeFilter | None = pb(4, LikeFilter)


@dataclass
class ColumnMetadata(Message):
    catalog_name: str | None = pb(1, "string")
    schema_name: str | None = pb(2, "string")
    table_name: str | None = pb(3, "string")
    column_name: str | None = pb(4, "string")
    ordinal_position: int | None = pb(5, "int32")
    default_value: str | None = pb(6, "string")
    is_nullable: bool | None = pb(7, "bool")
    data_type: str | None = pb(8, "string")
    char_max_length: int | None = pb(9, "int32")
    char_octet_length: int | None = pb(10, "int32")
    numeric_precision: int | None = pb(11, "int32")
    numeric_precision_radix: int | None = pb(12, "int32")
    numeric_scale: int | None = pb(13, "int32")
    date_time_precision: int | None = pb(14, "int32")
    interval_type: str | None = pb(15, "string")
    interval_precision: int | None = pb(16, "int32")
    column_size: int | None = pb(17, "int32")


@dataclass
class GetColumnsResp(Message):
    status: int | None = pb(1, "enum")
    columns: list[ColumnMetadata] = pb(2, ColumnMetadata, repeated=True)
    error: DrillPBError | None = pb(3, DrillPBError)


@dataclass
class ServerMeta(Message):
    all_tables_selectable: bool | None = pb(1, "bool")
    blob_included_in_max_row_size: bool | None = pb(2, "bool")
    catalog_at_start: bool | None = pb(3, "bool")
    catalog_separator: str | None = pb(4, "string")
    catalog_term: str | None = pb(5, "string")
    collate_support: list[int] = pb(6, "enum", repeated=True)
    column_aliasing_supported: bool | None = pb(7, "bool")
    correlation_names_support: int | None = pb(9, "enum")
    date_time_functions: list[str] = pb(10, "string", repeated=True)
    date_time_literals_support: list[int] = pb(11, "enum", repeated=True)
    group_by_support: int | None = pb(12, "enum")
    identifier_casing: int | None = pb(13, "enum")
    identifier_quote_string: str | None = pb(14, "string")
    like_escape_clause_supported: bool | None = pb(15, "bool")
    max_binary_literal_length: int | None = pb(16, "uint32")
    max_catalog_name_length: int | None = pb(17, "uint32")
    max_char_literal_length: int | None = pb(18, "uint32")
    max_column_name_length: int | None = pb(19, "uint32")
    max_columns_in_group_by: int | None = pb(20, "uint32")
    max_columns_in_order_by: int | None = pb(21, "uint32")
    max_columns_in_select: int | None = pb(22, "uint32")
    max_cursor_name_length: int | None = pb(23, "uint32")
    max_logical_lob_size: int | None = pb(24, "uint32")
    max_row_size: int | None = pb(25, "uint32")
    max_schema_name_length: int | None = pb(26, "uint32")
    max_statement_length: int | None = pb(27, "uint32")
    max_statements: int | None = pb(28, "uint32")
    max_table_name_length: int | None = pb(29, "uint32")
    max_tables_in_select: int | None = pb(30, "uint32")
    max_user_name_length: int | None = pb(31, "uint32")
    null_collation: int | None = pb(32, "enum")
    null_plus_non_null_equals_null: bool | None = pb(33, "bool")
    numeric_functions: list[str] = pb(34, "string", repeated=True)
    order_by_support: list[int] = pb(35, "enum", repeated=True)
    outer_join_support: list[int] = pb(36, "enum", repeated=True)
    quoted_identifier_casing: int | None = pb(37, "enum")
    read_only: bool | None = pb(38, "bool")
    schema_term: str | None = pb(39, "string")
    search_escape_string: str | None = pb(40, "string")
    select_for_update_supported: bool | None = pb(41, "bool")
    special_characters: str | None = pb(42, "string")
    sql_keywords: list[str] = pb(43, "string", repeated=True)
    string_functions: list[str] = pb(44, "string", repeated=True)
    subquery_support: list[int] = pb(45, "enum", repeated=True)
    system_functions: list[str] = pb(46, "string", repeated=True)
    table_term: str | None = pb(47, "string")
    transaction_supported: bool | None = pb(48, "bool")
    union_support: list[int] = pb(49, "enum", repeated=True)
    current_schema: str | None = pb(50, "string")


@dataclass
class GetServerMetaResp(Message):
    status: int | None = pb(1, "enum")
    server_meta: ServerMeta | None = pb(2, ServerMeta)
    error: DrillPBError | None = pb(3, DrillPBError)


@dataclass
class CreatePreparedStatementReq(Message):
    sql_query: str | None = pb(1, "string")


@dataclass
class ResultColumnMetadata(Message):
    catalog_name: str | None = pb(1, "string")
    schema_name: str | None = pb(2, "string")
    table_name: str | None = pb(3, "string")
    column_name: str | None = pb(4, "string")
    label: str | None = pb(5, "string")
    data_type: str | None = pb(6, "string")
    is_nullable: bool | None = pb(7, "bool")
    precision: int | None = pb(8, "int32")
    scale: int | None = pb(9, "int32")
    signed: bool | None = pb(10, "bool")
    display_size: int | None = pb(11, "int32")
    is_aliased: bool | None = pb(12, "bool")
    searchability: int | None = pb(13, "enum")
    updatability: int | None = pb(14, "enum")
    auto_increment: bool | None = pb(15, "bool")
    case_sensitivity: bool | None = pb(16, "bool")
    sortable: bool | None = pb(17, "bool")
    class_name: str | None = pb(18, "string")
    is_currency: bool | None = pb(20, "bool")


@dataclass
class PreparedStatement(Message):
    columns: list[ResultColumnMetadata] = pb(1, ResultColumnMetadata, repeated=True)
    server_handle: PreparedStatementHandle | None = pb(2, PreparedStatementHandle)


@dataclass
class CreatePreparedStatementResp(Message):
    status: int | None = pb(1, "enum")
    prepared_statement: PreparedStatement | None = pb(2, PreparedStatement)
    error: DrillPBError | None = pb(3, DrillPBError)
