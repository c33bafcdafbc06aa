"""Drill's own test cases (../shared/conformance/cases.jsonl) that need only the scan, run as
Spark SQL through a dfs catalog rooted at the conformance data folder."""

from __future__ import annotations

import json
import math

import pytest

CASES = [
    "drill.json.complex_read_with_star",
    "drill.json.directory_with_empty_file",
    "drill.json.mixed_number_types_all_text",
    "drill.json.mixed_number_types_v2",
    "drill.json.nan_inf_select",
    "drill.json.null_where_list_expected",
    "drill.json.null_where_map_expected",
    "drill.json.null_where_map_expected_text",
    "drill.json.outer_array_count",
    "drill.implicit.partition_dir0_dir1_eq",
    "drill.implicit.partition_dir_and_column",
    "drill.json.nan_hash_join",
    "tf.json.jsonNanInf.positiveCases.maxFunction",
    "tf.json.json_storage.MD772_1",
    "tf.json.json_storage.basicArrayQuery",
]
# ORDER-less queries whose source asserts an order Spark does not promise (DISTINCT)
UNORDERED = {"drill.json.nan_hash_join"}
CATALOG_OPTIONS = {
    "store.json.all_text_mode": ("dfsconftext", {"option.allTextMode": "true"}),
    "store.json.read_numbers_as_double": ("dfsconfdouble", {"option.readNumbersAsDouble": "true"}),
}

SPARK_TYPE = {"BIGINT": "bigint", "FLOAT8": "double", "VARCHAR": "string"}


def load_cases(shared):
    out = {}
    with open(shared / "conformance" / "cases.jsonl") as f:
        for line in f:
            c = json.loads(line)
            out[c["id"]] = c
    return out


@pytest.fixture(scope="module")
def catalogs(spark, shared):
    root = str(shared / "data" / "drill-conformance")
    for name, extra in [("dfsconf", {}), *CATALOG_OPTIONS.values()]:
        spark.conf.set(f"spark.sql.catalog.{name}", "drillspark.catalog.DfsCatalog")
        spark.conf.set(f"spark.sql.catalog.{name}.root", root)
        for k, v in extra.items():
            spark.conf.set(f"spark.sql.catalog.{name}.{k}", v)
    return load_cases(shared)


def decode(v):
    if isinstance(v, dict) and set(v) == {"$double"}:
        return float(v["$double"])
    if isinstance(v, dict):
        return {k: decode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [decode(x) for x in v]
    return v


def tsv_cell(cell):
    """A test-framework cell: `null`, a number, JSON text, or a plain string."""
    if cell == "null":
        return None
    if cell in ("NaN", "Infinity", "-Infinity"):
        return float(cell)
    try:
        return json.loads(cell)
    except json.JSONDecodeError:
        return cell


def same(a, b):
    if isinstance(a, float) and isinstance(b, int | float) and not isinstance(b, bool):
        b = float(b)
        return (math.isnan(a) and math.isnan(b)) or a == b or math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)  # a map's absent key equals a null member
        return all(same(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("case_id", CASES)
def test_conformance_case(spark, catalogs, case_id):
    case = catalogs[case_id]
    opts = case.get("options") or {}
    cat = next((CATALOG_OPTIONS[k][0] for k in CATALOG_OPTIONS if opts.get(k)), "dfsconf")
    df = spark.sql(case["sql"].replace("dfs.`", f"{cat}.`"))
    rows = [r.asDict(recursive=True) for r in df.collect()]
    if "expected_row_count" in case:
        assert len(rows) == case["expected_row_count"]
        return
    if case.get("columns"):
        assert df.columns == case["columns"]
    for name, t in zip(case.get("columns") or [], case.get("types") or [], strict=False):
        if t in SPARK_TYPE:
            assert df.schema[name].dataType.simpleString() == SPARK_TYPE[t], name
    got = [[r[c] for c in df.columns] for r in rows]
    if case.get("expected_format") == "tsv":
        want = [[tsv_cell(c) for c in r] for r in case["expected"]]
    else:
        want = [decode(r) for r in case["expected"]]
    if not case.get("ordered") or case_id in UNORDERED:
        key = json.dumps
        got, want = (
            sorted(got, key=lambda r: key(r, default=str)),
            sorted(want, key=lambda r: key(r, default=str)),
        )
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert same(g, w), (g, w)
