"""`drillspark run PLAN`: run a Drill logical plan and print or save its result."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import traceback
from typing import Any

from drillspark.cli.sql import add_log_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a Drill logical plan (JSON) and print its result")
    p.add_argument("plan", help="the plan file ('-' reads the plan from standard input)")
    p.add_argument(
        "--storage",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help='add or override a storage engine, e.g. cp=\'{"type":"classpath","root":"/data"}\'',
    )
    p.add_argument(
        "--classpath",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory a root-less classpath engine searches (repeatable)",
    )
    p.add_argument(
        "--workspace",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="confine the plan: every file its storage engines read or write must "
        "lie in one of these folders (repeatable; docs/security.md)",
    )
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.add_argument("--output", metavar="FILE", help="write the result here, not to stdout")
    p.add_argument(
        "--master",
        default=None,
        help="Spark master URL (default local[*]; under spark-submit, its --master)",
    )
    p.add_argument(
        "--conf", action="append", default=[], metavar="K=V", help="a Spark setting (repeatable)"
    )
    add_log_options(p)
    p.set_defaults(func=run_command)


def _pairs(items: list[str], what: str) -> dict[str, str]:
    from drillspark.cli.main import CliError

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CliError(f"{what} must look like NAME=VALUE, not {item!r}", 2)
        out[key] = value
    return out


def _storage(items: list[str]) -> dict[str, Any]:
    from drillspark.cli.main import CliError

    out = {}
    for name, text in _pairs(items, "--storage").items():
        try:
            out[name] = json.loads(text)
        except ValueError as e:
            raise CliError(f"--storage {name}: not JSON ({e})", 2) from None
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, bytes | bytearray):
        return v.hex()
    if isinstance(v, float | int | str | bool) or v is None:
        return v
    return str(v)


def run_command(args: argparse.Namespace) -> int:
    import drillspark
    from drillspark.cli.main import CliError

    plan: str = sys.stdin.read() if args.plan == "-" else args.plan
    storage = _storage(args.storage)
    conf = _pairs(args.conf, "--conf")
    if sys.stderr.isatty():  # a progress bar on a terminal
        conf.setdefault("spark.ui.showConsoleProgress", "true")
    from pyspark.sql import SparkSession

    owned = SparkSession.getActiveSession() is None  # never stop a session we did not start
    from drillspark.session import short_lived_conf

    # failures are reported as one paragraph below, not as executor logs
    spark = drillspark.session(
        master=args.master, log_level=args.log_level, **{**short_lived_conf(), **conf}
    )
    try:
        result = None
        try:
            result = drillspark.run(
                plan,
                spark=spark,
                storage=storage,
                classpath=args.classpath or None,
                workspaces={
                    k: os.path.abspath(v) for k, v in _pairs(args.workspace, "--workspace").items()
                }
                or None,
            )
            out = open(args.output, "w", newline="") if args.output else sys.stdout  # noqa: SIM115
            try:
                _write(result, args.format, out)
            finally:
                if args.output:
                    out.close()
        except Exception as e:
            from drillspark.result import DrillRuntimeError, runtime_message

            if args.verbose:
                traceback.print_exc()
            if isinstance(e, DrillRuntimeError) or result is None:
                raise CliError(runtime_message(e)) from None
            raise CliError(result.failure_message(e)) from None
        for w in result.written:
            print(
                f"drillspark: wrote {w.rows} rows to {w.path} ({len(w.files)} files)",
                file=sys.stderr,
            )
    finally:
        if owned:
            spark.stop()
    return 0


TABLE_ROWS = 1000  # rows `--format table` prints on a terminal


def _write(result: Any, fmt: str, out: Any) -> None:
    if fmt == "table":
        df = result.df
        if out is sys.stdout:
            shown = df.limit(TABLE_ROWS + 1).collect()
            df.show(n=TABLE_ROWS, truncate=False)
            if len(shown) > TABLE_ROWS:  # say so: a silent cut looks like the whole result
                print(
                    f"drillspark: the table shows the first {TABLE_ROWS} rows; use "
                    "--format json or csv (or --output FILE) for all of them",
                    file=sys.stderr,
                )
        else:
            out.write(result.to_pandas().to_string(index=False) + "\n")
        return
    rows = (_jsonable(r) for r in _iter_rows(result))
    if fmt == "json":
        for r in rows:
            out.write(json.dumps(r) + "\n")
        return
    writer = csv.writer(out)
    writer.writerow(result.df.columns)
    for r in rows:
        writer.writerow(
            [
                json.dumps(v) if isinstance(v, dict | list) else ("" if v is None else v)
                for v in r.values()
            ]
        )


def _iter_rows(result: Any):
    from drillspark.result import _plain

    for row in result.df.toLocalIterator():
        yield _plain(row)
