"""The byte-level row reader against the Jackson reader: for every JSON file in the shared data
and a set of tricky generated files, both give the same rows (same order, same schema, doubles
bit for bit: rows are compared as Spark's JSON text, which prints each double with the digits
that single it out, -0.0 included) or the same error ("drill: <file> line L, column C (byte B):
..."). Reader choice is the diagnostic Spark conf spark.drillspark.readScanner: fast (default:
the byte reader, handing a split back to Jackson mid-split on anything it does not do exactly),
jackson, or bytes (the byte reader alone, failing with "byte reader gave up" where it would hand
back). `fast` must always equal `jackson`; `bytes` must equal it or give up, and must not give
up on strict plain input, which is the byte reader's job."""

from __future__ import annotations

import gzip
import json
import random
import re
import struct
import subprocess
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, DoubleType, LongType, StringType, StructType

CONF = "spark.drillspark.readScanner"
GAVE_UP = "byte reader gave up"


@dataclass
class Case:
    """One read: `given` is a user schema (spark.read.schema: no discovery; option `schema` is
    the provided schema), `query` a DataFrame -> DataFrame step (projection, filter)."""

    path: Path
    query: Callable | None = None
    given: str | StructType | None = None
    opts: dict = field(default_factory=dict)
    # False where another case already shows what the byte reader alone makes of the input
    bytes_too: bool = True

    def __str__(self):
        return f"{self.path} query={getattr(self.query, '__name__', None)} given={self.given} options={self.opts}"


def named(name, fn):
    fn.__name__ = name
    return fn


def failure(e: Exception):
    """('gave up', message) when the byte reader alone refused the input, else ('error', the
    drill message: file, line, column, byte)."""
    text = str(e)
    m = re.search(r"drill: [^\n]*", text) or re.search(r"executor driver\): ([^\n]*)", text)
    # not a drill error: the JVM's message without the ids of the run (expression ids)
    msg = m.group(0) if m else f"{type(e).__name__}: {text[:500]}"
    msg = re.sub(r"#\d+", "#", msg)
    return ("gave up" if GAVE_UP in text else "error"), msg


def run_cases(spark, cases, scanner, chunk):
    """Each case's ('ok', schema json, rows as Spark's JSON text in collect order) or failure.
    Up to `chunk` cases are read in one Spark job (a union, each row tagged with its case; a
    union keeps each child's partitions, hence file order, in order: fewer jobs, though larger
    unions plan slower); a job that fails is cut in halves until the failing cases are read
    alone."""
    spark.conf.set(CONF, scanner)  # read when the query is planned
    # each file's rows go through to_json once: compiling a whole stage for each costs more
    # than it saves (the scan's batches are read the same way either way)
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    try:
        results, frames = [None] * len(cases), {}
        for i, c in enumerate(cases):
            try:
                reader = spark.read.format("drill").options(**c.opts)
                if c.given is not None:
                    reader = reader.schema(c.given)
                df = reader.load(str(c.path))
                if c.query is not None:
                    df = c.query(df)
                frames[i] = (
                    df.schema.json(),
                    df.select(F.lit(i).alias("k"), F.to_json(F.struct("*")).alias("j")),
                )
            except Exception as e:  # noqa: BLE001 - the message is what is compared
                results[i] = failure(e)
        todo = sorted(frames)
        for s in range(0, len(todo), chunk):
            collect_tagged(todo[s : s + chunk], cases, frames, results)
        return results
    finally:
        spark.conf.unset(CONF)
        spark.conf.unset("spark.sql.codegen.wholeStage")


def collect_tagged(todo, cases, frames, results):
    try:
        rows = reduce(DataFrame.unionAll, [frames[i][1] for i in todo]).collect()
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        # the failure names its file: when that is one case's own file, it is that case's
        # result (a case's failure does not depend on the other scans of the union)
        named_in = [
            i
            for i in todo
            if f"{cases[i].path}:" in failure(e)[1] or f"{cases[i].path} " in failure(e)[1]
        ]
        if len(todo) == 1:
            results[todo[0]] = failure(e)
        elif (
            len(named_in) == 1 and sum(cases[i].path == cases[named_in[0]].path for i in todo) == 1
        ):
            results[named_in[0]] = failure(e)
            collect_tagged([i for i in todo if i != named_in[0]], cases, frames, results)
        else:
            collect_tagged(todo[: len(todo) // 2], cases, frames, results)
            collect_tagged(todo[len(todo) // 2 :], cases, frames, results)
        return
    got = {i: [] for i in todo}
    for k, j in rows:
        got[k].append(j)
    for i in todo:
        results[i] = ("ok", frames[i][0], tuple(got[i]))


def short(s, n=400):
    return s if len(s) <= n else f"{s[:n]}... ({len(s)} chars)"


def difference(expected, got) -> str | None:
    """None when equal, else where the two results part (first differing row shown)."""
    if expected == got:
        return None
    if expected[0] != "ok" or got[0] != "ok":
        return f"jackson: {short(str(expected[:2]), 900)}\n  other:   {short(str(got[:2]), 900)}"
    if expected[1] != got[1]:
        return f"schemas differ:\n  jackson: {short(expected[1], 900)}\n  other:   {short(got[1], 900)}"
    a, b = expected[2], got[2]
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"row {i} of {len(a)}/{len(b)}:\n  jackson: {short(x)}\n  other:   {short(y)}"
    return f"jackson gave {len(a)} rows, the other {len(b)}; first extra: {short((a[len(b) :] or b[len(a) :])[0])}"


def all_same_as_jackson(spark, cases, chunk=4, bytes_chunk=None, fast_where_bytes_gave_up=False):
    """Check fast == jackson and bytes == jackson (unless it gave up) for every case. Returns,
    per case, (the jackson result, True when the byte reader read it alone; None when not
    tried). `bytes_chunk=1` where the byte reader is expected to give up (no halving of failed
    jobs). `fast_where_bytes_gave_up`: where bytes read a case alone, fast runs the very same
    reader without a hand-back, so only the cases bytes gave up on are read with fast (as the
    discovery test does; for the large shared-data runs)."""
    jackson = run_cases(spark, cases, "jackson", chunk)
    tried = [i for i, c in enumerate(cases) if c.bytes_too]
    alone = [("not tried",)] * len(cases)
    for i, r in zip(
        tried,
        run_cases(spark, [cases[i] for i in tried], "bytes", bytes_chunk or chunk),
        strict=True,
    ):
        alone[i] = r
    fast_ix = [
        i
        for i in range(len(cases))
        if not fast_where_bytes_gave_up or alone[i][0] in ("gave up", "not tried")
    ]
    fast = dict(
        zip(fast_ix, run_cases(spark, [cases[i] for i in fast_ix], "fast", chunk), strict=True)
    )
    problems, out = [], []
    for i, (c, j, b) in enumerate(zip(cases, jackson, alone, strict=True)):
        assert j[0] != "gave up", (str(c), j)
        if i in fast and (diff := difference(j, fast[i])) is not None:
            problems.append(f"readScanner=fast differs from jackson on {c}\n{diff}")
        if b[0] not in ("gave up", "not tried") and (diff := difference(j, b)) is not None:
            problems.append(f"readScanner=bytes differs from jackson on {c}\n{diff}")
        out.append((j, None if b[0] == "not tried" else b[0] != "gave up"))
    assert not problems, "\n\n".join(problems)
    return out


def same_as_jackson(spark, path, query=None, given=None, **opts):
    return all_same_as_jackson(spark, [Case(Path(path), query, given, opts)])[0]


def rows_of(result):
    assert result[0] == "ok", result
    return [json.loads(r) for r in result[2]]


def gave_up_on(cases, results):
    return [str(c) for c, (_, alone) in zip(cases, results, strict=True) if alone is False]


# ---------------------------------------------------------------- the shared data


def shared_json_files(shared):
    pats = ("*.json", "*.ndjson", "*.jsonl", "*.json.gz", "*.ndjson.gz", "*.json.bz2", "*.json.zst")
    files = sorted({p for pat in pats for p in (shared / "data").rglob(pat) if p.is_file()})
    return [p for p in files if not any(part.startswith((".", "_")) for part in p.parts)]


SCALARS = (LongType, DoubleType, StringType, BooleanType)


def quoted(path):
    return ".".join("`" + n.replace("`", "``") + "`" for n in path)


def scalar_paths(schema: StructType, prefix=()):
    """Paths (tuples of names) to scalar fields, reached through structs only."""
    for f in schema.fields:
        if isinstance(f.dataType, SCALARS):
            yield (*prefix, f.name), f.dataType
        elif isinstance(f.dataType, StructType):
            yield from scalar_paths(f.dataType, (*prefix, f.name))


def value_at(row, path):
    for n in path:
        if not isinstance(row, dict) or n not in row:
            return None
        row = row[n]
    return row


def projection_and_filter(schema: StructType, rows):
    """A nested scalar to project (None when there is no struct column) and a pushed-down
    filter on a scalar column, comparing it with the value of a middle row."""
    paths = list(scalar_paths(schema))
    nested = next((p for p, _ in paths if len(p) > 1), None)
    project = None
    if nested is not None:
        c = quoted(nested)
        project = named(f"select {c}", lambda df: df.select(F.col(c)))
    for path, t in sorted(paths, key=lambda pt: len(pt[0])):
        kind = {LongType: int, DoubleType: float, StringType: str, BooleanType: bool}[type(t)]
        vals = [v for v in (value_at(r, path) for r in rows) if type(v) is kind]
        if len(vals) >= 2:
            v, c = vals[len(vals) // 2], quoted(path)
            cond = F.col(c) == F.lit(v) if kind is bool else F.col(c) >= F.lit(v)
            label = f"filter {c} {'=' if kind is bool else '>='} {v!r}"[:120]
            return project, named(label, lambda df, cond=cond: df.filter(cond))
    return project, None


def with_projection_and_filter(cases, results):
    """For each case read fine and holding a struct: the same read with a nested field
    projected (the tokenizer skips the rest) and with a pushed-down filter."""
    more = []
    for c, (jackson, _) in zip(cases, results, strict=True):
        if jackson[0] == "ok":
            schema = StructType.fromJson(json.loads(jackson[1]))
            project, filt = projection_and_filter(schema, rows_of(jackson))
            if project is not None:
                more += [Case(c.path, q, c.given, c.opts) for q in (project, filt) if q is not None]
    return more


def test_shared_json_files_same_rows(spark, shared):
    files = shared_json_files(shared)
    # the real data whole (the citibike files are 13 snapshots of one feed: one here, all in
    # the split test) and every other file of Drill's conformance data (small files, each one
    # query: reading all of them doubles this test's time; all were checked when written)
    citibike = [p for p in files if p.parent.name == "citibike"]
    conformance = [p for p in files if "drill-conformance" in p.parts]
    cases = [Case(p) for p in files if p not in citibike[1:] and p not in conformance] + [
        Case(p) for p in conformance[::2]
    ]
    assert len(cases) > 60
    results = all_same_as_jackson(spark, cases, bytes_chunk=1, fast_where_bytes_gave_up=True)
    # strict JSON lines are the bulk of the files: the byte reader reads them, not the fallback
    assert len(gave_up_on(cases, results)) < len(cases) // 2, gave_up_on(cases, results)
    # projections and filters: on the real data and every third conformance file holding a
    # struct (keeps the test short)
    more = with_projection_and_filter(cases, results)
    more = [c for c in more if "drill-conformance" not in c.path.parts] + [
        c for c in more if "drill-conformance" in c.path.parts
    ][::3]
    assert len(more) > 15
    all_same_as_jackson(spark, more, bytes_chunk=1, fast_where_bytes_gave_up=True)


def test_shared_ndjson_split_across_tasks(spark, shared):
    data = shared / "data"
    # yelp in 58 splits, the simdjson tweets in 8, the 4 MB of mongo tweets (27 wide columns)
    # in 4; each citibike file is one record on one line (not split)
    cases = [
        Case(data / "yelp" / "yelp_business_small.ndjson", opts={"splitBytes": "64k"}),
        Case(data / "twitter" / "simdjson_twitter_statuses.ndjson", opts={"splitBytes": "64k"}),
        Case(data / "twitter" / "mongo_tweets.ndjson", opts={"splitBytes": "1m"}),
        Case(data / "citibike", opts={"splitBytes": "64k"}),
    ]
    for c in cases[:2]:  # really split across tasks
        assert (
            spark.read.format("drill").options(**c.opts).load(str(c.path)).rdd.getNumPartitions()
            > 5
        )
    results = all_same_as_jackson(spark, cases, chunk=2, fast_where_bytes_gave_up=True)
    for c, (result, _) in zip(cases, results, strict=True):
        files = sorted(c.path.glob("*.ndjson")) if c.path.is_dir() else [c.path]
        assert len(files) < 20 and len(rows_of(result)) == sum(
            1 for f in files for line in f.read_bytes().splitlines() if line.strip()
        ), c
    assert len(gave_up_on(cases, results)) <= 1, gave_up_on(cases, results)
    all_same_as_jackson(spark, with_projection_and_filter(cases[:2], results[:2]), chunk=4)


# ---------------------------------------------------------------- generated files


def lines(*records, eol="\n"):
    return "".join(
        (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + eol for r in records
    )


def deep(n, leaf=1):
    v = leaf
    for i in range(n):
        v = {f"k{i % 3}": v} if i % 2 else [v]
    return {"d": v}


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


NUMBERS = lines(
    *(
        f'{{"i": {i}, "f": {f}, "d": {d}}}'
        for i, f, d in [
            ("-0", "-0.0", "1"),
            ("0", "0.0", "2.5"),
            ("123456789012345678", "1e5", "9007199254740993"),
            ("9223372036854775807", "1E-7", "-0"),
            ("-9223372036854775808", "2.5e+3", "-9223372036854775808"),
            ("1", "0.1", "9223372036854775807"),
            ("-1", "1.7976931348623157e308", "3"),
            ("10", "4.9e-324", "1.5"),
            ("7", "0.30000000000000004", "-7"),
            ("42", "2.2250738585072014e-308", "123456789012345678"),
            ("100", "1.0000000000000002", "0"),
            ("-100", "123456.78901234567", "2.5E-3"),
            ("5", "9007199254740993.0", "1E+2"),
            ("6", "-2.5e-300", "0.5"),
            ("8", "1.5E300", "-0.0"),
            ("9", "5e-324", "17"),
            ("11", "3.141592653589793", "2"),
            ("12", "-0.000001", "1e0"),
        ]
    )
)

ESCAPES = lines(
    r'{"s": "a\nb\"c\\d\/e\u00e9\u20ac\u0000f\ud83d\ude00g\b\f\r\t", "t": ["x\ty", "\u0041"]}',
    r'{"s": "\u00E9\u20AC\uD83D\uDE00\uDBFF\uDFFF", "t": []}',
    r'{"s": "\\\\\"\"\/\/", "t": ["\"", "\\", ""]}',
    r'{"s": "", "t": ["\u0000\u001f\u007f"]}',
    {"s": 'tab\tnl\ncr\r"q" back\\slash \u2028 \u00e9', "t": ["é", "😀"]},
    r'{"s": "only ascii, nothing escaped", "t": null}',
)

UTF8 = lines(
    {"s": "é ñ ü ß", "t": "€ 中文 ☃ ⌘", "u": "😀 𝄞 🇫🇷"},
    {"ключ": "знач", "中文": {"字": ["二", "三"]}, "emoji😀": True, "s": "mixé€😀"},
    {"s": "é😀€" * 30000, "t": "a" * 3 + "é", "u": "😀"},
    {"s": "\u00ff\u0100\u07ff\u0800\uffff\U00010000\U0010ffff"},
)

LONG = lines(
    {"s": "x" * 70000, "n": 1},
    {"s": "y" * ((1 << 20) + 5), "n": 2},
    '{"s": ' + json.dumps('a\n"é😀\\' * 30000) + ', "n": 3}',
    {"s": "é" * 40000 + "z", "n": 4},
    {"s": "short", "n": 5},
)

NULLS = lines(
    {"b": True, "n": None, "s": None, "a": None, "m": None, "f": None},
    {"b": False, "n": 1, "s": "x", "a": [1], "m": {"k": True, "v": [1.5]}, "f": 2.5},
    {"b": None, "a": None, "m": None},
    {},
    {"m": {"k": None, "v": None}, "a": []},
    {"b": True, "n": None, "s": "", "a": [None], "m": {}, "f": -0.0},
)

NULLS_IN_ARRAYS = lines(
    {
        "ai": [1, None, 3],
        "af": [1.5, None],
        "as": ["a", None],
        "ab": [True, None, False],
        "aa": [[1], None, [None, 2]],
        "ao": [{"x": 1}, None, {}],
        "am": [{"x": [None]}],
    },
    {"ai": None, "ao": None, "aa": None},
    {"ai": [None], "af": [None, None], "as": [None], "ab": [None], "aa": [[None]], "ao": [None]},
    {"ai": [], "af": [], "as": [], "ab": [], "aa": [[]], "ao": [], "am": []},
)

NESTING = lines(
    {},
    {"e": {}},
    {"a": []},
    {"aa": [[1, 2], [], [3]], "aaa": [[[{"x": 1}]], [[]], []]},
    {
        "os": [{"x": 1, "y": [1, 2], "z": {"w": "s"}}, {"y": []}, {"x": 2}],
        "m": {"n": {"o": {"p": 1}}},
    },
    {"m": {"n": {"o": {"p": 2, "q": [{"r": [[True]]}]}}}, "e": {}, "os": []},
    deep(50),
    deep(50, leaf=7),
    deep(50, leaf=None),
)

DUP_AND_CASE = lines(
    '{"a": 1, "a": 2, "s": "x"}',
    '{"A": 3, "s": "y", "S": "z"}',
    '{"m": {"x": 1, "y": 2}, "m": {"x": 3}, "a": 4}',
    '{"Ab": 1, "aB": 2, "AB": 3, "ab": null}',
    '{"x": {"Good For Kids": true, "good for kids": false}, "X": {"other": 1}}',
    '{"arr": [1], "ARR": [2, 3], "a": null, "a": 5}',
)

# names the byte reader matches by their bytes (8-byte words): differing only late, at word
# edges, as prefixes of each other, empty, in case past the first word, non-ASCII case (the
# Kelvin sign folds to "k"), case variants in structs inside arrays
A40 = "a" * 40
NAMES = lines(
    {A40 + "1": 1, A40 + "2": 2, "abcdefgh": 1, "abcdefgi": 2, "abcdefg": 3, "abcdefghi": 4},
    {
        A40 + "2": 3,
        A40.upper() + "1": 4,
        "abcdefghijklmnop": 5,
        "abcdefghijklmnoq": 6,
        "ABCDEFGHIJKLMNOQ": 7,
    },
    {"ab": 1, "abc": 2, "abcd": 3, "a": 4, "": 5, " ": 6, "k": 1, "ａ": 1},
    {"AB": 7, "ABC": 8, "\u212a": 2, "Ａ": 2, "m": {"Key": 1, "arr": [{"X": 1, "x": 2}]}},
    {"K": 3, "M": {"KEY": 3, "ARR": [{"x": 4}]}, "ABCD": 9},
)

LINE_ENDS = (
    '{"a": 1, "s": "x"}\r\n{"a": 2, "s": "y"}\r\n\r\n{"a": 3}\r{"a": 4, "s": "z"}\r\r'
    '\n\n  \t \n{"a": 5}\n\t{"a": 6}  \r\n{"a": 7}'
)

CONCATENATED = (
    '{"a": 1}{"a": 2}{"b": {"c": 1}} {"b": {"c": 5}}\n\n\t{"a": 3}{"a": 4}\n'
    '{"a": 5}  {"a": 6}\t{"a": 7}\r\n{"b": {"c": 8}}{"a": 9}'
)

PRETTY = "".join(
    json.dumps(
        {
            "id": i,
            "m": {"x": i * 1.5, "arr": [i, i + 1], "s": "é\n" * (i % 3)},
            "t": [{"k": str(i)}],
        },
        indent=2 if i % 2 else 4,
        ensure_ascii=bool(i % 3),
    )
    + ("\n" if i % 5 else "\n\n")
    for i in range(300)
)

STRICT = {
    "numbers": (NUMBERS, 18),
    "escapes_in_values": (ESCAPES, 6),
    "utf8_multibyte": (UTF8, 4),
    "long_strings": (LONG, 5),
    "true_false_null": (NULLS, 6),
    "nulls_in_arrays": (NULLS_IN_ARRAYS, 4),
    "nesting_empty_and_deep": (NESTING, 9),
    "duplicate_and_case_keys": (DUP_AND_CASE, 6),
    "names_by_bytes": (NAMES, 5),
    "crlf_cr_blank_lines": (LINE_ENDS, 7),
    "bom": (b"\xef\xbb\xbf" + b'{"a": 1, "s": "\xc3\xa9"}\n{"a": 2}\n', 2),
    "concatenated": (CONCATENATED, 11),
    "pretty_multiline": (PRETTY, 300),
}


def nested_records(n, seed=0):
    return [
        {
            "id": i,
            "s": "v" * ((i * 7 + seed) % 50) + "é" * (i % 3),
            "f": i / 7,
            "m": {
                "a": i if i % 11 else None,
                "arr": [{"x": j, "y": [j / 3]} for j in range(i % 4)],
            },
            "tags": [f"t{i % 3}"] * (i % 5),
            "flag": i % 2 == 0,
        }
        for i in range(n)
    ]


def test_strict_files_read_by_bytes_alone(spark, tmp_path):
    """Escapes in values, UTF-8, numbers in range, nulls, nesting, duplicate and case-variant
    keys, CR/CRLF, BOM, concatenated and pretty-printed records: the byte reader's job."""
    cases = [
        Case(write(tmp_path / f"{name}.json", text)) for name, (text, _) in sorted(STRICT.items())
    ]
    pretty = tmp_path / "pretty_multiline.json"
    # not JSON lines: never split, whatever the split size asks
    cases += [Case(pretty, opts={"splitFiles": "false"}), Case(pretty, opts={"splitBytes": "4k"})]
    results = all_same_as_jackson(spark, cases)
    counts = [n for _, (_, n) in sorted(STRICT.items())] + [300, 300]
    assert [len(rows_of(r)) for r, _ in results] == counts
    assert not gave_up_on(cases, results), "the byte reader gave up on strict input"


# per strict file: columns to select (the others are skipped unread) and a pushed-down filter
PROJECTED = {
    "numbers": (["f", "i"], "d >= 1.5"),
    "escapes_in_values": (["t"], None),
    "utf8_multibyte": (["u", "`中文`.`字`"], None),
    "long_strings": (["n"], "n >= 3"),
    "true_false_null": (["m.v", "b"], None),
    "nulls_in_arrays": (["ao", "am"], None),
    "nesting_empty_and_deep": (["m.n.o.p", "os"], "m.n.o.p >= 2"),
    "duplicate_and_case_keys": (["m.y", "x"], "a >= 4"),
    "names_by_bytes": (["`abcdefghijklmnoq`", "m.arr", "k"], "abc >= 2"),
    "crlf_cr_blank_lines": (["s"], "a >= 4"),
    "bom": (["s"], None),
    "concatenated": (["b.c"], "a >= 3"),
    "pretty_multiline": (["m.x", "t"], "id >= 150"),
}


def test_strict_files_projected_and_filtered(spark, tmp_path):
    cases = []
    for name, (cols, pred) in sorted(PROJECTED.items()):
        p = write(tmp_path / f"{name}.json", STRICT[name][0])
        cases.append(Case(p, named(f"select {cols}", lambda df, cols=cols: df.select(*cols))))
        if pred:
            cases.append(Case(p, named(pred, lambda df, pred=pred: df.filter(pred))))
    results = all_same_as_jackson(spark, cases)
    assert all(rows_of(r) for r, _ in results)
    assert not gave_up_on(cases, results), "the byte reader gave up on strict input"


def ids(result):
    return [r.get("id", r.get("a")) for r in rows_of(result)]


def test_batches_overflow_rows_and_splits_read_by_bytes_alone(spark, tmp_path):
    many = write(tmp_path / "many.json", lines(*nested_records(10000)))
    # rows of ~100 KB (one of 600 KB, larger than the limit alone) cut batches by bytes: the
    # row that passes the limit is parked and starts the next batch
    recs = [
        {
            "id": i,
            "blob": chr(65 + i % 26) * 100_000,
            "m": {"arr": [{"x": i, "ys": [i, i + 1]}], "k": str(i)},
        }
        for i in range(40)
    ]
    recs[17]["blob"] = "Z" * 600_000
    big = write(tmp_path / "overflow.json", lines(*recs))
    cases = [
        Case(many),
        Case(many, opts={"batchRows": "7"}),
        Case(many, opts={"splitBytes": "300k"}),
        Case(big, opts={"batchBytes": "256k", "splitFiles": "false"}),
        Case(big, opts={"batchBytes": "256k", "splitBytes": "1m"}),
    ]
    results = all_same_as_jackson(spark, cases)
    assert [ids(r) for r, _ in results] == [list(range(10000))] * 3 + [list(range(40))] * 2
    assert not gave_up_on(cases, results)


def test_records_near_split_boundaries_read_by_bytes_alone(spark, tmp_path):
    # lines of every length from 9 to ~300 bytes, LF and CRLF, so that splits of these sizes
    # start and end at every place in a record (on its first byte, on its newline, inside it)
    cases, expected = [], []
    for n, eol, size in (
        (40, "\n", "97"),
        (40, "\r\n", "131"),
        (1500, "\n", "4k"),
        (1500, "\r\n", "5k"),
        (1500, "\n", "37k"),
    ):
        recs = [
            {"a": i, "s": "é" * (i % 37) + "x" * (i % 101)} if i % 3 else {"a": i} for i in range(n)
        ]
        p = write(tmp_path / f"split{n}_{len(eol)}.json", lines(*recs, eol=eol))
        cases.append(Case(p, opts={"splitBytes": size}))
        expected.append(list(range(n)))
    results = all_same_as_jackson(spark, cases)
    assert [ids(r) for r, _ in results] == expected
    assert not gave_up_on(cases, results)


def test_compressed_input_read_by_bytes_alone(spark, tmp_path):
    text = NUMBERS + ESCAPES.replace('"t"', '"tt"') + lines(*nested_records(3000))
    gz = write(tmp_path / "c.json.gz", gzip.compress(text.encode()))
    result, alone = same_as_jackson(spark, gz, splitBytes="4k")  # a .gz is never split
    assert len(rows_of(result)) == 18 + 6 + 3000 and alone


def test_implicit_columns_selected(spark, tmp_path):
    root = tmp_path / "t"
    write(root / "2020" / "q1" / "a.json", lines(*nested_records(50)))
    write(root / "2021" / "b.json", lines(*nested_records(30, seed=3)))
    write(root / "top.json", lines({"id": -1, "s": "top"}))
    implicit = named("implicit", lambda df: df.select("filename", "dir0", "dir1", "id", "m.a", "s"))
    star = named("star", lambda df: df.select("*", "filepath", "suffix"))
    cases = [Case(root, implicit), Case(root, star), Case(root)]
    results = all_same_as_jackson(spark, cases)
    assert [len(rows_of(r)) for r, _ in results] == [81] * 3
    assert {r["filename"] for r in rows_of(results[0][0])} == {"a.json", "b.json", "top.json"}
    assert not gave_up_on(cases, results)


def test_pushed_filters_same_rows(spark, tmp_path):
    text = lines(*nested_records(3000))
    # a later duplicate key makes the filter true after the record was rejected: re-read
    text += '{"id": 5000, "m": {"a": 1}, "s": "late", "ID": 6000}\n{"id": 3001, "m": {"a": 2}, "M": {"a": 9999}}\n'
    p = write(tmp_path / "f.json", text)
    preds = [
        "m.a > 2500",
        "id IN (3, 5, 8) OR m.a IS NULL",
        "NOT (s = 'vvv') AND id < 100",
        "flag AND f < 10.5",
        "id > 4000",
        "m.a >= 9999",
    ]
    queries = [named(pred, lambda df, pred=pred: df.filter(pred)) for pred in preds]
    cases = [Case(p, q) for q in queries] + [
        Case(p, q, opts={"splitBytes": "64k"}) for q in queries[:3]
    ]
    results = all_same_as_jackson(spark, cases)
    assert all(rows_of(r) for r, _ in results)
    assert ids(results[preds.index("id > 4000")][0]) == [6000]
    assert ids(results[preds.index("m.a >= 9999")][0]) == [3001]


# Inputs the byte reader may hand back (the fast reader must then still equal Jackson, with
# the rows before and after the hand-back neither lost nor repeated).
OTHER = {
    "lone_surrogates": lines(
        r'{"s": "a\ud800b"}',
        r'{"s": "\udc00"}',
        r'{"s": "\ud83dx\ude00"}',
        r'{"s": "\uDFFF\uD800"}',
    ),
    "escapes_in_keys": lines(
        r'{"k\"q": 1, "a\u00e9": 2, "\u0041": 3, "tab\tkey": 4}', r'{"K\"Q": "s", "aé": 5, "a": 6}'
    ),
    "non_ascii_case_keys": lines(
        {"ключ": 1, "É": "x"}, {"КЛЮЧ": 2, "é": "y"}, {"Straße": 1, "STRASSE": 2, "ǅ": 3, "ǆ": 4}
    ),
    "mixed_kinds_to_varchar": lines(
        *(
            f'{{"v": {v}}}'
            for v in [
                "1",
                '"two"',
                "true",
                "2.50",
                "-0",
                "1e5",
                "1E-7",
                "null",
                "false",
                "-0.0",
                "12345678901234567890",
                '""',
                "3.0e+10",
            ]
        )
    ),
    "big_ints_in_double": lines(
        '{"d": 1.5}',
        '{"d": 12345678901234567890}',
        '{"d": 9223372036854775808}',
        '{"d": -9223372036854775809}',
        '{"d": 100000000000000000000000000000000000000000}',
    ),
    "long_mantissas_and_exponents": lines(
        *(
            f'{{"f": {f}}}'
            for f in [
                "0.1000000000000000055511151231257827",
                "1e400",
                "-1e400",
                "1e-400",
                "2.4703282292062327e-324",
                "2.4703282292062328e-324",
                "1.00000000000000011102230246251565404236316680908203125",
                "1.00000000000000011102230246251565404236316680908203126",
                "123456789012345678901234567890.5",
                "0.000000000000000000000000000000000000000000001",
                "1e-5",
                "1.5",
            ]
        )
    ),
    "type_conflict_json_text": lines(
        '{"p": 1, "q": {"r": 1}}',
        '{"p": {"x": [1, 2.5, "s", null, true]}}',
        r'{"p": [1, {"y": "é\n\u00e9"}], "q": {"r": {"deep": [1e5, -0.0, 1E-7]}}}',
        '{"p": "str"}',
        '{"p": null, "q": {"r": [  ]}}',
        '{"p": {}}',
        '{"p": 2.50}',
    ),
    "nan_inf": lines(
        '{"x": NaN, "y": 1}',
        '{"x": Infinity, "y": 2}',
        '{"x": -Infinity}',
        '{"x": 1.5}',
        '{"x": -0.0, "z": [NaN, 1, -Infinity]}',
    ),
    "extended_types": lines(
        {"n": {"$numberLong": "5"}, "o": {"$oid": "ab"}, "t": {"$date": "2020-01-02T03:04:05Z"}},
        {"n": {"$numberLong": "-6"}, "o": {"$oid": "cd"}, "t": {"$date": 86400000}},
        {"n": 7},
    ),
    "outer_array": '[{"a": 1, "s": "x"},\n {"a": 2},\n  {"a": 3, "s": "é"}, {"a": 4}\n]\n',
    "empty_outer_array": "[]\n",
    "empty_file": "",
    "comments_and_unquoted_names": lines(
        '{"a": 1} // c {"a": 0}', '/* b */ {"a": 2, s: "x"}', '{"a": 3 /* c */, "s": "y"}'
    ),
    # the hand-back late in a record: strings, array elements and struct members of the row
    # were written already (the Jackson path must write the row afresh, nothing left over)
    "late_in_record": lines(
        '{"s": "abc", "arr": [1, 2, 3], "m": {"x": [4, 5], "t": "é"}, "n": 1.5}',
        '{"s": "def", "arr": [6, 7], "m": {"x": [8], "t": "ü"}, "n": NaN}',
        '{"s": "ghi", "arr": [9], "m": {"x": [10, 11, 12], "t": "x", "k\\"e": 1}, "n": 2}',
        '{"s": "jkl", "arr": [13], "m": {"x": [], "t": "y"}, "n": 3} /* c */',
        '{"s": "mno", "arr": [14, 15], "m": {"x": [16]}, "n": 4}{"s": "pqr", "n": Infinity}',
    ),
}
# what the byte reader must hand back (so readScanner=bytes gives up on them)
HANDED_BACK = (
    "comments_and_unquoted_names",
    "nan_inf",
    "escapes_in_keys",
    "outer_array",
    "late_in_record",
)


def framed(text, n=3000):
    """n plain records before and after: the hand-back comes mid-split, after a full batch."""
    pad = [{"pad": i, "ps": f"p{i}", "pm": {"x": i}} for i in range(n)]
    return lines(*pad[: n // 2]) + text + lines(*pad[n // 2 :])


def test_other_inputs_same_rows(spark, tmp_path):
    cases, framed_cases = [], []
    for name, text in sorted(OTHER.items()):
        p = write(tmp_path / f"{name}.json", text)
        cases.append(Case(p))
        if not text.startswith("["):
            q = write(tmp_path / f"framed_{name}.json", framed(text))
            framed_cases.append(Case(q, bytes_too=False))
            if name in (
                "comments_and_unquoted_names",
                "nan_inf",
                "escapes_in_keys",
                "late_in_record",
            ):
                framed_cases.append(Case(q, opts={"splitBytes": "32k"}, bytes_too=False))
    cases.append(Case(tmp_path / "extended_types.json", opts={"extendedTypes": "true"}))
    results = all_same_as_jackson(spark, cases, bytes_chunk=1)
    assert all(r[0] == "ok" for r, _ in results), [
        (str(c), r) for c, (r, _) in zip(cases, results, strict=True)
    ]
    gave_up = {Path(g.split(" ")[0]).stem for g in gave_up_on(cases, results)}
    assert set(HANDED_BACK) <= gave_up, gave_up
    records = {
        c.path.stem: len(rows_of(r)) for c, (r, _) in zip(cases, results, strict=True) if not c.opts
    }
    # the same with 1500 plain records before and after (bytes: as the plain file above)
    results = all_same_as_jackson(spark, framed_cases)
    for c, (r, _) in zip(framed_cases, results, strict=True):
        assert len(rows_of(r)) == 3000 + records[c.path.stem.removeprefix("framed_")], str(c)


def test_hand_back_at_batch_limits_filters_and_projections(spark, tmp_path):
    """The hand-back where the reader's state is busiest: at a batch's row limit, on the row
    that overflows the byte limit (parked for the next batch), under a pushed filter, inside
    an unprojected value, after a BOM, CR line ends and records sharing a line."""
    plain = [{"id": i, "s": "é" * (i % 5), "m": {"x": [i, i + 1]}} for i in range(4100)]
    nan = '{"id": 4100, "s": "n", "m": {"x": [NaN]}}'
    at_limit = write(tmp_path / "at_limit.json", lines(*plain[:4096], nan, *plain[4096:]))
    at_small = write(tmp_path / "at_small.json", lines(*plain[:20], nan, *plain[20:40]))
    big = [{"id": i, "blob": chr(65 + i % 26) * 100_000, "m": {"x": [i]}} for i in range(8)]
    overflow = write(
        tmp_path / "overflow.json",
        lines(
            *big[:2], '{"id": 2, "blob": "' + "Q" * 100_000 + '", "m": {"x": [Infinity]}}', *big[3:]
        ),
    )
    bom = write(
        tmp_path / "bom_cr.json",
        b"\xef\xbb\xbf"
        + "\r".join(
            [json.dumps(r) for r in plain[:30]]
            + ['{"id": 30} {"id": 31} {"id": 32, "m": {"x": [-Infinity]}} {"id": 33}']
            + [json.dumps(r) for r in plain[34:60]]
        ).encode(),
    )
    ids_filter = named("id % 3 = 0 AND id >= 2", lambda df: df.filter("id % 3 = 0 AND id >= 2"))
    id_filter = named("id >= 15", lambda df: df.filter("id >= 15"))
    only_id = named("select id", lambda df: df.select("id"))
    cases = [
        Case(at_limit, bytes_too=False),
        Case(at_small, opts={"batchRows": "7"}, bytes_too=False),
        Case(at_limit, id_filter, bytes_too=False),
        Case(at_small, ids_filter, opts={"batchRows": "4"}),
        Case(at_limit, only_id),
        Case(at_small, named("select s", lambda df: df.select("s")), bytes_too=False),
        Case(overflow, opts={"batchBytes": "256k", "splitFiles": "false"}, bytes_too=False),
        Case(overflow, only_id, opts={"batchBytes": "256k"}),
        Case(bom, bytes_too=False),
        Case(bom, id_filter, bytes_too=False),
    ]
    results = all_same_as_jackson(spark, cases)
    assert [len(rows_of(r)) for r, _ in results[:2]] == [4101, 41]
    assert ids(results[6][0]) == list(range(8)) and ids(results[8][0]) == list(range(60))
    # a NaN in an unprojected value is skipped, not handed back... or handed back: the same rows
    assert len(rows_of(results[4][0])) == 4101


def random_float_texts(rnd, n):
    """Doubles of every magnitude, written as the shortest repr, with 17 and 15 significant
    digits, with a long exponent form and plain decimals: each must read to the same bits."""
    out = []
    while len(out) < n:
        x = struct.unpack("<d", rnd.getrandbits(64).to_bytes(8, "little"))[0]
        if x != x or x in (float("inf"), float("-inf")):
            continue
        if rnd.random() < 0.5:
            x = rnd.uniform(-1, 1) * 10.0 ** rnd.randint(-30, 30)
        for t in (
            repr(x),
            f"{x:.17g}",
            f"{x:.15g}",
            f"{x:.20e}",
            f"{x:.3f}" if abs(x) < 1e15 else repr(x),
        ):
            if "e" not in t and "." not in t:
                t += ".0"
            out.append(t.replace("inf", "1e999"))
    return out[:n]


def test_random_numbers_bit_exact(spark, tmp_path):
    rnd = random.Random(20260522)
    floats = random_float_texts(rnd, 6000)
    ints = [
        str(
            rnd.choice(
                [
                    rnd.getrandbits(63),
                    -rnd.getrandbits(63),
                    rnd.getrandbits(54),
                    rnd.randint(-999, 999),
                    2**53 + rnd.randint(-9, 9),
                    2**63 - 1 - rnd.randint(0, 9),
                ]
            )
        )
        for _ in range(6000)
    ]
    recs = [
        f'{{"f": {f}, "i": {i}, "d": {i if k % 2 else f}}}'
        for k, (f, i) in enumerate(zip(floats, ints, strict=True))
    ]
    p = write(tmp_path / "numbers.json", lines(*recs))
    cases = [
        Case(p),
        Case(p, opts={"splitBytes": "64k"}),
        Case(p, opts={"readNumbersAsDouble": "true"}),
    ]
    results = all_same_as_jackson(spark, cases, chunk=3)
    assert [len(rows_of(r)) for r, _ in results] == [6000] * 3
    assert results[0][1] and results[1][1], "numbers within range are the byte reader's job"
    # the reference itself: Jackson's doubles are Python's (both correctly rounded)
    got = rows_of(results[0][0])
    assert [struct.pack("<d", r["f"]) for r in got[:500]] == [
        struct.pack("<d", float(f)) for f in floats[:500]
    ]


ALPHABET = [
    "a",
    "é",
    "€",
    "😀",
    '"',
    "\\",
    "/",
    "\n",
    "\t",
    "\u0001",
    "\u2028",
    " ",
    "z" * 20,
    "}",
    "]",
    "{",
]


def random_value(rnd, fam, i):
    if fam == "i":
        return rnd.randint(-(2**63), 2**63 - 1)
    if fam == "s":
        return "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 40)))
    if fam == "b":
        return rnd.choice([True, False, None])
    if fam == "f":
        return rnd.choice([i * 0.1, -1e-300 * i, 1e300 / (i + 1), 0.5, None])
    return {"x": [rnd.randint(0, 9) for _ in range(rnd.randint(0, 4))], "y": {"z": str(i)}}


def test_random_records_across_buffer_boundaries(spark, tmp_path):
    """Names, strings, escapes, numbers and UTF-8 sequences cut at every place by the 64 KiB
    buffer reads and by splits; case-variant spellings and duplicate keys among them."""
    rnd = random.Random(7)
    names = {
        fam: [f"{fam}_{k}_{'x' * rnd.randint(0, 90)}{'é' * (k % 3)}" for k in range(8)]
        for fam in "isbfo"
    }
    recs = []
    for i in range(4000):
        r = {"id": i}
        for fam, keys in names.items():
            for key in rnd.sample(keys, 3):
                r[key.upper() if rnd.random() < 0.1 and key.isascii() else key] = random_value(
                    rnd, fam, i
                )
        # values with \\u escapes in every other record; names never (an escape in a name is
        # handed back)
        text = (
            "{"
            + ", ".join(
                json.dumps(k, ensure_ascii=False) + ": " + json.dumps(v, ensure_ascii=bool(i % 2))
                for k, v in r.items()
            )
            + "}"
        )
        if i % 50 == 7:
            text = text[:-1] + ', "id": ' + str(-i) + "}"  # a duplicate key: the last wins
        recs.append(text)
    p = write(tmp_path / "random.json", lines(*recs))
    assert p.stat().st_size > 8 * 65536
    first = [k for keys in names.values() for k in keys[:1]]
    cases = [
        Case(p),
        Case(p, opts={"splitBytes": "100k"}),
        Case(p, named("select some", lambda df: df.select("id", *[f"`{k}`" for k in first]))),
    ]
    results = all_same_as_jackson(spark, cases, chunk=3)
    assert [len(rows_of(r)) for r, _ in results] == [4000] * 3
    assert not gave_up_on(cases, results), "strict JSON is the byte reader's job"


def test_options_on_generated_files(spark, tmp_path):
    texts = {**{n: t for n, (t, _) in STRICT.items()}, **OTHER}
    uses = {
        "allTextMode": [
            "numbers",
            "true_false_null",
            "nulls_in_arrays",
            "nesting_empty_and_deep",
            "mixed_kinds_to_varchar",
            "type_conflict_json_text",
            "big_ints_in_double",
        ],
        "readNumbersAsDouble": [
            "numbers",
            "nulls_in_arrays",
            "big_ints_in_double",
            "mixed_kinds_to_varchar",
        ],
        "typeConflict": [
            "type_conflict_json_text",
            "mixed_kinds_to_varchar",
            "nesting_empty_and_deep",
        ],
        "sampleRecords": [
            "nesting_empty_and_deep",
            "duplicate_and_case_keys",
            "true_false_null",
            "numbers",
        ],
    }
    value = {
        "allTextMode": {"allTextMode": "true"},
        "readNumbersAsDouble": {"readNumbersAsDouble": "true"},
        "typeConflict": {"typeConflict": "variant"},
        "sampleRecords": {"sampleRecords": "1", "skipInvalidRecords": "true"},
    }
    cases = [
        Case(write(tmp_path / f"{n}.json", texts[n]), opts=value[o])
        for o, names in uses.items()
        for n in names
    ]
    results = all_same_as_jackson(spark, cases)
    assert all(r[0] == "ok" for r, _ in results)


def test_provided_schemas(spark, tmp_path):
    p = write(
        tmp_path / "typed.json",
        lines(
            '{"i": 1, "s": 2, "d": 1.005, "day": "2020-02-29", "n": 3, "a": 1.5, "t": "x"}',
            '{"i": "42", "s": -32768, "d": "3.14159", "day": null, "n": null, "a": 2.5, "t": 5}',
            '{"i": 2147483647, "s": 32767, "d": 12, "a": -1.5, "t": true}',
            '{"i": -2147483648, "d": -0.005, "day": "1970-01-01", "a": 1e3, "t": null}',
            '{"i": null, "s": "", "d": 99999999.99, "a": 0.49999999999999994, "n": 9}',
            '{"i": true, "a": "17", "n": 0}',
            '{"a": "", "i": 0.5}',
            '{"a": true, "i": 1.5}',
        ),
    )
    provided = [
        "i INT, s SMALLINT, d DECIMAL(10,2), day DATE, n BIGINT NOT NULL DEFAULT '7', a BIGINT",
        "a BIGINT",
        "a DOUBLE, t STRING",
        "t VARCHAR, a FLOAT, zz STRING NOT NULL DEFAULT 'dflt'",
    ]
    cases = [Case(p, opts={"schema": ddl}) for ddl in provided]
    # through spark.read.schema too (no discovery at all)
    cases += [
        Case(p, given="a BIGINT, i INT"),
        Case(p, given="a BIGINT, n BIGINT, t STRING, i STRING"),
    ]
    # given names match the data's case-insensitively (non-ASCII too; the Kelvin sign is "k")
    q = write(
        tmp_path / "names.json",
        '{"a": 1, "Bb": 2, "ключ": 3, "\u212a": 4}\n{"A": 5, "BB": 6, "КЛЮЧ": 7, "k": 8}\n',
    )
    cases += [
        Case(q, given="A BIGINT, bB BIGINT, `КЛЮЧ` BIGINT, K BIGINT"),
        Case(q, opts={"schema": "BB INT, K SMALLINT"}),
    ]
    results = all_same_as_jackson(spark, cases)
    assert [len(rows_of(r)) for r, _ in results] == [8] * (len(cases) - 2) + [2, 2]
    assert rows_of(results[-2][0]) == [
        {"A": 1, "bB": 2, "КЛЮЧ": 3, "K": 4},
        {"A": 5, "bB": 6, "КЛЮЧ": 7, "K": 8},
    ]


# Bad input: each read with a user schema (no discovery, which would fail first), so the
# reader meets the error. Error messages must be the same; with skipInvalidRecords the rows.
GOOD = lines(*[{"a": i, "s": f"r{i}", "m": {"x": i}} for i in range(2000)])
ABC = "a BIGINT, s STRING, m STRUCT<x: BIGINT>"
SYNTAX = {
    "missing_value": (GOOD + '{"a": }\n' + GOOD, ABC),
    "truncated_at_end": (GOOD + '{"a": 1, "m": {"x": 2}', ABC),
    "truncated_then_line": (GOOD + '{"a": 2, "s"\n{"a": 3}\n', ABC),
    "bad_escape": (GOOD + '{"a": 1, "s": "x\\qy"}\n{"a": 2}\n', ABC),
    "raw_control_char": ('{"a": 1, "s": "ok"}\n{"a": 2, "s": "x\ty"}\n{"a": 3}\n', ABC),
    "stray_close": ('{"a": 1}\n}\n{"a": 2}\n]\n{"a": 3}\n', ABC),
    "literals_quotes_colons": (
        '{"a": 1}\n{"a": 2, "s": tru}\n{\'a\': 2}\n{"a" 1}\n{"a": 3,}\n{"a": 4}\n',
        ABC,
    ),
    "garbage_line": (GOOD + "not json\n" + '{"a": 2}\n', ABC),
    "cr_lines_then_error": (
        GOOD.replace("\n", "\r") + '{"a": 1}{"a": 2}\r\n {"a": 3, "s": [}\r',
        ABC,
    ),
    "top_level_scalars": (
        '{"a": 1}\n42\n{"a": 2}\n"s"\n[1, 2]\ntrue\nnull\n{"a": 3} 7 {"a": 4}\n',
        ABC,
    ),
}
VALUES = {
    "bigint_overflow": (
        GOOD + '{"a": 9223372036854775807}\n{"a": 9223372036854775808}\n{"a": 2}\n',
        ABC,
    ),
    "bigint_underflow": (
        '{"a": -9223372036854775808}\n{"a": -9223372036854775809}\n{"a": 2}\n',
        ABC,
    ),
    "object_for_scalar": (GOOD + '{"a": {"x": 1}}\n{"a": 3}\n{"a": [1]}\n', ABC),
    "scalar_for_object_or_array": (
        '{"m": {"x": 1}, "l": [1]}\n{"m": 5}\n{"m": [1]}\n{"l": 5}\n{"l": {"x": 1}}\n{"a": 2}\n',
        ABC + ", l ARRAY<BIGINT>",
    ),
    "smallint_range": ('{"v": 32767}\n{"v": 32768}\n{"v": 1}\n', "v SMALLINT"),
    "int_from_float_range": ('{"v": 2147483647.4}\n{"v": 2147483648.0}\n{"v": 1}\n', "v INT"),
    "bad_date": ('{"v": "2020-01-01"}\n{"v": "2020-13-01"}\n{"v": "2021-01-01"}\n', "v DATE"),
    "decimal_precision": (
        '{"v": 12345678.99}\n{"v": 123456789012.5}\n{"v": 1}\n',
        "v DECIMAL(10,2)",
    ),
    "bad_number_text": ('{"v": "12"}\n{"v": "1x"}\n{"v": "3"}\n', "v BIGINT"),
}
# the bad record also in a later split: "line L of the split starting at byte S"
IN_LATER_SPLIT = ("missing_value", "bigint_overflow")
# malformed input is handed back to Jackson: bytes is tried on a few only (a value error the
# byte reader may report itself, so it is tried on all of those)
BYTES_ON_SYNTAX = ("missing_value", "truncated_at_end", "top_level_scalars", "cr_lines_then_error")


def bad_cases(tmp_path, **opts):
    cases = []
    for name, (text, schema) in sorted({**SYNTAX, **VALUES}.items()):
        p = write(tmp_path / f"{name}.json", text)
        bytes_too = name in VALUES or name in BYTES_ON_SYNTAX
        cases.append(Case(p, given=schema, opts=opts, bytes_too=bytes_too))
        if name in IN_LATER_SPLIT:
            cases.append(
                Case(p, given=schema, opts={**opts, "splitBytes": "32k"}, bytes_too=bytes_too)
            )
    return cases


INVALID_UTF8 = {
    "ff_fe": b'{"s": "ok"}\n{"s": "x\xff\xfey"}\n{"s": "after"}\n',
    "truncated_sequence": b'{"s": "ok"}\n{"s": "x\xe2\x82"}\n{"s": "after"}\n',
    "continuation_alone": b'{"s": "ok \x80"}\n{"s": "after"}\n',
    "in_skipped_value": b'{"s": "ok", "zz": "\xff"}\n{"s": "after"}\n',
    "in_key": b'{"\xc3\x28": 1, "s": "k"}\n{"s": "after"}\n',
    "utf16_surrogate": b'{"s": "\xed\xa0\x80"}\n{"s": "after"}\n',
    # Jackson alone decodes these without complaint (overlong '/', above U+10FFFF); the strict
    # check below it (Utf8Guard) makes them errors too (issue #15)
    "overlong": b'{"s": "\xc0\xaf"}\n{"s": "after"}\n',
    "above_10ffff": b'{"s": "\xf4\x90\x80\x80"}\n{"s": "after"}\n',
}


def assert_errors(cases, results):
    for c, (result, _) in zip(cases, results, strict=True):
        assert (
            result[0] == "error" and result[1].startswith("drill: ") and c.path.name in result[1]
        ), (str(c), result)
        assert re.search(r"line \d+", result[1]), result


def test_bad_records_same_error(spark, tmp_path):
    cases = bad_cases(tmp_path)
    assert_errors(cases, all_same_as_jackson(spark, cases, chunk=1))


def test_bad_records_skipped_same_rows(spark, tmp_path):
    cases = bad_cases(tmp_path, skipInvalidRecords="true")
    # discovery skips the bad records too
    cases += [
        Case(c.path, opts=c.opts, bytes_too=False) for c in cases if c.path.stem in IN_LATER_SPLIT
    ]
    results = all_same_as_jackson(spark, cases, bytes_chunk=1)
    assert all(rows_of(r) for r, _ in results)


# malformed text inside a member nobody reads: Jackson's skipping still tokenizes it, so the
# byte reader's skipping must validate it as strictly (or hand it back)
IN_SKIPPED = {
    "leading_zero": b'[1, {"k": [01]}]',
    "exponent_sign_only": b"1e+",
    "bad_escape": b'"\\q"',
    "raw_tab": b'"x\ty"',
    "mismatched": b"[1}",
    "invalid_utf8_key": b'{"\xff": 1}',
    "nan_when_off": b"NaN",
    "big_exponent_fine": b"1e99999",
}


def test_malformed_inside_skipped_values_same_error(spark, tmp_path):
    cases = []
    for name, bad in sorted(IN_SKIPPED.items()):
        text = (
            b'{"a": 0, "zz": [1], "b": "x"}\n{"a": 7, "zz": [2], "b": "y"}\n{"a": 1, "zz": '
            + bad
            + b', "b": "z"}\n{"a": 9}\n'
        )
        p = write(tmp_path / f"{name}.json", text)
        opts = {"nanInf": "false"} if name == "nan_when_off" else {}
        bytes_too = name in ("leading_zero", "bad_escape", "big_exponent_fine")
        # zz is not a column / a column pruned away / in a record a pushed filter rejected early
        cases.append(Case(p, given="a BIGINT", opts=opts, bytes_too=bytes_too))
        if name in ("leading_zero", "bad_escape", "invalid_utf8_key", "big_exponent_fine"):
            cases.append(
                Case(
                    p,
                    named("select a", lambda df: df.select("a")),
                    "a BIGINT, zz STRING, b STRING",
                    opts,
                    False,
                )
            )
        if name in ("leading_zero", "mismatched", "invalid_utf8_key"):
            cases.append(
                Case(
                    p,
                    named("a >= 5", lambda df: df.filter("a >= 5")),
                    "a BIGINT, b STRING, zz STRING",
                    opts,
                    False,
                )
            )
    results = all_same_as_jackson(spark, cases, chunk=1)
    assert_errors(
        [c for c in cases if c.path.stem != "big_exponent_fine"],
        [r for c, r in zip(cases, results, strict=True) if c.path.stem != "big_exponent_fine"],
    )


def test_invalid_utf8_same_error_or_same_decoding(spark, tmp_path):
    cases = [
        Case(write(tmp_path / f"{name}.json", data), given="s STRING")
        for name, data in INVALID_UTF8.items()
    ]
    results = all_same_as_jackson(spark, cases, chunk=1)
    assert_errors(cases, results)


def test_invalid_utf8_skipped_or_replaced_same_rows(spark, tmp_path):
    cases = []
    for name, data in sorted(INVALID_UTF8.items()):
        p = write(tmp_path / f"{name}.json", data)
        cases += [
            Case(p, given="s STRING", opts={"skipInvalidRecords": "true"}),
            Case(p, given="s STRING", opts={"invalidUtf8": "replace"}),
        ]
    results = all_same_as_jackson(spark, cases, bytes_chunk=1)
    for c, (r, _) in zip(cases, results, strict=True):
        assert rows_of(r)[-1]["s"] == "after", str(c)


def test_nesting_deeper_than_max_depth(spark, tmp_path):
    p = write(
        tmp_path / "deep.json",
        lines({"a": 1}, deep(60), {"a": 2}, '{"a": 3, "z": ' + "[" * 70 + "]" * 70 + "}"),
    )
    schema = StructType.fromJson(json.loads(run_cases(spark, [Case(p)], "jackson", 1)[0][1]))
    # 61 and 71 levels of containers: limits around both; with only column a the deep values
    # are skipped, and still count
    cases = [
        Case(p, given=g, opts={"maxDepth": d})
        for d in ("60", "61", "71")
        for g in (schema, "a BIGINT")
    ]
    cases += [Case(p, given="a BIGINT", opts={"maxDepth": "61", "skipInvalidRecords": "true"})]
    results = all_same_as_jackson(spark, cases, chunk=1)
    assert [r[0] for r, _ in results[:2]] == ["error", "error"]  # maxDepth=60
    result, alone = same_as_jackson(spark, p, given=schema, maxDepth="100")
    assert len(rows_of(result)) == 4 and alone


def test_sample_records_later_keys_and_values(spark, tmp_path):
    p = write(
        tmp_path / "late.json",
        lines(
            {"a": 1, "m": {"x": 1}},
            {"a": 2.5, "m": {"x": "7"}},
            {"a": "3"},
            {"a": 4, "b": 1},
            {"a": 5, "m": {"y": 1}},
            {"a": {"o": 1}},
            {"a": 6},
        ),
    )
    cases = [
        Case(p, opts={"sampleRecords": n, **skip})
        for n in ("1", "3")
        for skip in ({}, {"skipInvalidRecords": "true"})
    ]
    results = all_same_as_jackson(spark, cases, chunk=1)
    assert [r[0] for r, _ in results] == ["error", "ok", "error", "ok"]
    assert all(rows_of(r) for r, _ in results[1::2])


PROBE = textwrap.dedent("""
    import json, sys, time, urllib.request
    import drillspark
    from pyspark.sql import functions as F
    spark = drillspark.session(master="local[1]", app_name="skip-probe", **{
        "spark.ui.enabled": "true", "spark.ui.port": "0"})
    base = spark.sparkContext.uiWebUrl + "/api/v1/applications/" + spark.sparkContext.applicationId
    out = {}
    for scanner in ("jackson", "fast", "bytes"):
        spark.conf.set("spark.drillspark.readScanner", scanner)
        try:
            df = spark.read.format("drill").options(skipInvalidRecords="true").load(sys.argv[1])
            rows = [r[0] for r in df.select(F.to_json(F.struct("*"))).collect()]
        except Exception as e:
            out[scanner] = {"error": "byte reader gave up" if "byte reader gave up" in str(e) else str(e)[:500]}
            continue
        for _ in range(50):
            last = max(json.load(urllib.request.urlopen(base + "/sql?details=true", timeout=30)),
                       key=lambda q: q["id"])
            found = [m["value"] for n in last.get("nodes", []) for m in n.get("metrics", [])
                     if m["name"].startswith("invalid records skipped")]
            if found and last.get("status") == "COMPLETED":
                break
            time.sleep(0.2)
        out[scanner] = {"rows": rows, "skipped": [int(str(v).replace(",", "").split()[0]) for v in found]}
    print("RESULT", json.dumps(out), flush=True)
    spark.stop()
""")


@pytest.mark.spark_process
def test_skipped_record_count_is_the_same(tmp_path, python_exe):
    """The skippedInvalidRecords metric (read back through the UI's REST API, in a separate
    process with the UI on) counts each bad record once, whichever reader skipped it."""
    d = tmp_path / "in"
    good = [json.dumps({"a": i, "s": "x" * (i % 7)}) for i in range(3000)]
    bad = [
        '{"a": 100, "s": }',
        '{"a": }',
        "not json at all",
        "5",
        '"text"',
        "[1, 2]",
        '{"a": 1 "s": "x"}',
    ]
    order = list(good)
    for k, b in enumerate(bad):
        order.insert(1000 + 250 * k, b)
    write(d / "skip.json", "\n".join(order) + "\n")
    write(d / "arr.json", '[{"a": 10, "s": "y"},\n {"a": 11, "s": },\n {"a": 12, "s": "y"}\n]\n')
    script = write(tmp_path / "probe.py", PROBE)
    done = subprocess.run(
        [python_exe, str(script), str(d)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    assert result, done.stderr[-3000:]
    got = json.loads(result[0].split(" ", 1)[1])
    counts = {k: v.get("skipped", v) for k, v in got.items()}
    jackson = got["jackson"]
    assert len(jackson["rows"]) == len(good) + 2 and jackson["skipped"] == [len(bad) + 1], counts
    assert got["fast"] == jackson, counts
    if "error" in got["bytes"]:
        assert GAVE_UP in got["bytes"]["error"], got["bytes"]
    else:
        assert got["bytes"] == jackson, counts
