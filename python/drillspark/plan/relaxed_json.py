"""JSON as Drill's plan reader takes it (Jackson with ALLOW_COMMENTS and
ALLOW_UNQUOTED_FIELD_NAMES): unquoted field names (`op: "scan"`, `@id: 1`), `//` and `/* */`
comments; strings stay double-quoted. Every value's position is recorded so plan errors can
name the line and column. A repeated field name is accepted with the last value winning, as
Jackson does; each repeat is recorded in `Document.warnings`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, NoReturn

from drillspark.errors import PlanFailure

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Location:
    line: int
    column: int


@dataclass
class Document:
    """A parsed document: the value, and where each value (by JSON path) starts. For string
    values, `raw` keeps the source text between the quotes so positions inside the string
    (expressions) can be mapped back to the file."""

    value: Any
    positions: dict[JsonPath, Location] = field(default_factory=dict)
    key_positions: dict[JsonPath, Location] = field(default_factory=dict)
    raw_strings: dict[JsonPath, str] = field(default_factory=dict)
    # (message, JSON path, where) for things accepted but worth telling: repeated field names
    warnings: list[tuple[str, JsonPath, Location]] = field(default_factory=list)

    def location(self, path: JsonPath) -> Location | None:
        """Where the value at `path` starts, or its closest recorded parent."""
        while True:
            if path in self.positions:
                return self.positions[path]
            if not path:
                return None
            path = path[:-1]

    def location_in_string(self, path: JsonPath, offset: int) -> Location | None:
        """Where character `offset` of the decoded string at `path` is in the source."""
        start = self.positions.get(path)
        raw = self.raw_strings.get(path)
        if start is None or raw is None:
            return None
        i = decoded = 0
        line, column = start.line, start.column + 1  # after the opening quote
        while i < len(raw) and decoded < offset:
            step = 1
            if raw[i] == "\\":
                step = 6 if raw[i + 1 : i + 2] == "u" else 2
            if raw[i] == "\n":  # not legal JSON, but keep counting right
                line, column = line + 1, 1
            else:
                column += step
            i += step
            decoded += 1
        return Location(line, column)


class JsonSyntaxError(PlanFailure, ValueError):
    def __init__(self, message: str, line: int, column: int):
        self.reason = message
        self.line = line
        self.column = column
        super().__init__(f"{message} at line {line}, column {column}")


_WS = re.compile(r"(?:[ \t\r\n\ufeff]+|//[^\n]*|/\*.*?\*/)*", re.S)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# half of a UTF-16 surrogate pair: no character on its own (parser.py checks dicts with it)
SURROGATE = re.compile("[\ud800-\udfff]")
_BARE_NAME = re.compile(r"[A-Za-z_$@][A-Za-z_$@0-9]*")
_STRING = re.compile(r'"((?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def loads(text: str) -> Document:
    """Parse relaxed JSON; JsonSyntaxError names the line and column of the problem."""
    return _Reader(text).document()


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.doc = Document(None)
        # line start offsets, for offset -> (line, column)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def loc(self, offset: int) -> Location:
        import bisect

        line = bisect.bisect_right(self.line_starts, offset)
        return Location(line, offset - self.line_starts[line - 1] + 1)

    def fail(self, message: str, offset: int | None = None) -> NoReturn:
        loc = self.loc(self.i if offset is None else offset)
        raise JsonSyntaxError(message, loc.line, loc.column)

    def skip(self) -> None:
        m = _WS.match(self.text, self.i)
        self.i = m.end() if m else self.i
        if self.text.startswith("/*", self.i):
            self.fail("unterminated /* comment")

    def document(self) -> Document:
        self.skip()
        self.doc.value = self.value(())
        self.skip()
        if self.i != len(self.text):
            self.fail(f"unexpected {self.text[self.i]!r} after the end of the JSON value")
        return self.doc

    def value(self, path: JsonPath) -> Any:
        if self.i >= len(self.text):
            self.fail("unexpected end of input")
        self.doc.positions[path] = self.loc(self.i)
        c = self.text[self.i]
        if c == "{":
            return self.obj(path)
        if c == "[":
            return self.arr(path)
        if c == '"':
            raw, value = self.string()
            self.doc.raw_strings[path] = raw
            return value
        if c == "'":
            self.fail("single-quoted strings are not JSON (Drill's plan reader rejects them)")
        m = _NUMBER.match(self.text, self.i)
        if m and m.end() > self.i:
            self.i = m.end()
            if m.group(1) or m.group(2):
                number = float(m.group(0))
                if math.isinf(number):  # it could not be written back as JSON
                    self.i = m.start()
                    self.fail("the number is too large for a double")
                return number
            try:
                return int(m.group(0))
            except ValueError:  # longer than Python's int conversion limit (4,300 digits)
                self.i = m.start()
                self.fail(f"an integer of {len(m.group(0).lstrip('-'))} digits is too long")
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return val
        self.fail(f"unexpected {c!r}: expected a JSON value")

    def string(self) -> tuple[str, str]:
        m = _STRING.match(self.text, self.i)
        if not m:
            end = self.text.find("\n", self.i)
            if '"' not in self.text[self.i + 1 : end if end >= 0 else None]:
                self.fail("unterminated string")
            self.fail("invalid character or escape in string")
        raw = m.group(1)
        try:
            value = _decode(raw)
        except UnicodeDecodeError:
            self.fail("half a UTF-16 surrogate pair (U+D800 to U+DFFF) is not a character")
        self.i = m.end()
        return raw, value

    def obj(self, path: JsonPath) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        self.skip()
        if self.text.startswith("}", self.i):
            self.i += 1
            return out
        while True:
            self.skip()
            key_at = self.i
            if self.text.startswith('"', self.i):
                _, key = self.string()
            else:
                m = _BARE_NAME.match(self.text, self.i)
                if not m:
                    self.fail("expected a field name")
                key = m.group(0)
                self.i = m.end()
            if key in out:
                # Jackson keeps the last value; drop what the earlier one recorded
                first = self.doc.key_positions[(*path, key)]
                self.doc.warnings.append(
                    (
                        f"duplicate field {key!r} (first at line {first.line}, column {first.column}); "
                        "the last value wins, as in Drill",
                        (*path, key),
                        self.loc(key_at),
                    )
                )
                self._forget((*path, key))
            self.doc.key_positions[(*path, key)] = self.loc(key_at)
            self.skip()
            if not self.text.startswith(":", self.i):
                self.fail(f"expected ':' after field name {key!r}")
            self.i += 1
            self.skip()
            out[key] = self.value((*path, key))
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
                continue
            if self.text.startswith("}", self.i):
                self.i += 1
                return out
            self.fail("expected ',' or '}' in object")

    def _forget(self, prefix: JsonPath) -> None:
        n = len(prefix)
        for table in (self.doc.positions, self.doc.key_positions, self.doc.raw_strings):
            for k in [k for k in table if k[:n] == prefix]:
                del table[k]

    def arr(self, path: JsonPath) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        self.skip()
        if self.text.startswith("]", self.i):
            self.i += 1
            return out
        while True:
            self.skip()
            out.append(self.value((*path, len(out))))
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
                continue
            if self.text.startswith("]", self.i):
                self.i += 1
                return out
            self.fail("expected ',' or ']' in array")


def _decode(raw: str) -> str:
    if "\\" not in raw and not SURROGATE.search(raw):
        return raw
    out, i = [], 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            nxt = raw[i + 1]
            if nxt == "u":
                out.append(chr(int(raw[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    text = "".join(out)
    if SURROGATE.search(text):  # \ud83d\ude00 is one character; a lone half is none
        text = text.encode("utf-16", "surrogatepass").decode("utf-16")
    return text


def path_text(path: JsonPath) -> str:
    """`$.query[2].do[0].expr` spelling of a JSON path."""
    out = "$"
    for p in path:
        out += (
            f"[{p}]" if isinstance(p, int) else (f".{p}" if _BARE_NAME.fullmatch(p) else f"[{p!r}]")
        )
    return out
