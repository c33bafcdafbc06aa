"""Deterministic GitHub-Archive-shaped JSON lines for the scan benchmark.

Mimics the real data in ../shared/data/ (see shared/reference/data-notes.md): 9 event types
with their own payloads, arrays of objects (commits, labels, assets, reviewers), sparse fields,
mixed int/float (`metrics.score`, `payload.pull_request.additions`), an open key bag `attrs`
(Zipf keys), nulls and empty arrays, and drift along the file sequence (`actor.display_login`
from 30% of the files, PushEvent loses `commits`/`size` at 80%, `geo` appears at 80%,
`auto_merge` is null until the last file and then an object).

Shapes (`--shape`) keep every field the race's queries name and change the rest, so the race
can be run on data it was not tuned on: `github` (the above), `deep` (payloads and commit
authors nested six levels further, a nested `context` on every record), `long-arrays`
(commits, labels, tags and reviewers ten times longer), `wide` (240 more top-level fields of
mixed types), `many-files` (the `github` records in 128 files).

    python benchmarks/gen_events.py OUT_DIR --size 50MB [--files 8] [--seed 7] [--shape deep]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TYPES = [
    "PushEvent",
    "PullRequestEvent",
    "IssuesEvent",
    "IssueCommentEvent",
    "WatchEvent",
    "ForkEvent",
    "CreateEvent",
    "ReleaseEvent",
    "PullRequestReviewEvent",
]
WEIGHTS = [30, 18, 10, 12, 10, 5, 7, 3, 5]
ACTIONS = ["opened", "closed", "reopened", "edited", "synchronize", "created"]
WORDS = [
    "fix",
    "add",
    "update",
    "remove",
    "refactor",
    "bump",
    "docs",
    "test",
    "build",
    "ci",
    "release",
    "merge",
    "branch",
    "parser",
    "scan",
    "vector",
    "batch",
    "schema",
    "column",
    "null",
    "array",
    "struct",
    "map",
    "json",
    "reader",
    "writer",
]


def parse_size(text: str) -> int:
    t = text.strip().upper().replace("IB", "B")
    for unit, mul in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)):
        if t.endswith(unit):
            return int(float(t[: -len(unit)]) * mul)
    return int(t)


SHAPES = ("github", "deep", "long-arrays", "wide", "many-files")
SHAPE_FILES = {"many-files": 128}  # the shapes with their own file count


class Gen:
    def __init__(self, seed: int, n_files: int, shape: str = "github"):
        if shape not in SHAPES:
            raise ValueError(f"unknown shape {shape!r}: one of {', '.join(SHAPES)}")
        self.r = random.Random(seed)
        self.n_files = n_files
        self.shape = shape
        # long-arrays: every array drawn ten times as long
        self.stretch = 10 if shape == "long-arrays" else 1
        self.attr_keys = [f"attr_{i:03}" for i in range(300)]
        self.next_id = 10_000_000_000

    def words(self, n: int) -> str:
        return " ".join(self.r.choice(WORDS) for _ in range(n))

    def zipf_key(self) -> str:
        # rank ~ 1/x: a few keys are common, most are rare
        return self.attr_keys[min(299, int(self.r.paretovariate(1.1)) - 1)]

    def user(self, frac: float) -> dict:
        uid = self.r.randrange(1, 5_000_000)
        u = {"id": uid, "login": f"user{uid}", "url": f"https://api.github.com/users/user{uid}"}
        if frac >= 0.3:
            u["display_login"] = f"user{uid}"
        return u

    def payload(self, typ: str, frac: float, last: bool) -> dict:
        r = self.r
        if typ == "PushEvent":
            p: dict = {
                "push_id": r.randrange(1 << 40),
                "ref": "refs/heads/main",
                "head": f"{r.getrandbits(160):040x}",
            }
            if frac < 0.8:
                commits = [
                    {
                        "sha": f"{r.getrandbits(160):040x}",
                        "author": {"name": f"dev{r.randrange(5000)}", "email": "dev@example.com"},
                        "message": self.words(r.randrange(3, 12)),
                        "distinct": r.random() < 0.9,
                    }
                    for _ in range(r.choice([0, 1, 1, 2, 3, 5]) * self.stretch)
                ]
                p.update(size=len(commits), distinct_size=len(commits), commits=commits)
            return p
        if typ in ("PullRequestEvent", "PullRequestReviewEvent"):
            additions = r.randrange(0, 2000) if r.random() < 0.7 else round(r.random() * 500, 2)
            pr = {
                "number": r.randrange(1, 90000),
                "title": self.words(r.randrange(3, 9)),
                "state": r.choice(["open", "closed"]),
                "additions": additions,
                "deletions": r.randrange(0, 900),
                "merged": r.random() < 0.4,
                "labels": [
                    {
                        "name": r.choice(["bug", "docs", "feature", "ci", "deps", "perf"]),
                        "color": f"{r.getrandbits(24):06x}",
                    }
                    for _ in range(r.choice([0, 0, 1, 2, 3]) * self.stretch)
                ],
                "requested_reviewers": [
                    self.user(frac) for _ in range(r.choice([0, 0, 1, 2]) * self.stretch)
                ],
                "auto_merge": (
                    {"enabled_by": self.user(frac), "merge_method": "squash"} if last else None
                ),
            }
            return {"action": r.choice(ACTIONS[:5]), "number": pr["number"], "pull_request": pr}
        if typ in ("IssuesEvent", "IssueCommentEvent"):
            issue = {
                "number": r.randrange(1, 90000),
                "title": self.words(r.randrange(3, 9)),
                "labels": [
                    {"name": r.choice(["bug", "question", "wontfix"])}
                    for _ in range(r.choice([0, 1, 2]))
                ],
                "comments": r.randrange(0, 40),
                "body": self.words(r.randrange(5, 40)),
            }
            p = {"action": r.choice(ACTIONS), "issue": issue}
            if typ == "IssueCommentEvent":
                p["comment"] = {"id": r.randrange(1 << 32), "body": self.words(r.randrange(3, 30))}
            return p
        if typ == "ReleaseEvent":
            return {
                "action": "published",
                "release": {
                    "tag_name": f"v{r.randrange(10)}.{r.randrange(30)}",
                    "prerelease": r.random() < 0.1,
                    "assets": [
                        {
                            "name": f"pkg-{i}.tar.gz",
                            "size": r.randrange(1 << 24),
                            "download_count": r.randrange(10000),
                        }
                        for i in range(r.randrange(0, 4))
                    ],
                },
            }
        if typ == "CreateEvent":
            return {
                "ref": f"feature/{r.choice(WORDS)}",
                "ref_type": r.choice(["branch", "tag"]),
                "description": None if r.random() < 0.5 else self.words(6),
            }
        if typ == "ForkEvent":
            return {
                "forkee": {
                    "id": r.randrange(1 << 30),
                    "full_name": f"user{r.randrange(10**6)}/x",
                    "stargazers_count": r.randrange(100),
                }
            }
        return {"action": "started"}

    def record(self, frac: float, last: bool) -> dict:
        r = self.r
        typ = r.choices(TYPES, WEIGHTS)[0]
        self.next_id += 1
        repo_id = r.randrange(1, 80_000_000)
        rec: dict = {
            "id": str(self.next_id),
            "type": typ,
            "public": True,
            "created_at": f"2024-0{r.randrange(1, 10)}-1{r.randrange(10)}T12:{r.randrange(60):02}:00Z",
            "actor": self.user(frac),
            "repo": {"id": repo_id, "name": f"org{repo_id % 9000}/repo{repo_id}"},
            "payload": self.payload(typ, frac, last),
            "metrics": {
                "score": r.randrange(0, 100) if r.random() < 0.6 else round(r.random() * 100, 3),
                "latency_ms": r.randrange(1, 5000),
            },
            "attrs": {
                self.zipf_key(): r.choice([r.randrange(1000), self.words(1), True, None])
                for _ in range(r.randrange(0, 6))
            },
            "tags": [r.choice(WORDS) for _ in range(r.choice([0, 0, 1, 2, 4]) * self.stretch)],
        }
        if r.random() < 0.05:
            rec["org"] = {"id": r.randrange(1 << 20), "login": f"org{r.randrange(9000)}"}
        if self.shape == "deep":
            rec["context"] = self.nest(6)
            # the payload's own objects one level under a chain of six
            rec["payload"] = {**rec["payload"], "envelope": self.nest(6)}
            for c in rec["payload"].get("commits", []):
                c["author"]["profile"] = self.nest(5)
        elif self.shape == "wide":
            for i in range(240):
                kind = i % 4
                if kind == 0:
                    rec[f"f{i:03}"] = r.randrange(1 << 20)
                elif kind == 1:
                    rec[f"f{i:03}"] = r.choice(WORDS)
                elif kind == 2:
                    rec[f"f{i:03}"] = None if r.random() < 0.3 else round(r.random(), 3)
                else:
                    rec[f"f{i:03}"] = {"k": r.choice(WORDS), "v": r.randrange(100)}
        if frac >= 0.8:
            rec["geo"] = {
                "lat": round(r.uniform(-80, 80), 4),
                "lon": round(r.uniform(-170, 170), 4),
            }
        return rec

    def nest(self, depth: int) -> dict:
        """An object `depth` levels deep, each level a scalar, a short array and the next."""
        r = self.r
        node: dict = {"leaf": r.choice(WORDS), "n": r.randrange(1000)}
        for level in range(depth):
            node = {
                f"l{level}": r.randrange(100),
                "name": r.choice(WORDS),
                "items": [r.randrange(50) for _ in range(r.randrange(0, 3))],
                "next": node,
            }
        return node


def generate(
    out: Path, size: int, files: int | None = None, seed: int = 7, shape: str = "github"
) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = files or SHAPE_FILES.get(shape, 8)
    gen = Gen(seed, files, shape)
    per_file = size // files
    paths = []
    for i in range(files):
        frac = i / files
        path = out / f"events-{i:02}.json"
        written = 0
        with open(path, "w") as f:
            while written < per_file:
                line = json.dumps(gen.record(frac, i == files - 1), separators=(",", ":")) + "\n"
                f.write(line)
                written += len(line)
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", default="1GB")
    ap.add_argument("--files", type=int, help="files (default 8; 128 for many-files)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shape", choices=SHAPES, default="github")
    a = ap.parse_args()
    paths = generate(a.out, parse_size(a.size), a.files, a.seed, a.shape)
    print(
        f"wrote {len(paths)} files, {sum(p.stat().st_size for p in paths) / 2**20:.1f} MiB in {a.out}"
    )


if __name__ == "__main__":
    main()
