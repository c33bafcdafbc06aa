"""Real Apache Drill 1.22 as a benchmark rival, and the answer check shared by the benchmarks.

Drill runs through the project's oracle tool (`../shared/tools/drill/query.sh --json`: an
embedded Drillbit from Maven Central jars, one JVM per call, per-statement `ms` including the
JDBC fetch of every row). Nothing of Drill is copied here; the benchmark only calls the script.

A Drill run starts one Drillbit and sends the same statement `1 + warm` times: the first answer
is Drill's cold query (first query after start: planning, code generation and the JIT all
cold), the others its warm ones. The Drillbit's start is timed twice: from the process launch
to the tool's "up" line on stderr (JVM start and the tool's own in-memory compile included) and
as the tool reports it (connection only).
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DRILL_VERSION = "1.22.0"
UP_LINE = re.compile(r"^Drill (\S+) up in ([0-9.]+) s")


def drill_tool_dir() -> Path:
    """`$DRILLSPARK_DRILL_TOOL`, else `../shared/tools/drill` beside the checkout."""
    env = os.environ.get("DRILLSPARK_DRILL_TOOL")
    return Path(env) if env else ROOT.parent / "shared" / "tools" / "drill"


def drill_lib() -> Path:
    return Path(os.environ.get("DRILL_LIB") or Path.home() / ".cache" / "drill-lib")


def drill_missing(tool: Path | None = None, lib: Path | None = None) -> str | None:
    """Why real Drill cannot run here, or None when it can. The jars must already be fetched:
    the benchmark never starts the tool's (slow, networked) set-up itself."""
    tool = tool or drill_tool_dir()
    lib = lib or drill_lib()
    if not (tool / "query.sh").is_file():
        return f"no Drill tool ({tool / 'query.sh'} is missing)"
    if not (lib / f".drill-{DRILL_VERSION}-complete").exists():
        return f"Drill {DRILL_VERSION}'s jars are not fetched into {lib} (run {tool / 'setup.sh'})"
    return None


# ---- the scan benchmark's three queries in Drill SQL (drillspark runs the same text) ----


def scan_sql(data_dir: str | Path) -> dict[str, str]:
    src = f"dfs.`{Path(data_dir).resolve()}`"
    return {
        "count": f"SELECT count(*) AS n FROM {src}",
        "filter+project": f"SELECT t.id, t.actor.login AS login, t.repo.name AS name FROM {src} t "
        "WHERE t.payload.action = 'opened' AND t.metrics.score > 50",
        "flatten+group": "SELECT f.l.name AS name, count(*) AS n FROM (SELECT "
        f"flatten(t.payload.pull_request.labels) AS l FROM {src} t) f GROUP BY f.l.name",
    }


def _key(row: tuple) -> tuple:
    return tuple((v is None, str(v)) for v in row)


def normalize(query: str, rows: list) -> object:
    """The comparable answer of a scan query from its rows: count -> the number; filter+project
    -> the number of rows; flatten+group -> the sorted (name, count) pairs."""
    if query == "count":
        return int(list(rows[0])[0])
    if query == "filter+project":
        return len(rows)
    if query == "flatten+group":
        return sorted((tuple(r) for r in rows), key=_key)
    raise ValueError(f"no answer normalization for query {query!r}")


def describe_difference(a: object, b: object) -> str:
    """A short account of how two normalized answers differ."""
    if isinstance(a, list) and isinstance(b, list):
        da, db = (
            dict(map(tuple, a)) if _pairs(a) else None,
            dict(map(tuple, b)) if _pairs(b) else None,
        )
        if da is not None and db is not None:
            diff = [
                f"{k}: {da.get(k)} vs {db.get(k)}"
                for k in sorted(set(da) | set(db), key=str)
                if da.get(k) != db.get(k)
            ]
            return f"{len(diff)} group(s) differ ({'; '.join(diff[:4])}{'; ...' if len(diff) > 4 else ''})"
        return f"{len(a)} vs {len(b)} rows"
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        return f"{a} vs {b} ({a - b:+d})"
    return f"{a!r} vs {b!r}"


def _pairs(rows: list) -> bool:
    return all(isinstance(r, tuple | list) and len(r) == 2 for r in rows)


# Differences of real Drill that are understood (checked with query.sh on the generated data);
# they are still printed, with the reason.
KNOWN = {
    (
        "Drill",
        "filter+project",
    ): "Drill reads a decimal metrics.score in a batch whose score began as integers as a BIGINT "
    "(50.324 -> 50, typeof BIGINT), so `score > 50` drops those rows",
}


def mismatches(answers: dict[tuple[str, str], object], reference: str) -> list[str]:
    """One line per (engine, query) whose answer differs from `reference`'s answer to the same
    query; an engine without an answer (failed, not run) is skipped here and reported by its
    runner."""
    out = []
    for q in dict.fromkeys(q for _, q in answers):
        if (reference, q) not in answers:
            continue
        ref = answers[(reference, q)]
        for (eng, q2), got in answers.items():
            if q2 == q and eng != reference and got != ref:
                why = KNOWN.get((eng, q))
                out.append(
                    f"MISMATCH {q}: {eng} answers differently from {reference}: "
                    f"{describe_difference(got, ref)}" + (f" [known: {why}]" if why else "")
                )
    return out


# ---- running Drill ----


@dataclass
class DrillRun:
    """One Drillbit's answers to one statement sent several times."""

    ready_s: float | None = None  # process launch -> the tool's "up" line
    up_s: float | None = None  # the tool's own start time (connection)
    first_result_s: float | None = None  # process launch -> first answer on stdout
    ms: list[int] = field(default_factory=list)
    rows: list | None = None
    error: str | None = None

    @property
    def cold(self) -> float | None:
        return self.ms[0] / 1000 if self.ms else None

    @property
    def warm(self) -> float | None:
        return statistics.median(self.ms[1:]) / 1000 if len(self.ms) > 1 else None


def parse_output(stdout_lines: list[str], stderr: str) -> DrillRun:
    """A DrillRun from query.sh --json's stdout lines and its stderr."""
    run = DrillRun()
    for line in stderr.splitlines():
        m = UP_LINE.match(line.strip())
        if m:
            run.up_s = float(m.group(2))
    for line in stdout_lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        res = json.loads(line)
        if not res.get("ok"):
            run.error = run.error or str(res.get("error", "failed")).split("\n")[0]
            continue
        run.ms.append(int(res["ms"]))
        if run.rows is None:
            run.rows = res["rows"]
    if not run.ms and run.error is None:
        tail = " | ".join(stderr.strip().splitlines()[-3:])
        run.error = f"no answer from Drill ({tail or 'no output'})"
    return run


def drill_command(sql: str, times: int, tool: Path | None = None) -> list[str]:
    return [str((tool or drill_tool_dir()) / "query.sh"), "--json", *([sql] * times)]


def run_drill(
    sql: str, times: int, heap: str = "3g", direct: str = "3g", timeout: float = 1800
) -> DrillRun:
    """Start a Drillbit, run `sql` `times` times in its one session, stop it."""
    env = {**os.environ, "DRILL_HEAP": heap, "DRILL_DIRECT": direct}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        drill_command(sql, times),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    err: list[str] = []
    ready: list[float] = []

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if UP_LINE.match(line.strip()):
                ready.append(time.perf_counter() - t0)
            err.append(line)

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    out: list[str] = []
    first = None
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if first is None and line.startswith("{"):
                first = time.perf_counter() - t0
            out.append(line)
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    run = parse_output(out, "".join(err))
    run.ready_s = ready[0] if ready else None
    run.first_result_s = first
    return run


# ---- drillspark in a fresh process (the CLI), for the first-query-of-a-process race ----


@dataclass
class FreshRun:
    first_result_s: float | None = None  # process launch -> first line of the answer
    exit_s: float | None = None  # process launch -> exit (session stop included)
    answer: object = None
    error: str | None = None


def fresh_command(python: str, sql: str, master: str) -> list[str]:
    return [python, "-m", "drillspark", "sql", "--master", master, "--format", "csv", sql]


def csv_answer(query: str, text: str) -> object:
    """The normalized answer from `drillspark sql --format csv` output (a header line first)."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))[1:]
    if query == "flatten+group":
        rows = [[name or None, int(n)] for name, n in rows]
    return normalize(query, rows)


def run_fresh(python: str, sql: str, query: str, master: str, timeout: float = 1800) -> FreshRun:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        fresh_command(python, sql, master),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
    reader.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    run, out = FreshRun(), []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if run.first_result_s is None:
                run.first_result_s = time.perf_counter() - t0
            out.append(line)
        proc.wait()
        run.exit_s = time.perf_counter() - t0
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    if proc.returncode != 0:
        run.error = (
            " | ".join("".join(err).strip().splitlines()[-2:]) or f"exit status {proc.returncode}"
        )
    else:
        run.answer = csv_answer(query, "".join(out))
    return run
