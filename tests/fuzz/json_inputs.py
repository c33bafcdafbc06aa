"""Inputs for the JSON reader's fuzzing (test_json_reader_fuzz.py): JSON files built from
generated records and written in each layout Drill reads (JSON lines, concatenated, pretty,
one outer array, with comments and unquoted names), files cut from the real data in
../shared/data, byte mutations of both (bytes that matter to a JSON scanner, invalid UTF-8,
deep brackets, pieces of other inputs), and the `drill` source's options."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

NAMES = ["a", "b", "A", "c", "$numberLong", "$date", "dir0", "k\u00e9", "", "a b"]

# bytes and pieces a JSON scanner decides on
PIECES: list[bytes] = [
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"',
    b"\\",
    b"\n",
    b"\r\n",
    b" ",
    b"\t",
    b"0",
    b"-",
    b"1e999",
    b"-0.0",
    b"9223372036854775808",
    b"1" * 30,
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"null",
    b"true",
    b"fals",
    b"//",
    b"/*",
    b"*/",
    b"'a'",
    b'"\\u',
    b'"\\ud83d"',
    b'"\\ud83d\\ude00"',
    b"\\x",
    b"\xc0\xaf",  # overlong '/'
    b"\xe0\x80\xaf",
    b"\xed\xa0\x80",  # a surrogate in UTF-8
    b"\xf4\x90\x80\x80",  # above U+10FFFF
    b"\x80",
    b"\xff",
    b"\xef\xbb\xbf",  # a byte order mark
    b"\x00",
    b"\xe2\x82",  # a sequence cut short
    b"\xc3\xa9",
    b'{"a":' * 40,
    b"[" * 60,
    b"]" * 60,
    b'{"$numberLong": "12"}',
    b'{"$date": "2020-01-01T00:00:00Z"}',
]

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["", "2020-01-01", "12:30:00", "1e3", "true", "\u00e9\U0001f600"]),
)
values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(NAMES), inner, max_size=4),
    ),
    max_leaves=12,
)
records = st.lists(
    st.dictionaries(st.sampled_from(NAMES), values, max_size=5), min_size=1, max_size=6
)


@st.composite
def layouts(draw: st.DrawFn, recs: list[dict]) -> bytes:
    """The records in one of the layouts Drill reads, sometimes with Drill's extras."""
    how = draw(st.sampled_from(["lines", "concatenated", "pretty", "array", "extras"]))
    if how == "lines":
        text = "".join(json.dumps(r) + "\n" for r in recs)
    elif how == "concatenated":
        text = "  ".join(json.dumps(r, separators=(",", ":")) for r in recs)
    elif how == "pretty":
        text = "\n".join(json.dumps(r, indent=2) for r in recs)
    elif how == "array":
        text = json.dumps(recs)
    else:  # comments, unquoted names, non-finite numbers
        parts = []
        for r in recs:
            body = ", ".join(
                f"{k if k.isidentifier() else json.dumps(k)}: {_extra(draw, v)}"
                for k, v in r.items()
            )
            parts.append("/* r */ {" + body + "} // end\n")
        text = "".join(parts)
    return text.encode("utf-8", "surrogatepass")


def _extra(draw: st.DrawFn, v: object) -> str:
    if isinstance(v, float) and draw(st.booleans()):
        return draw(st.sampled_from(["NaN", "Infinity", "-Infinity"]))
    return json.dumps(v)


@cache
def real_seeds() -> tuple[bytes, ...]:
    """Beginnings of real JSON files in the shared data (read in place, never copied)."""
    from tests.shared_data import SHARED

    found: list[bytes] = []
    data = SHARED / "data"
    for pattern in ("**/*.json", "**/*.ndjson"):
        for p in sorted(data.glob(pattern))[:400]:
            if p.is_file() and len(found) < 60 and p.stat().st_size > 0:
                found.append(_head(p))
    return tuple(found) or (b'{"a": 1}\n',)


def _head(p: Path) -> bytes:
    with p.open("rb") as f:
        return f.read(1500)


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[bytes]) -> bytes:
    """`base` with 0-5 byte mutations: a piece inserted, bytes deleted, flipped, duplicated,
    or replaced by a slice of a real file; or cut short."""
    data = bytearray(draw(base))
    for _ in range(draw(st.integers(0, 5))):
        i = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["piece", "delete", "flip", "dup", "splice", "cut", "byte"]))
        if how == "piece":
            data[i:i] = draw(st.sampled_from(PIECES))
        elif how == "delete":
            del data[i : i + draw(st.integers(1, 8))]
        elif how == "flip" and i < len(data):
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif how == "dup":
            j = draw(st.integers(i, min(len(data), i + 40)))
            data[j:j] = data[i:j]
        elif how == "splice":
            other = draw(st.sampled_from(real_seeds()))
            j = draw(st.integers(0, len(other)))
            data[i:i] = other[j : j + draw(st.integers(1, 60))]
        elif how == "cut":
            del data[i:]
        elif how == "byte":
            data[i:i] = bytes([draw(st.integers(0, 255))])
    return bytes(data)


generated_files = records.flatmap(layouts)
real_files = st.sampled_from(real_seeds()).flatmap(
    lambda b: st.integers(1, len(b)).map(lambda n: b[:n])
)
files = mutated(st.one_of(generated_files, generated_files, real_files))

# the source's options, as the Python API and the SQL session options set them
options = st.fixed_dictionaries(
    {},
    optional={
        "allTextMode": st.sampled_from(["true", "false"]),
        "readNumbersAsDouble": st.sampled_from(["true", "false"]),
        "typeConflict": st.sampled_from(["json", "variant", "error"]),
        "skipInvalidRecords": st.sampled_from(["true", "false"]),
        "invalidUtf8": st.sampled_from(["error", "replace"]),
        "nanInf": st.sampled_from(["true", "false"]),
        "escapeAnyChar": st.sampled_from(["true", "false"]),
        "extendedTypes": st.sampled_from(["true", "false"]),
        "maxDepth": st.sampled_from(["2", "5", "30", "1000"]),
        "maxSchemaDepth": st.sampled_from(["1", "2", "4", "100"]),
        "sampleRecords": st.sampled_from(["1", "2"]),
        "batchRows": st.sampled_from(["1", "3", "4096"]),
    },
)
split_bytes = st.sampled_from([0, 0, 7, 16, 33, 64])
