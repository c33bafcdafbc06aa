"""Drill rules both halves of drillspark read from one table in this folder: the wheel carries
the folder and tools/build_jar.py puts it in the extension jar (`drillspark/rules/`), so
neither side keeps a copy of its own. `json_options.tsv`: the JSON reader options' Drill
spellings; `drill_types.tsv`: Drill's type names and their Spark types; `drill_options.tsv`:
Drill's options as Drill 1.22 lists them (the facts drillspark.options builds its registry on);
`text_formats.tsv`: Drill's named text configs (csv, csvh, tsv, psv).
This package imports nothing of drillspark, so every layer may use it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class JsonOption:
    option: str  # the `drill` source's name
    spellings: tuple[str, ...]  # Drill's; the first is what a plan's format config holds
    session: str | None  # the Drill session option that sets it in drillspark.sql


def _rows(name: str, columns: int) -> list[list[str]]:
    """The rows of the table `name` in this folder: tab-separated, blank and `#` lines skipped
    (the JVM's reader of the same tables is source/RulesTable)."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            cells = line.split("\t")
            if len(cells) != columns:
                raise ValueError(f"drillspark/rules/{name}: not {columns} columns: {line!r}")
            rows.append(cells)
    return rows


@cache
def json_options() -> tuple[JsonOption, ...]:
    return tuple(
        JsonOption(option, tuple(spellings.split(",")), None if session == "-" else session)
        for option, spellings, session in _rows("json_options.tsv", 3)
    )


@dataclass(frozen=True)
class DrillTypeName:
    name: str  # Drill's spelling, upper case, words separated by one space
    spark: str  # the Spark type as Spark's JSON schema names it (a decimal: its default digits)
    schema: str  # where a provided schema takes it: "drill", "spark" or "refused"
    note: str  # Drill's answer; for a refused name, Drill's error


@cache
def drill_types() -> dict[str, DrillTypeName]:
    return {row[0]: DrillTypeName(*row) for row in _rows("drill_types.tsv", 4)}


@dataclass(frozen=True)
class DrillOptionFacts:
    """One option as Drill 1.22 answers (tools/drill_options_table.py asked it)."""

    name: str
    kind: str  # BOOLEAN, LONG, DOUBLE or STRING (as /options.json names it)
    default: str  # as sys.options shows it
    scopes: str  # accessibleScopes: ALL, SYSTEM, SYSTEM_AND_SESSION or SESSION_AND_QUERY
    internal: bool  # listed by sys.internal_options, not sys.options and /options.json
    validator: str  # "" none; "range:MIN:MAX", "one_of:A,B", "enum:A,B", "int", ...
    description: str  # "" none


@cache
def drill_options() -> tuple[DrillOptionFacts, ...]:
    def cell(text: str) -> str:
        return "" if text == "-" else text

    return tuple(
        DrillOptionFacts(
            name, kind, default, scopes, table == "internal", cell(validator), cell(description)
        )
        for name, kind, default, scopes, table, validator, description in _rows(
            "drill_options.tsv", 7
        )
    )


@dataclass(frozen=True)
class TextNamedConfig:
    """One of Drill's bootstrap `dfs` configs of type text (csv, csvh, tsv, psv)."""

    name: str
    extensions: tuple[str, ...]  # those Drill's config lists
    also: tuple[str, ...]  # extensions drillspark reads with it too (*.psv)
    field_delimiter: str  # the character itself (the table writes a tab as \t)
    extract_header: bool


_TABLE_ESCAPES = {"\\t": "\t", "\\n": "\n", "\\\\": "\\"}


@cache
def text_formats() -> tuple[TextNamedConfig, ...]:
    def listed(cell: str) -> tuple[str, ...]:
        return () if cell == "-" else tuple(cell.split(","))

    return tuple(
        TextNamedConfig(
            name,
            listed(extensions),
            listed(also),
            _TABLE_ESCAPES.get(delimiter, delimiter),
            header == "true",
        )
        for name, extensions, also, delimiter, header in _rows("text_formats.tsv", 5)
    )
