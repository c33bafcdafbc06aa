"""`drillspark run PLAN`: run a Drill logical plan and print or save its result."""

from __future__ import annotations

import argparse
import csv
import decimal
import itertools
import json
import os
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from drillspark.cli.sql import add_log_options
from drillspark.display import json_text


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
    if isinstance(v, float | int | str | bool | decimal.Decimal) or v is None:
        return v  # a DECIMAL is written as its number (display.json_text)
    return str(v)


def run_command(args: argparse.Namespace) -> int:
    import drillspark
    from drillspark.cli.main import CliError
    from drillspark.plan import PlanError, parse

    storage = _storage(args.storage)
    conf = _pairs(args.conf, "--conf")
    workspaces = {
        k: os.path.abspath(v) for k, v in _pairs(args.workspace, "--workspace").items()
    } or None
    try:  # an invalid plan is answered at once, as `drillspark validate` answers it
        plan = parse(sys.stdin.read(), file="<stdin>") if args.plan == "-" else parse(args.plan)
    except PlanError as e:
        raise CliError(str(e), 2) from None
    from pyspark.sql import SparkSession

    from drillspark.session import short_lived_conf
    from drillspark.sql.cancel import QueryCancelled, run_cancellable

    owned = SparkSession.getActiveSession() is None  # never stop a session we did not start
    box: dict[str, Any] = {}
    line = _ProgressLine(lambda: box.get("spark"))

    def start() -> Any:
        # failures are reported as one paragraph below, not as executor logs
        box["spark"] = drillspark.session(
            master=args.master, log_level=args.log_level, **{**short_lived_conf(), **conf}
        )
        return box["spark"]

    def work() -> None:
        from drillspark.spark.single_pass import disabled

        with disabled():  # the rows are written as they come
            result = box["result"] = drillspark.run(
                plan,
                spark=box["spark"],
                storage=storage,
                classpath=args.classpath or None,
                workspaces=workspaces,
            )
        if args.output:
            with open(args.output, "w", newline="") as out:
                _write(result, args.format, out, line.stop)
        else:
            _write(result, args.format, sys.stdout, line.stop)

    try:
        with line:
            run_cancellable(start, work)
    except QueryCancelled as e:
        print(f"drillspark: {e}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # the reader left (`| head`): cli/main.py ends quietly
    except Exception as e:
        from drillspark.result import DrillRuntimeError, runtime_message

        if args.verbose:
            traceback.print_exc()
        result = box.get("result")
        if isinstance(e, DrillRuntimeError) or result is None:
            raise CliError(runtime_message(e)) from None
        raise CliError(result.failure_message(e)) from None
    finally:
        if owned and "spark" in box:
            box["spark"].stop()
    for w in box["result"].written:
        print(
            f"drillspark: wrote {w.rows} rows to {w.path} ({len(w.files)} files)", file=sys.stderr
        )
    return 0


class _ProgressLine:
    """On a terminal, the progress line on stderr (drillspark.progress: "Starting Spark...",
    then the stages and tasks) from the command's start until its output begins; `stop()`
    blanks it, from any thread, so that no result line is written across it."""

    def __init__(self, spark: Callable[[], Any]):
        from drillspark.progress import ProgressWatch, TextProgress

        self._lock = threading.Lock()
        self._watch: ProgressWatch | None = None
        if sys.stderr.isatty():  # decided once: the watch is entered and left alike
            self._watch = ProgressWatch(TextProgress(sys.stderr), spark, interval=0.25, delay=1.0)

    def __enter__(self) -> _ProgressLine:
        if self._watch is not None:
            self._watch.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        with self._lock:
            watch, self._watch = self._watch, None
        if watch is not None:
            watch.__exit__(None, None, None)


TABLE_ROWS = 1000  # rows `--format table` prints on standard output


def _write(result: Any, fmt: str, out: Any, output_begins: Callable[[], None]) -> None:
    """The result in `fmt` on `out`; `output_begins()` is called once the rows are computed
    (a table's) or the first row is (json and csv stream), before anything is written."""
    if fmt == "table":
        if out is sys.stdout:
            text = result.show_text(TABLE_ROWS, truncate=False)
            output_begins()
            print(text, file=out)
            if text.endswith(f"only showing the first {TABLE_ROWS} rows"):
                # say how to get the rest: a silent cut looks like the whole result
                print(
                    f"drillspark: the table shows the first {TABLE_ROWS} rows; use "
                    "--format json or csv (or --output FILE) for all of them",
                    file=sys.stderr,
                )
        else:
            text = result.to_pandas().to_string(index=False)
            output_begins()
            out.write(text + "\n")
        return
    computed = (_jsonable(r) for r in _iter_rows(result))
    first = next(computed, None)
    output_begins()
    rows = itertools.chain([first] if first is not None else [], computed)
    if fmt == "json":
        for r in rows:
            out.write(json_text(r) + "\n")
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
