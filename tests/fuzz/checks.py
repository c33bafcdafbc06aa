"""The property every fuzz target must hold: an input either works or fails with one of
drillspark's documented errors (`drillspark.errors.Error`), never a RecursionError, a raw
builtin error (AttributeError, KeyError, TypeError, IndexError, ValueError ...) or an error
from Spark's JVM leaking out. Plus what must hold when it works: the plan round-trips, the
SQL's plan is one the plan reader takes."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from drillspark import plan as lp
from drillspark.errors import Error

CORPUS = Path(__file__).resolve().parent / "corpus"


def plan_source(source: Any) -> None:
    """`lp.parse` on text, bytes or a dict; a plan it takes explains and round-trips."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lp.PlanWarning)
        try:
            plan = lp.parse(source)
        except Error:
            return
        for fmt in ("text", "json", "dot"):
            lp.explain(plan, fmt)
        assert lp.parse(plan.to_json()) == plan
        assert lp.parse(plan.to_json_text()) == plan


def expression(text: str, dialect: str = "drill") -> None:
    """`parse_expression`; an expression it takes prints as text that reads back the same."""
    try:
        expr = lp.parse_expression(text, dialect)  # type: ignore[arg-type]
    except Error:
        return
    printed = lp.to_text(expr)
    assert lp.parse_expression(printed) == expr, printed


def sql_compiled(engine: Any, text: str) -> None:
    """Parse and lower every statement of `text` without running it: queries compile to a
    plan the plan reader takes; EXPLAIN (which only compiles) runs; any other statement is
    classified only (CREATE / DROP / SHOW would touch files)."""
    from drillspark.sql import statements as st

    try:
        for _, stmt_text in st.split(text):
            stmt = st.classify(stmt_text)
            if isinstance(stmt, st.Query):
                compiled = engine.compile(stmt.text)
                plan = lp.parse(compiled.plan.to_json())  # a PlanError here is the lowering's bug
                assert lp.parse(plan.to_json()) == plan
            elif isinstance(stmt, st.Explain):
                engine.execute_statement(stmt_text)
    except lp.PlanError as e:
        raise AssertionError(f"the SQL lowered to a plan the reader refuses: {e}") from None
    except Error:
        return


def sql_run(engine: Any, text: str) -> None:
    """Run one query end to end and fetch its rows: any failure is a drillspark Error."""
    from drillspark.sql.output import columns_and_rows

    try:
        columns_and_rows(engine.execute_statement(text))
    except Error:
        return


def corpus(target: str) -> list[Path]:
    """The inputs found for `target`, in name order."""
    return sorted(p for p in (CORPUS / target).iterdir() if p.is_file())
