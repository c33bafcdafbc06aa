"""Which Drill functions aggregate, which are window functions and which are not deterministic:
the one list every layer asks
(the plan validator for aggregates nested in aggregates, the SQL lowering for what groups a
SELECT block and what needs OVER, the function catalog for the kind it registers each name
with). It sits in the plan layer, the lowest one that needs it: that layer imports no Spark, so
it cannot ask the catalog (spark/functions.py); the catalog agrees with it instead
(tests/foundation/test_function_kinds.py)."""

from __future__ import annotations

from drillspark import plugins

# Drill's aggregate functions drillspark runs: the catalog registers exactly these (and no
# other name) with kind "aggregate".
AGGREGATES = frozenset(
    {
        "count",
        "count_distinct",
        "sum",
        "avg",
        "min",
        "max",
        "any_value",
        "median",
        "stddev",
        "stddev_samp",
        "stddev_pop",
        "variance",
        "var_samp",
        "var_pop",
        "bool_and",
        "bool_or",
        "every",
        "bit_and",
        "bit_or",
        "bit_xor",
        "collect_list",
        "approx_count_dups",
        "corr",
        "covar_pop",
        "covar_samp",
    }
)
# Drill 1.22's other aggregate functions: not run here (the catalog has none of them), but
# still aggregates, so a plan nesting one in another aggregate is refused for that, and a SQL
# block using one is grouped (`SELECT a, hll(x) ...`: `a` is not grouped, as Drill says).
AGGREGATES_NOT_RUN = frozenset(
    {
        "single_value",
        "collect_to_list_varchar",
        "listagg",
        "$sum0",
        "sum0",
        "hll",
        "hll_merge",
        "tdigest",
        "tdigest_merge",
        "percentile_cont",
        "percentile_disc",
    }
)
# Drill's window functions (only over a window): the catalog's kind "window".
WINDOW_FUNCTIONS = frozenset(
    {
        "row_number",
        "rank",
        "dense_rank",
        "percent_rank",
        "cume_dist",
        "ntile",
        "lag",
        "lead",
        "first_value",
        "last_value",
    }
)

# Functions whose value differs from row to row for the same arguments: Spark refuses them
# inside an aggregate's argument, so the SQL lowering computes such an argument ahead of it.
NONDETERMINISTIC = frozenset({"random", "rand"})


def is_aggregate(name: str) -> bool:
    """Whether the function `name` aggregates: one of Drill's aggregates, or registered with
    `drillspark.function(name, kind="aggregate")`."""
    if name.lower() in AGGREGATES or name.lower() in AGGREGATES_NOT_RUN:
        return True
    fn = plugins.registered_function(name)
    return fn is not None and fn.kind == "aggregate"
