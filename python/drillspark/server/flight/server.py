"""`FlightSqlServer`: Arrow Flight SQL on --flight-port beside the REST API and Drill's user
port, an adapter over the server's one query service (QueryManager: profiles, cancel, limits;
the session store: USE, ALTER SESSION, temporary tables; the users file).

A statement is planned by GetFlightInfo (its errors, with their SQL position, come back from
that call) and run while its ticket is read by DoGet, holding a running slot only then (a
ticket never read holds none): the rows leave as the Arrow record batches
Spark's Arrow path makes. Prepared statements (the JDBC driver prepares every statement) are
planned, not run, when made; they take no parameters, as Drill's. Cancel: CancelFlightInfo (and
Flight SQL's older CancelQuery action), or the client cancelling its DoGet."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.flight as flight

from drillspark.server.flight import batches, metadata, sessions
from drillspark.server.flight import messages as fm
from drillspark.server.flight.statements import Prepared, Statements, Ticketed
from drillspark.server.native.errors import error_type_of
from drillspark.server.native.messages import ErrorType
from drillspark.server.native.wire import WireError

log = logging.getLogger("drillspark.server")

DEFAULT_PORT = 32010  # suggested: the port Flight SQL servers (Dremio's) commonly use

ACTIONS = [
    ("CreatePreparedStatement", "plan a statement; its result's schema"),
    ("ClosePreparedStatement", "forget a prepared statement"),
    ("CancelFlightInfo", "cancel the query of a FlightInfo"),
    ("CancelQuery", "cancel the query of a FlightInfo (Flight SQL's older action)"),
]


def flight_error(e: Any) -> Exception:
    """A QueryFailed (or any failure) as the Flight error a client shows: Drill's
    `TYPE ERROR: message`, the type as the native protocol names it (native/errors.py, the
    one owner of that rule); a cancel as CANCELLED."""
    state = getattr(e, "state", "FAILED")
    message = str(e) or type(e).__name__
    if state == "CANCELED":
        return flight.FlightCancelledError(f"RESOURCE ERROR: {message}")
    kind = error_type_of(getattr(e, "exception", "") or type(e).__name__, state)
    return flight.FlightServerError(f"{ErrorType(kind).name} ERROR: {message}")


def invalid(text: str) -> Exception:
    """A bad request's error. Not pyarrow's ArrowInvalid, whose status detail carries the
    server's Python traceback to the client: a Flight error carries only its message."""
    return flight.FlightServerError(text)


class _Caller:
    """What the app's statement runner asks of its caller (ALTER SYSTEM, LOGICAL: admins)."""

    def __init__(self, admin: bool):
        self._admin = admin


class FlightSqlServer(flight.FlightServerBase):
    """Flight SQL for `app` (a DrillServer: its queries, catalog, sessions, users)."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = DEFAULT_PORT):
        shown = f"[{host}]" if ":" in host else host
        self.app = app
        self.host = host
        self.statements = Statements(idle_seconds=getattr(app.sessions, "idle", 3600.0))
        try:
            super().__init__(
                f"grpc://{shown}:{port}",
                auth_handler=sessions.Handshake(),
                middleware={sessions.MIDDLEWARE: sessions.Sessions(app)},
            )
        except (pa.ArrowException, OSError) as e:
            raise OSError(f"cannot listen on {shown}:{port} for Flight SQL: {e}") from None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def uri(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"grpc://{shown}:{self.port}"

    def start(self) -> FlightSqlServer:
        self._thread = threading.Thread(target=self.serve, name="drillspark-flight", daemon=True)
        self._thread.start()
        threading.Thread(target=self._sweep, name="drillspark-flight-sweep", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.statements.close_all()
        self.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _sweep(self) -> None:
        while not self._stopping.wait(5.0):
            self.statements.sweep()

    # ---------------------------------------------------------------- running statements
    def _sql_session(self, call: sessions.CallSession) -> Any:
        from drillspark.sql import temporary

        session = call.session
        with session.lock:
            schema, options = session.default_schema, dict(session.options)
        sql_session = self.app.catalog.session(schema, options)
        sql_session.user = call.user
        temporary.attach(sql_session, session.temporary)
        sql_session.ports = {k: v for k, v in self.app.ports().items() if isinstance(v, int)}
        return sql_session

    def _run(self, call: sessions.CallSession, text: str) -> Ticketed:
        """Plan `text` in the caller's session through the server's QueryManager; the Result
        (its schema read, its Spark job not yet run) waits for DoGet holding no running
        slot."""
        from drillspark.server.queries import QueryFailed
        from drillspark.sql.errors import SqlError

        app = self.app
        q = app.queries.new(text, call.user, "SQL", {})
        if app.queries.closing:
            reason = app.failure or "the server is shutting down"
            app.queries.finish(q, "FAILED", reason)
            raise flight_error(QueryFailed(reason))
        try:
            sql_session = self._sql_session(call)
        except SqlError as e:  # a schema gone since USE
            message = app.shown(str(e))
            app.queries.finish(q, "FAILED", message)
            raise flight_error(QueryFailed(message, exception=type(e).__name__)) from None
        caller = _Caller(call.session.admin or not app.auth.enabled)

        def execute() -> Any:
            from drillspark.spark.single_pass import disabled

            with disabled():  # rows are sent as they come: built with full discovery
                return app._sql(text, sql_session, call.session, caller)

        try:
            result = app.queries.run(q, execute, self._row_limit(call), arrow=batches.write)
        except QueryFailed as e:
            raise flight_error(e) from None
        rows = iter(result)
        try:
            schema = next(rows)
        except QueryFailed as e:
            raise flight_error(e) from None
        except StopIteration:  # cannot happen: the writer's first item is the schema
            schema = batches.spark_schema(result.schema) if result.schema else pa.schema([])
        # planned: its slot is free until DoGet reads the ticket (then taken again), so
        # tickets never read cannot hold the server's running slots
        result.wait_for_reader()
        return Ticketed(call.user, schema, result=_Rest(result, rows), query_id=q.id)

    def _row_limit(self, call: sessions.CallSession) -> int:
        value = call.session.options.get("exec.query.max_rows", 0)
        try:
            return max(int(value), 0)
        except (TypeError, ValueError):
            return 0

    def _plan_schema(self, call: sessions.CallSession, text: str) -> pa.Schema:
        """A statement's answer schema, planned and not run: a query's columns; any other
        statement (run only when executed) none."""
        from drillspark.sql import statements as st
        from drillspark.sql.engine import SqlEngine

        parts = st.split(text)
        if len(parts) == 1 and isinstance(st.classify(parts[0][1]), st.Query):
            result = SqlEngine(self.app.spark, session=self._sql_session(call)).execute_statement(
                parts[0][1]
            )
            df = getattr(result, "df", None)
            if df is not None:
                return batches.spark_schema(df.schema)
        if not parts:
            from drillspark.sql.errors import ValidationError

            raise ValidationError("the query is empty: no SQL statement")
        return pa.schema([])

    def _rows_of(self, call: sessions.CallSession) -> Any:
        from drillspark.sql.engine import SqlEngine

        def rows(sql: str) -> list[Any]:
            engine = SqlEngine(self.app.spark, session=self._sql_session(call))
            return list(engine.execute_statement(sql).collect())

        return rows

    def _file_schema(self, call: sessions.CallSession) -> Any:
        from drillspark.sql.engine import SqlEngine

        def schema(db_schema: str, table: str) -> pa.Schema | None:
            quoted = ".".join(f"`{p.replace('`', '``')}`" for p in [*db_schema.split("."), table])
            try:
                result = SqlEngine(
                    self.app.spark, session=self._sql_session(call)
                ).execute_statement(f"SELECT * FROM {quoted} LIMIT 0")
                df = getattr(result, "df", None)
                return batches.spark_schema(df.schema) if df is not None else None
            except Exception:  # noqa: BLE001 (no such table: none listed)
                return None

        return schema

    # ---------------------------------------------------------------- Flight's calls
    def _info(self, descriptor: Any, entry: Ticketed, handle: bytes) -> flight.FlightInfo:
        ticket = flight.Ticket(fm.pack(fm.TicketStatementQuery(statement_handle=handle)))
        rows = entry.table.num_rows if entry.table is not None else -1
        return flight.FlightInfo(
            entry.schema, descriptor, [flight.FlightEndpoint(ticket, [])], rows, -1
        )

    def get_flight_info(self, context: Any, descriptor: Any) -> flight.FlightInfo:
        call = sessions.call_session(context)
        cmd = _command(descriptor.command)
        try:
            entry = self._answer(call, cmd)
        except flight.FlightError:
            raise
        except pa.ArrowException:
            raise
        except Exception as e:  # noqa: BLE001 (a metadata failure: the client gets it)
            raise flight_error(_as_failure(self.app, e)) from None
        return self._info(descriptor, entry, self.statements.ticket(entry))

    def _answer(self, call: sessions.CallSession, cmd: Any) -> Ticketed:
        if isinstance(cmd, fm.CommandStatementQuery):
            return self._run(call, cmd.query or "")
        if isinstance(cmd, fm.CommandPreparedStatementQuery):
            p = self._prepared(call, cmd.prepared_statement_handle)
            return self._run(call, p.sql)
        table = self._metadata(call, cmd)
        return Ticketed(call.user, table.schema, table=table)

    def _metadata(self, call: sessions.CallSession, cmd: Any) -> pa.Table:
        rows = self._rows_of(call)
        if isinstance(cmd, fm.CommandGetCatalogs):
            return metadata.catalogs(rows)
        if isinstance(cmd, fm.CommandGetDbSchemas):
            return metadata.db_schemas(rows, cmd)
        if isinstance(cmd, fm.CommandGetTables):
            return metadata.tables(rows, cmd, self._file_schema(call))
        if isinstance(cmd, fm.CommandGetTableTypes):
            return metadata.table_types()
        if isinstance(cmd, fm.CommandGetSqlInfo):
            return metadata.sql_info_table(self.app.ports()["version"], list(cmd.info))
        schema = metadata.schema_of(cmd)
        if schema is not None:  # keys: Drill's tables have none
            return metadata.empty(schema)
        raise flight.FlightServerError(
            f"UNSUPPORTED_OPERATION ERROR: drillspark serve does not answer {type(cmd).__name__}"
        )

    def get_schema(self, context: Any, descriptor: Any) -> flight.SchemaResult:
        call = sessions.call_session(context)
        cmd = _command(descriptor.command)
        try:
            if isinstance(cmd, fm.CommandStatementQuery):
                return flight.SchemaResult(self._plan_schema(call, cmd.query or ""))
            if isinstance(cmd, fm.CommandPreparedStatementQuery):
                p = self._prepared(call, cmd.prepared_statement_handle)
                return flight.SchemaResult(p.schema)
            schema = metadata.schema_of(cmd)
        except (flight.FlightError, pa.ArrowException):
            raise
        except Exception as e:  # noqa: BLE001
            raise flight_error(_as_failure(self.app, e)) from None
        if schema is None:
            raise flight.FlightServerError(f"no schema for {type(cmd).__name__}")
        return flight.SchemaResult(schema)

    def do_get(self, context: Any, ticket: Any) -> flight.FlightDataStream:
        call = sessions.call_session(context)
        cmd = _command(ticket.ticket)
        if not isinstance(cmd, fm.TicketStatementQuery):
            raise invalid("a ticket of this server's FlightInfo is needed")
        entry = self.statements.take(cmd.statement_handle or b"", call.user)
        if entry is None:
            raise flight.FlightServerError(
                "the ticket is unknown, already read, or expired (a ticket is read once, "
                f"within {self.statements.unread_seconds:g} s of its FlightInfo)"
            )
        if entry.table is not None:
            return flight.RecordBatchStream(entry.table)
        handle = cmd.statement_handle or b""
        return flight.GeneratorStream(
            entry.schema,
            _stream(entry, context, self.app.queries.cancel, lambda: self.statements.read(handle)),
        )

    def do_put(self, context: Any, descriptor: Any, reader: Any, writer: Any) -> None:
        call = sessions.call_session(context)
        cmd = _command(descriptor.command)
        if isinstance(cmd, fm.CommandPreparedStatementQuery):
            self._prepared(call, cmd.prepared_statement_handle)
            if any(chunk.data is not None and chunk.data.num_rows for chunk in reader):
                raise invalid(
                    "UNSUPPORTED_OPERATION ERROR: drillspark's prepared statements take no "
                    "parameters (as Drill's): write the values into the statement"
                )
            answer = fm.DoPutPreparedStatementResult(
                prepared_statement_handle=cmd.prepared_statement_handle
            )
            writer.write(pa.py_buffer(answer.encode()))
            return
        if isinstance(cmd, fm.CommandStatementUpdate):
            text = cmd.query or ""
        elif isinstance(cmd, fm.CommandPreparedStatementUpdate):
            text = self._prepared(call, cmd.prepared_statement_handle).sql
        else:
            raise invalid(f"DoPut does not take {type(cmd).__name__}")
        entry = self._run(call, text)
        count = 0
        for batch in _stream(entry, context, self.app.queries.cancel):
            # a CTAS answers the records it wrote; any other statement changes none
            if "Number of records written" in batch.schema.names:
                column = batch.column("Number of records written").to_pylist()
                count += sum(int(v or 0) for v in column)
        writer.write(pa.py_buffer(fm.DoPutUpdateResult(record_count=count).encode()))

    def list_actions(self, context: Any) -> list[tuple[str, str]]:
        return ACTIONS

    def do_action(self, context: Any, action: Any) -> Iterator[flight.Result]:
        call = sessions.call_session(context)
        kind = action.type
        body = action.body.to_pybytes() if action.body is not None else b""
        try:
            if kind == "CreatePreparedStatement":
                return iter([self._prepare(call, body)])
            if kind == "ClosePreparedStatement":
                name, raw = fm.unpack(body)
                req = fm.ActionClosePreparedStatementRequest.decode(raw)
                self.statements.unprepare(req.prepared_statement_handle or b"", call.user)
                return iter([])
            if kind == "CancelFlightInfo":
                info = fm.CancelFlightInfoRequest.decode(body).info
                status = self._cancel(call, info)
                return iter([flight.Result(fm.CancelFlightInfoResult(status=status).encode())])
            if kind == "CancelQuery":
                name, raw = fm.unpack(body)
                info = fm.FlightInfo.decode(fm.ActionCancelQueryRequest.decode(raw).info or b"")
                status = self._cancel(call, info)
                return iter([flight.Result(fm.pack(fm.ActionCancelQueryResult(result=status)))])
        except WireError as e:
            raise invalid(f"a malformed {kind} request: {e}") from None
        except (flight.FlightError, pa.ArrowException):
            raise
        except Exception as e:  # noqa: BLE001
            raise flight_error(_as_failure(self.app, e)) from None
        raise invalid(f"drillspark serve does not take the action {kind!r}")

    def _prepare(self, call: sessions.CallSession, body: bytes) -> flight.Result:
        name, raw = fm.unpack(body)
        req = fm.ActionCreatePreparedStatementRequest.decode(raw)
        if req.transaction_id:
            raise invalid("drillspark serve has no transactions")
        sql = req.query or ""
        schema = self._plan_schema(call, sql)
        handle = self.statements.prepare(Prepared(call.user, call.session.id, sql, schema))
        answer = fm.ActionCreatePreparedStatementResult(
            prepared_statement_handle=handle,
            dataset_schema=schema.serialize().to_pybytes(),
            parameter_schema=b"",
        )
        return flight.Result(fm.pack(answer))

    def _prepared(self, call: sessions.CallSession, handle: bytes | None) -> Prepared:
        p = self.statements.prepared(handle or b"", call.user)
        if p is None:
            raise invalid("the prepared statement is unknown or was closed")
        return p

    def _cancel(self, call: sessions.CallSession, info: fm.FlightInfo | None) -> int:
        """Cancel the query behind a FlightInfo's ticket: CANCELLED, or NOT_CANCELLABLE for
        one that already ended (or is not the caller's)."""
        for endpoint in info.endpoint if info else []:
            try:
                cmd = _command(endpoint.ticket.ticket or b"" if endpoint.ticket else b"")
            except (pa.ArrowException, WireError):
                continue
            if not isinstance(cmd, fm.TicketStatementQuery):
                continue
            handle = cmd.statement_handle or b""
            entry = self.statements.peek(handle, call.user)
            if entry is not None and entry.query_id:
                taken = self.statements.take(handle, call.user)
                if taken is not None:  # never read: closed here (CANCELED)
                    self.app.queries.cancel(taken.query_id or "", "canceled")
                    taken.close()
                return fm.CANCEL_CANCELLED
            query_id = self._running_query(handle)
            if query_id and self.app.queries.cancel(query_id, "canceled"):
                return fm.CANCEL_CANCELLED
        return fm.CANCEL_NOT_CANCELLABLE

    def _running_query(self, handle: bytes) -> str | None:
        return self.statements.reading(handle)


class _Rest:
    """A Result whose first item (the schema) was read: the rest of it, and its close."""

    def __init__(self, result: Any, rows: Iterator[Any]):
        self.result = result
        self.rows = rows

    def close(self) -> None:
        self.result.close()


def _stream(
    entry: Ticketed, context: Any, cancel: Any, ended: Any = lambda: None
) -> Iterator[pa.RecordBatch]:
    """The record batches of a ticketed query; a failure mid-way is the Flight error the
    client reads; the query ends (CANCELED) if the client goes away."""
    rest = entry.result
    stop_watching = _watch(context, entry, cancel)
    try:
        for batch in rest.rows:
            if context.is_cancelled():
                raise flight.FlightCancelledError("the client cancelled the call")
            yield batch
    except flight.FlightError:
        raise
    except Exception as e:  # QueryFailed: FAILED or CANCELED, with its message
        raise flight_error(e) from None
    finally:
        stop_watching()
        rest.close()
        ended()


def _watch(context: Any, entry: Ticketed, cancel: Any) -> Callable[[], None]:
    """Until the returned function is called, look twice a second whether the client cancelled
    its call (ADBC's cancel, a closed stream) and cancel the query if it did: a Spark job
    computing the answer is not waiting on the stream, so it would not notice otherwise."""
    done = threading.Event()
    lock = threading.Lock()

    def look() -> None:
        while not done.wait(0.5):
            with lock:  # the call's context lives until `stop` returns
                if done.is_set():
                    return
                gone = context.is_cancelled()
            if gone:
                cancel(entry.query_id, "client")
                return

    def stop() -> None:
        with lock:
            done.set()

    threading.Thread(target=look, name="drillspark-flight-watch", daemon=True).start()
    return stop


def _command(data: bytes) -> Any:
    try:
        return fm.command(data)
    except WireError as e:
        raise invalid(str(e)) from None


def _as_failure(app: Any, e: Exception) -> Any:
    from drillspark.server.queries import QueryFailed
    from drillspark.sql.errors import SqlError

    if isinstance(e, SqlError):
        return QueryFailed(app.shown(str(e)), exception=type(e).__name__)
    from drillspark.result import runtime_message

    return QueryFailed(app.shown(runtime_message(e)), exception=type(e).__name__)
