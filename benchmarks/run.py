"""`make bench`: runs every benchmarks/*_bench.py in turn. Each script runs drillspark and the
alternative (plain Spark, DuckDB) side by side in one process and prints its own ratio table.
`make bench BENCH=scan` runs only the scripts whose names contain "scan"; each script's own
size options are in its --help (run it directly for a smaller or larger run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    only = sys.argv[1:]
    scripts = sorted(HERE.glob("*_bench.py"))
    if only:
        scripts = [s for s in scripts if any(name in s.name for name in only)]
    failed = []
    for script in scripts:
        print(f"\n##### {script.name} " + "#" * 60, flush=True)
        if subprocess.run([sys.executable, str(script)]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nbenchmarks that failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
