"""What cluster_check.py and connect_check.py share: collecting problems (`Problems`) and
the script entry point (`run_script`). Not a test module; the checks import it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class Problems(list[str]):
    """The problems a check found (empty = passed)."""

    def expect(self, name: str, got: object, want: object) -> None:
        if got != want:
            self.append(f"{name}: got {got!r}, expected {want!r}")


def run_script(
    label: str,
    make_session: Callable[[], Any],
    check: Callable[[Any], list[str]],
    success: str,
) -> int:
    """Create a session, run `check(spark)` in it, stop the session and report; the exit code
    (0 = passed) for `sys.exit`."""
    spark = make_session()
    try:
        problems = check(spark)
    finally:
        spark.stop()
    for problem in problems:
        print(f"{label}: FAILED {problem}", file=sys.stderr)
    if not problems:
        print(f"{label}: {success}")
    return 1 if problems else 0
