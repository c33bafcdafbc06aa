"""Splitting SQL text into statements and recognising Drill's non-query statements (USE,
ALTER SESSION, SHOW, DESCRIBE, EXPLAIN, CREATE VIEW, CREATE TABLE AS, DROP). Queries (and the
query of a CREATE) go on to sqlglot (parser.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drillspark.sql.errors import SqlSyntaxError, position_of


@dataclass(frozen=True)
class Statement:
    """One statement: `text` without the trailing ';'."""

    text: str


@dataclass(frozen=True)
class Query(Statement):
    pass


@dataclass(frozen=True)
class Explain(Statement):
    query: str = ""
    query_offset: int = 0


@dataclass(frozen=True)
class Use(Statement):
    schema: tuple[str, ...] = ()


@dataclass(frozen=True)
class SetOption(Statement):
    """ALTER SESSION SET / SET / ALTER SESSION RESET (value None = reset; name '' = all)."""

    name: str = ""
    value: object = None
    scope: str = "session"


@dataclass(frozen=True)
class ShowFiles(Statement):
    schema: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ShowSchemas(Statement):
    like: str | None = None


@dataclass(frozen=True)
class ShowTables(Statement):
    schema: tuple[str, ...] | None = None
    like: str | None = None


@dataclass(frozen=True)
class Describe(Statement):
    table: tuple[str, ...] = field(default_factory=tuple)
    column: str | None = None  # DESCRIBE t col
    like: str | None = None  # DESCRIBE t 'pattern'


@dataclass(frozen=True)
class DescribeSchema(Statement):
    schema: tuple[str, ...] = ()


@dataclass(frozen=True)
class CreateView(Statement):
    """CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(cols)] AS query."""

    name: tuple[str, ...] = ()
    columns: tuple[str, ...] | None = None
    replace: bool = False
    if_not_exists: bool = False
    query: str = ""
    query_offset: int = 0


@dataclass(frozen=True)
class CreateTable(Statement):
    """CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name [(cols)] [PARTITION BY (cols)] AS query."""

    name: tuple[str, ...] = ()
    columns: tuple[str, ...] | None = None
    temporary: bool = False
    if_not_exists: bool = False
    partition: tuple[str, ...] = ()
    query: str = ""
    query_offset: int = 0


@dataclass(frozen=True)
class Drop(Statement):
    """DROP TABLE|VIEW [IF EXISTS] name."""

    kind: str = "TABLE"
    name: tuple[str, ...] = ()
    if_exists: bool = False


def split(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each ';'-terminated statement, ignoring ';' inside quotes, backticks
    and comments. A final statement without ';' is kept; empty ones are dropped."""
    out: list[tuple[int, str]] = []
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'`\"":
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:  # doubled quote escapes itself
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
            continue
        if text.startswith("--", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c == ";":
            _keep(out, text, start, i)
            start = i + 1
        i += 1
    _keep(out, text, start, n)
    return out


def _keep(out: list[tuple[int, str]], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    if _strip_comments(chunk).strip():
        lead = len(chunk) - len(chunk.lstrip())
        out.append((start + lead, chunk.strip()))


def _strip_comments(text: str) -> str:
    return re.sub(r"--[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def is_complete(text: str) -> bool:
    """True when `text` ends with a ';' outside quotes/comments (the shell's Enter rule) or is
    a '!' shell command."""
    stripped = text.strip()
    if not stripped or stripped.startswith("!"):
        return True
    in_quote = None
    i = 0
    last_semicolon = False
    while i < len(text):
        c = text[i]
        if in_quote:
            if c == in_quote:
                in_quote = None
        elif c in "'`\"":
            in_quote = c
        elif text.startswith("--", i):
            nl = text.find("\n", i)
            if nl < 0:
                break
            i = nl
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return False
            i = end + 2
            continue
        elif c == ";":
            last_semicolon = True
        elif not c.isspace():
            last_semicolon = False
        i += 1
    return last_semicolon and in_quote is None


# ----------------------------------------------------------------------------- classification

# an unquoted name starts with a letter of any script (as in Calcite: `ſtore`, `ключ`), `_`
# or `$`; [A-Za-z] would drop a leading `ſ` where the pattern is not case-insensitive
_IDENT = r"(?:`(?:[^`]|``)*`|(?:[^\W\d]|\$)[\w$]*)"
_SCHEMA = rf"{_IDENT}(?:\s*\.\s*{_IDENT})*"
_WS = r"\s+"
_COLUMNS = rf"\(\s*{_IDENT}(?:\s*,\s*{_IDENT})*\s*\)"


def parse_schema_path(text: str) -> tuple[str, ...]:
    """`dfs.tmp` / ``dfs.`my ws` `` -> ('dfs', 'tmp'); backticks keep dots inside a name."""
    parts = re.findall(_IDENT, text)
    return tuple(p[1:-1].replace("``", "`") if p.startswith("`") else p for p in parts)


def _value(text: str, sql: str, offset: int) -> object:
    raw = text.strip()
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"'(?:[^']|'')*'", raw):
        return raw[1:-1].replace("''", "'")
    if re.fullmatch(r"[+-]?\d+", raw):
        return int(raw)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+", raw):
        return float(raw)
    line, col = position_of(sql, offset)
    raise SqlSyntaxError(
        f"option value must be a literal (true, false, a number or a 'string'), found {raw!r}",
        sql,
        line,
        col,
    )


def classify(text: str) -> Statement:
    """The statement `text` as one of the Statement classes (Query when it is a query or
    anything else sqlglot should parse, e.g. CREATE TABLE AS)."""
    body = _strip_comments(text).strip()
    m = re.match(
        r"(?is)explain\s+plan\s+(?:including\s+all\s+attributes\s+)?"
        r"(?:with(?:out)?\s+implementation\s+)?for\s+",
        text.lstrip(),
    )
    if m:
        lead = len(text) - len(text.lstrip())
        return Explain(text, query=text.lstrip()[m.end() :], query_offset=lead + m.end())
    m = re.fullmatch(rf"(?is)use\s+({_SCHEMA})", body)
    if m:
        return Use(text, schema=parse_schema_path(m.group(1)))
    m = re.fullmatch(rf"(?is)(?:alter\s+(session|system)\s+)?set\s+({_SCHEMA})\s*=\s*(.+)", body)
    if m:
        name = ".".join(parse_schema_path(m.group(2)))
        value = _value(m.group(3), text, text.find(m.group(3)))
        # the name as written: Drill's answer repeats it ("Store.Format updated."), the
        # options registry finds it in any case
        return SetOption(text, name=name, value=value, scope=(m.group(1) or "session").lower())
    m = re.fullmatch(rf"(?is)(?:alter\s+(session|system)\s+)?reset\s+(all|{_SCHEMA})", body)
    if m:
        target = m.group(2)
        name = "" if target.lower() == "all" else ".".join(parse_schema_path(target))
        return SetOption(text, name=name, value=None, scope=(m.group(1) or "session").lower())
    m = re.fullmatch(rf"(?is)show\s+files(?:\s+(?:in|from)\s+({_SCHEMA}))?", body)
    if m:
        return ShowFiles(text, schema=parse_schema_path(m.group(1)) if m.group(1) else None)
    m = re.fullmatch(r"(?is)show\s+(?:schemas|databases)(?:\s+like\s+'((?:[^']|'')*)')?", body)
    if m:
        return ShowSchemas(text, like=m.group(1))
    m = re.fullmatch(
        rf"(?is)show\s+tables(?:\s+(?:in|from)\s+({_SCHEMA}))?"
        r"(?:\s+like\s+'((?:[^']|'')*)')?",
        body,
    )
    if m:
        return ShowTables(
            text,
            schema=parse_schema_path(m.group(1)) if m.group(1) else None,
            like=m.group(2).replace("''", "'") if m.group(2) is not None else None,
        )
    m = re.fullmatch(rf"(?is)(?:describe|desc)\s+(?:schema|database)\s+({_SCHEMA})", body)
    if m:
        return DescribeSchema(text, schema=parse_schema_path(m.group(1)))
    m = re.fullmatch(
        rf"(?is)(?:describe|desc)\s+(?:table\s+)?({_SCHEMA})"
        rf"(?:\s+({_IDENT})|\s+'((?:[^']|'')*)')?",
        body,
    )
    if m:
        column = parse_schema_path(m.group(2))[0] if m.group(2) else None
        like = m.group(3).replace("''", "'") if m.group(3) is not None else None
        return Describe(text, table=parse_schema_path(m.group(1)), column=column, like=like)
    ddl = _ddl(text)
    if ddl is not None:
        return ddl
    first = re.match(r"\s*(\w+)", body)
    keyword = first.group(1).lower() if first else ""
    if keyword in ("show", "describe", "desc", "alter", "use", "explain", "set", "reset", "drop"):
        line, col = position_of(text, text.lower().find(keyword))
        raise SqlSyntaxError(
            f"cannot parse this {keyword.upper()} statement "
            "(see docs/sql.md for the supported forms)",
            text,
            line,
            col,
        )
    return Query(text)


def _ddl(text: str) -> Statement | None:
    """CREATE VIEW / CREATE TABLE AS / DROP, matched on `text` itself (comments before the
    statement allowed) so that the query's offset in `text` is known."""
    lead = re.match(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", text, re.S)
    start = lead.end() if lead else 0
    head = text[start:]
    m = re.match(
        rf"(?is)create\s+(or\s+replace\s+)?view\s+(if\s+not\s+exists\s+)?"
        rf"({_SCHEMA})\s*({_COLUMNS})?\s*as\b\s*",
        head,
    )
    if m:
        return CreateView(
            text,
            name=parse_schema_path(m.group(3)),
            columns=parse_schema_path(m.group(4)) if m.group(4) else None,
            replace=bool(m.group(1)),
            if_not_exists=bool(m.group(2)),
            query=head[m.end() :],
            query_offset=start + m.end(),
        )
    m = re.match(
        rf"(?is)create\s+(temporary\s+)?table\s+(if\s+not\s+exists\s+)?"
        rf"({_SCHEMA})\s*({_COLUMNS})?\s*(?:partition\s+by\s*({_COLUMNS})\s*)?"
        rf"as\b\s*",
        head,
    )
    if m:
        return CreateTable(
            text,
            name=parse_schema_path(m.group(3)),
            columns=parse_schema_path(m.group(4)) if m.group(4) else None,
            temporary=bool(m.group(1)),
            if_not_exists=bool(m.group(2)),
            partition=parse_schema_path(m.group(5)) if m.group(5) else (),
            query=head[m.end() :],
            query_offset=start + m.end(),
        )
    m = re.fullmatch(
        rf"(?is)drop\s+(table|view)\s+(if\s+exists\s+)?({_SCHEMA})\s*",
        _strip_comments(text).strip(),
    )
    if m:
        return Drop(
            text,
            kind=m.group(1).upper(),
            name=parse_schema_path(m.group(3)),
            if_exists=bool(m.group(2)),
        )
    return None
