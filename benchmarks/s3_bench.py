"""A JSON scan from an S3-compatible server against the same files on local disk: a `file`
plugin on `s3a://` (Hadoop's S3A, moto's server on a loopback port) and a `dfs` workspace over
the same files, the same aggregate through drillspark's SQL engine.

    PYTHONPATH=python python benchmarks/s3_bench.py                 # 8 files x 100,000 rows
    PYTHONPATH=python python benchmarks/s3_bench.py --files 16 --rows 200000 --runs 5

The files are written to a temporary folder and put into a bucket of a throw-away moto server
(tests/storage/s3_server.py; `moto[server]` is in the test extras), stopped by its process id
at the end. Each query's best of `--runs` runs is kept, the two alternating; their answers must
agree. Prints both times and the ratio S3 / local (how many times slower the object store is).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SQL = "SELECT count(*) AS n, sum(amount) AS total, count(DISTINCT customer) AS c FROM {table}"


def write_files(folder: Path, files: int, rows: int) -> int:
    rnd = random.Random(7)
    size = 0
    for f in range(files):
        lines = (
            json.dumps(
                {"id": f * rows + i, "customer": f"c{rnd.randrange(1000)}", "amount": i % 997}
            )
            for i in range(rows)
        )
        path = folder / f"part{f:03d}.json"
        path.write_text("\n".join(lines) + "\n")
        size += path.stat().st_size
    return size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--rows", type=int, default=100_000, help="rows per file")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)

    from tests.storage import s3_server

    import drillspark
    from drillspark.sql import SqlEngine
    from drillspark.sql.session import SqlSession

    with tempfile.TemporaryDirectory(prefix="s3-bench-") as tmp:
        data = Path(tmp) / "events"
        data.mkdir()
        size = write_files(data, args.files, args.rows)
        server = s3_server.start()
        try:
            server.client().create_bucket(Bucket="bench")
            for f in sorted(data.iterdir()):
                server.client().upload_file(str(f), "bench", f"events/{f.name}")
            spark = drillspark.session(master="local[2]", **{"spark.ui.enabled": "false"})
            session = SqlSession(workspaces={"bench": tmp}, plugins={"s3": server.plugin("bench")})
            engine = SqlEngine(spark, session)
            tables = {"local": "dfs.bench.`events/`", "s3": "s3.root.`events/`"}
            best: dict[str, float] = {}
            answers: dict[str, list] = {}
            for _ in range(args.runs):
                for name, table in tables.items():
                    start = time.perf_counter()
                    rows = engine.execute(SQL.format(table=table))[-1].rows()
                    took = time.perf_counter() - start
                    best[name] = min(best.get(name, took), took)
                    answers[name] = rows
            if answers["local"] != answers["s3"]:
                print(f"answers differ: {answers}", file=sys.stderr)
                return 1
            print(
                f"s3_bench: {args.files} JSON files, {args.files * args.rows:,} rows, "
                f"{size / 1e6:.0f} MB; best of {args.runs}"
            )
            print(f"  local disk (dfs): {best['local']:.2f} s")
            print(f"  S3 (moto, s3a):   {best['s3']:.2f} s")
            print(f"  ratio S3 / local: {best['s3'] / best['local']:.2f}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
