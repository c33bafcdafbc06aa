"""Fuzzing settings and fixtures (issue #15).

Every fuzz test comes in two passes: a short deterministic one (hypothesis `derandomize=True`,
a bounded number of examples) that runs with the normal tests, and a long random one marked
`fuzz`, deselected unless asked for with `pytest -m fuzz` (the long tier of tests/conftest.py,
run by `make test-long` and CI). Hypothesis keeps no example database: an input found by the long pass goes into `corpus/`, which every run replays.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# `DRILLSPARK_FUZZ_SCALE=10 pytest -m fuzz tests/fuzz` fuzzes ten times longer by hand; CI
# (`make test-long`) runs each long pass at its written size.
SCALE_ENV = "DRILLSPARK_FUZZ_SCALE"

_RELAXED = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
]


def short(examples: int) -> settings:
    """The normal run's pass: the same `examples` inputs every time."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=_RELAXED,
        print_blob=True,
    )


def long(examples: int) -> settings:
    """The `-m fuzz` pass: `examples` fresh random inputs (times DRILLSPARK_FUZZ_SCALE)."""
    return settings(
        max_examples=max(1, round(examples * float(os.environ.get(SCALE_ENV, "1")))),
        database=None,
        deadline=None,
        suppress_health_check=_RELAXED,
        print_blob=True,
    )
