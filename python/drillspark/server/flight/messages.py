"""The Flight SQL messages this server reads and writes (Arrow's public FlightSql.proto, package
`arrow.flight.protocol.sql`), declared for the native protocol's small protobuf codec
(server/native/wire.py), and the `google.protobuf.Any` envelope Flight SQL wraps each command
in. Only the fields this server uses are declared; the codec skips the others."""

from __future__ import annotations

from dataclasses import dataclass

from drillspark.server.native.wire import Message, WireError, pb

TYPE_PREFIX = "type.googleapis.com/arrow.flight.protocol.sql."


@dataclass
class Any_(Message):
    """google.protobuf.Any: a message's type URL and its bytes."""

    type_url: str | None = pb(1, "string")
    value: bytes | None = pb(2, "bytes")


def pack(message: Message) -> bytes:
    """`message` in its Any envelope, as Flight SQL sends commands and action results."""
    name = type(message).__name__
    return Any_(type_url=TYPE_PREFIX + name, value=message.encode()).encode()


def unpack(data: bytes) -> tuple[str, bytes]:
    """(the message's name without the package, its bytes) of an Any envelope."""
    try:
        envelope = Any_.decode(data)
    except WireError as e:
        raise WireError(f"not a Flight SQL command ({e})") from None
    url = envelope.type_url or ""
    if not url.startswith(TYPE_PREFIX):
        raise WireError(f"not a Flight SQL command: type {url!r}")
    return url[len(TYPE_PREFIX) :], envelope.value or b""


# ---------------------------------------------------------------- statements
@dataclass
class CommandStatementQuery(Message):
    query: str | None = pb(1, "string")
    transaction_id: bytes | None = pb(2, "bytes")


@dataclass
class CommandStatementUpdate(Message):
    query: str | None = pb(1, "string")
    transaction_id: bytes | None = pb(2, "bytes")


@dataclass
class TicketStatementQuery(Message):
    statement_handle: bytes | None = pb(1, "bytes")


@dataclass
class DoPutUpdateResult(Message):
    record_count: int | None = pb(1, "int64")


# ---------------------------------------------------------------- prepared statements
@dataclass
class ActionCreatePreparedStatementRequest(Message):
    query: str | None = pb(1, "string")
    transaction_id: bytes | None = pb(2, "bytes")


@dataclass
class ActionCreatePreparedStatementResult(Message):
    prepared_statement_handle: bytes | None = pb(1, "bytes")
    dataset_schema: bytes | None = pb(2, "bytes")
    parameter_schema: bytes | None = pb(3, "bytes")


@dataclass
class ActionClosePreparedStatementRequest(Message):
    prepared_statement_handle: bytes | None = pb(1, "bytes")


@dataclass
class CommandPreparedStatementQuery(Message):
    prepared_statement_handle: bytes | None = pb(1, "bytes")


@dataclass
class CommandPreparedStatementUpdate(Message):
    prepared_statement_handle: bytes | None = pb(1, "bytes")


@dataclass
class DoPutPreparedStatementResult(Message):
    prepared_statement_handle: bytes | None = pb(1, "bytes")


# ---------------------------------------------------------------- metadata
@dataclass
class CommandGetSqlInfo(Message):
    info: list[int] = pb(1, "uint32", repeated=True)


@dataclass
class CommandGetCatalogs(Message):
    pass


@dataclass
class CommandGetDbSchemas(Message):
    catalog: str | None = pb(1, "string")
    db_schema_filter_pattern: str | None = pb(2, "string")


@dataclass
class CommandGetTables(Message):
    catalog: str | None = pb(1, "string")
    db_schema_filter_pattern: str | None = pb(2, "string")
    table_name_filter_pattern: str | None = pb(3, "string")
    table_types: list[str] = pb(4, "string", repeated=True)
    include_schema: bool | None = pb(5, "bool")


@dataclass
class CommandGetTableTypes(Message):
    pass


@dataclass
class CommandGetPrimaryKeys(Message):
    catalog: str | None = pb(1, "string")
    db_schema: str | None = pb(2, "string")
    table: str | None = pb(3, "string")


@dataclass
class CommandGetExportedKeys(CommandGetPrimaryKeys):
    pass


@dataclass
class CommandGetImportedKeys(CommandGetPrimaryKeys):
    pass


@dataclass
class CommandGetCrossReference(Message):
    pk_table: str | None = pb(3, "string")
    fk_table: str | None = pb(6, "string")


@dataclass
class CommandGetXdbcTypeInfo(Message):
    data_type: int | None = pb(1, "int32")


# ---------------------------------------------------------------- cancel
@dataclass
class ActionCancelQueryRequest(Message):
    """Flight SQL's own cancel (before Flight's CancelFlightInfo): a serialized FlightInfo."""

    info: bytes | None = pb(1, "bytes")


@dataclass
class ActionCancelQueryResult(Message):
    result: int | None = pb(1, "enum")


CANCEL_UNSPECIFIED, CANCEL_CANCELLED, CANCEL_CANCELLING, CANCEL_NOT_CANCELLABLE = 0, 1, 2, 3


# Flight's own messages (Flight.proto) met inside a cancel request: only the ticket is read
@dataclass
class Ticket(Message):
    ticket: bytes | None = pb(1, "bytes")


@dataclass
class FlightEndpoint(Message):
    ticket: Ticket | None = pb(1, Ticket)


@dataclass
class FlightInfo(Message):
    endpoint: list[FlightEndpoint] = pb(3, FlightEndpoint, repeated=True)


@dataclass
class CancelFlightInfoRequest(Message):
    info: FlightInfo | None = pb(1, FlightInfo)


@dataclass
class CancelFlightInfoResult(Message):
    status: int | None = pb(1, "enum")


COMMANDS: dict[str, type[Message]] = {
    cls.__name__: cls
    for cls in (
        CommandStatementQuery,
        CommandStatementUpdate,
        TicketStatementQuery,
        CommandPreparedStatementQuery,
        CommandPreparedStatementUpdate,
        CommandGetSqlInfo,
        CommandGetCatalogs,
        CommandGetDbSchemas,
        CommandGetTables,
        CommandGetTableTypes,
        CommandGetPrimaryKeys,
        CommandGetExportedKeys,
        CommandGetImportedKeys,
        CommandGetCrossReference,
        CommandGetXdbcTypeInfo,
    )
}


def command(data: bytes) -> Message:
    """The Flight SQL command in a descriptor's or ticket's bytes."""
    name, body = unpack(data)
    cls = COMMANDS.get(name)
    if cls is None:
        raise WireError(f"drillspark serve does not answer the Flight SQL command {name}")
    return cls.decode(body)
