"""`drillspark explain PLAN` and `drillspark validate PLAN`: logical plans without Spark."""

from __future__ import annotations

import argparse
import sys

from drillspark.cli.main import CliError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="show a logical plan as JSON, a text tree or a DAG picture")
    p.add_argument("plan", help="logical plan file (JSON, either dialect), or - for stdin")
    p.add_argument(
        "--format",
        choices=["text", "json", "dot", "svg"],
        default="text",
        help="text tree (default), normalized JSON, Graphviz DOT, or SVG (needs `dot`)",
    )
    p.add_argument(
        "--dialect",
        choices=["drill", "2013"],
        default=None,
        help="plan dialect (default: detected)",
    )
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.set_defaults(func=_explain)

    p = sub.add_parser(
        "validate", help="check a logical plan; exit 2 and list every error if invalid"
    )
    p.add_argument("plan", help="logical plan file (JSON, either dialect), or - for stdin")
    p.add_argument("--dialect", choices=["drill", "2013"], default=None)
    p.set_defaults(func=_validate)


def _read(args: argparse.Namespace):
    from drillspark.plan import parse

    if args.plan == "-":
        return parse(sys.stdin.read(), dialect=args.dialect, file="<stdin>")
    return parse(args.plan, dialect=args.dialect)


def _explain(args: argparse.Namespace) -> int:
    from drillspark.plan import PlanError, explain
    from drillspark.plan.explainer import ExplainError

    try:
        text = explain(_read(args), args.format)
    except PlanError as e:
        raise CliError(str(e), 2) from None
    except ExplainError as e:
        raise CliError(str(e), 1) from None
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


def _validate(args: argparse.Namespace) -> int:
    from drillspark.plan import PlanError

    try:
        plan = _read(args)
    except PlanError as e:
        for issue in e.errors:
            print(issue)
        print(f"{len(e.errors)} error{'s' if len(e.errors) != 1 else ''}", file=sys.stderr)
        return 2
    print(f"valid ({plan.dialect} dialect, {len(plan.operators)} operators)")
    return 0
