"""One client connection of the native protocol: the handshake (and SASL PLAIN when the
server has users), then requests, each answered on the connection as Drill's Drillbit answers
it. The connection's own thread reads frames; queries and metadata requests run in threads of
their own, so PING, CANCEL_QUERY and the client's ACKs are read while a query streams.

A connection is a session: USE, ALTER SESSION and temporary tables last as long as it, held
in the same session object a REST client's cookie keeps (auth.HttpSession), and its queries
run through the server's one QueryManager (profiles, cancel, limits)."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from drillspark.server.native import framing, metadata, rows, vectors
from drillspark.server.native import messages as m
from drillspark.server.native.errors import NativeProtocolError, drill_error, error_type_of
from drillspark.server.native.framing import Frame, FrameError, PeerClosed
from drillspark.server.native.wire import Message, WireError

if TYPE_CHECKING:
    from drillspark.server.native.server import NativeServer

log = logging.getLogger("drillspark.server")

SERVER_NAME = "Apache Drill Server"
BATCH_ROWS = 65_535  # most rows in one record batch (Drill's vectors count up to 64K)
BATCH_BYTES = 8 << 20  # an Arrow batch larger than this goes as several record batches
IN_FLIGHT = 8  # record batches sent and not yet acknowledged before the sender waits

SUPPORTED_METHODS = [
    m.RpcType.RUN_QUERY,
    m.RpcType.CANCEL_QUERY,
    m.RpcType.GET_CATALOGS,
    m.RpcType.GET_SCHEMAS,
    m.RpcType.GET_TABLES,
    m.RpcType.GET_COLUMNS,
    m.RpcType.CREATE_PREPARED_STATEMENT,
    m.RpcType.GET_SERVER_META,
]


def query_id_message(query_id: str) -> m.QueryId:
    raw = uuid.UUID(query_id).bytes
    return m.QueryId(
        part1=int.from_bytes(raw[:8], "big", signed=True),
        part2=int.from_bytes(raw[8:], "big", signed=True),
    )


def query_id_text(qid: m.QueryId) -> str:
    raw = (qid.part1 or 0).to_bytes(8, "big", signed=True)
    raw += (qid.part2 or 0).to_bytes(8, "big", signed=True)
    return str(uuid.UUID(bytes=raw))


class Connection:
    """A client's connection, served by `serve()` in its own thread."""

    def __init__(self, server: NativeServer, sock: socket.socket, address: Any):
        self.server = server
        self.app = server.app
        self.sock = sock
        self.address = address
        self.user: str | None = None  # set once the handshake (and login) succeeded
        self._admin = False  # read by the app's statement runner (ALTER SYSTEM, LOGICAL)
        self.session: Any = None
        self._send_lock = threading.Lock()
        self._acks = threading.Condition()
        self._next_id = 0
        self._unacked: set[int] = set()
        self._closed = threading.Event()
        self._queries: set[str] = set()  # this connection's running queries
        self._cancelled: set[str] = set()  # ... that it asked to cancel
        self._handshake: m.UserToBitHandshake | None = None
        self._sasl_pending = False
        # for sys.connections: when it came, its queries, and its session's id (not a secret)
        self.established = time.time()
        self.query_count = 0
        self.session_id = str(uuid.uuid4())

    # ----------------------------------------------------------------- the connection
    def serve(self) -> None:
        try:
            while not self._closed.is_set():
                try:
                    frame = framing.read_frame(
                        self.sock,
                        self.server.max_frame,
                        first_seconds=None if self.user else self.server.login_seconds,
                    )
                except PeerClosed:
                    return
                self._dispatch(frame)
        except (FrameError, NativeProtocolError, WireError) as e:
            log.warning("native connection from %s: %s; closing it", _peer(self.address), e)
        except OSError:  # the client went away
            pass
        finally:
            self.close()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        with self._acks:
            self._acks.notify_all()
        for query_id in list(self._queries):  # a query nobody reads is cancelled
            self.app.queries.cancel(query_id, "client")
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        if self.session is not None:
            self.session.temporary.drop_all()  # the session's temporary tables end with it
        self.server.forget(self)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _send(
        self, mode: int, coordination_id: int, rpc_type: int, body: Message, raw: bytes = b""
    ) -> None:
        data = framing.encode(mode, coordination_id, rpc_type, body.encode(), raw)
        with self._send_lock:
            if self._closed.is_set():
                raise OSError("the connection is closed")
            self.sock.sendall(data)

    def respond(self, coordination_id: int, rpc_type: int, body: Message) -> None:
        self._send(m.RpcMode.RESPONSE, coordination_id, rpc_type, body)

    def request(
        self,
        rpc_type: int,
        body: Message,
        raw: bytes = b"",
        stop: Callable[[], bool] | None = None,
    ) -> None:
        """Send a request of the server's (QUERY_DATA, QUERY_RESULT). A record batch waits
        first while too many are not acknowledged (a client that reads slowly holds its query
        here), unless `stop()` says the query is being cancelled (its end is then near: the
        next rows raise); a query's end (QUERY_RESULT) never waits."""
        with self._acks:
            while (
                rpc_type == m.RpcType.QUERY_DATA
                and len(self._unacked) >= IN_FLIGHT
                and not self._closed.is_set()
                and not (stop is not None and stop())
            ):
                self._acks.wait(0.5)
            self._next_id = self._next_id % 0x7FFFFFFF + 1
            coordination_id = self._next_id
            self._unacked.add(coordination_id)
        self._send(m.RpcMode.REQUEST, coordination_id, rpc_type, body, raw)

    # ----------------------------------------------------------------- dispatch
    def _dispatch(self, frame: Frame) -> None:
        mode = frame.mode
        if mode == m.RpcMode.PING:
            self._send(m.RpcMode.PONG, 0, 0, m.Ack(ok=True))
            return
        if mode in (m.RpcMode.RESPONSE, m.RpcMode.RESPONSE_FAILURE):  # the client's ACKs
            with self._acks:
                self._unacked.discard(frame.coordination_id)
                self._acks.notify_all()
            return
        if mode == m.RpcMode.PONG:
            return
        if mode != m.RpcMode.REQUEST:
            raise NativeProtocolError(f"an RPC frame of unknown mode {mode}")
        if self.user is None:
            self._before_login(frame)
            return
        kind = frame.rpc_type
        if kind == m.RpcType.RUN_QUERY:
            run = m.RunQuery.decode(frame.body)
            self._thread(lambda: self._run_query(frame.coordination_id, run), "query")
        elif kind == m.RpcType.CANCEL_QUERY:
            self._cancel(frame.coordination_id, m.QueryId.decode(frame.body))
        elif kind in metadata.HANDLERS:
            self._thread(lambda: self._metadata(frame), "metadata")
        elif kind == m.RpcType.CREATE_PREPARED_STATEMENT:
            req = m.CreatePreparedStatementReq.decode(frame.body)
            self._thread(lambda: self._prepare(frame.coordination_id, req), "prepare")
        elif kind == m.RpcType.GOODBYE:
            self.close()
        else:
            self._failure(
                frame.coordination_id,
                f"drillspark serve does not answer the user protocol's request type {kind}",
            )

    def _thread(self, target: Callable[[], None], name: str) -> None:
        def run() -> None:
            try:
                target()
            except OSError:  # the client is gone
                self.close()
            except Exception:  # a bug of ours: the client gets no answer, the server stays
                log.exception("native protocol: unexpected error (%s)", name)
                self.close()

        threading.Thread(target=run, name=f"drillspark-native-{name}", daemon=True).start()

    def _failure(self, coordination_id: int, message: str) -> None:
        """RESPONSE_FAILURE: a request the server cannot answer (the client raises it)."""
        self._send(
            m.RpcMode.RESPONSE_FAILURE, coordination_id, 0, drill_error(message, m.ErrorType.SYSTEM)
        )

    # ----------------------------------------------------------------- handshake and login
    def _before_login(self, frame: Frame) -> None:
        if self._handshake is None:
            if frame.rpc_type != m.RpcType.HANDSHAKE:
                raise NativeProtocolError("the first request must be the handshake")
            self._handshake_request(frame)
        elif frame.rpc_type == m.RpcType.SASL_MESSAGE and self._sasl_pending:
            self._sasl(frame)
        else:
            raise NativeProtocolError(f"request type {frame.rpc_type} before the client logged in")

    def _handshake_request(self, frame: Frame) -> None:
        hello = m.UserToBitHandshake.decode(frame.body)
        self._handshake = hello
        out = m.BitToUserHandshake(
            rpc_version=m.RPC_VERSION,
            server_infos=server_infos(self.server.version),
            supported_methods=list(SUPPORTED_METHODS),
        )
        if hello.rpc_version != m.RPC_VERSION:
            self._handshake_failed(
                frame,
                out,
                m.HandshakeStatus.RPC_VERSION_MISMATCH,
                f"Invalid rpc version. Expected {m.RPC_VERSION}, actual {hello.rpc_version}.",
            )
            return
        auth = self.app.auth
        if not auth.enabled:
            name = (hello.credentials.user_name if hello.credentials else None) or "anonymous"
            out.status = m.HandshakeStatus.SUCCESS
            self.respond(frame.coordination_id, m.RpcType.HANDSHAKE, out)
            self._logged_in(name, admin=True)
            return
        if hello.sasl_support is None:  # a client older than Drill 1.10: plain credentials
            password = next(
                (
                    p.value or ""
                    for p in (hello.properties.properties if hello.properties else [])
                    if (p.key or "").lower() == "password"
                ),
                "",
            )
            name = (hello.credentials.user_name if hello.credentials else None) or ""
            user = auth.check(name, password)
            if user is None:
                self._handshake_failed(
                    frame, out, m.HandshakeStatus.AUTH_FAILED, "Invalid user credentials."
                )
                return
            out.status = m.HandshakeStatus.SUCCESS
            self.respond(frame.coordination_id, m.RpcType.HANDSHAKE, out)
            self._logged_in(user.name, user.admin)
            return
        out.status = m.HandshakeStatus.AUTH_REQUIRED
        out.authentication_mechanisms = ["PLAIN"]
        out.encrypted = False
        out.max_wrapped_size = 65536
        self._sasl_pending = True
        self.respond(frame.coordination_id, m.RpcType.HANDSHAKE, out)

    def _handshake_failed(
        self, frame: Frame, out: m.BitToUserHandshake, status: int, message: str
    ) -> None:
        out.status = status
        out.error_id = str(uuid.uuid4())
        out.error_message = message
        self.respond(frame.coordination_id, m.RpcType.HANDSHAKE, out)
        log.warning(
            "native connection from %s: handshake refused (%s): %s",
            _peer(self.address),
            m.HandshakeStatus(status).name,
            message,
        )
        self.close()

    def _sasl(self, frame: Frame) -> None:
        """SASL PLAIN (RFC 4616): `authzid NUL authcid NUL password` in the first message."""
        msg = m.SaslMessage.decode(frame.body)
        if (msg.mechanism or "PLAIN").upper() != "PLAIN":
            self._sasl_failed(frame, f"unsupported SASL mechanism {msg.mechanism}")
            return
        parts = (msg.data or b"").split(b"\0")
        if len(parts) != 3:
            self._sasl_failed(frame, "a malformed SASL PLAIN message")
            return
        try:
            authzid, name, password = (p.decode("utf-8") for p in parts)
        except UnicodeDecodeError:
            self._sasl_failed(frame, "a SASL PLAIN message that is not UTF-8")
            return
        user = self.app.auth.check(name, password)
        if user is None or (authzid and authzid != name):
            log.warning("failed native login for %r from %s", name, _peer(self.address))
            self._sasl_failed(frame, "Authentication failed.")
            return
        self._sasl_pending = False
        self.respond(
            frame.coordination_id,
            m.RpcType.SASL_MESSAGE,
            m.SaslMessage(status=m.SaslStatus.SASL_SUCCESS),
        )
        self._logged_in(user.name, user.admin)

    def _sasl_failed(self, frame: Frame, message: str) -> None:
        """As a Drillbit: SASL_FAILED (the JDBC driver says "Authentication failed. Incorrect
        credentials?"), then the connection is closed."""
        log.debug("native login refused from %s: %s", _peer(self.address), message)
        self.respond(
            frame.coordination_id,
            m.RpcType.SASL_MESSAGE,
            m.SaslMessage(status=m.SaslStatus.SASL_FAILED),
        )
        self.close()

    def _logged_in(self, name: str, admin: bool) -> None:
        from drillspark.server.auth import HttpSession
        from drillspark.sql import statements as st

        self.user = name
        self._admin = admin or not self.app.auth.enabled
        self.session = HttpSession(id=f"native-{uuid.uuid4()}", user=name, admin=self._admin)
        props = (
            self._handshake.properties.properties
            if self._handshake and self._handshake.properties
            else []
        )
        for p in props:
            if (p.key or "").lower() == "schema" and p.value:
                try:
                    schema = st.parse_schema_path(p.value)
                    self.app.catalog.session(schema, {})  # checked: a schema that exists
                    self.session.default_schema = schema
                except Exception as e:  # noqa: BLE001 (Drill refuses the connection too)
                    log.warning("native connection: schema %r refused: %s", p.value, e)
        log.debug("native connection from %s: user %s", _peer(self.address), name)

    # ----------------------------------------------------------------- queries
    def _cancel(self, coordination_id: int, qid: m.QueryId) -> None:
        query_id = query_id_text(qid)
        mine = query_id in self._queries
        if mine:
            self._cancelled.add(query_id)
        # acknowledged first, as a Drillbit does: the query's end (CANCELED) follows
        self.respond(coordination_id, m.RpcType.ACK, m.Ack(ok=True))
        if mine:
            self.app.queries.cancel(query_id, "canceled")

    def _run_query(self, coordination_id: int, run: m.RunQuery) -> None:
        from drillspark.server.queries import QueryFailed

        text, error = self._query_text(run)
        qm = self.app.queries
        q = qm.new(text, self.user or "anonymous", "SQL", {})
        qid = query_id_message(q.id)
        self._queries.add(q.id)
        self.query_count += 1
        try:
            self.respond(coordination_id, m.RpcType.QUERY_HANDLE, qid)
            if error is not None:
                qm.finish(q, "FAILED", error)
                self._query_failed(qid, error, m.ErrorType.UNSUPPORTED_OPERATION)
                return
            try:
                result = self._execute(q, text, self._row_limit(run))
            except QueryFailed as e:
                self._query_ended(qid, q.id, e)
                return
            try:
                self._stream(qid, result, lambda: q.cancel_reason is not None)
            except QueryFailed as e:
                self._query_ended(qid, q.id, e)
                return
            finally:
                result.close()
            self.request(
                m.RpcType.QUERY_RESULT,
                m.QueryResult(query_state=m.QueryState.COMPLETED, query_id=qid),
            )
        finally:
            self._queries.discard(q.id)
            self._cancelled.discard(q.id)

    def _execute(self, q: Any, text: str, limit: int) -> Any:
        """Run the statement in this connection's session, as the REST handler runs one in
        its HTTP session (DrillServer.run_query): the server's QueryManager runs it (slot,
        pool, job group, time limit, profile), the app runs the statement (USE and ALTER
        SESSION kept by the session); the rows come as Arrow batches (rows.write)."""
        from drillspark.server.queries import QueryFailed
        from drillspark.sql import temporary
        from drillspark.sql.errors import SqlError

        app, session = self.app, self.session
        if app.queries.closing:
            reason = app.failure or "the server is shutting down"
            app.queries.finish(q, "FAILED", reason)
            raise QueryFailed(reason)
        with session.lock:
            schema, options = session.default_schema, dict(session.options)
        try:
            sql_session = app.catalog.session(schema, options)
        except SqlError as e:  # a schema gone since USE
            message = app.shown(str(e))
            app.queries.finish(q, "FAILED", message)
            raise QueryFailed(message, exception=type(e).__name__) from None
        sql_session.user = self.user
        temporary.attach(sql_session, session.temporary)
        sql_session.ports = {k: v for k, v in app.ports().items() if isinstance(v, int)}

        def execute() -> Any:
            from drillspark.spark.single_pass import disabled

            with disabled():  # rows are sent as they come: built with full discovery
                return app._sql(text, sql_session, session, self)

        return app.queries.run(q, execute, limit, arrow=rows.write)

    def _query_text(self, run: m.RunQuery) -> tuple[str, str | None]:
        """The statement's text, or (text, why it is refused)."""
        kind = run.type or m.QueryType.SQL
        if kind == m.QueryType.SQL:
            return run.plan or "", None
        if kind == m.QueryType.PREPARED_STATEMENT:
            handle = run.prepared_statement_handle
            return metadata.prepared_text(handle.server_info if handle else None), None
        text = run.plan or ""
        name = m.QueryType(kind).name if kind in m.QueryType._value2member_map_ else str(kind)
        return text, f"query type {name} is not supported over the native protocol (SQL is)"

    def _row_limit(self, run: m.RunQuery) -> int:
        """The rows the client asked for at most: the RunQuery's autolimit, else the session's
        `exec.query.max_rows` (JDBC's setMaxRows sets it), else none."""
        if run.autolimit_rowcount:
            return max(run.autolimit_rowcount, 0)
        value = self.session.options.get("exec.query.max_rows", 0) if self.session else 0
        try:
            return max(int(value), 0)
        except (TypeError, ValueError):
            return 0

    def _stream(self, qid: m.QueryId, result: Any, stop: Callable[[], bool]) -> None:
        columns = vectors.columns_of(result.columns, result.schema, result.metadata)
        sent = False
        for item in result:  # the answer's Arrow schema, then its record batches
            if self._closed.is_set():
                raise OSError("the client is gone")
            if not isinstance(item, pa.RecordBatch) or not item.num_rows:
                continue
            for piece in _pieces(item):
                self._batch(qid, columns, piece.num_rows, piece.columns, stop)
                sent = True
        if not sent:  # an empty answer still sends its schema
            empty = [vectors.entry_array(c, []) for c in columns]
            self._batch(qid, columns, 0, empty, stop)

    def _batch(
        self,
        qid: m.QueryId,
        columns: list[vectors.Column],
        count: int,
        arrays: list[Any],
        stop: Callable[[], bool],
    ) -> None:
        fields, raw = vectors.encode(columns, arrays)
        data = m.QueryData(
            query_id=qid,
            row_count=count,
            def_=m.RecordBatchDef(
                record_count=count, field=fields, carries_two_byte_selection_vector=False
            ),
        )
        self.request(m.RpcType.QUERY_DATA, data, raw, stop)

    def _query_ended(self, qid: m.QueryId, query_id: str, e: Any) -> None:
        if e.state == "CANCELED" and query_id in self._cancelled:  # as the client asked
            self.request(
                m.RpcType.QUERY_RESULT,
                m.QueryResult(query_state=m.QueryState.CANCELED, query_id=qid),
            )
            return
        self._query_failed(qid, str(e), error_type_of(e.exception, e.state))

    def _query_failed(self, qid: m.QueryId, message: str, error_type: int) -> None:
        self.request(
            m.RpcType.QUERY_RESULT,
            m.QueryResult(
                query_state=m.QueryState.FAILED,
                query_id=qid,
                error=[drill_error(message, error_type)],
            ),
        )

    # ----------------------------------------------------------------- metadata
    def _metadata(self, frame: Frame) -> None:
        answer_type, answer = metadata.answer(self, frame.rpc_type, frame.body)
        self.respond(frame.coordination_id, answer_type, answer)

    def _prepare(self, coordination_id: int, req: m.CreatePreparedStatementReq) -> None:
        answer = metadata.prepare(self, req.sql_query or "")
        self.respond(coordination_id, m.RpcType.PREPARED_STATEMENT, answer)


def _pieces(batch: pa.RecordBatch) -> list[pa.RecordBatch]:
    """An Arrow batch as record batches of at most BATCH_ROWS rows and about BATCH_BYTES."""
    rows = batch.num_rows
    size = batch.nbytes
    step = min(BATCH_ROWS, max(1, rows * BATCH_BYTES // size) if size > BATCH_BYTES else rows)
    if step >= rows:
        return [batch]
    return [batch.slice(i, step) for i in range(0, rows, step)]


def server_infos(version: str) -> m.RpcEndpointInfos:
    major, minor, patch = (int(x) for x in version.split("."))
    return m.RpcEndpointInfos(
        name=SERVER_NAME,
        version=version,
        major_version=major,
        minor_version=minor,
        patch_version=patch,
        application="drillspark",
        build_number=0,
        version_qualifier="",
    )


def _peer(address: Any) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


__all__ = ["Connection"]
