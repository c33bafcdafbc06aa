"""Arrow Flight SQL for `drillspark serve` (--flight-port): ADBC's Flight SQL driver and the
Flight SQL JDBC driver connect with grpc://HOST:PORT. An adapter over the server's query
service, as the native protocol is; see docs/server.md, "Arrow Flight SQL".

    messages.py    Flight SQL's protobuf messages (on the native protocol's codec) and Any
    batches.py     answers as Arrow record batches, with Flight SQL's column metadata
    metadata.py    catalogs, schemas, tables, table types, SQL info, keys
    sessions.py    basic auth and bearer tokens over the users file and the session store
    statements.py  tickets and prepared statements between the calls that use them
    server.py      the Flight SQL service (GetFlightInfo, DoGet, DoPut, actions)"""

from __future__ import annotations

from drillspark.server.flight.server import DEFAULT_PORT, FlightSqlServer

__all__ = ["DEFAULT_PORT", "FlightSqlServer"]
