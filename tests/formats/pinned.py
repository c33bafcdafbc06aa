"""Drill 1.22's answers on the files of tests/formats/data (drill_<format>.json, asked with
../shared/tools/drill/query.sh --json --root tests/formats/data [--plugins
data/drill_plugins.json]), and the check that drillspark answers a case the same way."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.formats.conftest import DATA, jdbc_rows, jdbc_types

# the `formats` of dfs the configured-format cases ran with (Drill's --plugins file)
PLUGIN_FORMATS: dict[str, Any] = json.loads((DATA / "drill_plugins.json").read_text("utf-8"))[
    "storage"
]["dfs"]["formats"]


def cases(name: str) -> dict[str, dict[str, Any]]:
    return {c["sql"]: c for c in json.loads((DATA / f"drill_{name}.json").read_text("utf-8"))}


def stage(folder: Path, *names: str) -> Path:
    """Copies data files into the test's workspace folder (the tests never write to DATA)."""
    for n in names:
        shutil.copy(DATA / n, folder / n)
    return folder


def file_of(sql: str) -> str:
    found = re.search(r"dfs\.data\.`([^`]+)`", sql)
    assert found, sql
    return found.group(1)


def answer(sql: Callable[..., Any], case: dict[str, Any], formats: Any = None) -> Any:
    """drillspark's answer to a pinned case, as (columns, JDBC types, rows) like Drill's."""
    df = sql(case["sql"], formats)
    return df.columns, jdbc_types(df.schema), jdbc_rows(df.collect())


def assert_as_drill(sql: Callable[..., Any], case: dict[str, Any], formats: Any = None) -> None:
    columns, types, rows = answer(sql, case, formats)
    assert columns == case["columns"], case["sql"]
    assert types == case["types"], case["sql"]
    assert rows == case["rows"], case["sql"]
