"""Table names under a `jdbc` plugin as Drill 1.22 resolves them: schema names in any case;
table names exactly, or (caseInsensitiveTableNames) in lower case; the plugin alone stands for
PostgreSQL's current schema, and so does the database's name. Each case is a scan in a plan
against Drill's answer to the same name."""

from __future__ import annotations

import re

import pytest
from tests.storage.conftest import drill, scan_plan

import drillspark
from drillspark.spark.storage import StorageError

# (Drill's statement, plugin, selection schema, table)
FOUND = [
    ("SELECT * FROM pg.public.MixedCase", "pg", "public", "MixedCase"),
    ("SELECT * FROM pgci.public.MixedCase", "pgci", "public", "MixedCase"),
    ("SELECT * FROM pg.PUBLIC.all_types WHERE id = 3", "pg", "PUBLIC", "all_types"),
    ("SELECT * FROM pgci.PUBLIC.ALL_TYPES WHERE id = 3", "pgci", "PUBLIC", "ALL_TYPES"),
    ("SELECT * FROM pgci.public.All_Types WHERE id = 3", "pgci", "public", "All_Types"),
    ("SELECT * FROM pg.all_types WHERE id = 1", "pg", None, "all_types"),
    ("SELECT * FROM maria.DRILLTEST.MixedCase", "maria", "DRILLTEST", "MixedCase"),
    ("SELECT * FROM mariaci.DRILLTEST.ORDERS WHERE id = 1", "mariaci", "DRILLTEST", "ORDERS"),
]
NOT_FOUND = [
    ("SELECT * FROM pg.public.mixedcase", "pg", "public", "mixedcase"),
    ("SELECT * FROM pgci.public.mixedcase", "pgci", "public", "mixedcase"),
    ("SELECT * FROM pgci.public.MIXEDCASE", "pgci", "public", "MIXEDCASE"),
    ("SELECT * FROM pg.public.ALL_TYPES WHERE id = 3", "pg", "public", "ALL_TYPES"),
    ("SELECT * FROM maria.drilltest.mixedcase", "maria", "drilltest", "mixedcase"),
    ("SELECT * FROM mariaci.drilltest.mixedcase", "mariaci", "drilltest", "mixedcase"),
    ("SELECT * FROM pg.public.nosuch", "pg", "public", "nosuch"),
    ("SELECT * FROM pg.nosuch.t", "pg", "nosuch", "t"),
    ("SELECT * FROM maria.all_types WHERE id = 1", "maria", None, "all_types"),
    (
        "SELECT * FROM pg.drilltest.public.all_types WHERE id = 1",
        "pg",
        ["drilltest", "public"],
        "all_types",
    ),
]


def configs(pg, maria):
    return {
        "pg": pg,
        "pgci": {**pg, "caseInsensitiveTableNames": True},
        "maria": maria,
        "mariaci": {**maria, "caseInsensitiveTableNames": True},
    }


def _filtered(sql: str) -> list[dict]:
    match = re.search(r"WHERE id = (\d+)", sql)
    if not match:
        return [{"@id": 2, "op": "order", "input": 1, "orderings": [{"expr": "id"}]}]
    return [{"@id": 2, "op": "filter", "input": 1, "expr": f"id = {match.group(1)}"}]


@pytest.mark.parametrize("sql, plugin, schema, table", FOUND, ids=[f[0] for f in FOUND])
def test_found_as_drill_finds_it(spark, pg, maria, sql, plugin, schema, table):
    answer = drill(sql)
    assert answer["ok"]
    config = configs(pg, maria)[plugin]
    result = drillspark.run(scan_plan(plugin, config, schema, table, *_filtered(sql)), spark=spark)
    assert result.columns == answer["columns"]
    assert len(result.rows()) == len(answer["rows"])
    assert [r[0] for r in result.collect()] == [r[0] for r in answer["rows"]]


@pytest.mark.parametrize("sql, plugin, schema, table", NOT_FOUND, ids=[n[0] for n in NOT_FOUND])
def test_not_found_as_drill_says_it(spark, pg, maria, sql, plugin, schema, table):
    answer = drill(sql)
    drills = re.search(r"Object '[^']*' not found within '[^']*'", answer["error"]).group(0)
    config = configs(pg, maria)[plugin]
    with pytest.raises(StorageError) as caught:
        drillspark.run(scan_plan(plugin, config, schema, table), spark=spark)
    assert drills in str(caught.value)
    assert f"jdbc storage plugin {plugin!r}" in str(caught.value)


def test_columns_match_in_any_case(spark, pg):
    # Drill: SELECT id FROM pg.public.MixedCase answers the column "Id" as `id`
    answer = drill("SELECT id FROM pg.public.MixedCase")
    project = {"@id": 2, "op": "project", "input": 1, "projections": [{"ref": "id", "expr": "id"}]}
    result = drillspark.run(scan_plan("pg", pg, "public", "MixedCase", project), spark=spark)
    assert sorted(r["id"] for r in result.rows()) == [r[0] for r in answer["rows"]]


def test_the_database_name_stands_for_the_current_schema(spark, pg):
    # Drill lists pg.drilltest's tables (those of the current schema) but fails to read them
    # (it sends "drilltest"."all_types" to PostgreSQL); drillspark reads them
    assert "DATA_READ ERROR" in drill("SELECT * FROM pg.drilltest.all_types WHERE id = 3")["error"]
    result = drillspark.run(scan_plan("pg", pg, "drilltest", "all_types"), spark=spark)
    assert sorted(r["id"] for r in result.rows()) == [1, 2, 3]


def test_a_cross_plugin_join_answers_as_drill(spark, pg, maria):
    answer = drill(
        "SELECT o.id, o.customer, m.label FROM pg.sales.orders o JOIN "
        "maria.drilltest.MixedCase m ON o.id = m.id ORDER BY o.id"
    )
    p = {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "tests"}},
        "storage": {"pg": pg, "maria": maria},
        "query": [
            {
                "@id": 1,
                "op": "scan",
                "storageengine": "pg",
                "selection": {"schema": "sales", "table": "orders"},
            },
            {
                "@id": 2,
                "op": "scan",
                "storageengine": "maria",
                "selection": {"schema": "drilltest", "table": "MixedCase"},
            },
            {
                "@id": 3,
                "op": "project",
                "input": 2,
                "projections": [{"ref": "mid", "expr": "Id"}, {"ref": "label", "expr": "Label"}],
            },
            {
                "@id": 4,
                "op": "join",
                "left": 1,
                "right": 3,
                "type": "inner",
                "conditions": [{"relationship": "==", "left": "id", "right": "mid"}],
            },
            {"@id": 5, "op": "order", "input": 4, "orderings": [{"expr": "id"}]},
            {
                "@id": 6,
                "op": "project",
                "input": 5,
                "projections": [
                    {"ref": "id", "expr": "id"},
                    {"ref": "customer", "expr": "customer"},
                    {"ref": "label", "expr": "label"},
                ],
            },
            {"@id": 7, "op": "store", "input": 6, "storageEngine": "--SCREEN--"},
        ],
    }
    result = drillspark.run(p, spark=spark)
    assert [list(r.values()) for r in result.rows()] == answer["rows"]
