"""Scan benchmark: the `drill` source against spark.read.json (schema inferred / given),
DuckDB read_ndjson_auto and real Apache Drill 1.22, on generated GitHub-Archive-shaped nested
JSON lines.

Queries: (1) count, (2) filter on two nested fields and project three, (3) flatten an array
and group-by count. drillspark runs cold (first query: file listing + schema discovery) and
warm (schema cached per file); Spark-inferred is always cold (it re-infers each time).
Prints medians of alternating runs and ratios, the discovery pass against a count (token
scan) of the same bytes, and the peak live heap of a full read with batchBytes 1 MiB vs 64 MiB.

The Drill race (benchmarks/drill_race.py): drillspark's SQL layer runs the same Drill SQL text
that Apache Drill runs (`../shared/tools/drill/query.sh`, one Drillbit per query and round:
cold = its first query after start, warm = the median of the repeats, as every warm engine here
is timed: `--warm-repeats`); `drillspark sql` in a fresh process
against the Drillbit's launch-to-first-answer. Every engine's answers are checked against
Spark's with the schema given, and each difference is printed. Without the Drill tool or its
jars the race says so and the rest runs.

    python benchmarks/scan_bench.py --size 50MB --runs 3     # development size
    python benchmarks/scan_bench.py                          # ~1 GB (the issue's setting)
    python benchmarks/scan_bench.py --size 8MB --runs 1 --skip-memory --drill-heap 1500m
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from drill_race import (  # noqa: E402
    drill_missing,
    mismatches,
    normalize,
    run_drill,
    run_fresh,
    scan_sql,
)
from gen_events import generate, parse_size  # noqa: E402

Q2_FILTER = "payload.action = 'opened' AND metrics.score > 50"
Q2_COLS = ["id", "actor.login", "repo.name"]
# warm drill runs with a fast path off: count parsing every record, filters checked after parsing,
# rows read by the Jackson path instead of the byte reader: (query, name, option, Spark conf)
READER_CONF = "spark.drillspark.readScanner"
SINGLE_PASS_CONF = "spark.drillspark.singlePassSample"  # records the one pass samples; 0: off
BASELINES = [
    ("count", "drillspark warm, countScan=false", "countScan", None),
    ("filter+project", "drillspark warm, pushFilters=false", "pushFilters", None),
    ("filter+project", "drillspark warm, Jackson reader", None, (READER_CONF, "jackson")),
    ("flatten+group", "drillspark warm, Jackson reader", None, (READER_CONF, "jackson")),
]


def data_dir(base: Path, size: int) -> Path:
    d = base / f"scan-{size >> 20}MB"
    if not (d / "events-00.json").exists():
        print(f"generating {size >> 20} MiB of nested JSON lines in {d} ...", flush=True)
        generate(d, size)
    return d


def bump_mtimes(d: Path) -> None:
    """A new modification time makes the drill source rediscover the files (a cold query)."""
    for p in d.glob("*.json"):
        st = p.stat()
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def spark_queries(df):
    from pyspark.sql import functions as F

    return {
        "count": lambda: df.count(),
        # rows fetched as Arrow by both engines (a Row-by-Row collect() costs pyspark ~0.5 s
        # for these 64k rows, fetchall() DuckDB ~0.05 s: not the scan's speed either way)
        "filter+project": lambda: df.filter(Q2_FILTER).select(*Q2_COLS).toArrow().num_rows,
        "flatten+group": lambda: sorted(
            tuple(r)
            for r in df.select(F.explode("payload.pull_request.labels").alias("l"))
            .groupBy("l.name")
            .count()
            .collect()
        ),
    }


def duck_queries(con, glob: str):
    src = f"read_ndjson_auto('{glob}')"
    return {
        "count": lambda: con.sql(f"SELECT count(*) FROM {src}").fetchall()[0][0],
        "filter+project": lambda: (
            con.sql(f"SELECT id, actor.login, repo.name FROM {src} WHERE {Q2_FILTER}")
            .to_arrow_table()
            .num_rows
        ),
        "flatten+group": lambda: sorted(
            tuple(r)
            for r in con.sql(
                f"SELECT l.name, count(*) FROM (SELECT unnest(payload.pull_request.labels) AS l FROM {src}) "
                "GROUP BY 1"
            ).fetchall()
        ),
    }


def token_scan(files: list[Path], threads: int = 2, rounds: int = 3) -> float:
    """A bare Jackson token scan of the same bytes (drillspark.source.TokenScan in the bench jar, the
    source's parser settings, nothing kept): the median seconds of the rounds after the first
    (JIT warm-up)."""
    import pyspark

    import drillspark

    jars = Path(pyspark.__file__).parent / "jars"
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if os.environ.get("JAVA_HOME") else "java"
    bench_jar = HERE.parent / "build" / "drillspark-bench.jar"  # `make bench` builds it
    if not bench_jar.exists():
        subprocess.run(
            [sys.executable, str(HERE.parent / "tools" / "build_jar.py"), "--bench"], check=True
        )
    cp = os.pathsep.join([f"{jars}/*", drillspark.jar_path(), str(bench_jar)])
    out = subprocess.run(
        [
            str(java),
            "-cp",
            cp,
            "drillspark.source.TokenScan",
            str(threads),
            str(rounds),
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    secs = [
        float(line.split()[1]) for line in out.stdout.splitlines() if line.startswith("TOKENSCAN")
    ]
    return statistics.median(secs[1:] or secs)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


# Engines whose figure is a steady state, timed as Drill's warm figure is: the median of
# `--warm-repeats` runs in a row within each round (then the median over rounds). A cold
# figure is one run: each needs files the engine has not seen.
WARM_REPEATED = {"drillspark warm", "drillspark SQL warm", "spark given schema", "duckdb"}


def repeated(fn, n: int):
    """The median seconds of `n` runs of `fn` in a row, and the last run's answer."""
    secs, out = [], None
    for _ in range(max(1, n)):
        t, out = timed(fn)
        secs.append(t)
    return statistics.median(secs), out


def timed_as(eng: str, fn, warm_repeats: int):
    """`fn` timed as `eng`'s figure is: repeated if it is a steady state, else one run."""
    return repeated(fn, warm_repeats if eng in WARM_REPEATED else 1)


def normalize_spark(q: str, out: object) -> object:
    """Spark's and DuckDB's answers in the form of drill_race.normalize (groups sorted alike)."""
    return normalize(q, out) if q == "flatten+group" else out


def print_drill_race(med: dict, names: list[str], drill_off: str | None, args) -> None:
    def get(eng: str, q: str) -> float | None:
        return med.get((eng, q))

    def ratio(a: float | None, b: float | None) -> str:
        return f"{a / b:.2f}" if a is not None and b else "-"

    print(
        "\nApache Drill 1.22 race (embedded Drillbit, one per query and round; Drill's cold is its "
        "first query after start, drillspark's cold is the first query over files it has not seen "
        "in a running session)"
    )
    if drill_off:
        print(f"Drill: {drill_off}")
    else:
        ready = statistics.median(v for (e, _), v in med.items() if e == "Drill ready")
        up = statistics.median(v for (e, _), v in med.items() if e == "Drill up")
        print(
            f"Drillbit start: {ready:.1f} s from launch to ready (JVM, the tool's compile, Drill's "
            f"start), of which Drill's own start {up:.1f} s"
        )
        print("speed-up over Drill = Drill seconds / drillspark seconds (target >= 3)")
        print(
            f"{'query':16}{'warm: source':>14}{'warm: SQL':>12}{'cold: source':>14}{'cold: SQL':>12}"
        )
        for q in names:
            dw, dc = get("Drill warm", q), get("Drill cold", q)
            print(
                f"{q:16}{ratio(dw, get('drillspark warm', q)):>14}"
                f"{ratio(dw, get('drillspark SQL warm', q)):>12}"
                f"{ratio(dc, get('drillspark cold', q)):>14}{ratio(dc, get('drillspark SQL cold', q)):>12}"
            )
    if args.fresh:
        print(
            "\nfirst answer of a fresh process, seconds from launch (drillspark: `drillspark sql`; "
            "Drill: its start + first query); ratio Drill / drillspark (target >= 1)"
        )
        print(f"{'query':16}{'drillspark':>12}{'(to exit)':>11}{'Drill':>10}{'ratio':>8}")
        for q in names:
            fs, fe, df = get("fresh first", q), get("fresh exit", q), get("Drill first", q)
            print(
                f"{q:16}{fs or float('nan'):>12.1f}{fe or float('nan'):>11.1f}"
                f"{df or float('nan'):>10.1f}{ratio(df, fs):>8}"
            )


def sql_answer(q: str, result) -> object:
    """The normalized answer of a drillspark SQL result (fetched as Arrow, as the others)."""
    table = result.to_arrow()
    if q == "filter+project":
        return table.num_rows
    return normalize(q, [tuple(r.values()) for r in table.to_pylist()])


def run(args) -> None:
    import duckdb

    import drillspark
    from drillspark.sql import default_engine

    size = parse_size(args.size)
    d = data_dir(Path(args.data), size)
    path = str(d)
    glob = str(d / "*.json")
    spark = drillspark.session(
        master=args.master,
        app_name="scan-bench",
        **{
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.driver.memory": "3g",
        },
    )
    con = duckdb.connect()
    con.execute("SET threads TO 2")
    given = spark.read.json(path).schema
    sql = scan_sql(d)
    engine = default_engine(spark)
    drill_off = "switched off (--no-drill)" if args.no_drill else drill_missing()

    engines = {
        "drillspark cold": lambda: (bump_mtimes(d), spark.read.format("drill").load(path))[1],
        "drillspark warm": lambda: spark.read.format("drill").load(path),
        "spark inferred": lambda: spark.read.json(path),
        "spark given schema": lambda: spark.read.schema(given).json(path),
    }
    # the same Drill SQL text that Apache Drill runs, through drillspark's SQL layer: cold (new
    # files), warm, and cold with the one pass switched off (a discovery pass, then the read)
    sql_engines = {
        "drillspark SQL cold": (True, None),
        "drillspark SQL warm": (False, None),
        "drillspark SQL cold, two passes": (True, "0"),
    }
    names = ["count", "filter+project", "flatten+group"]
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], object] = {}
    failures: list[str] = []
    # JIT warm-up for every engine alike, every query once: otherwise the first timed query of
    # each shape (drillspark cold, first in the round) pays the JIT's and codegen's first sight
    # of it, which made the source's cold filter+project look slower than the SQL path's
    warm = spark.read.format("drill").load(path)
    for q in names:
        spark_queries(warm)[q]()
        spark_queries(spark.read.schema(given).json(path))[q]()
        sql_answer(q, engine.execute(sql[q])[-1])
    for rnd in range(args.runs):
        bump_mtimes(d)
        t, _ = timed(lambda: spark.read.format("drill").load(path).schema)
        times.setdefault(("discovery", "schema"), []).append(t)
        for q in names:
            for eng, make in engines.items():
                fn = lambda make=make, q=q: spark_queries(make())[q]()  # noqa: E731
                t, out = timed_as(eng, fn, args.warm_repeats)
                times.setdefault((eng, q), []).append(t)
                answers[(eng, q)] = normalize_spark(q, out)
            for eng, (cold, sample) in sql_engines.items():
                if cold:
                    bump_mtimes(d)
                if sample is not None:
                    spark.conf.set(SINGLE_PASS_CONF, sample)
                try:
                    fn = lambda q=q: sql_answer(q, engine.execute(sql[q])[-1])  # noqa: E731
                    t, out = timed_as(eng, fn, args.warm_repeats)
                finally:
                    if sample is not None:
                        spark.conf.unset(SINGLE_PASS_CONF)
                times.setdefault((eng, q), []).append(t)
                answers[(eng, q)] = out
            for bq, name, opt, conf in BASELINES:  # the same query with a fast path off
                if bq != q:
                    continue
                reader = spark.read.format("drill")
                if opt:
                    reader = reader.option(opt, "false")
                if conf:
                    spark.conf.set(*conf)
                try:
                    t, out = timed(lambda q=q, reader=reader: spark_queries(reader.load(path))[q]())
                finally:
                    if conf:
                        spark.conf.unset(conf[0])
                times.setdefault((name, q), []).append(t)
                answers[(name, q)] = normalize_spark(q, out)
            t, out = timed_as("duckdb", duck_queries(con, glob)[q], args.warm_repeats)
            times.setdefault(("duckdb", q), []).append(t)
            answers[("duckdb", q)] = normalize_spark(q, out)
            if not drill_off:  # one Drillbit per query and round: its first answer is cold
                print(f"round {rnd + 1}: Apache Drill, {q} ...", flush=True)
                dr = run_drill(
                    sql[q], 1 + args.drill_warm, heap=args.drill_heap, direct=args.drill_direct
                )
                if dr.error:
                    failures.append(f"Apache Drill failed on {q}: {dr.error}")
                if dr.ms:
                    times.setdefault(("Drill cold", q), []).append(dr.cold)
                    if dr.warm is not None:
                        times.setdefault(("Drill warm", q), []).append(dr.warm)
                    answers[("Drill", q)] = normalize(q, dr.rows)
                for key, v in (
                    ("ready", dr.ready_s),
                    ("up", dr.up_s),
                    ("first", dr.first_result_s),
                ):
                    if v is not None:
                        times.setdefault((f"Drill {key}", q), []).append(v)
            if args.fresh:  # drillspark's first query in a fresh process: `drillspark sql`
                print(f"round {rnd + 1}: drillspark sql in a fresh process, {q} ...", flush=True)
                fr = run_fresh(sys.executable, sql[q], q, args.master)
                if fr.error:
                    failures.append(f"drillspark fresh process failed on {q}: {fr.error}")
                else:
                    answers[("drillspark fresh process", q)] = fr.answer
                for key, v in (("first", fr.first_result_s), ("exit", fr.exit_s)):
                    if v is not None:
                        times.setdefault((f"fresh {key}", q), []).append(v)
    spark.stop()

    print()
    for line in failures:
        print(line)
    found = mismatches(answers, "spark given schema")
    for line in found:
        print(line)
    if not found:
        print("every engine gave the same answers")

    med = {k: statistics.median(v) for k, v in times.items()}
    cols = [*engines, *sql_engines, "duckdb", "Drill cold", "Drill warm"]
    cols = [c for c in cols if all((c, q) in med for q in names)]
    print(
        f"\n{d.name}: {sum(p.stat().st_size for p in d.glob('*.json')) / 2**20:.0f} MiB, "
        f"{args.master}, median of {args.runs} alternating runs (seconds)"
    )
    print(f"{'query':16}" + "".join(f"{c:>20}" for c in cols))
    for q in names:
        print(f"{q:16}" + "".join(f"{med[(c, q)]:>20.2f}" for c in cols))
    print("\nratios (> 1 means drillspark is faster)")
    print(
        f"{'query':16}{'inferred/cold':>16}{'duckdb/cold':>14}{'given/warm':>14}{'duckdb/warm':>14}"
        f"{'duckdb/SQL cold':>18}{'two passes/one':>16}"
    )
    for q in names:
        c, w = med[("drillspark cold", q)], med[("drillspark warm", q)]
        sc = med[("drillspark SQL cold", q)]
        print(
            f"{q:16}{med[('spark inferred', q)] / c:>16.2f}{med[('duckdb', q)] / c:>14.2f}"
            f"{med[('spark given schema', q)] / w:>14.2f}{med[('duckdb', q)] / w:>14.2f}"
            f"{med[('duckdb', q)] / sc:>18.2f}"
            f"{med[('drillspark SQL cold, two passes', q)] / sc:>16.2f}"
        )
    print_drill_race(med, names, drill_off, args)
    print()
    for q, name, _, _ in BASELINES:
        print(f"{q} warm: {med[('drillspark warm', q)]:.2f} s; {name}: {med[(name, q)]:.2f} s")
    disc = med[("discovery", "schema")]
    bare = token_scan(sorted(d.glob("*.json")))
    print(
        f"discovery (listing + token pass, schema only): {disc:.2f} s; bare Jackson token scan of the "
        f"same bytes (2 threads, JIT warm): {bare:.2f} s; discovery speed / token-scan speed = "
        f"{bare / max(disc, 1e-9):.2f} (target >= 0.5)"
    )

    if not args.skip_memory:
        print(
            "\nfull read (all columns, batchRows=65536) into a noop sink, 2 readers: peak live heap "
            "above the idle session's"
        )
        for bb in ("1m", "64m"):
            out = subprocess.run(
                [sys.executable, __file__, "--memory-probe", bb, "--data", path],
                capture_output=True,
                text=True,
            )
            line = [x for x in out.stdout.splitlines() if x.startswith("PEAK")]
            if line:
                print(f"  batchBytes={bb:>4}: {line[0].split()[1]} MiB")
            else:
                print(f"  batchBytes={bb:>4}: failed: {out.stderr[-300:]}")


def memory_probe(batch_bytes: str, path: str) -> None:
    """Full read (every column) into a noop sink in its own JVM (2 GiB heap, local[2]). The
    peak live heap is sampled every 0.2 s right after a forced full GC (so garbage the
    collector has not yet reclaimed does not count), minus the live heap before the query."""
    import threading

    import drillspark

    spark = drillspark.session(
        master="local[2]",
        app_name="scan-bench-mem",
        **{"spark.ui.enabled": "false", "spark.driver.memory": "2g"},
    )
    jvm = spark.sparkContext._jvm
    heap = jvm.java.lang.management.ManagementFactory.getMemoryMXBean()

    def live() -> int:
        jvm.java.lang.System.gc()
        return heap.getHeapMemoryUsage().getUsed()

    df = (
        spark.read.format("drill")
        .option("batchBytes", batch_bytes)
        .option("batchRows", "65536")
        .load(path)
    )
    df.schema  # noqa: B018  (discovery before the baseline)
    base, peak, stop = live(), [0], threading.Event()

    def poll() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], live())
            stop.wait(0.2)

    t = threading.Thread(target=poll)
    t.start()
    try:
        df.write.format("noop").mode("overwrite").save()
    finally:
        stop.set()
        t.join()
    print(f"PEAK {max(0, peak[0] - base) / 2**20:.0f}")
    spark.stop()


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1GB", help="data size, e.g. 50MB, 1GB ('small' = 50MB)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--data", default=str(HERE.parent / ".bench-data"))
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    ap.add_argument("--no-drill", action="store_true", help="leave Apache Drill out of the race")
    ap.add_argument(
        "--drill-warm",
        type=int,
        default=3,
        help="warm repeats per Drillbit after its cold query (default 3)",
    )
    ap.add_argument(
        "--warm-repeats",
        type=int,
        default=3,
        help="runs in a row per round of each warm engine (drillspark warm, SQL warm, Spark with "
        "its schema given, DuckDB), whose median is the round's figure, as Drill's warm figure "
        "is the median of its --drill-warm repeats (default 3)",
    )
    ap.add_argument(
        "--drill-heap",
        default=os.environ.get("DRILL_HEAP", "3g"),
        help="Drill's max heap (default $DRILL_HEAP or 3g)",
    )
    ap.add_argument(
        "--drill-direct",
        default=os.environ.get("DRILL_DIRECT", "3g"),
        help="Drill's max direct memory (default $DRILL_DIRECT or 3g)",
    )
    ap.add_argument(
        "--no-fresh",
        dest="fresh",
        action="store_false",
        help="skip the fresh-process runs of `drillspark sql`",
    )
    ap.add_argument("--memory-probe", help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> None:
    a = build_parser().parse_args(argv)
    if a.size == "small":
        a.size = "50MB"
    if a.memory_probe:
        memory_probe(a.memory_probe, a.data)
    else:
        run(a)


if __name__ == "__main__":
    main()
