"""`drillspark sql` (run statements, print results) and `drillspark shell` (interactive)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sql", help="run Drill SQL statements and print their results",
                       description="Run Drill SQL (statements separated by ';').")
    p.add_argument("query", nargs="?", help="the SQL text (or use -f)")
    p.add_argument("-f", "--file", type=Path, help="read the statements from this file")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json (one object per row) or csv")
    _common(p)
    p.set_defaults(func=run_sql)

    s = sub.add_parser("shell", help="interactive Drill SQL shell (like sqlline)",
                       description="Interactive Drill SQL: end statements with ';', !quit to "
                                   "leave, !tables to list the current workspace.")
    s.add_argument("--history", type=Path, default=Path.home() / ".drillspark_history",
                   help="history file (default ~/.drillspark_history)")
    _common(s)
    s.set_defaults(func=run_shell)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", action="append", default=[], metavar="NAME=PATH",
                   help="a dfs workspace (NAME=PATH); `root` is where dfs.`relative/path` "
                        "resolves (default: the current directory)")
    p.add_argument("--schema", help="default schema, as USE would set it (e.g. dfs.tmp)")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                   help="a session option, as ALTER SESSION SET would set it "
                        "(e.g. store.json.all_text_mode=true)")
    p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")


def make_engine(args: argparse.Namespace, short_lived: bool = False):
    from drillspark.cli.main import CliError
    from drillspark.sql import SqlEngine, SqlSession
    from drillspark.sql.statements import parse_schema_path

    workspaces = {}
    for item in args.workspace:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise CliError(f"--workspace takes NAME=PATH, not {item!r}", code=2)
        folder = Path(path).expanduser().resolve()
        if not folder.is_dir():
            raise CliError(f"workspace {name}: {folder} is not a folder", code=2)
        workspaces[name] = str(folder)
    master = args.master

    def spark_factory():
        import drillspark
        from drillspark.session import short_lived_conf

        return drillspark.session(master=master, **(short_lived_conf() if short_lived else {}))

    engine = SqlEngine(session=SqlSession(workspaces=workspaces), spark_factory=spark_factory)
    if args.schema:
        engine.session.use(parse_schema_path(args.schema))
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise CliError(f"--set takes OPTION=VALUE, not {item!r}", code=2)
        engine.execute(f"ALTER SESSION SET `{name.strip()}` = {_literal(value.strip())}")
    return engine


def _literal(value: str) -> str:
    """An option value as SQL: true/false and numbers as they are, anything else quoted."""
    import re

    if value.lower() in ("true", "false") or re.fullmatch(r"[+-]?\d+(\.\d+)?", value):
        return value
    return "'" + value.strip("'").replace("'", "''") + "'"


def run_sql(args: argparse.Namespace) -> int:
    from drillspark.cli.main import CliError
    from drillspark.sql import SqlError
    from drillspark.sql.output import render

    if args.file is not None:
        if args.query:
            raise CliError("give the SQL either as an argument or with -f, not both", code=2)
        try:
            text = args.file.read_text()
        except OSError as e:
            raise CliError(f"cannot read {args.file}: {e.strerror}", code=2) from None
    elif args.query:
        text = args.query
    else:
        text = sys.stdin.read()
    engine = make_engine(args, short_lived=True)
    try:
        for result in engine.execute(text):
            print(render(result, args.format))
    except SqlError as e:
        print(f"drillspark: {e.render()}", file=sys.stderr)
        return 1
    return 0


def run_shell(args: argparse.Namespace) -> int:
    from drillspark.sql.shell import Shell

    return Shell(make_engine(args), history=args.history).run()
