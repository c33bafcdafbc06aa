"""Reading Drill's conformance cases and data in place, and comparing results Drill's way."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession

CONFORMANCE = "conformance/cases.jsonl"
DRILL_ROOT = "data/drill-conformance"


@cache
def _cases(shared: Path) -> dict[str, dict[str, Any]]:
    lines = (shared / CONFORMANCE).read_text().splitlines()
    return {c["id"]: c for c in map(json.loads, lines)}


def case(shared: Path, case_id: str) -> dict[str, Any]:
    """One conformance case by id (its expected output is Drill's, transcribed from Drill)."""
    return _cases(shared)[case_id]


def read_json(spark: SparkSession, path: Path, **options: Any) -> DataFrame:
    """A JSON file read in place. Drill accepts concatenated (pretty-printed) objects, which
    Spark's reader does not, so those are split here into one document per record."""
    text = path.read_text()
    decoder = json.JSONDecoder()
    docs, pos = [], 0
    try:
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            obj, pos = decoder.raw_decode(text, pos)
            docs.append(json.dumps(obj))
    except json.JSONDecodeError:
        # Not plain JSON (e.g. Drill's unquoted field names): let Spark's lenient reader parse it.
        return spark.read.options(multiLine=True, allowUnquotedFieldNames=True, **options).json(
            str(path)
        )
    return spark.read.options(**options).json(spark.sparkContext.parallelize(docs, 1))


def conformance_table(
    spark: SparkSession, shared: Path, case_id: str, name: str = "t", **options: Any
) -> dict:
    """Registers the case's (single) data file as view `name`; returns the case."""
    c = case(shared, case_id)
    (data,) = c["data"]
    read_json(spark, shared / DRILL_ROOT / data, **options).createOrReplaceTempView(name)
    return c


def plain(value: Any) -> Any:
    """A Spark value as Drill renders it: maps without null members, floats rounded."""
    if isinstance(value, Row):
        value = value.asDict(recursive=False)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isfinite(value):
        return round(value, 9)
    return value


def cell(text: str) -> Any:
    """A test-framework TSV cell: JSON-looking text parsed, `null` is SQL NULL."""
    try:
        return plain(json.loads(text))
    except json.JSONDecodeError:
        return text


def key(row: list[Any]) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def rows(df: DataFrame) -> list[list[Any]]:
    return [[plain(v) for v in r] for r in df.collect()]


def expected_rows(c: dict[str, Any]) -> list[list[Any]]:
    if c.get("expected_format") == "tsv":
        return [[cell(v) for v in r] for r in c["expected"]]
    return [[plain(v) for v in r] for r in c["expected"]]


def assert_case(df: DataFrame, c: dict[str, Any], as_text: bool = False) -> None:
    """The result equals the case's expected rows (as a multiset unless the case is ordered).
    `as_text` compares every cell as its JSON text, as the test framework does for scalars."""
    got, want = rows(df), expected_rows(c)
    if as_text:
        got = [[json.dumps(v) if not isinstance(v, str) else v for v in r] for r in got]
        want = [[json.dumps(v) if not isinstance(v, str) else v for v in r] for r in want]
    if not c.get("ordered"):
        got, want = sorted(got, key=key), sorted(want, key=key)
    assert got == want, f"{c['id']}: got {got}, Drill expects {want}"
