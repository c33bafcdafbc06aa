"""Every input the fuzzers found (tests/fuzz/corpus/<target>/) replayed in every run, each
the regression test of its fix (docs/reliability.md lists them). A target's folder holds
what its check reads: `plan/` plan text, `plan_bytes/` raw bytes, `plan_dict/` a Python
literal given to `parse` as a dict, `expression/` one expression, `sql/` SQL compiled
without running, `sql_run/` SQL run on Spark."""

from __future__ import annotations

import ast
import warnings

import pytest
from tests.fuzz import checks

from drillspark import plan as lp
from drillspark.sql import SqlEngine, SqlError, SqlSession


def ids(target: str) -> list:
    return [pytest.param(p, id=p.name) for p in checks.corpus(target)]


@pytest.mark.parametrize("path", ids("plan"))
def test_plan_text(path):
    checks.plan_source(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", ids("plan_bytes"))
def test_plan_bytes(path):
    checks.plan_source(path.read_bytes())


@pytest.mark.parametrize("path", ids("plan_dict"))
def test_plan_dict(path):
    checks.plan_source(ast.literal_eval(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", ids("expression"))
@pytest.mark.parametrize("dialect", ["drill", "2013"])
def test_expression(path, dialect):
    checks.expression(path.read_text(encoding="utf-8"), dialect)


@pytest.fixture(scope="module")
def engine(spark, shared, tmp_path_factory):
    return SqlEngine(
        spark,
        SqlSession(
            workspaces={
                "root": str(shared / "data"),
                "tmp": str(tmp_path_factory.mktemp("corpus_tmp")),
            }
        ),
    )


@pytest.mark.parametrize("path", ids("sql"))
def test_sql_compiled(engine, path):
    checks.sql_compiled(engine, path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", ids("sql_run"))
def test_sql_run(engine, path):
    checks.sql_run(engine, path.read_text(encoding="utf-8"))


# What some of the found inputs now give, beyond "a clean error".


def _read(target: str, name: str) -> str:
    return (checks.CORPUS / target / name).read_text(encoding="utf-8")


def _issue(source) -> str:
    with pytest.raises(lp.PlanError) as e, warnings.catch_warnings():
        warnings.simplefilter("ignore", lp.PlanWarning)
        lp.parse(source)
    return str(e.value.errors[0])


def test_found_plans_give_located_errors():
    assert "2:47: $: JSON syntax error: an integer of 5000 digits is too long" in _issue(
        _read("plan", "int-over-4300-digits.json")
    )
    assert "@id must be an integer" in _issue(_read("plan", "superscript-digit-as-id.json"))
    assert "$.head.options: head.options must be an object, not a boolean" in _issue(
        _read("plan", "head-options-not-object.json")
    )
    assert "half a UTF-16 surrogate pair" in _issue(_read("plan", "lone-surrogate-escape.json"))
    assert "cannot read plan file" in _issue(_read("plan", "nul-in-file-name.txt"))
    assert "not UTF-8" in _issue((checks.CORPUS / "plan_bytes" / "not-utf8.bin").read_bytes())
    assert "2:47: $: JSON syntax error: the number is too large for a double" in _issue(
        _read("plan", "double-overflow-atheris.json")
    )
    assert "$.content[0].a: nan is not a JSON number" in _issue(
        {"op": "values", "@id": 1, "content": [{"a": float("nan")}]}
    )
    assert "a key must be a string, not int 1" in _issue({1: 2})
    assert "a plan is JSON text, UTF-8 bytes, a file path or a dict, not int" in _issue(5)


def test_found_plans_that_are_valid_read_right():
    pair = lp.parse(_read("plan", "escaped-surrogate-pair.json"))
    assert pair.operators[0].content == [{"a": "\U0001f600"}]  # one character, not two halves
    utf8 = lp.parse((checks.CORPUS / "plan_bytes" / "utf8-plan.bin").read_bytes())
    assert utf8.operators[0].content == [{"a": "\u00e9t\u00e9"}]


def test_found_expressions_read_and_print_back():
    assert (
        lp.to_text(lp.parse_expression(_read("expression", "infinite-literal.txt")))
        == "(a > 1e999)"
    )
    assert lp.parse_expression(_read("expression", "integer-over-4300-digits.txt")) == lp.Literal(
        float("inf"), "FLOAT8"
    )
    call = lp.parse_expression(_read("expression", "keyword-named-call-then.txt"))
    assert lp.to_text(call) == "then()"
    with pytest.raises(lp.ExpressionError, match="array index 9999.* is out of range"):
        lp.parse_expression(_read("expression", "index-out-of-range.txt"))


@pytest.mark.parametrize(
    "name, kind, phrase",
    [
        ("glob-brace-in-table-name.sql", "Validation error", "cannot be resolved in workspace"),
        ("cast-size-not-a-number.sql", "Validation error", "a type's size must be a whole number"),
        ("in-without-list.sql", "Unsupported", "IN without a list"),
        ("quoted-function-name.sql", "Validation error", "no function is named"),
        ("over-after-a-member.sql", "Unsupported", "OVER after something that is not a function"),
    ],
)
def test_found_sql_gives_placed_sql_errors(engine, name, kind, phrase):
    with pytest.raises(SqlError) as e:
        engine.compile(_read("sql", name))
    assert e.value.kind == kind and phrase in e.value.message
    assert e.value.line is not None or kind == "Validation error"


def test_found_sql_that_is_valid_runs(engine):
    from drillspark.sql.output import columns_and_rows

    _, rows = columns_and_rows(engine.execute_statement(_read("sql_run", "leading-zeros.sql")))
    assert [[r[0], float(r[1])] for r in rows] == [[7, 1.5], [14, 2.5]]
    _, rows = columns_and_rows(
        engine.execute_statement(_read("sql_run", "negative-leading-zeros.sql"))
    )
    assert [[float(v) for v in r] for r in rows] == [[-7, -0.5, -0.25]]
    # -NOT x lowers to a plan the reader takes (it did not); Spark then refuses NOT of an INT
    with pytest.raises(SqlError, match="NOT x") as e:
        engine.execute_statement(_read("sql_run", "negated-not.sql"))
    assert e.value.kind == "Query error" and (e.value.line, e.value.column) == (1, 13)
