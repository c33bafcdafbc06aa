"""benchmarks/operator_bench.py takes the common `--size` option (rows with suffixes, bytes,
or `small`) besides its positional row count."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "operator_bench.py"


@pytest.fixture(scope="module")
def bench():
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    spec = importlib.util.spec_from_file_location("operator_bench_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path[:] = saved_path  # the script puts its checkout first on both paths
    if saved_env is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved_env


@pytest.mark.parametrize(
    ("text", "rows"),
    [
        ("1M", 1_000_000),
        ("200k", 200_000),
        ("2.5M", 2_500_000),
        ("10_000", 10_000),
        ("small", 1_000_000),
        ("1G", 1_000_000_000),
    ],
)
def test_row_counts_with_suffixes(bench, text, rows):
    assert bench.parse_rows(text) == rows


def test_byte_sizes_become_rows_at_the_data_s_arrow_size(bench):
    per_row = sum(b.nbytes for b in bench.arrow_batches(10_000)) / 10_000
    assert bench.parse_rows("50MB") == int(50 * 2**20 / per_row)


def test_bad_sizes_are_refused_with_the_accepted_forms(bench):
    with pytest.raises(argparse.ArgumentTypeError, match=r"'lots' is not a size.*1M"):
        bench.parse_rows("lots")


def test_size_and_positional_rows_must_agree(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["2M", "--size", "1M"])
    assert "ROWS (2,000,000) and --size (1,000,000) disagree" in capsys.readouterr().err
