"""`make bench`: runs every benchmarks/*_bench.py in turn. Each script runs drillspark and the
alternative (plain Spark, DuckDB) side by side in one process and prints its own ratio table.
`make bench BENCH=scan` runs only the scripts whose names contain "scan"; words from the first
one starting with '-' on are passed to every script run, e.g. `make bench BENCH="scan --size
50MB --runs 1"` (or BENCH_ARGS="--size 50MB"); each script's options are in its --help.
`make bench BENCH=tpch_drill` runs the 22 TPC-H queries against real Drill 1.22 and DuckDB
(`BENCH=tpch` also runs tpch_bench.py: four of them against hand-written PySpark);
`make bench BENCH=shapes_race` the JSON race on other data shapes, every door's first query."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def split_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """(script name parts, arguments for the scripts): the arguments start at the first word
    that starts with '-'."""
    for i, word in enumerate(argv):
        if word.startswith("-"):
            return argv[:i], argv[i:]
    return argv, []


def main(argv: list[str] | None = None) -> int:
    only, extra = split_args(sys.argv[1:] if argv is None else argv)
    # (bi_replay.py and shapes_race.py: issue 37's BI replay and the race on other shapes,
    # named after what they run)
    scripts = sorted([*HERE.glob("*_bench.py"), HERE / "bi_replay.py", HERE / "shapes_race.py"])
    if only:
        scripts = [s for s in scripts if any(name in s.name for name in only)]
    failed = []
    for script in scripts:
        print(f"\n##### {script.name} " + "#" * 60, flush=True)
        if subprocess.run([sys.executable, str(script), *extra]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nbenchmarks that failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
