"""`NativeServer`: the listener of Drill's user port (31010 by default) beside the REST API,
one thread per connection (connection.py)."""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any

from drillspark.server.native.connection import Connection
from drillspark.server.native.framing import MAX_FRAME

log = logging.getLogger("drillspark.server")

DEFAULT_PORT = 31010  # Drill's user port


class NativeServer:
    """Drill's user protocol for `app` (a DrillServer: its queries, catalog, users)."""

    def __init__(
        self, app: Any, host: str = "127.0.0.1", port: int = DEFAULT_PORT, version: str = "1.22.0"
    ):
        self.app = app
        self.version = version  # the Drill version the handshake announces
        self.host = host
        self.max_frame = MAX_FRAME
        self.login_seconds = 60.0  # a client's handshake and login must each come within this
        self.max_connections = 1000  # open connections at most; more are closed at once
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.socket(family, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind((host, port))
            self._sock.listen(64)
        except OSError:
            self._sock.close()
            raise
        self.port: int = self._sock.getsockname()[1]
        self._connections: set[Connection] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> NativeServer:
        self._thread = threading.Thread(target=self._accept, name="drillspark-native", daemon=True)
        self._thread.start()
        return self

    def _accept(self) -> None:
        self._sock.settimeout(0.2)
        while not self._stopping.is_set():
            try:
                sock, address = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener was closed
                return
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)  # a peer gone silently
            with self._lock:
                full = len(self._connections) >= self.max_connections
            if full:  # each connection is a thread: a flood of them is refused, not served
                log.warning(
                    "native connection from %s refused: %d connections are open",
                    address[0] if isinstance(address, tuple) else address,
                    self.max_connections,
                )
                sock.close()
                continue
            conn = Connection(self, sock, address)
            with self._lock:
                self._connections.add(conn)
            threading.Thread(
                target=conn.serve, name="drillspark-native-connection", daemon=True
            ).start()

    def forget(self, conn: Connection) -> None:
        with self._lock:
            self._connections.discard(conn)

    def connections(self) -> list[Connection]:
        with self._lock:
            return list(self._connections)

    def stop(self) -> None:
        """Stop accepting connections and close the open ones (their queries are cancelled
        by the server's stop, or by their connection's end)."""
        self._stopping.set()
        self._sock.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for conn in self.connections():
            conn.close()
