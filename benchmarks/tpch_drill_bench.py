"""All 22 TPC-H queries in Drill's SQL on drillspark, real Drill 1.22 (embedded) and DuckDB, over
the same generated Parquet files, in one run: every answer compared with Drill's, per-query
times (medians of repeats) warm and cold, ratios drillspark/Drill and drillspark/DuckDB (time
over time: below 1 drillspark is faster) and their geometric means.

Data: `tpchgen-cli` (pinned below, installed with pip into the cache folder, not into the
product's dependencies) writes scale factor N as Parquet into `.bench-data/tpch-sfN/parquet/
<table>/<table>.parquet` once; later runs reuse it. `--format json` also writes the same rows as
JSON lines (decimals as doubles: a JSON number has no scale) into `.../json/<table>/`.

The queries are benchmarks/tpch_queries/qNN.sql: the TPC-H specification's text with its
validation substitution parameters, in Drill's dialect (`dfs.tpch.`lineitem`` over a workspace;
Q15's view as a WITH clause). DuckDB runs the same text with each `dfs.tpch.`t`` read as a view
over the same files.

Warm: one session per engine (drillspark: `drillspark.sql(text).to_arrow()` in this Python
process; Drill: one query.sh process, so one Drillbit; DuckDB: one connection), a first untimed
round of all queries, then --repeats rounds; the median (drillspark's later runs of a text reuse
its kept translation, as every SQL door does: docs/usage.md; Drill plans each run). Cold: each
query as the first one in a fresh process (drillspark: a new Python process and session, the
session's start timed apart; Drill: a new query.sh, so a new Drillbit, its start-up not
counted; DuckDB: a new process). drillspark's cold children run after one untimed child has
written the driver JVM's class-sharing archive, as every start after an install's first has it.
Drill's time is the one its tool measures around the statement and the fetch of its rows.

    python benchmarks/tpch_drill_bench.py                         # SF 1, Parquet, everything
    python benchmarks/tpch_drill_bench.py --queries 1 6 --no-cold --repeats 1
    python benchmarks/tpch_drill_bench.py --scale 3 --format parquet json
"""

from __future__ import annotations

import argparse
import decimal
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "tpch_queries"
DRILL = HERE.parent.parent / "shared" / "tools" / "drill"
TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
TPCHGEN = "tpchgen-cli==4.0.0"
TABLE_REF = re.compile(r"dfs\.tpch\.`(\w+)`")
# relative tolerance for numbers: engines add floating sums in other orders, and Drill's
# DECIMAL division rounds to its own scale
REL_TOL = 1e-6
# answers of Drill 1.22 that are wrong, so not followed: reported, not failed
DRILL_WRONG = {
    "q11": "Drill's sum * 0.0001 is the sum itself (a DECIMAL(38, 2) times a literal loses the "
    "literal's scale), so no row passes (docs/performance.md)"
}


def queries(only: list[str]) -> dict[str, str]:
    out = {}
    for f in sorted(QUERIES.glob("q*.sql")):
        name = f.stem
        if only and int(name[1:]) not in {int(q.lstrip("qQ")) for q in only}:
            continue
        out[name] = "\n".join(
            ln for ln in f.read_text().splitlines() if not ln.startswith("--")
        ).strip()
    return out


# ---------------------------------------------------------------------------------------- data


def tpchgen(cache: Path) -> Path:
    """The pinned tpchgen-cli, installed once into the cache folder."""
    target = cache / "tpchgen"
    exe = target / "bin" / "tpchgen-cli"
    if not exe.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), TPCHGEN],
            check=True,
        )
    return exe


def generate(cache: Path, scale: float, formats: list[str]) -> Path:
    """The data of scale factor `scale`, generated once: parquet/<table>/<table>.parquet (and
    json/<table>/<table>.json)."""
    root = cache / f"tpch-sf{scale:g}"
    pq_dir = root / "parquet"
    if not (pq_dir / ".done").exists():
        tmp = root / "gen"
        subprocess.run(
            [str(tpchgen(cache)), "parquet", "-s", f"{scale:g}", "-o", str(tmp), "--overwrite"],
            check=True,
        )
        for t in TABLES:
            (pq_dir / t).mkdir(parents=True, exist_ok=True)
            (tmp / f"{t}.parquet").rename(pq_dir / t / f"{t}.parquet")
        tmp.rmdir()
        (pq_dir / ".done").touch()
    if "json" in formats and not (root / "json" / ".done").exists():
        import duckdb

        con = duckdb.connect()
        for t in TABLES:
            (root / "json" / t).mkdir(parents=True, exist_ok=True)
            src = pq_dir / t / f"{t}.parquet"
            cols = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{src}')").fetchall()
            sel = ", ".join(
                f"CAST({c} AS DOUBLE) AS {c}" if typ.startswith("DECIMAL") else c
                for c, typ, *_ in cols
            )
            con.execute(
                f"COPY (SELECT {sel} FROM read_parquet('{src}')) "
                f"TO '{root / 'json' / t / (t + '.json')}' (FORMAT json)"
            )
        (root / "json" / ".done").touch()
    return root


# ------------------------------------------------------------------------------------- answers


def cell(v: object) -> object:
    """A value as compared: numbers as floats, dates as ISO text."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float, decimal.Decimal)):
        return float(v)
    if isinstance(v, datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, date):
        return v.isoformat()
    return v


def same_rows(a: list[list], b: list[list]) -> bool:
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b, strict=True):
        if len(ra) != len(rb):
            return False
        for x, y in zip(ra, rb, strict=True):
            if isinstance(x, float) and isinstance(y, float):
                if not math.isclose(x, y, rel_tol=REL_TOL, abs_tol=1e-9):
                    return False
            elif x != y:
                return False
    return True


def compare(mine: dict, drill: dict) -> str:
    """'' when `mine` is Drill's answer (names, rows in order), else what differs."""
    if [c.lower() for c in mine["columns"]] != [c.lower() for c in drill["columns"]]:
        return f"columns {mine['columns']} vs Drill's {drill['columns']}"
    if same_rows(mine["rows"], drill["rows"]):
        return ""
    key = lambda r: [str(v) for v in r]  # noqa: E731
    if same_rows(sorted(mine["rows"], key=key), sorted(drill["rows"], key=key)):
        return "the same rows in another order"
    for i, (x, y) in enumerate(zip(mine["rows"], drill["rows"], strict=False)):
        if not same_rows([x], [y]):
            return f"row {i}: {x} vs Drill's {y} ({len(mine['rows'])} vs {len(drill['rows'])} rows)"
    return f"{len(mine['rows'])} rows vs Drill's {len(drill['rows'])}"


# ------------------------------------------------------------------------------------- engines


def storage(root: Path, fmt: str) -> dict:
    return {"dfs": {"workspaces": {"tpch": {"location": str(root / fmt), "writable": False}}}}


def ds_session(root: Path, fmt: str, master: str):
    import drillspark

    return drillspark.session(
        master=master,
        app_name="tpch-drill-bench",
        storage=storage(root, fmt),
        **{"spark.ui.enabled": "false", "spark.driver.memory": "6g"},
    )


def ds_run(spark, text: str) -> dict:
    import drillspark

    t = time.perf_counter()
    table = drillspark.sql(text, spark).to_arrow()
    s = time.perf_counter() - t
    rows = [[cell(v) for v in r.values()] for r in table.to_pylist()]
    return {"columns": table.schema.names, "rows": rows, "s": s}


def duck_connect(root: Path, fmt: str):
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    for t in TABLES:
        files = root / fmt / t / f"{t}.{fmt}"
        reader = "read_parquet" if fmt == "parquet" else "read_json_auto"
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM {reader}('{files}')")
    return con


def duck_text(text: str) -> str:
    return TABLE_REF.sub(r"\1", text).replace("`", '"')


def duck_run(con, text: str) -> dict:
    t = time.perf_counter()
    cur = con.execute(duck_text(text))
    rows = cur.fetchall()
    s = time.perf_counter() - t
    return {
        "columns": [d[0] for d in cur.description],
        "rows": [[cell(v) for v in r] for r in rows],
        "s": s,
    }


def drill_run(root: Path, fmt: str, texts: list[str], timeout: int) -> list[dict]:
    """`texts` in one Drillbit (one query.sh), in order: per statement its columns, rows and
    time (Drill's tool times the statement and the fetch of its rows)."""
    with tempfile.TemporaryDirectory() as tmp:
        plugins = Path(tmp) / "plugins.json"
        plugins.write_text(json.dumps({"storage": storage(root, fmt)}))
        script = Path(tmp) / "queries.sql"
        script.write_text("".join(t + "\n;\n" for t in texts))
        cmd = [
            "flock",
            "/tmp/drill-oracle.lock",
            str(DRILL / "query.sh"),
            "--json",
            "--timeout",
            str(timeout),
            "--plugins",
            str(plugins),
            "--file",
            str(script),
        ]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    out = []
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        d = json.loads(line, parse_float=decimal.Decimal)
        if d.get("ok"):
            rows = [[cell(v) for v in r] for r in d["rows"]]
            out.append({"columns": d["columns"], "rows": rows, "s": d["ms"] / 1000})
        else:
            out.append({"error": str(d.get("error", "")).splitlines()[0][:300]})
    if len(out) != len(texts):
        raise RuntimeError(f"Drill answered {len(out)} of {len(texts)}: {p.stderr[-2000:]}")
    return out


# ------------------------------------------------------------------------------ cold (a child)


def child(a: argparse.Namespace) -> int:
    """One query as the first of a fresh process; prints one JSON line."""
    text = queries([a.child_query])[f"q{int(a.child_query):02d}"]
    root = Path(a.child_root)
    if a.child_engine == "drillspark":
        t = time.perf_counter()
        spark = ds_session(root, a.child_format, a.master)
        start = time.perf_counter() - t
        try:
            r = ds_run(spark, text)
        finally:
            spark.stop()
    else:
        t = time.perf_counter()
        con = duck_connect(root, a.child_format)
        start = time.perf_counter() - t
        r = duck_run(con, text)
    print(json.dumps({"s": r["s"], "start": start, "rows": len(r["rows"])}))
    return 0


def cold_child(a: argparse.Namespace, engine: str, root: Path, fmt: str, q: str) -> dict:
    cmd = [sys.executable, __file__, "--child-engine", engine, "--child-query", q[1:]]
    cmd += ["--child-root", str(root), "--child-format", fmt, "--master", a.master]
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode or not lines:
        return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    return json.loads(lines[-1])


def archive_written(a: argparse.Namespace, root: Path, fmt: str, q: str) -> None:
    """One untimed child first, and the wait for its class-sharing archive: cold = a fresh
    process as every start after the first one of an install or jar build has it (the warm
    session's JVM, alive until this process ends, writes its own only then)."""
    from drillspark import class_sharing

    cold_child(a, "drillspark", root, fmt, q)
    deadline = time.monotonic() + 300
    while list(class_sharing.cache_dir().glob("*.lock")) and time.monotonic() < deadline:
        time.sleep(0.5)


# ---------------------------------------------------------------------------------------- main


def drill_java() -> str:
    """The Java query.sh runs Drill on: $JAVA_HOME's, else `java` on the PATH, as class sharing
    finds it (drillspark's is DRILLSPARK_JAVA_HOME's when set: docs/usage.md)."""
    from drillspark.class_sharing import java_home

    home = java_home()
    java = str(home / "bin" / "java") if home else "java"
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    except OSError as e:
        return f"unknown ({e})"
    return (out.splitlines() or ["unknown"])[0]


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_s(x: float | None, width: int = 8, digits: int = 2) -> str:
    return f"{x:>{width}.{digits}f}" if x is not None else f"{'-':>{width}}"


def bench(a: argparse.Namespace, scale: float, fmt: str) -> bool:
    root = generate(a.data, scale, [fmt])
    qs = queries(a.queries)
    names = list(qs)
    warm: dict[str, dict[str, list[float]]] = {e: {} for e in ("ds", "drill", "duck")}
    cold: dict[str, dict[str, float]] = {e: {} for e in ("ds", "drill", "duck")}
    first: dict[str, dict[str, float]] = {e: {} for e in ("ds", "drill", "duck")}
    cold_names = [q for q in names if not a.cold_queries or q in queries(a.cold_queries)]
    answers: dict[str, dict[str, dict]] = {e: {} for e in ("ds", "drill", "duck")}
    errors: dict[str, dict[str, str]] = {e: {} for e in ("ds", "drill", "duck")}
    loads: dict[str, str] = {}
    ds_start: list[float] = []

    print(f"\n## TPC-H SF {scale:g}, {fmt} ({root / fmt}), load before {load()}", flush=True)
    # Drill first: its answers are the reference. Warm: one Drillbit, 1 + repeats rounds.
    if not a.no_drill:
        t0 = load()
        rounds = drill_run(root, fmt, [qs[q] for q in names] * (1 + a.repeats), a.timeout)
        loads["Drill warm"] = f"{t0} -> {load()}"
        for i, r in enumerate(rounds):
            q = names[i % len(names)]
            if "error" in r:
                errors["drill"][q] = r["error"]
                continue
            answers["drill"][q] = r
            if i < len(names):
                first["drill"][q] = r["s"]
            else:
                warm["drill"].setdefault(q, []).append(r["s"])
        print(f"Drill warm done (load {loads['Drill warm']})", flush=True)
        if a.cold:
            t0 = load()
            for q in cold_names:
                r = drill_run(root, fmt, [qs[q]], a.timeout)[0]
                if "s" in r:
                    cold["drill"][q] = r["s"]
            loads["Drill cold"] = f"{t0} -> {load()}"
            print(f"Drill cold done (load {loads['Drill cold']})", flush=True)

    t0 = load()
    t = time.perf_counter()
    spark = ds_session(root, fmt, a.master)
    ds_start.append(time.perf_counter() - t)
    java = spark.sparkContext._jvm.System.getProperty  # type: ignore[union-attr]
    ds_java = f"{java('java.version')} ({java('java.home')})"
    try:
        for rnd in range(1 + a.repeats):
            for q in names:
                if q in errors["ds"]:
                    continue
                try:
                    r = ds_run(spark, qs[q])
                except Exception as e:  # a query drillspark cannot run: say so, go on
                    errors["ds"][q] = str(e).splitlines()[0][:300]
                    continue
                answers["ds"][q] = r
                if not rnd:
                    first["ds"][q] = r["s"]
                else:
                    warm["ds"].setdefault(q, []).append(r["s"])
    finally:
        spark.stop()
    loads["drillspark warm"] = f"{t0} -> {load()}"
    print(f"drillspark warm done (load {loads['drillspark warm']})", flush=True)

    if not a.no_duckdb:
        t0 = load()
        con = duck_connect(root, fmt)
        for rnd in range(1 + a.repeats):
            for q in names:
                if q in errors["duck"]:
                    continue
                try:
                    r = duck_run(con, qs[q])
                except Exception as e:
                    errors["duck"][q] = str(e).splitlines()[0][:300]
                    continue
                answers["duck"][q] = r
                if not rnd:
                    first["duck"][q] = r["s"]
                else:
                    warm["duck"].setdefault(q, []).append(r["s"])
        con.close()
        loads["DuckDB warm"] = f"{t0} -> {load()}"

    if a.cold:
        for engine, key in (("drillspark", "ds"), ("duckdb", "duck")):
            if key == "duck" and a.no_duckdb:
                continue
            t0 = load()
            if key == "ds" and cold_names:
                archive_written(a, root, fmt, cold_names[0])
            for q in cold_names:
                r = cold_child(a, engine, root, fmt, q)
                if "s" in r:
                    cold[key][q] = r["s"]
                    if key == "ds":
                        ds_start.append(r["start"])
                else:
                    errors[key].setdefault(q, "cold: " + r["error"])
            loads[f"{engine} cold"] = f"{t0} -> {load()}"

    # the table: seconds (medians), ratios drillspark/Drill and drillspark/DuckDB
    print(
        f"\nTPC-H SF {scale:g} {fmt}, {a.master}; seconds. warm = median of {a.repeats} rounds "
        "after a first round; first = that first round (each query's first run in a process "
        "that already ran others); cold = the query first in a fresh process. ratio = "
        "drillspark time / peer time: below 1 drillspark is faster (targets: < 1 vs Drill on "
        "every query, geomean <= 0.5)"
    )
    groups: list[tuple[str, Any, Any]] = [
        ("warm", warm, median),
        ("first", first, None),
        ("cold", cold, None),
    ]
    print(
        f"{'':6}"
        + "".join(f"{'| ' + name:<42}" for name, _, _ in groups)
        + "| answer\n"
        + f"{'query':6}"
        + f"{'| ds':>8}{'Drill':>8}{'DuckDB':>8}{'ds/Drill':>9}{'ds/Duck':>9}" * 3
    )
    ratios: dict[tuple[str, str], list[float]] = {}
    ok = True
    for q in names:
        line = f"{q:6}"
        for name, table, pick in groups:
            v: dict[str, float | None] = {
                e: (pick(table[e].get(q, [])) if pick else table[e].get(q)) for e in table
            }
            line += f"  {fmt_s(v['ds'], 6)}{fmt_s(v['drill'])}{fmt_s(v['duck'])}"
            for peer, key in (("drill", "Drill"), ("duck", "Duck")):
                x, y = v["ds"], v[peer]
                rt = x / y if x is not None and y else None
                if rt is not None:
                    ratios.setdefault((name, key), []).append(rt)
                line += fmt_s(rt, 9)
        if q in errors["ds"]:
            verdict = "drillspark failed"
            ok = False
        elif q not in answers["drill"]:
            verdict = "no Drill answer"
        else:
            diff = compare(answers["ds"][q], answers["drill"][q])
            verdict = "= Drill" if not diff else "MISMATCH"
            if diff and q in DRILL_WRONG:
                verdict = "differs: Drill's bug"
            ok = ok and (not diff or q in DRILL_WRONG)
        print(f"{line}  {verdict}")
    line = f"{'geomean':6}"
    for name, _, _ in groups:
        line += f"{'':26}" + "".join(
            fmt_s(geomean(ratios.get((name, k), [])), 9) for k in ("Drill", "Duck")
        )
    print(line)
    if ds_start:
        print(f"drillspark session start: {', '.join(f'{s:.1f}' for s in ds_start)} s")
    print(f"Drill's Java: {drill_java()}; drillspark's Java: {ds_java}")
    for phase, ld in loads.items():
        print(f"load (1/5/15 min) over {phase}: {ld}")
    for engine, errs in errors.items():
        for q, msg in errs.items():
            print(f"ERROR {engine} {q}: {msg}")
    for q in names:
        if q in answers["ds"] and q in answers["drill"]:
            diff = compare(answers["ds"][q], answers["drill"][q])
            if diff:
                why = f" ({DRILL_WRONG[q]})" if q in DRILL_WRONG else ""
                print(f"MISMATCH {q} drillspark vs Drill: {diff}{why}")
        if q in answers["duck"] and q in answers["drill"]:
            diff = compare(answers["duck"][q], answers["drill"][q])
            if diff:
                print(f"(DuckDB {q} vs Drill: {diff})")
    return ok


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, nargs="+", default=[1.0], help="scale factors (1)")
    ap.add_argument("--format", nargs="+", default=["parquet"], choices=["parquet", "json"])
    ap.add_argument("--queries", nargs="*", default=[], help="query numbers (default all 22)")
    ap.add_argument("--repeats", type=int, default=3, help="timed warm rounds (default 3)")
    ap.add_argument("--no-cold", dest="cold", action="store_false", help="warm only")
    ap.add_argument(
        "--cold-queries",
        nargs="*",
        default=[],
        help="queries run cold (default all: each a new Drillbit, 15-30 s to start)",
    )
    ap.add_argument("--no-drill", action="store_true")
    ap.add_argument("--no-duckdb", action="store_true")
    ap.add_argument("--timeout", type=int, default=900, help="Drill's per-query timeout (s)")
    ap.add_argument(
        "--data", type=Path, default=HERE.parent / ".bench-data", help="the data cache folder"
    )
    ap.add_argument("--master", default="local[2]")
    for name in ("engine", "query", "root", "format"):  # a cold run's child process
        ap.add_argument(f"--child-{name}", help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    if a.child_engine:
        return child(a)
    ok = True
    for scale in a.scale:
        for fmt in a.format:
            ok = bench(a, scale, fmt) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
