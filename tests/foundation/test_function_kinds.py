"""Which functions aggregate is one rule (plan/function_kinds.py) that three layers use: the
function catalog registers each name with a kind, the plan validator refuses an aggregate
nested in another, the SQL lowering groups a SELECT block that calls one. These fail as soon as
one of them answers differently from the list."""

from __future__ import annotations

import json

import pytest

import drillspark
from drillspark import plugins
from drillspark.plan import PlanError, parse
from drillspark.plan.function_kinds import (
    AGGREGATES,
    AGGREGATES_NOT_RUN,
    WINDOW_FUNCTIONS,
    is_aggregate,
)
from drillspark.spark.functions import CATALOG
from drillspark.sql.errors import ValidationError
from drillspark.sql.parser import compile_query
from drillspark.sql.session import SqlSession

PLUGIN_AGGREGATE = "drill_kinds_total"


def _names(kind: str) -> set[str]:
    return {name for name, fn in CATALOG.functions.items() if fn.kind == kind}


def test_the_catalog_registers_exactly_the_listed_aggregates_and_window_functions():
    assert _names("aggregate") == set(AGGREGATES)
    assert _names("window") == set(WINDOW_FUNCTIONS)


def test_the_aggregates_not_run_are_not_in_the_catalog():
    # one the catalog starts running moves to AGGREGATES
    assert [n for n in sorted(AGGREGATES_NOT_RUN) if CATALOG.get(n) is not None] == []
    assert not AGGREGATES & AGGREGATES_NOT_RUN


@pytest.fixture
def plugin_aggregate():
    drillspark.function(PLUGIN_AGGREGATE, kind="aggregate", returns="long")(lambda x: 0)
    yield PLUGIN_AGGREGATE
    plugins.unregister(PLUGIN_AGGREGATE)


def _every_aggregate(plugin: str) -> list[str]:
    return sorted(AGGREGATES | AGGREGATES_NOT_RUN) + [plugin]


# aggregates of two arguments (the SQL parser knows CORR and COVAR_* by their arity)
_ARGS = {"corr": "b, b", "covar_pop": "b, b", "covar_samp": "b, b", "collect_list": "'k', b"}


def _sql_groups(name: str) -> bool:
    """Whether the SQL lowering takes `name(b)` for an aggregate, in both places that decide:
    the SELECT block (without GROUP BY, `a` beside it must then be grouped; Drill: "Expression
    'a' is not being grouped") and the expression (with GROUP BY a, `b` is then read inside
    the aggregate, not as an ungrouped column)."""
    values = "(VALUES (1, 2)) v(a, b)"
    args = _ARGS.get(name, "b")
    try:
        compile_query(f"SELECT a, `{name}`({args}) FROM {values}", SqlSession())
        block = False
    except ValidationError as e:
        assert e.message == "expression 'a' is neither in GROUP BY nor inside an aggregate function"
        block = True
    try:
        plan = compile_query(f"SELECT `{name}`({args}) FROM {values} GROUP BY a", SqlSession()).plan
        expression = any(
            name in x["expr"] for op in plan.to_json()["query"] for x in op.get("exprs", ())
        )
    except ValidationError as e:
        assert e.message == "expression 'b' is neither in GROUP BY nor inside an aggregate function"
        expression = False
    assert block == expression, f"{name}: the SELECT block and the expression disagree"
    return block


def _plan_nests(name: str) -> bool:
    """Whether the plan validator takes `name(b)` for an aggregate: inside sum() it is then
    refused as a nested aggregate."""
    text = json.dumps(
        {
            "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1},
            "storage": {},
            "query": [
                {"@id": 1, "op": "values", "content": [{"b": 1}]},
                {
                    "@id": 2,
                    "op": "groupingaggregate",
                    "input": 1,
                    "keys": [],
                    "exprs": [{"ref": "s", "expr": f"sum({name}(b))"}],
                },
            ],
        }
    )
    try:
        parse(text)
    except PlanError as e:
        assert [i.message for i in e.errors] == [
            f"aggregate {name}() is nested inside aggregate sum(): an aggregate expression must "
            "never nest one aggregate within another"
        ]
        return True
    return False


def test_sql_and_plan_take_every_aggregate_for_one(plugin_aggregate):
    names = _every_aggregate(plugin_aggregate)
    assert [n for n in names if not is_aggregate(n)] == []
    assert [n for n in names if not _sql_groups(n)] == []
    assert [n for n in names if not _plan_nests(n)] == []
    assert CATALOG.is_aggregate(plugin_aggregate)


def test_sql_and_plan_take_no_scalar_for_an_aggregate():
    scalars = sorted(_names("scalar"))
    assert len(scalars) > 100
    assert [n for n in scalars if is_aggregate(n)] == []
    for name in ("upper", "concat", "typeof", "sqrt", "abs"):
        assert not _sql_groups(name)
        assert not _plan_nests(name)
