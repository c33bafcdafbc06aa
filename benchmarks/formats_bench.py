"""Format readers' speed (#33): MB/s scanned by drillspark's readers (drillspark.sql and
Spark's `spark.read.format("drill-<type>")`, the same Scala reader) against the most direct
alternative a user would pick on the same file, in one run: fastavro for Avro, openpyxl
(read-only, what pandas.read_excel uses) for Excel. Each read touches every column (a
drillspark aggregate over all of them; the alternatives iterate every record). Files are
written to a temporary folder first; the best of --runs is reported."""

from __future__ import annotations

import argparse
import datetime
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def best(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def write_avro(path: Path, rows: int) -> None:
    import fastavro

    schema = {
        "type": "record",
        "name": "E",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": "string"},
            {"name": "score", "type": "double"},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        ],
    }
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    records = (
        {
            "id": i,
            "name": f"user{i % 977}",
            "score": i * 0.5,
            "tags": ["a", "bb", f"t{i % 13}"],
            "at": base + datetime.timedelta(seconds=i),
        }
        for i in range(rows)
    )
    with path.open("wb") as fh:
        fastavro.writer(fh, fastavro.parse_schema(schema), records)


def write_xlsx(path: Path, rows: int) -> None:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("data")
    ws.append(["id", "name", "score", "when"])
    base = datetime.datetime(2024, 1, 1)
    for i in range(rows):
        ws.append([i, f"user{i % 977}", i * 0.5, base + datetime.timedelta(minutes=i)])
    wb.save(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--avro-rows", type=int, default=1_000_000)
    ap.add_argument("--excel-rows", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=2)
    args, _ = ap.parse_known_args(argv)

    import drillspark
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    spark = drillspark.session(master="local[2]", **{"spark.ui.enabled": "false"})
    with tempfile.TemporaryDirectory(prefix="formats-bench-") as tmp:
        folder = Path(tmp)
        engine = SqlEngine(spark, SqlSession(workspaces={"b": tmp}))
        results = []

        avro = folder / "events.avro"
        write_avro(avro, args.avro_rows)
        mb = os.path.getsize(avro) / 1e6

        def fastavro_read() -> None:
            import fastavro

            with avro.open("rb") as fh:
                for _ in fastavro.reader(fh):
                    pass

        agg = "SELECT COUNT(*), MAX(id), MAX(name), SUM(score), MAX(tags[0]), MAX(`at`) FROM "
        results += [
            ("avro", "drillspark.sql", mb, best(args.runs, lambda: engine.execute(
                agg + "b.`events.avro`")[-1].collect())),
            ("avro", "spark.read drill-avro", mb, best(args.runs, lambda: spark.read.format(
                "drill-avro").load(str(avro)).selectExpr(
                "count(*)", "max(id)", "max(name)", "sum(score)", "max(tags[0])", "max(at)").collect())),
            ("avro", "fastavro (1 core)", mb, best(args.runs, fastavro_read)),
        ]  # fmt: skip

        xlsx = folder / "sheet.xlsx"
        write_xlsx(xlsx, args.excel_rows)
        mb = os.path.getsize(xlsx) / 1e6

        def openpyxl_read() -> None:
            import openpyxl

            wb = openpyxl.load_workbook(xlsx, read_only=True)
            for _ in wb.active.iter_rows(values_only=True):
                pass
            wb.close()

        xagg = "SELECT COUNT(*), MAX(id), MAX(name), SUM(score), MAX(`when`) FROM "
        results += [
            ("excel", "drillspark.sql", mb, best(args.runs, lambda: engine.execute(
                xagg + "b.`sheet.xlsx`")[-1].collect())),
            ("excel", "spark.read drill-excel", mb, best(args.runs, lambda: spark.read.format(
                "drill-excel").load(str(xlsx)).selectExpr(
                "count(*)", "max(id)", "max(name)", "sum(score)", "max(`when`)").collect())),
            ("excel", "openpyxl read-only (1 core)", mb, best(args.runs, openpyxl_read)),
        ]  # fmt: skip

    print(f"{'format':<7} {'reader':<30} {'MB':>8} {'s':>8} {'MB/s':>8}")
    for fmt, reader, size, secs in results:
        print(f"{fmt:<7} {reader:<30} {size:8.1f} {secs:8.2f} {size / secs:8.2f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
