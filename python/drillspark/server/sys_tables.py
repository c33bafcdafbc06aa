"""The sys tables that describe a running server, as Drill 1.22's columns name them:
`sys.profiles` and `sys.profiles_json` (the finished queries the server keeps, as its
/profiles pages show them), `sys.connections` (native-protocol connections and the REST
sessions the server keeps) and `sys.boot` (the settings the server was started with, under
Drill's boot configuration names). The sys engine (spark/storage/metadata.py) asks it through
`serve_sys`, by the server's HTTP port."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import time
import uuid
from typing import TYPE_CHECKING, Any

from drillspark.options import boot
from drillspark.server.queries import Query, _scanned_plugins, duration_text
from drillspark.spark.storage.metadata import boot_rows

if TYPE_CHECKING:
    from drillspark.server.app import DrillServer


def _timestamp(ms: float) -> _dt.datetime:
    # Drill's times have milliseconds, in UTC
    return _dt.datetime.fromtimestamp(int(ms) / 1000, _dt.UTC).replace(tzinfo=None)


class ServerTables:
    def __init__(self, app: DrillServer):
        self.app = app

    def sys_rows(self, table: str) -> list[tuple]:
        if table == "profiles":
            return [self._profile_row(q) for q in self.app.queries.finished()]
        if table == "profiles_json":
            ports = self.app.ports()
            return [
                (q.id, json.dumps(self.app.queries.profile(q, ports), separators=(",", ":")))
                for q in self.app.queries.finished()
            ]
        if table == "connections":
            return self._connections()
        if table == "boot":
            return boot_rows(self._boot())
        raise ValueError(f"sys.{table} does not describe the server")

    def _profile_row(self, q: Query) -> tuple:
        """As Drill's sys.profiles: times in milliseconds, the plugins a scan read as Java
        prints a list (`[sys]`), the queue `Unknown` when no queue admitted the query."""
        end = q.end if q.end is not None else int(time.time() * 1000)
        plan_end = q.plan_end or (end if not q.plan else q.start)
        # a slot may be had before planning ends: then nothing waited after it
        queued = max(q.queue_wait_end or plan_end, plan_end)
        plugins = _scanned_plugins(q.plan)
        return (
            q.id,
            _timestamp(q.start),
            "localhost",
            1 if q.plan else 0,
            q.user,
            q.pool or "Unknown",
            max(plan_end - q.start, 0),
            max(queued - plan_end, 0),
            max(end - queued, 0),
            max(end - q.start, 0),
            q.state,
            len(plugins),
            "[" + ", ".join(plugins) + "]",
            q.text,
        )

    def _connections(self) -> list[tuple]:
        now = time.time()
        rows = []
        native = self.app.native.connections() if self.app.native is not None else []
        for conn in native:
            if conn.user is None:  # not past its handshake (and login) yet
                continue
            rows.append(
                (
                    conn.user,
                    str(conn.address[0]) if conn.address else "",
                    "localhost",
                    _timestamp(conn.established * 1000),
                    duration_text(int((now - conn.established) * 1000)),
                    conn.query_count,
                    self.app.auth.enabled,
                    False,
                    False,
                    conn.session_id,
                )
            )
        for s in self.app.sessions.kept():
            client = s.owner[len("addr:") :] if s.owner.startswith("addr:") else ""
            rows.append(
                (
                    s.user or "anonymous",
                    client,
                    "localhost",
                    _timestamp(s.established * 1000),
                    duration_text(int((now - s.established) * 1000)),
                    None,  # a REST session's queries are not counted
                    s.user is not None,
                    False,
                    False,
                    # the cookie is a credential: only a one-way digest of it names the session
                    str(uuid.UUID(bytes=hashlib.sha256(s.id.encode()).digest()[:16])),
                )
            )
        return rows

    def _boot(self) -> dict[str, Any]:
        app = self.app
        settings: dict[str, Any] = {
            boot.HTTP_ENABLED: True,
            boot.HTTP_BIND_ADDR: app.host,
            boot.HTTP_PORT: app.port,
            boot.HTTP_SSL_ENABLED: False,
            boot.HTTP_SESSION_MAX_IDLE_SECS: int(app.limits.session_idle),
            boot.USER_AUTH_ENABLED: app.auth.enabled,
            boot.USER_SERVER_PORT: app.user_port if app.native is not None else 31010,
            boot.PROFILES_STORE_CAPACITY: app.queries.keep,
            boot.DEFAULT_TEMPORARY_WORKSPACE: app.catalog.temporary_workspace,
        }
        return settings
