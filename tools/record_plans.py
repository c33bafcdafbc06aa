"""A pytest plugin that records every statement the SQL lowering compiles while tests run: the
test, the SQL, and its plan's EXPLAIN JSON or the error. Run a suite with it before and after
a change to the lowering and compare the two files with tools/compare_lowering.py --diff
(the companion of that tool: the corpora there, the tests' own SQL here).

    RECORD_PLANS=/tmp/after.jsonl PYTHONPATH=python:tools python -m pytest -p record_plans tests/sql

Temporary folders (pytest's, tempfile's) and CTAS uuids are masked, so that runs compare.
"""

from __future__ import annotations

import json
import os
import re

_MASKS = [
    (re.compile(r"/tmp/pytest-of-[^/]+/pytest-\d+/"), "<tmp>/"),
    (re.compile(r"/tmp/tmp[A-Za-z0-9_]{6,}"), "<tmpdir>"),
    (re.compile(r"/tmp/drillspark-[A-Za-z0-9_.-]+"), "<tmpdir>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
]
_records: list[dict] = []
_current: dict = {"test": "", "n": 0}


def _mask(text: str) -> str:
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


def pytest_configure(config):
    from drillspark.sql import engine, parser

    original = parser.compile_query

    def recording(text, session):
        _current["n"] += 1
        record = {"id": f"{_current['test']}#{_current['n']}", "sql": _mask(text)}
        try:
            compiled = original(text, session)
        except Exception as e:
            message = e.render() if hasattr(e, "render") else str(e)
            record.update(error=type(e).__name__, message=_mask(message))
            _records.append(record)
            raise
        try:
            record["plan"] = _mask(compiled.plan.to_json_text())
        except Exception as e:  # noqa: BLE001 - a plan that cannot be shown is recorded too
            record.update(error=type(e).__name__, message=_mask(str(e)))
        _records.append(record)
        return compiled

    parser.compile_query = recording
    engine.compile_query = recording


def pytest_runtest_setup(item):
    _current["test"] = item.nodeid
    _current["n"] = 0


def pytest_unconfigure(config):
    path = os.environ.get("RECORD_PLANS")
    if path:
        with open(path, "w") as f:
            for r in _records:
                f.write(json.dumps(r, sort_keys=True) + "\n")
