"""The byte-level discovery scanner against the Jackson token pass: for every JSON file in the
shared data and a set of tricky generated files, both give the same schema (types, order,
names, conflict metadata) or the same error. Scanner choice is the diagnostic Spark conf
spark.drillspark.discoveryScanner: fast (default, falls back to Jackson per split), jackson, or
bytes (the byte scanner alone, failing where it would fall back)."""

from __future__ import annotations

import gzip
import json
import re

import pytest

CONF = "spark.drillspark.discoveryScanner"


def discover(spark, path, scanner, **opts):
    """('ok', schema json with metadata) or ('error', the drill message)."""
    spark.conf.set(CONF, scanner)
    try:
        return "ok", spark.read.format("drill").options(**opts).load(str(path)).schema.json()
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        m = re.search(r"drill: [^\n]*", str(e))
        return "error", m.group(0) if m else f"{type(e).__name__}: {str(e)[:300]}"
    finally:
        spark.conf.unset(CONF)


def same_as_jackson(spark, path, **opts):
    """Check fast == jackson; True when the byte scanner did it alone (no fallback)."""
    jackson = discover(spark, path, "jackson", **opts)
    alone = discover(spark, path, "bytes", **opts)
    if alone[0] == "error" and "byte scanner gave up" in alone[1]:
        assert discover(spark, path, "fast", **opts) == jackson, f"{path} {opts}"
        return jackson, False
    assert alone == jackson, f"{path} {opts}"
    return jackson, True


def shared_json_files(shared):
    pats = ("*.json", "*.ndjson", "*.jsonl", "*.json.gz", "*.ndjson.gz", "*.json.bz2", "*.json.zst")
    files = sorted({p for pat in pats for p in (shared / "data").rglob(pat) if p.is_file()})
    return [p for p in files if not any(part.startswith((".", "_")) for part in p.parts)]


def test_every_shared_json_file_same_schema(spark, shared):
    files = shared_json_files(shared)
    assert len(files) > 50
    handled = 0
    for p in files:
        handled += same_as_jackson(spark, p)[1]
    # the byte scanner does the work for the (strict JSON) bulk of the files, not the fallback
    assert handled > len(files) // 2, (handled, len(files))


def test_shared_ndjson_all_handled_by_bytes(spark, shared):
    for sub in ("yelp", "twitter", "citibike"):
        for p in sorted((shared / "data" / sub).glob("*.ndjson")):
            # forced splits: the split rule and per-split line numbers agree too
            assert same_as_jackson(spark, p, splitBytes="64k")[1], p


def lines(*records):
    return "".join(
        (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records
    )


def deep(n):
    v = 1
    for i in range(n):
        v = {f"k{i % 3}": v} if i % 2 else [v]
    return {"d": v}


STRICT = {
    "nesting": lines(
        {"a": {"b": {"c": [[[{"d": 1}]]]}}}, {"a": {"b": {"c": [[[{"e": "x"}]]]}}}, deep(60)
    ),
    "arrays_of_arrays": lines(
        {"aa": [[1, 2], [3.5]]},
        {"aa": [[], [None]]},
        {"m": [[1], 2]},
        {"m": [3]},
        {"e": []},
        {"e": [None]},
        {"z": [[[]]]},
    ),
    "mixed_kinds": lines(
        {"v": 1},
        {"v": "two"},
        {"v": True},
        {"v": 2.5},
        {"v": None},
        {"w": 1},
        {"w": {"x": 1}},
        {"w": [1]},
        {"q": {"x": 1}},
        {"q": 7},
        {"r": [1]},
        {"r": "s"},
        {"s": [1]},
        {"s": {}},
        {"t": {}},
        {"t": [2]},
    ),
    "case_and_duplicates": lines(
        '{"Ab": 1, "aB": 2.5, "AB": 3, "ab": null}',
        '{"x": {"Good For Kids": true, "good for kids": false}, "X": {"y": 1}}',
        '{"d": 1, "d": "s", "d": {"k": 1}}',
        '{"D": [1], "d": null}',
    ),
    "empty_and_nulls": lines(
        {}, {"e": {}}, {"a": []}, {"n": None}, {"e": {"x": None}}, {"a": [None, None]}
    ),
    "unicode_and_escapes": lines(
        {"ключ": "знач", "é": "\u00e9", "emoji😀": '😀 \t " \\ / \u2028'},
        '{"s": "a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00", "КЛЮЧ": 1}',
        {"中文": {"字": [1, "二"]}},
    ),
    "numbers": lines(
        '{"a": -0, "b": 1e5, "c": 1E-3, "d": 12345678901234567890, "e": 0.0, "f": -1.5e+10}',
        '{"a": 0, "g": 10, "h": -7, "i": 2E+2, "j": 1.0e-0}',
        '{"a": 3.25, "d": 1}',
    ),
    "pretty_conflicts": '{\n  "p": 1,\n  "q": [1]\n}\n{\n  "p": {\n    "x":\n\n      2\n  },\n  "q": {"y": 1}\n}\n'
    '{"r": 1}\n{"r":\n {}\n}\n{"t": 1}\n{"t":\n\n [\n1]}\n',
    "crlf": '{"a": 1}\r\n{"a": {"b": 1}}\r\n{"c": 1}\r{"c": [2]}\r\n\r\n{"d": "x"}\n{"d": {}}\r\n',
    "concatenated": '{"a": 1}{"a": "x"}{"b": {"c": 1}} {"b": 5}\n\n\t{"b": [1]}',
    "conflict_late_lines": lines(
        *(
            [{"id": i, "p": i} for i in range(300)]
            + [{"id": 300, "p": {"x": 1}}]
            + [{"id": i, "p": [i]} for i in range(301, 600)]
        )
    ),
}

FALLBACK = {
    "top_level_array": '[{"a": 1}, {"a": "x"}]',
    "comments": '{"a": 1} // c\n/* b */ {"a": {"b": 2}}\n',
    "unquoted_names": '{a: 1}\n{"a": {"b": 1}}\n',
    "nan_inf": '{"x": NaN, "y": 1}\n{"x": -Infinity, "y": {"z": 1}}\n',
    "escape_in_key": '{"k\\"q": 1, "a\\u00e9": 2}\n{"K\\"Q": "s"}\n',
    "single_quotes": "{'a': 1}\n",
}

BAD = {
    "missing_value": '{"a": 1}\n{"a": }\n',
    "leading_zero": '{"a": 01}\n',
    "truncated": '{"a": 1}\n{"a": {"b": 2}\n',
    "trailing_comma": '{"a": [1, 2,]}\n',
    "top_level_scalar": '{"a": 1}\n42\n',
    "bad_escape": '{"a": "x\\qy"}\n',
    "raw_control": '{"a": "x\ty"}\n',
}


@pytest.mark.parametrize("name", sorted(STRICT))
def test_tricky_strict_files(spark, tmp_path, name):
    p = tmp_path / f"{name}.json"
    p.write_text(STRICT[name], encoding="utf-8")
    (status, _), alone = same_as_jackson(spark, p)
    assert status == "ok" and alone


@pytest.mark.parametrize(
    "opts",
    [
        {"allTextMode": "true"},
        {"readNumbersAsDouble": "true"},
        {"sampleRecords": "2"},
        {"typeConflict": "variant"},
    ],
)
def test_options_on_all_strict_files(spark, tmp_path, opts):
    for name, text in STRICT.items():
        (tmp_path / f"{name}.json").write_text(text, encoding="utf-8")
    (status, _), alone = same_as_jackson(spark, tmp_path, **opts)
    assert status == "ok" and alone


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_fallback_files(spark, tmp_path, name):
    p = tmp_path / f"{name}.json"
    p.write_text(FALLBACK[name], encoding="utf-8")
    assert not same_as_jackson(spark, p)[1]


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_same_error(spark, tmp_path, name):
    p = tmp_path / f"{name}.json"
    p.write_text(BAD[name], encoding="utf-8")
    (status, msg), _ = same_as_jackson(spark, p)
    assert status == "error" and msg.startswith("drill: "), msg


def test_invalid_utf8_and_bom(spark, tmp_path):
    bad = tmp_path / "bad_utf8.json"
    bad.write_bytes(b'{"a": "ok"}\n{"a": "x\xff\xfey"}\n')
    (status, _), alone = same_as_jackson(spark, bad)
    assert status == "error" and not alone
    badkey = tmp_path / "bad_key.json"
    badkey.write_bytes(b'{"\xc3\x28": 1}\n')
    assert not same_as_jackson(spark, badkey)[1]
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"a": 1}\n{"a": {"b": 1}}\n')
    (status, _), alone = same_as_jackson(spark, bom)
    assert status == "ok" and alone


def test_extended_types_and_depth(spark, tmp_path):
    p = tmp_path / "ext.json"
    p.write_text(
        lines({"n": {"$numberLong": "5"}, "d": {"$date": "2020-01-01T00:00:00Z"}, "o": {"$x": 1}})
    )
    assert not same_as_jackson(spark, p, extendedTypes="true")[1]
    assert same_as_jackson(spark, p)[1]
    d = tmp_path / "deep.json"
    d.write_text(lines(deep(8)))
    assert same_as_jackson(spark, d, maxDepth="4")[0][0] == "error"
    (status, _), alone = same_as_jackson(spark, d, maxDepth="40")
    assert status == "ok" and alone


def test_compressed_and_split_files(spark, tmp_path):
    text = STRICT["mixed_kinds"] + STRICT["case_and_duplicates"] + STRICT["conflict_late_lines"]
    gz = tmp_path / "c.json.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert same_as_jackson(spark, gz)[1]
    plain = tmp_path / "split.json"
    plain.write_text(text)
    # many small splits: records owned by each split, conflicts named with per-split lines
    for size in ("97", "500", "4k"):
        (status, _), alone = same_as_jackson(spark, plain, splitBytes=size)
        assert status == "ok" and alone


def test_many_files_in_a_spark_job(spark, tmp_path):
    for i in range(12):
        (tmp_path / f"f{i:02}.json").write_text(
            lines({"id": i, f"k{i % 4}": i * 1.5, "v": [i] if i % 2 else i})
        )
    (status, schema), alone = same_as_jackson(spark, tmp_path, discoveryParallelFiles="4")
    assert status == "ok" and alone and "drill.typeConflict" in schema


def test_buffer_boundaries(spark, tmp_path):
    """Keys, strings, escapes, numbers and UTF-8 sequences cut by the scanner's 64 KiB reads."""
    import random

    rnd = random.Random(7)
    recs = []
    for i in range(3000):
        r = {
            f"key_{rnd.randint(0, 40)}_{'x' * rnd.randint(0, 30)}": 'é😀"\\' * rnd.randint(0, 9),
            "n": rnd.choice([i, i * 0.5, -i, 1e20, None]),
            "s": "y" * rnd.randint(0, 300),
        }
        if i % 97 == 0:
            r["late"] = {"k": [i]} if i % 2 else i
        recs.append(r)
    p = tmp_path / "big.json"
    p.write_text(lines(*recs), encoding="utf-8")
    assert p.stat().st_size > 4 * 65536
    (status, _), alone = same_as_jackson(spark, p)
    assert status == "ok" and alone
    assert same_as_jackson(spark, p, splitBytes="100k")[1]
