"""Fuzzing the SQL front end: queries generated from a small grammar and the breadth corpus'
queries mutated are parsed and lowered to a plan without running them (only SqlErrors may
come out, and the plan must be one the plan reader takes); a smaller set of generated queries
runs end to end on Spark, where a failure must still be a drillspark error (ExecutionError or
SqlError with a clear message), never Spark's own exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from tests.fuzz import checks, inputs
from tests.fuzz.conftest import long, short

from drillspark.sql import SqlEngine, SqlSession

# hypothesis warns when it prints a large strategy; the strategies hold the corpus' queries
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")


@pytest.fixture(scope="module")
def engine(spark, shared, tmp_path_factory):
    """`root` is ../shared/data (the breadth corpus' root, read in place)."""
    return SqlEngine(
        spark,
        SqlSession(
            workspaces={
                "root": str(shared / "data"),
                "tmp": str(tmp_path_factory.mktemp("fuzz_tmp")),
            }
        ),
    )


@short(40)
@given(text=inputs.sql_queries())
def test_generated_sql_compiles_or_fails_cleanly(engine, text):
    checks.sql_compiled(engine, text)


@short(100)
@given(text=inputs.mutated_sql())
def test_mutated_breadth_sql_compiles_or_fails_cleanly(engine, text):
    checks.sql_compiled(engine, text)


@short(8)
@given(text=inputs.sql_queries(inputs.VALUES_ONLY))
def test_generated_sql_runs_or_fails_cleanly(engine, text):
    checks.sql_run(engine, text)


@pytest.mark.fuzz
@long(1500)
@given(text=inputs.sql_queries())
def test_generated_sql_compiles_long(engine, text):
    checks.sql_compiled(engine, text)


@pytest.mark.fuzz
@long(3000)
@given(text=inputs.mutated_sql())
def test_mutated_breadth_sql_compiles_long(engine, text):
    checks.sql_compiled(engine, text)


@pytest.mark.fuzz
@long(300)
@given(text=inputs.sql_queries())
def test_generated_sql_runs_long(engine, text):
    checks.sql_run(engine, text)
