"""`drillspark serve`: Drill's REST API and web console on one long-lived SparkSession."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from drillspark.cli import discovery, options

SPARK_FAILED = 3  # the exit code when Spark's driver died under the server


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve Drill's REST API and web console (port 8047)",
        description="A long-lived drillspark speaking Apache Drill 1.22's REST "
        "API (POST /query.json, /profiles, /storage, /options, ...) "
        "and serving its web console. Ctrl-C or SIGTERM stops it.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; anything else needs --users "
        "or --insecure-bind)",
    )
    p.add_argument("--port", type=int, default=8047, help="HTTP port (default 8047, 0: any)")
    p.add_argument(
        "--user-port",
        type=int,
        default=None,
        metavar="PORT",
        help="Drill's user port, for Drill's JDBC driver and sqlline (jdbc:drill:drillbit="
        "HOST:PORT); default 31010, left off with a note when that port is taken; 0: any "
        "free port, -1: off",
    )
    p.add_argument(
        "--flight-port",
        type=int,
        default=-1,
        metavar="PORT",
        help="Arrow Flight SQL's port, for ADBC and the Flight SQL JDBC driver "
        "(grpc://HOST:PORT); default -1: off; 0: any free port; 32010 is the usual one",
    )
    p.add_argument(
        "--master",
        default=None,
        help="Spark master (default local[*]; under spark-submit, its --master)",
    )
    p.add_argument(
        "--workspace",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a dfs workspace (repeatable); `root` defaults to the current "
        "directory, `tmp` to /tmp; queries read nothing outside them",
    )
    p.add_argument(
        "--users",
        type=Path,
        metavar="FILE",
        help="users file (name:role:scrypt-hash lines): turns on authentication "
        "(form login at /j_security_check and HTTP Basic)",
    )
    p.add_argument(
        "--add-user",
        metavar="NAME",
        help="add NAME to --users FILE (password from stdin or a prompt) and exit",
    )
    p.add_argument("--admin", action="store_true", help="with --add-user: an admin user")
    p.add_argument(
        "--insecure-bind",
        action="store_true",
        help="allow a non-loopback --host without authentication",
    )
    p.add_argument(
        "--storage",
        type=Path,
        metavar="FILE",
        help='storage plugins as Drill\'s bootstrap / override file ({"storage": {NAME: '
        "CONFIG}}, JSON or HOCON), applied at every start over what the server kept",
    )
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        default=None,
        help="where the server keeps the storage plugins users create or change (default "
        "$DRILLSPARK_STATE_DIR, else ~/.local/state/drillspark; '' keeps them in memory only)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name clients reach the server by, accepted in the Host header (repeatable; "
        "the bind address, loopback names, this host's name and IP literals always are; "
        "'*': any). Other names get 421 (DNS rebinding)",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=1_000_000,
        help="most rows one answer carries (default 1000000; 0: no limit)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=600.0,
        help="a query running longer is cancelled (default 600; 0: no limit)",
    )
    p.add_argument(
        "--max-running",
        type=int,
        default=16,
        help="queries running at once; more wait their turn (default 16)",
    )
    p.add_argument(
        "--max-request-bytes",
        type=int,
        default=1 << 20,
        help="largest request body (default 1 MiB)",
    )
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting (repeatable), e.g. spark.driver.memory=4g",
    )
    p.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING"],
        help="server log level (default INFO: one line per query)",
    )
    p.add_argument(
        "--no-warm-up",
        dest="warm_up",
        action="store_false",
        help="do not run the few small statements over temporary files that warm a new "
        "driver JVM up until the first query comes (a local master only)",
    )
    p.add_argument(
        "--warm-up-rounds",
        type=int,
        default=None,
        metavar="N",
        help="rounds of the warm-up's statements while no client came (default 40, about "
        "0.4 s each once warm; the first query ends them; 0: none)",
    )
    p.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    from drillspark.cli.main import CliError
    from drillspark.server.auth import UsersFileError, add_user, read_users

    if args.warm_up_rounds is not None and args.warm_up_rounds < 0:
        raise CliError(f"--warm-up-rounds {args.warm_up_rounds}: give 0 or more", code=2)
    if args.add_user:
        if args.users is None:
            raise CliError("--add-user needs --users FILE", code=2)
        password = (
            getpass.getpass(f"password for {args.add_user}: ")
            if sys.stdin.isatty()
            else sys.stdin.readline().rstrip("\n")
        )
        if not password:
            raise CliError("empty password", code=2)
        try:
            add_user(str(args.users), args.add_user, password, "admin" if args.admin else "user")
        except UsersFileError as e:
            raise CliError(str(e), code=2) from None
        print(f"{args.add_user} ({'admin' if args.admin else 'user'}) written to {args.users}")
        return 0

    users = None
    if args.users is not None:
        try:
            users = read_users(str(args.users))
        except UsersFileError as e:
            raise CliError(str(e), code=2) from None
    workspaces = options.workspaces(args.workspace)
    from drillspark.plugin_configs import PluginConfigError
    from drillspark.plugin_configs.state import read_bootstrap

    storage = None
    if args.storage is not None:
        try:
            storage = read_bootstrap(str(args.storage))
        except PluginConfigError as e:
            raise CliError(str(e), code=2) from None
    state_dir = _state_dir(args.state_dir)
    conf = {
        "spark.scheduler.mode": "FAIR",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        # a partition larger than this is streamed from its task instead of collected whole
        # into the driver (server/partition_stream.py): the driver's memory stays bounded
        "spark.driver.maxResultSize": "256m",
        **options.spark_conf(args.conf),
    }

    logging.basicConfig(
        level=getattr(logging, args.log_level),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    # Py4J logs each closed gateway connection at INFO: the log is one line per query
    logging.getLogger("py4j").setLevel(max(logging.WARNING, logging.root.level))
    from drillspark.server import BindError, DrillServer, Limits

    limits = Limits(
        max_request_bytes=args.max_request_bytes,
        max_rows=args.max_rows,
        max_seconds=args.max_seconds,
        max_running=args.max_running,
        allowed_hosts=tuple(args.allowed_host),
    )
    stop = threading.Event()
    # signals first: a SIGTERM during Spark's start-up still stops cleanly
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    import drillspark

    spark = drillspark.session(master=args.master, app_name="drillspark-serve", **conf)
    try:
        try:
            server = _server(
                DrillServer, spark, args, workspaces, users, limits, storage, state_dir
            )
        except BindError as e:
            raise CliError(str(e), code=2) from None
        except PluginConfigError as e:  # the --storage file or the kept state
            raise CliError(str(e), code=2) from None
        except OSError as e:
            raise CliError(
                f"cannot listen on {args.host}:{args.port}: {e.strerror}", code=2
            ) from None
        failed: list[str] = []

        def spark_failed(reason: str) -> None:
            print(
                f"drillspark serve: {reason}; stopping (exit code 3) so that a supervisor can "
                "start the server again",
                file=sys.stderr,
                flush=True,
            )
            failed.append(reason)
            stop.set()

        server.on_failure = spark_failed
        server.start()
        # idle until the first client: the JVM's first-statement costs paid meanwhile
        warm = None
        if args.warm_up:
            from drillspark.sql.warm_up import SERVER_ROUNDS, WarmUp

            queries = server.queries
            busy = lambda: bool(queries.running() or queries.finished())  # noqa: E731
            # read as the server reads, and its row stream's Python workers started
            rounds = SERVER_ROUNDS if args.warm_up_rounds is None else args.warm_up_rounds
            warm = WarmUp(lambda: spark, busy, False, _stream_rows, rounds).start()
        # how `drillspark sql` / `shell` on this machine find it (cli/discovery.py)
        found_at = _publish(server)
        if server.native is not None:
            where = f"{server.host}:{server.native.port}"
            print(
                f"drillspark serve: Drill's user port (JDBC, sqlline) on {where} "
                f"(jdbc:drill:drillbit={where})",
                file=sys.stderr,
                flush=True,
            )
        if getattr(server, "flight", None) is not None:
            print(
                f"drillspark serve: Arrow Flight SQL (ADBC, Flight SQL JDBC) on "
                f"{server.flight.uri}",
                file=sys.stderr,
                flush=True,
            )
        print(
            f"drillspark serve: Drill {server.ports()['version']} REST API and web console "
            f"on {server.url}/ (authentication {'on' if server.auth.enabled else 'off'}; "
            "Ctrl-C or SIGTERM stops it)",
            file=sys.stderr,
            flush=True,
        )
        try:
            while not stop.wait(0.5):
                pass
        finally:
            if found_at is not None:
                discovery.withdraw(found_at)
        print(
            "drillspark serve: stopping (running queries are cancelled)",
            file=sys.stderr,
            flush=True,
        )
        if warm is not None:
            warm.stop(spark)
        server.stop()
    finally:
        with contextlib.suppress(Exception):  # the driver JVM may already be gone
            spark.stop()
    print("drillspark serve: stopped", file=sys.stderr, flush=True)
    return SPARK_FAILED if failed else 0


def _stream_rows(spark) -> None:
    """A few rows through each of the server's streams of an answer not bounded by a small
    limit (sql/warm_up.py): the tasks' Arrow batches sent from the JVM (Flight SQL's, the native
    protocol's, a REST answer's first rows) and the Python workers' rows (a large REST answer's
    later ones; the workers' start: 0.8 s of a first such answer)."""
    from drillspark.server.partition_stream import stream_arrow, stream_partitions
    from drillspark.sql.warm_up import join_group

    df = spark.range(0, 4, 1, 2)
    for _ in stream_arrow(df, False, lambda: join_group(spark)):
        pass
    for _ in stream_partitions(spark, df.rdd, str, lambda: join_group(spark)):
        pass


def _server(DrillServer, spark, args, workspaces, users, limits, storage, state_dir):  # noqa: N803
    """The server; without --user-port, Drill's user port 31010 when it is free, else none
    (with a note: another Drill or drillspark serve holds it)."""

    def make(user_port: int | None):
        return DrillServer(
            spark,
            host=args.host,
            port=args.port,
            workspaces=workspaces,
            users=users,
            limits=limits,
            insecure_bind=args.insecure_bind,
            storage=storage,
            state_dir=state_dir,
            user_port=user_port,
            flight_port=_flight_port(args),
        )

    if args.user_port is not None:
        return make(args.user_port if args.user_port >= 0 else None)
    from drillspark.server.native import DEFAULT_PORT

    try:
        return make(DEFAULT_PORT)
    except OSError:
        server = make(None)  # the HTTP port's own failure, if it is that one, is raised here
        print(
            f"drillspark serve: Drill's user port {DEFAULT_PORT} is in use: no native protocol "
            "(give --user-port PORT, or 0 for any free port)",
            file=sys.stderr,
            flush=True,
        )
        return server


def _flight_port(args: argparse.Namespace) -> int | None:
    """--flight-port: None (off) for -1, the default."""
    port = getattr(args, "flight_port", -1)
    return port if port is not None and port >= 0 else None


def _state_dir(given: str | None) -> str | None:
    """The server's state folder: --state-dir, else $DRILLSPARK_STATE_DIR, else the user's
    XDG state folder; an empty value: none (in memory only)."""
    if given is not None:
        return given or None
    env = os.environ.get("DRILLSPARK_STATE_DIR")
    if env is not None:
        return env or None
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "drillspark")


def _publish(server) -> Path | None:
    """Write the discovery file; a server that cannot write it still serves (with a note)."""
    try:
        return discovery.publish(
            discovery.client_url(server.host, server.port),
            dict(server.catalog.workspaces),
            server.auth.enabled,
        )
    except OSError as e:
        print(
            f"drillspark serve: cannot write {discovery.runtime_dir()} ({e.strerror}): "
            "`drillspark sql` will not find this server without --connect",
            file=sys.stderr,
        )
        return None
