"""`DrillServer`: one SparkSession behind Drill's REST API and web console, its limits, and a
clean stop (running queries cancelled, then Spark stopped)."""

from __future__ import annotations

import base64
import ipaddress
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

from drillspark.errors import UsageError
from drillspark.plugin_configs.bootstrap import BUILT_IN
from drillspark.server.auth import Authenticator, SessionStore, User
from drillspark.server.catalog import Catalog
from drillspark.server.handler import Handler, HttpError, basic_key, verbose_errors
from drillspark.server.log_buffer import LogBuffer
from drillspark.server.queries import QueryFailed, QueryIdInUse, QueryManager, rest_rows
from drillspark.server.shown_paths import scrubber
from drillspark.server.sys_tables import ServerTables
from drillspark.spark.storage.metadata import serve_sys
from drillspark.sql import statements as st
from drillspark.sql import temporary
from drillspark.sql.engine import RowsResult, SqlEngine
from drillspark.sql.errors import SqlError, UnsupportedSqlError, ValidationError

log = logging.getLogger("drillspark.server")
DRILL_VERSION = "1.22.0"  # the REST API this server speaks (clients check it)


class BindError(UsageError, ValueError):
    pass


@dataclass
class Limits:
    max_request_bytes: int = 1 << 20  # a query text is small; anything bigger is refused
    max_rows: int = 1_000_000  # rows per answer (0: unbounded), announced as attemptedAutoLimit
    max_seconds: float = 600.0  # per query (0: unbounded)
    max_running: int = 16  # queries at once; more wait (ENQUEUED)
    session_idle: float = 3600.0  # as Drill's drill.exec.http.session_max_idle_secs
    sessions_max: int = 10_000  # anonymous HTTP sessions kept in all
    sessions_per_client: int = 100  # sessions per client address (anonymous) or per user
    # names the server answers to in Host besides its bind address, the loopback names, its
    # host name and IP literals ("*": any); see handler.ServedHosts
    allowed_hosts: tuple[str, ...] = ()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


@dataclass
class DrillServer:
    spark: Any
    host: str = "127.0.0.1"
    port: int = 8047
    workspaces: dict[str, str] = field(default_factory=dict)
    users: dict[str, User] | None = None
    limits: Limits = field(default_factory=Limits)
    insecure_bind: bool = False
    # Drill's {NAME: CONFIG} applied at start (a --storage file); the folder keeping the
    # plugins users create or change (None: kept in memory only)
    storage: dict[str, Any] | None = None
    state_dir: str | None = None
    # Drill's user port (the native protocol of its JDBC driver and sqlline; server/native/):
    # None: not served, 0: any free port
    user_port: int | None = None
    # Arrow Flight SQL's port (server/flight/): None: not served, 0: any free port
    flight_port: int | None = None

    def __post_init__(self) -> None:
        if not is_loopback(self.host) and self.users is None and not self.insecure_bind:
            raise BindError(
                f"refusing to listen on {self.host} without authentication: give "
                "--users FILE, or --insecure-bind to accept anyone who can reach "
                "the port"
            )
        self.auth = Authenticator(self.users)
        self.catalog = Catalog(self.workspaces, self.storage, self.state_dir)
        # each enabled plugin of a type that has one (a --storage file's, the state's, and from
        # now on those created, changed, disabled or deleted over REST or the console) is a
        # Spark catalog of its name, at once: spark.sql in this session reads what REST serves
        self._spark_catalogs: set[str] = set()
        # the built-in plugins whose catalog (the session's own `dfs`) this server disabled
        self._put_away: set[str] = set()
        for name in self.catalog.plugin_names():
            config = self.catalog.plugins.get(name)
            if config is not None and (config.enabled or name in BUILT_IN):
                self._catalog_changed(name, config)  # a built-in disabled: its catalog gone
        self.catalog.listeners.append(self._catalog_changed)
        # Drill's default temporary workspace: dfs.tmp unless the Spark session names another
        self.catalog.temporary_workspace = (
            temporary.workspace_setting(self.spark) or self.catalog.temporary_workspace
        )
        # temporary tables a crashed server of this host left in its temporary workspace
        tmp = self._temporary_folder()
        for name in temporary.remove_orphans(tmp) if tmp else []:
            log.info("removed the temporary tables of a session of a process now gone: %s", name)
        self.sessions = SessionStore(
            idle=self.limits.session_idle,
            limit=self.limits.sessions_max,
            per_owner=self.limits.sessions_per_client,
        )
        from drillspark.server.handler import ServedHosts

        self.served_hosts = ServedHosts.of(self.host, self.limits.allowed_hosts)
        self.queries = QueryManager(
            self.spark,
            max_running=self.limits.max_running,
            max_seconds=self.limits.max_seconds,
            max_rows=self.limits.max_rows,
        )
        self.queries.shown_now = self.shown_now
        self._shown: tuple[object, Callable[[str], str]] | None = None
        self.max_request_bytes = self.limits.max_request_bytes
        self.started = time.time()
        self.log_buffer = LogBuffer()  # its recent log lines (log_buffer.py)
        self._basic: dict[str, tuple[User, float]] = {}
        self._basic_lock = threading.Lock()
        handler = type("BoundHandler", (Handler,), {"app": self})
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        _HttpServer.address_family = family
        self.httpd = _HttpServer((self.host, self.port), handler)
        self.port = self.httpd.server_address[1]
        self.native: Any = None
        if self.user_port is not None:
            from drillspark.server.native import NativeServer

            try:
                self.native = NativeServer(self, self.host, self.user_port, DRILL_VERSION)
            except OSError:
                self.httpd.server_close()
                raise
            self.user_port = self.native.port
        self.flight: Any = None
        if self.flight_port is not None:
            from drillspark.server.flight import FlightSqlServer

            try:
                self.flight = FlightSqlServer(self, self.host, self.flight_port)
            except OSError:
                self.httpd.server_close()
                if self.native is not None:
                    self.native.stop()
                raise
            self.flight_port = self.flight.port
        self._thread: threading.Thread | None = None
        # why Spark can no longer answer (its driver JVM died or its context stopped), and
        # what to do then (`drillspark serve` exits, so that a supervisor starts it again)
        self.failure: str | None = None
        self.on_failure: Callable[[str], None] | None = None
        self._stopping = threading.Event()

    def _temporary_folder(self) -> str | None:
        """The local folder of the server's default temporary workspace (Drill's
        drill.exec.default_temporary_workspace: dfs.tmp or another file plugin's); None when it
        is remote or no writable workspace (CREATE TEMPORARY TABLE then says why)."""
        from drillspark.spark.storage import filesystems
        from drillspark.sql.catalog import temp_folder

        session = self.catalog.session(None, {})
        session.spark_provider = lambda: self.spark
        try:
            folder = temp_folder(session)
        except SqlError:
            return None
        return None if filesystems.is_remote(folder) else folder

    def _catalog_changed(self, name: str, config: Any) -> None:
        """Plugin `name` changed (None: deleted): its Spark catalog follows it."""
        from drillspark.spark.storage import plugin_catalogs

        raw = None if config is None else config.raw
        if plugin_catalogs.follow(self.spark, name, raw):
            self._spark_catalogs.add(name)
        else:
            self._spark_catalogs.discard(name)
        if name in BUILT_IN:  # its catalog is the session's: gone while disabled here
            if config is not None and config.enabled:
                self._put_away.discard(name)
            else:
                self._put_away.add(name)

    # --------------------------------------------------------------- lifecycle
    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> DrillServer:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever,
            name="drillspark-http",
            kwargs={"poll_interval": 0.2},
            daemon=True,
        )
        self._thread.start()
        if self.native is not None:
            self.native.start()
        if self.flight is not None:
            self.flight.start()
        serve_sys(self.port, ServerTables(self))  # sys.profiles, connections, boot
        self.log_buffer.attach()  # the console's Logs page
        threading.Thread(target=self._watch_spark, name="drillspark-health", daemon=True).start()
        # DEBUG: `drillspark serve` announces the address itself, once (with how to stop it)
        log.debug(
            "Drill %s REST API and web console on %s (authentication %s)",
            DRILL_VERSION,
            self.url,
            "on" if self.auth.enabled else "off",
        )
        return self

    def stop(self, grace: float = 10.0) -> None:
        """Stop accepting requests, cancel the running queries and wait up to `grace`
        seconds for them to end."""
        self.queries.closing = True
        self._stopping.set()
        self.httpd.shutdown()
        self.queries.cancel_all("shutdown")
        deadline = time.monotonic() + grace
        for q in self.queries.running():
            q.done.wait(max(0.0, deadline - time.monotonic()))
        if self.native is not None:  # after the queries' ends reached their clients
            self.native.stop()
        if self.flight is not None:
            self.flight.stop()
        self.httpd.server_close()
        serve_sys(self.port, None)
        self.log_buffer.detach()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if (self._spark_catalogs or self._put_away) and self.spark_failure() is None:
            from drillspark.spark.storage import plugin_catalogs

            self.catalog.listeners.clear()
            for name in sorted(self._spark_catalogs):  # the session outlives its server
                plugin_catalogs.unregister(self.spark, name)
            for name in sorted(self._put_away):  # and gets its own built-in catalogs back
                plugin_catalogs.restore(self.spark, name)
            self._spark_catalogs.clear()
            self._put_away.clear()

    def __enter__(self) -> DrillServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --------------------------------------------------------------- Spark's health
    def spark_failure(self) -> str | None:
        """Why Spark cannot answer now, or None: its context stopped, or the driver JVM
        (py4j's other end) is gone."""
        try:
            if self.spark.sparkContext._jsc.sc().isStopped():
                return "the Spark context has stopped"
        except Exception as e:  # py4j cannot reach the JVM
            return f"the Spark driver JVM is not answering ({type(e).__name__})"
        return None

    def _watch_spark(self, every: float = 2.0) -> None:
        """Look at Spark every `every` seconds; once it is gone, say so (/status.json answers
        503), fail what runs and what comes, and call on_failure."""
        while not self._stopping.wait(every):
            len(self.sessions)  # idle sessions (and their temporary tables) go, asked for or not
            failure = self.spark_failure()
            if failure is None:
                continue
            self.failure = failure
            log.error("%s: the server can no longer run queries", failure)
            self.queries.closing = True
            for q in self.queries.running():
                self.queries.finish(q, "FAILED", f"{failure}; the query was stopped")
            if self.on_failure is not None:
                self.on_failure(failure)
            return

    def shown(self, text: str) -> str:
        """`text` with the server's folders named as its users see them (shown_paths.py)."""
        return self.shown_now()(text)

    def shown_now(self) -> Callable[[str], str]:
        """`shown` for the workspaces as they are now: a text made later (a profile's plan,
        made when read) is scrubbed of the folders of when its query ran, even after an
        admin moved or removed a workspace."""
        workspaces = self.catalog.workspaces  # replaced whole when a workspace changes
        if self._shown is None or self._shown[0] is not workspaces:
            from drillspark.sql.session import default_cp_root

            self._shown = (workspaces, scrubber(workspaces, str(default_cp_root())))
        return self._shown[1]

    # --------------------------------------------------------------- helpers for the handler
    def base_url(self, host_header: str | None) -> str:
        return f"http://{host_header}" if host_header else self.url

    def ports(self) -> dict[str, Any]:
        """The ports that listen (the user port only when the native protocol does: Drill's
        control and data ports have no counterpart here, so none is named), and the version."""
        user = self.user_port if self.native is not None else None
        return {"http": self.port, "user": user, "version": DRILL_VERSION}

    def basic_user(self, header: str) -> User | None:
        """HTTP Basic: the password is checked once (scrypt is slow on purpose), then the
        header's digest is remembered for 5 minutes."""
        key = basic_key(header)
        now = time.monotonic()
        with self._basic_lock:
            hit = self._basic.get(key)
            if hit is not None and now - hit[1] < 300:
                return hit[0]
        try:
            name, _, password = base64.b64decode(header.split(None, 1)[1]).decode().partition(":")
        except (ValueError, IndexError, UnicodeDecodeError):
            return None
        user = self.auth.check(name, password)
        if user is not None:
            with self._basic_lock:
                if len(self._basic) > 1000:
                    self._basic.clear()
                self._basic[key] = (user, now)
        else:
            log.warning("failed HTTP Basic login for %r", name)
        return user

    def metrics(self) -> dict[str, Any]:
        c = self.queries.counters
        gauges: dict[str, Any] = {
            "drillbit.uptime": {"value": int((time.time() - self.started) * 1000)},
            "threads.count": {"value": threading.active_count()},
            "os.load.avg": {"value": os.getloadavg()[0]},
            "drillspark.sessions.count": {"value": len(self.sessions)},
        }
        try:
            jvm = self.spark._jvm
            rt = jvm.java.lang.Runtime.getRuntime()
            used = rt.totalMemory() - rt.freeMemory()
            gauges.update(
                {
                    "memory.heap.used": {"value": used},
                    "memory.heap.committed": {"value": rt.totalMemory()},
                    "memory.heap.max": {"value": rt.maxMemory()},
                    "memory.heap.usage": {"value": used / rt.maxMemory()},
                    # what the heap held after each pool's last collection: the live data,
                    # where `used` also counts garbage not yet collected
                    "drillspark.memory.heap.live": {"value": _heap_after_gc(jvm)},
                }
            )
        except Exception:  # Spark Connect has no JVM here
            pass
        running = len(self.queries.running())
        counters = {
            f"drill.queries.{k}": {"count": v}
            for k, v in {
                "canceled": c["canceled"],
                "completed": sum(c.values()),
                "enqueued": 0,
                "failed": c["failed"],
                "planning": 0,
                "running": running,
                "succeeded": c["completed"],
            }.items()
        }
        return {
            "version": "4.0.0",
            "gauges": dict(sorted(gauges.items())),
            "counters": counters,
            "histograms": {},
            "meters": {},
            "timers": {},
        }

    # --------------------------------------------------------------- queries
    def run_query(
        self,
        handler: Handler,
        session: Any,
        query_type: str,
        text: str,
        options: dict[str, Any],
        auto_limit: int,
        default_schema: str | None,
        user: str,
        query_id: str | None = None,
    ) -> None:
        with session.lock:
            base_schema, base_options = session.default_schema, dict(session.options)
        try:
            sql_options = self.catalog.request_options(options)
            sql_session = self.catalog.session(base_schema, {**base_options, **sql_options})
            sql_session.user = user
            temporary.attach(sql_session, session.temporary)  # the client's temporary tables
            # the ports it listens on, for sys.drillbits
            sql_session.ports = {k: v for k, v in self.ports().items() if isinstance(v, int)}
            if default_schema:
                sql_session.use(st.parse_schema_path(default_schema))
        except SqlError as e:  # Drill refuses such a request before it becomes a query
            raise HttpError(500, f"Query submission failed: {e.message}") from None
        verbose = verbose_errors(self.catalog, sql_options, session)
        try:
            q = self.queries.new(text, user, query_type, sql_options, query_id)
        except QueryIdInUse as e:
            raise HttpError(409, str(e)) from None

        def execute() -> Any:
            from drillspark.spark.single_pass import disabled

            with disabled():  # rows are sent as they come: built with full discovery
                if query_type == "SQL":
                    return self._sql(text, sql_session, session, handler)
                if query_type == "LOGICAL":
                    if not handler._admin:  # a logical plan names its own storage: admins only
                        raise ValidationError("LOGICAL queries need an admin user")
                    from drillspark.api import run

                    return run(text, spark=self.spark)
            raise UnsupportedSqlError(
                f"queryType {query_type} (drillspark runs SQL and LOGICAL plans)"
            )

        def run() -> Any:
            if self.queries.closing:
                reason = self.failure or "the server is shutting down"
                self.queries.finish(q, "FAILED", reason)
                raise QueryFailed(reason)
            # until the first row (from then on a write notices a closed connection)
            answered = self.queries.watchdog.client(
                handler.connection, lambda: self.queries.cancel(q.id, "client")
            )
            try:
                return self.queries.run(q, execute, auto_limit, row_writer=rest_rows)
            finally:
                answered()

        handler.stream_query(q.id, run, verbose)

    def _sql(self, text: str, sql_session: Any, session: Any, handler: Handler) -> Any:
        statements = st.split(text)
        if not statements:
            raise ValidationError("the query is empty: no SQL statement")
        if len(statements) != 1:
            raise ValidationError(
                f"one statement per request, not {len(statements)} (as Drill's REST API)"
            )
        stmt_text = statements[0][1]
        stmt = st.classify(stmt_text)
        if isinstance(stmt, st.SetOption) and stmt.scope == "system":
            return self._set_system_option(stmt, handler)
        engine = SqlEngine(self.spark, session=sql_session)
        result = engine.execute_statement(stmt_text)
        if isinstance(stmt, st.Use | st.SetOption):
            # the HTTP session keeps it (built without this request's own options)
            with session.lock:
                own = self.catalog.session(session.default_schema, session.options)
                SqlEngine(self.spark, session=own).execute_statement(stmt_text)
                session.default_schema, session.options = own.default_schema, own.options
        return result

    def _set_system_option(self, stmt: st.SetOption, handler: Handler) -> RowsResult:
        """ALTER SYSTEM SET / RESET: the catalog's system options, every session's default."""
        if not handler._admin:
            raise ValidationError("ALTER SYSTEM needs an admin user")
        if stmt.value is None:
            self.catalog.reset_system_option(stmt.name)
        else:
            self.catalog.set_system_option(stmt.name, stmt.value)
        # Drill 1.22 says "updated." for SET and RESET alike, "ALL updated." for RESET ALL
        return RowsResult(["ok", "summary"], [[True, f"{stmt.name or 'ALL'} updated."]])


def _heap_after_gc(jvm: Any) -> int:
    pools = jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
    total = 0
    for pool in pools:
        after = pool.getCollectionUsage() if str(pool.getType()) == "Heap memory" else None
        if after is not None:
            total += after.getUsed()
    return total


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])
