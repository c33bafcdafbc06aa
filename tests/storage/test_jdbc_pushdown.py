"""What Spark pushes down into the database for a `jdbc` plugin's scan (visible in EXPLAIN:
`PushedAggregates`, `PushedFilters`, `PushedTopN`, `PushedLimit` and the "External engine
query" sent), and that the answers stay Drill 1.22's."""

from __future__ import annotations

import pytest
from tests.storage.conftest import drill, scan_plan

import drillspark

AGG_SQL = (
    "SELECT customer, SUM(amount) s, COUNT(*) c, COUNT(amount) ca, AVG(amount) a, "
    "MIN(ordered) mo, MAX(status) ms, SUM(quantity) sq, AVG(quantity) aq FROM {table} "
    "GROUP BY customer ORDER BY customer"
)
AGGREGATE = {
    "@id": 3,
    "op": "groupingaggregate",
    "input": 2,
    "keys": [{"ref": "customer", "expr": "customer"}],
    "exprs": [
        {"ref": "s", "expr": "sum(amount)"},
        {"ref": "c", "expr": "count(1)"},
        {"ref": "ca", "expr": "count(amount)"},
        {"ref": "a", "expr": "avg(amount)"},
        {"ref": "mo", "expr": "min(ordered)"},
        {"ref": "ms", "expr": "max(status)"},
        {"ref": "sq", "expr": "sum(quantity)"},
        {"ref": "aq", "expr": "avg(quantity)"},
    ],
}
WHERE = {"@id": 2, "op": "filter", "input": 1, "expr": "quantity > 0"}
BY_CUSTOMER = {"@id": 4, "op": "order", "input": 3, "orderings": [{"expr": "customer"}]}


def _plain(v):
    return v.isoformat() if hasattr(v, "isoformat") else float(v) if hasattr(v, "as_tuple") else v


@pytest.mark.parametrize(
    "plugin, schema, table",
    [("pg", "sales", "pg.sales.orders"), ("maria", "drilltest", "maria.drilltest.orders")],
)
def test_an_aggregate_runs_in_the_database_and_answers_as_drill(
    spark, pg, maria, plugin, schema, table
):
    config = {"pg": pg, "maria": maria}[plugin]
    answer = drill(AGG_SQL.format(table=table))
    result = drillspark.run(
        scan_plan(plugin, config, schema, "orders", WHERE, AGGREGATE, BY_CUSTOMER), spark=spark
    )
    assert result.columns == answer["columns"]
    rows = [[_plain(v) for v in r.values()] for r in result.rows()]
    for got, want in zip(rows, answer["rows"], strict=True):
        # Drill plans MariaDB's AVG(DECIMAL(12, 2)) with scale 6 (69.333333): a database
        # table's DECIMAL is typed when planned (it had kept the column's scale, 69.33)
        assert got == want
    explained = result.explain(print_it=False)
    pushed = next(ln for ln in explained.splitlines() if ln.startswith("PushedAggregates:"))
    for part in ("SUM(", "COUNT(*)", "COUNT(", "AVG(", "MIN(ordered)", "MAX(status)"):
        assert part in pushed
    assert "PushedGroupByExpressions: [customer]" in explained
    assert "PushedFilters: [quantity IS NOT NULL, quantity > 0]" in explained
    assert "GROUP BY" in explained.split("External engine query:")[1]


def test_postgresql_sums_its_numeric_as_drill_does(spark, pg):
    # numeric(12, 2) is FLOAT8 in Drill's reads, so are its SUM and AVG (pushed down as
    # SUM(CAST(amount AS double)): the test above)
    answer = drill(
        "SELECT typeof(s) t1, typeof(a) t2, typeof(sq) t3, typeof(aq) t4 FROM (SELECT "
        "SUM(amount) s, AVG(amount) a, SUM(quantity) sq, AVG(quantity) aq FROM pg.sales.orders)"
    )
    agg = {
        "@id": 2,
        "op": "groupingaggregate",
        "input": 1,
        "keys": [{"ref": "k", "expr": "status"}],
        "exprs": [
            {"ref": "s", "expr": "sum(amount)"},
            {"ref": "a", "expr": "avg(amount)"},
            {"ref": "sq", "expr": "sum(quantity)"},
            {"ref": "aq", "expr": "avg(quantity)"},
        ],
    }
    types = {
        "@id": 3,
        "op": "project",
        "input": 2,
        "projections": [
            {"ref": f"t{i}", "expr": f"typeof({c})"}
            for i, c in enumerate(["s", "a", "sq", "aq"], 1)
        ],
    }
    result = drillspark.run(scan_plan("pg", pg, "sales", "orders", agg, types), spark=spark)
    # grouped by status: each group's types are the whole table's
    assert [list(r.values()) for r in result.rows()] == answer["rows"] * 2


@pytest.mark.parametrize("plugin, schema", [("pg", "sales"), ("maria", "drilltest")])
def test_top_n_runs_in_the_database(spark, pg, maria, plugin, schema):
    answer = drill("SELECT id, amount FROM pg.sales.orders ORDER BY amount DESC NULLS LAST LIMIT 3")
    config = {"pg": pg, "maria": maria}[plugin]
    order = {
        "@id": 2,
        "op": "order",
        "input": 1,
        "orderings": [{"order": "DESC", "expr": "amount", "nullDirection": "LAST"}],
    }
    limit = {"@id": 3, "op": "limit", "input": 2, "first": 0, "last": 3}
    project = {
        "@id": 4,
        "op": "project",
        "input": 3,
        "projections": [{"ref": "id", "expr": "id"}, {"ref": "amount", "expr": "amount"}],
    }
    result = drillspark.run(
        scan_plan(plugin, config, schema, "orders", order, limit, project), spark=spark
    )
    assert [[r["id"], float(r["amount"])] for r in result.rows()] == answer["rows"]
    explained = result.explain(print_it=False)
    assert "PushedTopN: ORDER BY [" in explained and "LIMIT 3" in explained


def test_a_limit_and_a_projection_run_in_the_database(spark, pg):
    limit = {"@id": 2, "op": "limit", "input": 1, "first": 0, "last": 5}
    project = {
        "@id": 3,
        "op": "project",
        "input": 2,
        "projections": [{"ref": "c", "expr": "customer"}],
    }
    result = drillspark.run(scan_plan("pg", pg, "sales", "orders", limit, project), spark=spark)
    assert len(result.rows()) == 5
    explained = result.explain(print_it=False)
    assert "PushedLimit: LIMIT 5" in explained
    query = explained.split("External engine query:")[1].splitlines()[0]
    assert query.startswith(' SELECT "customer" FROM "sales"."orders"') and "LIMIT 5" in query


def test_push_down_can_be_turned_off_by_source_parameters(spark, pg):
    config = {**pg, "sourceParameters": {"pushDownAggregate": False, "pushDownPredicate": False}}
    result = drillspark.run(
        scan_plan("pg", config, "sales", "orders", WHERE, AGGREGATE, BY_CUSTOMER), spark=spark
    )
    explained = result.explain(print_it=False)
    assert (
        "PushedAggregates" not in explained
        and "quantity > 0" not in explained.split("External engine query:")[1].splitlines()[0]
    )
    assert len(result.rows()) == 4
