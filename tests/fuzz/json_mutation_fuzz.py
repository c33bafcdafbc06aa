"""Feedback-driven mutation fuzzing of the JVM JSON reader, run by hand, not by pytest:

    PYTHONPATH=python .venv/bin/python tests/fuzz/json_mutation_fuzz.py --minutes 10

libFuzzer's way (what atheris does for Python code) aimed at the JVM: inputs from a working
corpus are mutated byte-wise (erase, insert, flip, repeat, copy, cross over, dictionary pieces:
brackets, quotes, escapes, invalid UTF-8, comments, NaN), read by the probe every way the
source reads them (tests/fuzz/json_probe.py), and kept in the corpus when they reach an outcome
not seen before. Atheris itself cannot guide this: its coverage is of Python code, and the reader
is Scala; the feedback here is the outcome (which way failed, with which kind of error, or the
shape of the schema read). An input that breaks the property is written to --out (default
./json-findings) as NAME.json with NAME.options and NAME.txt: add it to
tests/fuzz/corpus/json_reader/ and fix it. Prints inputs tried, outcomes seen and findings.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tests.fuzz import checks, json_inputs, json_probe  # noqa: E402

OPTION_CHOICES = {
    "allTextMode": ["true"],
    "readNumbersAsDouble": ["true"],
    "typeConflict": ["variant", "error"],
    "skipInvalidRecords": ["true"],
    "invalidUtf8": ["replace"],
    "nanInf": ["false"],
    "escapeAnyChar": ["true"],
    "extendedTypes": ["true"],
    "maxDepth": ["2", "5", "30"],
    "maxSchemaDepth": ["1", "2", "4"],
    "sampleRecords": ["1", "2"],
    "batchRows": ["1", "3"],
}


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randint(0, len(b))
        how = rng.randrange(9)
        if how == 0 and b:
            del b[i : i + rng.randint(1, 16)]
        elif how == 1:
            b[i:i] = bytes([rng.randrange(256)])
        elif how == 2:
            b[i:i] = bytes([rng.choice(b'{}[]",:\\\n ')]) * rng.randint(1, 300)
        elif how == 3 and i < len(b):
            b[i] = rng.randrange(256)
        elif how == 4 and i < len(b):
            b[i] ^= 1 << rng.randrange(8)
        elif how == 5 and b:
            j = rng.randint(0, len(b))
            k = rng.randint(0, len(b))
            b[k:k] = b[min(i, j) : max(i, j)][:200]
        elif how == 6:
            other = rng.choice(others)
            j = rng.randint(0, len(other))
            b[i:] = other[j:][: rng.randint(1, 400)] + b[i:][: rng.randint(0, 400)]
        elif how == 7:
            b[i:i] = rng.choice(json_inputs.PIECES)
        else:  # a number nearby made extreme
            m = re.search(rb"-?\d+", bytes(b[i:]))
            if m:
                s, e = i + m.start(), i + m.end()
                b[s:e] = rng.choice(
                    [b"0", b"-0", b"9" * 25, b"1e400", b"-1e-400", b"00", b"1.", b"2147483648"]
                )
    return bytes(b[:20000])


def signature(answer: dict) -> tuple:
    def kind(got: dict | None) -> str:
        if got is None:
            return "-"
        if "error" in got:
            text = got["error"].split(": ", 1)[-1]
            text = re.sub(r"/\S+", "F", text)
            return re.sub(r"\d+|'[^']*'|\"[^\"]*\"", "N", text)[:90]
        return "ok " + re.sub(r"[^<>,:]", "", got.get("schema", ""))[:60]

    return tuple(kind(answer.get(w)) for w in ("jackson", "count", "split"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path("json-findings"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    seeds = list(json_inputs.real_seeds()) + [p.read_bytes() for p in checks.corpus("json_reader")]
    seeds += [
        b'{"a": 1, "b": [1, 2, {"c": "x"}]}\n{"a": 2.5, "d": null}\n',
        b'[{"a": 1}, {"a": "x"}]',
    ]
    corpus = list(seeds)
    probe = json_probe.Probe(json_probe.classpath())
    seen: set[tuple] = set()
    found: dict[str, int] = {}
    tried = 0
    end = time.monotonic() + args.minutes * 60
    try:
        while time.monotonic() < end:
            base = corpus[-1 - int(rng.expovariate(0.02)) % len(corpus)]
            data = mutate(rng, base, corpus)
            options = {k: rng.choice(v) for k, v in OPTION_CHOICES.items() if rng.random() < 0.15}
            split = rng.choice([0, 0, 9, 24, 64])
            tried += 1
            try:
                answer = probe.read(data, options, split)
                json_probe.check(data, options, answer)
            except json_probe.ProbeFailure as e:
                key = re.sub(r"\d+|b'.*", "", str(e))[:120]
                if key not in found:
                    found[key] = tried
                    args.out.mkdir(exist_ok=True)
                    name = args.out / f"finding-{len(found)}"
                    name.with_suffix(".json").write_bytes(data)
                    name.with_suffix(".options").write_text(json.dumps(options))
                    name.with_suffix(".txt").write_text(f"{e}\nsplitBytes={split}\n")
                    print(f"finding {len(found)} at input {tried}: {str(e)[:300]}", flush=True)
                continue
            sig = signature(answer)
            if sig not in seen:
                seen.add(sig)
                corpus.append(data)
    finally:
        probe.close()
    print(
        f"inputs tried {tried}, outcomes seen {len(seen)}, corpus {len(corpus)}, findings {len(found)}"
    )


if __name__ == "__main__":
    main()
