"""benchmarks/gen_events.py's shapes (the JSON race on data it was not tuned on): each keeps
every field the race's queries name and differs from the `github` shape as it says."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def gen():
    saved = list(sys.path)
    spec = importlib.util.spec_from_file_location("gen_events_under_test", BENCH / "gen_events.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path[:] = saved


def records(gen, tmp_path, shape):
    files = gen.generate(tmp_path / shape, 256 << 10, shape=shape)
    rows = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    return files, rows


def depth(v) -> int:
    if isinstance(v, dict):
        return 1 + max((depth(x) for x in v.values()), default=0)
    if isinstance(v, list):
        return max((depth(x) for x in v), default=0)
    return 0


def mean(xs) -> float:
    return sum(xs) / max(1, len(xs))


def test_every_shape_keeps_the_race_fields(gen, tmp_path):
    for shape in gen.SHAPES:
        _, rows = records(gen, tmp_path, shape)
        assert all({"id", "actor", "repo", "payload", "metrics"} <= r.keys() for r in rows), shape
        assert any(r["payload"].get("action") == "opened" for r in rows), shape
        assert any(r["payload"].get("pull_request", {}).get("labels") for r in rows), shape


def test_shapes_differ_as_named(gen, tmp_path):
    base_files, base = records(gen, tmp_path, "github")
    _, deep = records(gen, tmp_path, "deep")
    assert max(map(depth, deep)) >= max(map(depth, base)) + 5
    _, long_arrays = records(gen, tmp_path, "long-arrays")

    def commits(rows):
        return mean([len(r["payload"]["commits"]) for r in rows if "commits" in r["payload"]])

    assert commits(long_arrays) > 5 * commits(base)
    _, wide = records(gen, tmp_path, "wide")
    assert mean([len(r) for r in wide]) >= mean([len(r) for r in base]) + 240
    many_files, _ = records(gen, tmp_path, "many-files")
    assert (len(base_files), len(many_files)) == (8, 128)
    with pytest.raises(ValueError, match="unknown shape 'flat'"):
        gen.Gen(7, 8, "flat")
