"""`drillspark sql` (run statements, print results) and `drillspark shell` (interactive)."""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import Any

from drillspark.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sql",
        help="run Drill SQL statements and print their results",
        description="Run Drill SQL (statements separated by ';').",
    )
    p.add_argument("query", nargs="?", help="the SQL text (or use -f)")
    p.add_argument("-f", "--file", type=Path, help="read the statements from this file")
    p.add_argument(
        "--format",
        choices=["table", "json", "csv"],
        default="table",
        help="table (default), json (one object per row) or csv",
    )
    p.add_argument(
        "--connect",
        metavar="URL",
        help="run on a running `drillspark serve` (or Drill) at URL, e.g. "
        "http://127.0.0.1:8047 (login from DRILLSPARK_USER/_PASSWORD)",
    )
    _common(p)
    p.set_defaults(func=run_sql)

    s = sub.add_parser(
        "shell",
        help="interactive Drill SQL shell (like sqlline)",
        description="Interactive Drill SQL: end statements with ';', !quit to "
        "leave, !tables to list the current workspace.",
    )
    s.add_argument(
        "--history",
        type=Path,
        default=Path.home() / ".drillspark_history",
        help="history file (default ~/.drillspark_history)",
    )
    s.add_argument(
        "--connect",
        metavar="URL",
        help="run the statements on a running `drillspark serve` (or Drill) at URL, "
        "e.g. http://127.0.0.1:8047 (login from DRILLSPARK_USER/_PASSWORD)",
    )
    _common(s)
    s.set_defaults(func=run_shell)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workspace",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a dfs workspace (NAME=PATH); `root` is where dfs.`relative/path` "
        "resolves (default: the current directory). Table names stay inside "
        "their workspace; once any is given, `root` is confined too "
        "(docs/security.md)",
    )
    p.add_argument(
        "--storage",
        metavar="FILE",
        help='storage plugins as Drill\'s bootstrap / override file ({"storage": {NAME: '
        "CONFIG}}, JSON or HOCON): file plugins (s3a://bucket, other folders) and jdbc plugins "
        "become schemas; runs locally",
    )
    p.add_argument("--schema", help="default schema, as USE would set it (e.g. dfs.tmp)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="a session option, as ALTER SESSION SET would set it "
        "(e.g. store.json.all_text_mode=true)",
    )
    p.add_argument("--master", help="Spark master (default local[*]); runs locally")
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="K=V",
        help="a Spark setting for the session drillspark starts (repeatable); runs locally",
    )
    p.add_argument(
        "--local",
        action="store_true",
        help="always start Spark here, even when a local `drillspark serve` "
        "could answer (by default one with the same workspaces does)",
    )
    add_log_options(p)


def add_log_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--log-level",
        default="FATAL",
        type=str.upper,
        choices=["ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"],
        help="Spark's log level (default FATAL: failures are reported as one "
        "paragraph; WARN or INFO show Spark's own logging)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="on a failure, print the full trace after the one-paragraph error",
    )


def make_engine(args: argparse.Namespace, short_lived: bool = False):
    from drillspark.sql import SqlEngine, SqlSession
    from drillspark.sql.statements import parse_schema_path

    workspaces = options.workspaces(args.workspace)
    master, log_level = args.master, args.log_level
    conf = options.spark_conf(args.conf)

    def spark_factory():
        import drillspark
        from drillspark.session import short_lived_conf

        settings = {**(short_lived_conf() if short_lived else {}), **conf}
        return drillspark.session(master=master, log_level=log_level, **settings)

    engine = SqlEngine(session=SqlSession(workspaces=workspaces), spark_factory=spark_factory)
    if getattr(args, "storage", None):
        from drillspark.cli.main import CliError
        from drillspark.plugin_configs import PluginConfigError
        from drillspark.plugin_configs.state import read_bootstrap

        try:
            engine.session.take_storage(read_bootstrap(args.storage))
        except PluginConfigError as e:
            raise CliError(str(e), code=2) from None
    if args.schema:
        engine.session.use(parse_schema_path(args.schema))
    for item in args.set:
        engine.execute(option_statement(item))
    return engine


def option_statement(item: str) -> str:
    """`--set OPTION=VALUE` as its ALTER SESSION statement."""
    from drillspark.cli.main import CliError

    name, sep, value = item.partition("=")
    if not sep or not name:
        raise CliError(f"--set takes OPTION=VALUE, not {item!r}", code=2)
    return f"ALTER SESSION SET `{name.strip()}` = {_literal(value.strip())}"


def setup_statements(schema: str | None, settings: list[str]) -> list[str]:
    """`--schema` and `--set` as the USE and ALTER SESSION statements a server session runs
    before the command's own."""
    return ([f"USE {schema}"] if schema else []) + [option_statement(s) for s in settings]


def remote_session(args: argparse.Namespace) -> Any:
    """The server to run on: `--connect URL`'s; else, unless `--local` (or `--master`,
    `--conf`: settings of a local Spark), a local `drillspark serve` that answers as a local
    run would (cli/remote.py find_local), announced on stderr; else None."""
    from drillspark.cli.main import CliError

    if args.connect:
        if args.local:
            raise CliError("--connect and --local exclude each other", code=2)
        from drillspark.cli.remote import login

        return login(args.connect)
    if args.local or args.master or args.conf or getattr(args, "storage", None):
        return None
    from drillspark.cli.remote import find_local
    from drillspark.sql.session import with_default_workspaces

    found = find_local(with_default_workspaces(options.workspaces(args.workspace)))
    if found is None:
        return None
    session, server = found
    print(
        f"drillspark: answered by drillspark serve at {server.url} (pid {server.pid}; "
        "--local runs without it)",
        file=sys.stderr,
        flush=True,
    )
    return session


def _literal(value: str) -> str:
    """An option value as SQL: true/false and numbers as they are, anything else quoted."""
    import re

    if value.lower() in ("true", "false") or re.fullmatch(r"[+-]?\d+(\.\d+)?", value):
        return value
    return "'" + value.strip("'").replace("'", "''") + "'"


def run_sql(args: argparse.Namespace) -> int:
    from drillspark.cli.main import CliError

    if args.file is not None:
        if args.query:
            raise CliError("give the SQL either as an argument or with -f, not both", code=2)
        try:
            text = args.file.read_text()
        except OSError as e:
            raise CliError(f"cannot read {args.file}: {e.strerror}", code=2) from None
    elif args.query:
        text = args.query
    elif sys.stdin.isatty():  # no SQL given, and nothing piped in: do not wait silently
        raise CliError(
            'give the SQL as an argument (drillspark sql "SELECT ..."), with -f FILE or on '
            "standard input; `drillspark shell` is the interactive one",
            code=2,
        )
    else:
        text = sys.stdin.read()
    remote = remote_session(args)
    if remote is not None:
        from drillspark.cli.remote import RUN_LOCALLY, run

        code = run(
            remote,
            text,
            args.format,
            setup_statements(args.schema, args.set),
            open_root=not args.connect and not args.workspace,
        )
        if code != RUN_LOCALLY:
            return code
        print(
            "drillspark: the query reads outside the server's workspaces; running locally",
            file=sys.stderr,
            flush=True,
        )
    from drillspark.sql import SqlError
    from drillspark.sql.cancel import QueryCancelled, run_cancellable, starter
    from drillspark.sql.output import render
    from drillspark.sql.shell import Progress
    from drillspark.sql.statements import split

    engine = make_engine(args, short_lived=True)

    def work() -> list[str]:
        # each result is rendered whole before anything prints: a fetch that reads its JSON
        # in one pass can read again on a misfit (sql/output.py)
        return [render(result, args.format) for result in engine.execute(text)]

    try:
        with Progress(engine, sys.stderr):
            statements = [stmt for _offset, stmt in split(text)]
            outputs = run_cancellable(starter(engine, statements), work)
        for output in outputs:
            print(output)
    except QueryCancelled as e:
        print(f"drillspark: {e}", file=sys.stderr)
        return 130
    except SqlError as e:
        if args.verbose:
            traceback.print_exc()
        print(f"drillspark: {e.render()}", file=sys.stderr)
        return 1
    return 0


def run_shell(args: argparse.Namespace) -> int:
    remote = remote_session(args)
    if remote is not None:
        from drillspark.cli.remote import shell

        return shell(remote, args.history, setup_statements(args.schema, args.set))
    from drillspark.sql.shell import Shell

    return Shell(make_engine(args), history=args.history).run()
