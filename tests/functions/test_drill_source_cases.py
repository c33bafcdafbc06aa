"""Drill's conformance cases run as written (function names prefixed drill_) over the dfs
catalog, so the data is read with Drill's JSON rules by the drill source."""

from __future__ import annotations

import re

import pytest
from tests.functions.helpers import DRILL_ROOT, assert_case, case

FUNCTIONS = r"\b(flatten|kvgen|mappify|repeated_count|repeated_contains|typeof)\("

# The repeated_* cases run in test_repeated.py (with their result types).
CASES = [
    "drill.flatten.drill1653_kvgen_missing_map",
    "drill.flatten.drill1671_11_flattens",
    "drill.flatten.drill2099_after_sort",
    "drill.flatten.drill2106_a",
    "drill.flatten.drill2106_b",
    "drill.flatten.empty_array_and_nested_map_typeof",
    "drill.json.flatten_empty_array_all_text_true",
    "drill.json.null_list_flatten_v3",
    "drill.typeof.json_file_v2",
    "tf.json.json_kvgenflatten.flatten.drill2217_1",
    "tf.json.json_kvgenflatten.flatten.flatten21",
    "tf.json.json_kvgenflatten.flatten.flatten26",
    "tf.json.json_kvgenflatten.flatten.flatten44",
    "tf.json.json_kvgenflatten.flatten.flatten46",
    "tf.json.json_kvgenflatten.kvgen.kvgen1",
    "tf.json.json_kvgenflatten.kvgen.kvgen16",
    "tf.json.json_kvgenflatten.kvgen.kvgen17",
    "tf.json.json_kvgenflatten.kvgen.kvgen2",
    "tf.json.json_kvgenflatten.kvgen.kvgen3",
    "tf.json.json_storage.drill_3562",
    "tf.json.kvgenflatten-nulls.filter15",
    "tf.json.kvgenflatten-nulls.functions1",
    "tf.json.kvgenflatten-nulls.filter3",
    "tf.json.kvgenflatten-nulls.filter7",
    "tf.flatten_operators.2rows.18_DRILL-2227",
    "tf.flatten_operators.2rows.filter14",
]


def spark_sql(c: dict, root) -> str:
    q = re.sub(FUNCTIONS, lambda m: f"drill_{m.group(1).lower()}(", c["sql"], flags=re.IGNORECASE)
    return re.sub(r"dfs\.`([^`]+)`", lambda m: f"dfs.`{root / m.group(1)}`", q)


@pytest.mark.parametrize("case_id", CASES)
def test_case_over_dfs(spark, shared, case_id):
    c = case(shared, case_id)
    df = spark.sql(spark_sql(c, shared / DRILL_ROOT))
    if c.get("expected_row_count") is not None:
        assert df.count() == c["expected_row_count"]
    else:
        assert_case(df, c)
