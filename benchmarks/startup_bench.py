"""Time to first result: `drillspark sql "SELECT 1"` and a query on a small file, each in a fresh
process, under start-up settings tried one at a time, in alternating rounds.

Per run: wall seconds from launch to the first line of the answer, to the end of every process
(the Spark JVM included), and the CPU seconds of the whole process tree. The CPU time needs the
JVM reaped: pyspark leaves its JVM to exit after the Python process, so each run goes through
this script's `--reap` mode, a child subreaper that waits for every descendant and reports
getrusage(RUSAGE_CHILDREN). CPU seconds stay comparable on a busy machine where wall time does not.

Settings (variants): `current` is the CLI as it is, class-data sharing included, its archive
written by a warm-up run; `first` is the CLI's very first run (an empty cache: its JVM writes the
archive at exit, which the end time and CPU include); `no-cds` the CLI with DRILLSPARK_CDS=0.
The rest switch the CLI's own settings off (DRILLSPARK_CLI_DEFAULTS=0, DRILLSPARK_CDS=0): JVM
flags reach the driver JVM through `DRILLSPARK_DRIVER_JAVA_OPTS` (appended to the session's spark.driver.extraJavaOptions), Spark settings through
`PYSPARK_SUBMIT_ARGS`; `cds` first writes a dynamic class-data-sharing archive of a run
(-XX:ArchiveClassesAtExit), then runs with -XX:SharedArchiveFile.

`--served N` instead times N runs of `drillspark sql "SELECT 1"` answered by a running
`drillspark serve` (started here, found through its discovery file).

    python benchmarks/startup_bench.py --rounds 3
    python benchmarks/startup_bench.py --rounds 1 --variants baseline,c1 --queries select1
    python benchmarks/startup_bench.py --served 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SMALL_FILE = HERE.parent.parent / "shared" / "data" / "breadth" / "tpch_json" / "supplier.json"

QUERIES = {
    "select1": "SELECT 1 AS one",
    "small-file": "SELECT S_NATIONKEY AS k, count(*) AS n FROM dfs.`{file}` GROUP BY S_NATIONKEY "
    "ORDER BY S_NATIONKEY",
    # a million joined rows through generated code: what a JIT setting costs a longer query
    "cross-join": "SELECT count(*) AS n FROM dfs.`{file}` a, dfs.`{file}` b, dfs.`{file}` c "
    "WHERE concat(a.S_COMMENT, b.S_NAME, c.S_COMMENT) LIKE '%furious%'",
}

JAVA_ENV = "DRILLSPARK_DRIVER_JAVA_OPTS"
CACHE_ENV = "DRILLSPARK_CACHE_DIR"
OFF = {"DRILLSPARK_CLI_DEFAULTS": "0", "DRILLSPARK_CDS": "0"}  # none of the CLI's own settings
# name -> (extra environment, description); "{cds}" is replaced by the path of an archive
# written first by one run, "{cache}" by the bench's cache folder (its archive written by the
# warm-up run), "{fresh}" by a new empty folder for each run
VARIANTS: dict[str, tuple[dict[str, str], str]] = {
    "current": ({CACHE_ENV: "{cache}"}, "the CLI as it is (class-data sharing by default)"),
    "first": ({CACHE_ENV: "{fresh}"}, "the CLI's first run: writes the archive at exit"),
    "no-cds": ({"DRILLSPARK_CDS": "0"}, "the CLI without class-data sharing (DRILLSPARK_CDS=0)"),
    "baseline": (OFF, "no short-lived-session settings, no class-data sharing"),
    "ui-off": (
        {**OFF, "PYSPARK_SUBMIT_ARGS": "--conf spark.ui.enabled=false pyspark-shell"},
        "spark.ui.enabled=false",
    ),
    "c1": ({**OFF, JAVA_ENV: "-XX:TieredStopAtLevel=1"}, "-XX:TieredStopAtLevel=1 (C1 JIT only)"),
    "serialgc": ({**OFF, JAVA_ENV: "-XX:+UseSerialGC"}, "-XX:+UseSerialGC"),
    "cds": (
        {**OFF, JAVA_ENV: "-XX:SharedArchiveFile={cds}"},
        "-XX:SharedArchiveFile (dynamic archive of one run)",
    ),
    "c1cds": (
        {**OFF, JAVA_ENV: "-XX:TieredStopAtLevel=1 -XX:SharedArchiveFile={cds}"},
        "C1 only and the class-data-sharing archive",
    ),
    "all": (
        {
            **OFF,
            "PYSPARK_SUBMIT_ARGS": "--conf spark.ui.enabled=false pyspark-shell",
            JAVA_ENV: "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:SharedArchiveFile={cds}",
        },
        "all of the above",
    ),
}


def parse_list(text: str, known: dict, what: str) -> list[str]:
    """A comma-separated selection of known names, in the order given."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown {what} {', '.join(map(repr, unknown)) or '(none given)'}; choose from {', '.join(known)}"
        )
    return names


def variant_env(name: str, cds: str, cache: str, tmp: str) -> dict[str, str]:
    env, _ = VARIANTS[name]
    out = {k: v.replace("{cds}", cds).replace("{cache}", cache) for k, v in env.items()}
    if any("{fresh}" in v for v in out.values()):
        fresh = tempfile.mkdtemp(prefix="fresh-cache-", dir=tmp)
        out = {k: v.replace("{fresh}", fresh) for k, v in out.items()}
    return out


def reap(cmd: list[str]) -> int:
    """--reap mode: become a child subreaper, run cmd, wait for every descendant (orphans are
    re-parented to us), then print the tree's CPU seconds on stderr."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)
    proc = subprocess.Popen(cmd)
    rc = proc.wait()
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"REAPED {ru.ru_utime + ru.ru_stime:.3f} {time.perf_counter():.6f}", file=sys.stderr)
    return rc


def one_run(cmd: list[str], env: dict[str, str]) -> dict[str, float | str]:
    """Launch cmd under --reap; seconds to the first stdout line, to the end, and CPU seconds."""
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **env}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--reap", "--", *cmd],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
    )
    first = None
    out = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if first is None:
            first = time.perf_counter() - t0
        out.append(line)
    err = proc.stderr.read() if proc.stderr else ""
    proc.wait()
    end = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = [float(line.split()[1]) for line in err.splitlines() if line.startswith("REAPED")]
    res: dict[str, float | str] = {
        "first": first if first is not None else float("nan"),
        "end": end,
        # the wrapper's own CPU is small but counted: the whole tree from our side
        "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        if cpu
        else float("nan"),
    }
    if proc.returncode != 0:
        res["error"] = " | ".join(err.strip().splitlines()[-2:])
    res["out"] = "".join(out)
    return res


def make_cds(path: str, master: str) -> str | None:
    """Dump a dynamic CDS archive from one SELECT 1 run; None when the JVM wrote none."""
    env = {**OFF, JAVA_ENV: f"-XX:ArchiveClassesAtExit={path}"}
    one_run(drillspark_cmd(QUERIES["select1"], master), env)
    return path if Path(path).exists() else None


def warm_cache(cache: str, master: str) -> bool:
    """One CLI run that writes the default archive into `cache` (the reaper waits for the JVM
    and the watcher that names the file)."""
    one_run(drillspark_cmd(QUERIES["select1"], master), {CACHE_ENV: cache})
    return any(Path(cache).glob("drillspark-*.jsa"))


def drillspark_cmd(sql: str, master: str) -> list[str]:
    return [sys.executable, "-m", "drillspark", "sql", "--master", master, "--format", "csv", sql]


IMPORTS = {
    "thin client": "import drillspark.cli.main, drillspark.cli.remote, drillspark.sql.statements",
    "SQL stack": "import drillspark.cli.main, drillspark.cli.sql, drillspark.sql.engine",
}


def import_time(code: str) -> tuple[float, float]:
    """Wall and CPU seconds of a fresh interpreter running `code` (no JVM)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def served(runs: int, master: str) -> int:
    """`drillspark sql "SELECT 1"` answered by a running `drillspark serve` (found through its
    discovery file), `runs` times: wall seconds to the first line and to the end, CPU seconds."""
    import signal

    with tempfile.TemporaryDirectory(prefix="startup-served-") as tmp:
        runtime = Path(tmp) / "runtime"
        runtime.mkdir(mode=0o700)
        env = {**os.environ, "DRILLSPARK_RUNTIME_DIR": str(runtime)}
        server = subprocess.Popen(
            [sys.executable, "-m", "drillspark", "serve", "--port", "0", "--master", master],
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 600
            while not list(runtime.glob("serve-*.json")):
                if server.poll() is not None or time.monotonic() > deadline:
                    print("the server did not start")
                    return 1
                time.sleep(0.5)
            results = []
            cmd = [sys.executable, "-m", "drillspark", "sql", "--format", "csv", QUERIES["select1"]]
            for i in range(runs + 1):  # the first warms the server's query path
                old = os.getcwd()
                os.chdir(tmp)  # dfs.root: the server's folder, so the server is found
                try:
                    res = one_run(cmd, {"DRILLSPARK_RUNTIME_DIR": str(runtime)})
                finally:
                    os.chdir(old)
                if "error" in res or res["out"] != "one\n1\n":
                    print(f"  run {i}: unexpected answer {res}")
                    return 1
                if i:
                    results.append(res)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=120)
    med = {k: statistics.median(float(x[k]) for x in results) for k in ("first", "end", "cpu")}
    spread = ", ".join(f"{float(x['end']):.2f}" for x in results)
    print(
        f'`drillspark sql "SELECT 1"` answered by a running server ({master}), median of '
        f"{runs}: first line {med['first']:.2f} s, end {med['end']:.2f} s, CPU {med['cpu']:.2f} s "
        f"(ends: {spread})"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument(
        "--variants",
        default="current,no-cds,baseline",
        type=lambda s: parse_list(s, VARIANTS, "variant"),
        help=f"comma-separated, from: {', '.join(VARIANTS)}",
    )
    ap.add_argument(
        "--queries",
        default="select1,small-file",
        type=lambda s: parse_list(s, QUERIES, "query"),
        help=f"from: {', '.join(QUERIES)}",
    )
    ap.add_argument(
        "--file", type=Path, default=SMALL_FILE, help="the small file (default: %(default)s)"
    )
    ap.add_argument("--master", default="local[2]")
    ap.add_argument(
        "--served",
        type=int,
        metavar="N",
        help="instead: time N `drillspark sql` runs answered by a running server",
    )
    ap.add_argument("--reap", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("cmd", nargs="*", help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    if a.reap:
        return reap(a.cmd)
    if a.served:
        return served(a.served, a.master)
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        cds = str(Path(tmp) / "drillspark.jsa")
        cache = str(Path(tmp) / "cache")
        if any("{cds}" in v for n in a.variants for v in VARIANTS[n][0].values()):
            print("writing a class-data-sharing archive (one SELECT 1 run) ...", flush=True)
            if make_cds(cds, a.master) is None:
                print("no CDS archive was written: the cds variants run without one")
        if any("{cache}" in v for n in a.variants for v in VARIANTS[n][0].values()):
            print("warm-up: the CLI's first run writes its archive ...", flush=True)
            if not warm_cache(cache, a.master):
                print("no archive was written: `current` runs without one")
        results: dict[tuple[str, str], list[dict]] = {}
        imports: dict[str, list[tuple[float, float]]] = {}
        for r in range(a.rounds):
            for what, code in IMPORTS.items():
                imports.setdefault(what, []).append(import_time(code))
            for q in a.queries:
                sql = QUERIES[q].format(file=a.file.resolve())
                for v in a.variants:
                    print(f"round {r + 1}: {q} / {v} ...", flush=True)
                    res = one_run(drillspark_cmd(sql, a.master), variant_env(v, cds, cache, tmp))
                    if "error" in res:
                        print(f"  failed: {res['error']}")
                    results.setdefault((q, v), []).append(res)
    for what, times in imports.items():
        print(
            f"\nimporting the {what} (no JVM): {statistics.median(t[0] for t in times):.2f} s wall, "
            f"{statistics.median(t[1] for t in times):.2f} CPU-s"
        )
    print(
        f"\nfresh `drillspark sql` on {a.master}, median of {a.rounds} alternating rounds: seconds "
        "to the first answer line / to every process's end / CPU seconds of the process tree"
    )
    print(
        f"{'query':12}{'variant':10}{'first':>8}{'end':>8}{'cpu':>8}  {'vs baseline (cpu)':>18}  setting"
    )
    for q in a.queries:
        base = results.get((q, "baseline"))
        base_cpu = statistics.median(float(x["cpu"]) for x in base) if base else None
        answers = {x["out"] for v in a.variants for x in results[(q, v)] if "error" not in x}
        for v in a.variants:
            runs = results[(q, v)]
            med = {k: statistics.median(float(x[k]) for x in runs) for k in ("first", "end", "cpu")}
            rel = f"{med['cpu'] / base_cpu:.2f}" if base_cpu else "-"
            print(
                f"{q:12}{v:10}{med['first']:>8.1f}{med['end']:>8.1f}{med['cpu']:>8.1f}  {rel:>18}  "
                f"{VARIANTS[v][1]}"
            )
        if len(answers) > 1:
            print(f"MISMATCH {q}: the variants printed {len(answers)} different answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
