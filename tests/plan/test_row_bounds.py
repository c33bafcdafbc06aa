"""plan.row_bounds: which plans' answers are known to be small before they run (the server
fetches those whole instead of streaming them partition by partition)."""

from __future__ import annotations

import json

from drillspark.plan import parse
from drillspark.plan.row_bounds import catalog_sources_only, most_records


def _plan(storage: dict, scans: list[str], limit: int | None = None) -> str:
    ops = [
        f'{{"op": "scan", "@id": {i + 1}, "storageengine": "{e}", "selection": {{"table": "t"}}}}'
        for i, e in enumerate(scans)
    ]
    n = len(scans)
    if n == 2:
        ops.append(
            '{"op": "join", "@id": 3, "left": 1, "right": 2, "type": "INNER", "conditions": '
            '[{"relationship": "==", "left": "a", "right": "b"}]}'
        )
    top = 3 if n == 2 else 1
    if limit is not None:
        ops.append(f'{{"op": "limit", "@id": 9, "input": {top}, "first": 0, "last": {limit}}}')
        top = 9
    ops.append(f'{{"op": "store", "@id": 10, "input": {top}, "storageengine": "--SCREEN--"}}')
    return (
        f'{{"head": {{"type": "APACHE_DRILL_LOGICAL", "version": "1"}}, '
        f'"storage": {json.dumps(storage)}, "query": [{", ".join(ops)}]}}'
    )


ISCHEMA = {"type": "ischema"}
SYS = {"type": "system-tables"}
DFS = {"type": "file", "connection": "file:///"}


def test_catalog_tables_only():
    assert catalog_sources_only(
        parse(_plan({"information_schema": ISCHEMA}, ["information_schema"]))
    )
    both = {"information_schema": ISCHEMA, "sys": SYS}
    assert catalog_sources_only(parse(_plan(both, ["information_schema", "sys"])))


def test_a_file_scan_is_not_a_catalog_answer():
    mixed = {"information_schema": ISCHEMA, "dfs": DFS}
    assert not catalog_sources_only(parse(_plan(mixed, ["information_schema", "dfs"])))
    assert not catalog_sources_only(parse(_plan({"dfs": DFS}, ["dfs"])))


def test_most_records_is_the_limit():
    assert most_records(parse(_plan({"dfs": DFS}, ["dfs"], limit=7))) == 7
    assert most_records(parse(_plan({"dfs": DFS}, ["dfs"]))) is None
