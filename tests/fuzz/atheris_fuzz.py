"""Coverage-guided fuzzing of the plan reader and the expression parser with atheris
(libFuzzer for Python), run by hand, not by pytest:

    pip install -e ".[fuzz]"     # atheris: wheels for CPython 3.11 on x86-64 Linux
    PYTHONPATH=python python tests/fuzz/atheris_fuzz.py plan -max_total_time=120
    PYTHONPATH=python python tests/fuzz/atheris_fuzz.py expression -max_total_time=120

It starts from the seed texts (real plans, the corpus), instruments drillspark.plan and lark,
and stops at the first input that breaks the property of tests/fuzz/checks.py (libFuzzer
writes it to ./crash-*): add it to tests/fuzz/corpus/<target>/ and fix it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

with atheris.instrument_imports(include=["drillspark.plan", "lark"]):
    from tests.fuzz import checks, inputs


def plan(data: bytes) -> None:
    checks.plan_source(data)  # bytes: decoded as UTF-8 by the reader itself


def expression(data: bytes) -> None:
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
    checks.expression(text, "drill")
    checks.expression(text, "2013")


def seeds(target: str, into: Path) -> None:
    if target == "plan":
        texts = [t.encode() for t in inputs.plan_texts()]
        texts += [p.read_bytes() for p in checks.corpus("plan") + checks.corpus("plan_bytes")]
    else:
        texts = [p.read_bytes() for p in checks.corpus("expression")]
        texts += [s.encode() for s in inputs.EXPRESSION_SAMPLES]
    for i, data in enumerate(texts):
        (into / f"seed-{i}").write_bytes(data)


def main() -> None:
    target = sys.argv[1] if len(sys.argv) > 1 else ""
    if target not in ("plan", "expression"):
        sys.exit("usage: atheris_fuzz.py plan|expression [libFuzzer options]")
    work = Path(tempfile.mkdtemp(prefix=f"atheris-{target}-"))
    seeds(target, work)
    atheris.Setup([sys.argv[0], *sys.argv[2:], str(work)], plan if target == "plan" else expression)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
