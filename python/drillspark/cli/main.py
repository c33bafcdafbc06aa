"""Entry point of the `drillspark` console script."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence

from drillspark.errors import UsageError

# Modules under drillspark.cli, each with `register(subparsers)`.
COMMANDS = ["info", "plan", "run", "serve", "sql"]


class CliError(UsageError):
    """An error to print as one paragraph (no traceback) before exiting with `code`."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drillspark",
        description="Apache Drill's schema-free queries (logical plans, Drill SQL) on Spark.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"drillspark.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as e:
        print(f"drillspark: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("drillspark: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `drillspark ... | head` closed the pipe: nothing more to say
        _silence_stdout()
        return 0
    except Exception as e:  # last resort: one readable paragraph, never a JVM stack trace
        from drillspark.errors import describe

        if getattr(args, "verbose", False):
            traceback.print_exc()
        print(f"drillspark: {describe(e)}", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
