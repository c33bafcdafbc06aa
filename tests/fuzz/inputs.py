"""Hypothesis strategies for the fuzz targets: plans built from every registered operator's
documented example and mutated, real plans mutated as JSON trees and as text, expressions
from the grammar, SQL generated from a small grammar or mutated from the breadth corpus."""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from drillspark.plan.registry import SPECS
from drillspark.plan.relaxed_json import JsonSyntaxError, loads

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("DRILLSPARK_SHARED", ROOT.parent / "shared")).resolve()
BREADTH = SHARED / "conformance" / "breadth" / "cases.jsonl"

# ------------------------------------------------------------------------------ plans

# Property names and values plans use, for mutations that stay near the real shapes.
PLAN_KEYS = [
    "op",
    "@id",
    "memo",
    "input",
    "inputs",
    "expr",
    "ref",
    "projections",
    "selection",
    "storageengine",
    "storageEngine",
    "content",
    "left",
    "right",
    "conditions",
    "type",
    "relationship",
    "orderings",
    "order",
    "nullCollation",
    "first",
    "last",
    "keys",
    "exprs",
    "within",
    "withins",
    "target",
    "aggregations",
    "distinct",
    "name",
    "drop",
    "column",
    "transforms",
    "do",
    "sequence",
    "head",
    "storage",
    "query",
    "start",
    "end",
    "segment",
    "position",
    "carryovers",
    "partition",
    "version",
    "options",
    "duplicates",
    "direction",
]
PLAN_WORDS = [
    "scan",
    "values",
    "constant",
    "join",
    "semi-join",
    "lateral-join",
    "unnest",
    "union",
    "except",
    "intersect",
    "store",
    "project",
    "filter",
    "transform",
    "order",
    "limit",
    "flatten",
    "segment",
    "windowframe",
    "collapsingaggregate",
    "runningaggregate",
    "groupingaggregate",
    "window",
    "sequence",
    "inner",
    "left",
    "outer",
    "anti",
    "==",
    "<",
    "ASC",
    "DESC",
    "FIRST",
    "LAST",
    "--SCREEN--",
    "APACHE_DRILL_LOGICAL",
    "classpath",
    "fs",
    "mock",
    "queue",
    "cp",
    "dfs",
    "merge",
]


@cache
def plan_texts() -> tuple[str, ...]:
    """Real plans as text: Drill's plan files (read in place), the examples/ plans, and every
    JSON block of docs/logical-plans.md (most are single operators)."""
    files = sorted((SHARED / "data" / "drill-conformance" / "logical").rglob("*.json"))
    files += sorted((ROOT / "examples" / "plans").glob("*.json"))
    texts = [f.read_text(encoding="utf-8") for f in files]
    doc = (ROOT / "docs" / "logical-plans.md").read_text(encoding="utf-8")
    texts += re.findall(r"```json\n(.*?)```", doc, re.S)
    return tuple(texts)


@cache
def plan_trees() -> tuple[Any, ...]:
    """The real plans that are JSON (a few of Drill's files are JSON lines: their text is
    still mutated)."""
    out = []
    for text in plan_texts():
        try:
            out.append(json.loads(json.dumps(loads(text).value)))
        except (JsonSyntaxError, ValueError):
            continue
    return tuple(out)


def _operators(value: Any, out: list[dict]) -> list[dict]:
    if isinstance(value, dict):
        if isinstance(value.get("op"), str):
            out.append(value)
        for v in value.values():
            _operators(v, out)
    elif isinstance(value, list):
        for v in value:
            _operators(v, out)
    return out


@cache
def operator_templates() -> dict[str, tuple[dict, ...]]:
    """For every operator of the registry (plan/registry.py), the examples of it found in
    the real plans and the docs, keyed by its JSON `op` name."""
    found: dict[str, list[dict]] = {}
    for tree in plan_trees():
        for op in _operators(tree, []):
            found.setdefault(op["op"], []).append(op)
    return {spec.op: tuple(found.get(spec.op, ())) for spec in SPECS}


@cache  # one strategy object: hypothesis validates each new one
def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(PLAN_WORDS + PLAN_KEYS + EXPRESSION_SAMPLES),
        st.text(max_size=12),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(
                st.one_of(st.sampled_from(PLAN_KEYS), st.text(max_size=6)), inner, max_size=3
            ),
        ),
        max_leaves=max_leaves,
    )


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*here, i))
    return out


def _replace(value: Any, path: tuple, new: Any, delete: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        out = dict(value)
        if delete and not rest:
            out.pop(head, None)
        else:
            out[head] = _replace(value[head], rest, new, delete)
        return out
    items = list(value)
    if delete and not rest:
        del items[head]
    else:
        items[head] = _replace(value[head], rest, new, delete)
    return items


@st.composite
def mutated(draw: st.DrawFn, base: Any, rounds: int = 3) -> Any:
    """`base` with up to `rounds` values replaced, deleted, or given a new property."""
    value = base
    for _ in range(draw(st.integers(0, rounds))):
        path = draw(st.sampled_from(_paths(value)))
        how = draw(st.sampled_from(["replace", "delete", "add", "copy"]))
        if how == "delete" and path:
            value = _replace(value, path, None, delete=True)
        elif how == "add":
            new = dict(
                draw(
                    st.dictionaries(
                        st.sampled_from(PLAN_KEYS), json_values(4), min_size=1, max_size=2
                    )
                )
            )
            target = _get(value, path)
            if isinstance(target, dict):
                value = _replace(value, path, {**target, **new}, delete=False)
        elif how == "copy":  # a piece of another real plan
            other = draw(st.sampled_from(plan_trees()))
            value = _replace(
                value, path, _get(other, draw(st.sampled_from(_paths(other)))), delete=False
            )
        else:
            value = _replace(value, path, draw(json_values()), delete=False)
    return value


def _get(value: Any, path: tuple) -> Any:
    for p in path:
        value = value[p]
    return value


@st.composite
def generated_plans(draw: st.DrawFn) -> dict:
    """A plan of 1-6 operators drawn from the registry's examples, wired into a graph
    (each operator reads earlier ones), ending in a store, then mutated a little."""
    templates = operator_templates()
    names = [name for name, examples in templates.items() if examples]
    count = draw(st.integers(1, 6))
    query = []
    for i in range(1, count + 1):
        op = dict(draw(st.sampled_from(templates[draw(st.sampled_from(names))])))
        op["@id"] = i
        earlier = list(range(1, i))
        for key in ("input", "left", "right"):
            if key in op:
                op[key] = draw(st.sampled_from(earlier)) if earlier else 1
        if "inputs" in op:
            op["inputs"] = (
                draw(st.lists(st.sampled_from(earlier), min_size=2, max_size=3))
                if earlier
                else [1, 1]
            )
        query.append(op)
    query.append({"@id": count + 1, "op": "store", "input": count, "storageengine": "--SCREEN--"})
    plan = {
        "head": {
            "type": "APACHE_DRILL_LOGICAL",
            "version": 1,
            "generator": {"type": "fuzz", "info": ""},
        },
        "storage": {"cp": {"type": "classpath"}, "fs": {"type": "file", "connection": "file:///"}},
        "query": query,
    }
    return draw(mutated(plan, rounds=2))


@st.composite
def mutated_plan_trees(draw: st.DrawFn) -> Any:
    return draw(mutated(draw(st.sampled_from(plan_trees()))))


# ------------------------------------------------------------------------------ text


@st.composite
def mutated_text(draw: st.DrawFn, seeds: tuple[str, ...], pieces: list[str]) -> str:
    """A seed with characters deleted, pieces or random characters inserted, or a slice of
    another seed spliced in."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["delete", "piece", "char", "splice", "cut"]))
        if how == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 12)) :]
        elif how == "piece":
            text = text[:i] + draw(st.sampled_from(pieces)) + text[i:]
        elif how == "char":
            text = text[:i] + draw(st.characters()) + text[i:]
        elif how == "splice":
            other = draw(st.sampled_from(seeds))
            j = draw(st.integers(0, len(other)))
            text = text[:i] + other[j : j + draw(st.integers(1, 60))] + text[i:]
        else:
            text = text[:i]
    return text


JSON_PIECES = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"',
    "'",
    "0",
    "-1",
    "1e999",
    "null",
    "true",
    '"op"',
    "@id",
    '"input"',
    '"expr"',
    "99999999999999999999",
    "\\u0000",
    "\\",
    "/*",
    "//",
    "\n",
    '"\\ud800"',
    "NaN",
    '"a.b[0]"',
    '"(a"',
    '"x +"',
]

# ------------------------------------------------------------------------------ expressions

EXPRESSION_SAMPLES = [
    "a",
    "b.c",
    "a[0]",
    "`x y`",
    "'s'",
    "1",
    "-1",
    "1.5",
    "1e3",
    "true",
    "null",
    "a + 1",
    "(a",
    "f(",
    "cast(a as int)",
    "a[",
    "x.`y`[2].z",
    "if (a) then b else c end",
    "convert_from(a, 'JSON')",
]
_ATOMS = [
    "a",
    "b.c",
    "a[0]",
    "`x y`",
    "`a\\`b`",
    "'s'",
    "'it\\'s'",
    "'\\n'",
    "1",
    "-1",
    "1.5",
    "1e3",
    "1e999",
    "2147483648",
    "9223372036854775808",
    "true",
    "false",
    "null",
    "x.`y`[2].z",
    "'\u00e9'",
    "0",
    ".5",
    "1.",
    "a_b",
    "$a",
    "then",
    "`end`",
]
_FUNCS = ["f", "sqrt", "add", "concat", "count", "sum", "repeat", "then", "and", "else"]
_TYPES = [
    "int",
    "bigint",
    "varchar(10)",
    "float8",
    "vardecimal(10, 2)",
    "varchar",
    "bit",
    "date",
    "int repeat",
    "float4",
    "interval",
    "decimal9(1)",
    "varchar(99999999999)",
]
_BINARY = [
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "==",
    "=",
    "!=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "and",
    "or",
    "&&",
    "||",
]


@cache  # one strategy object: hypothesis validates each new one
def expressions() -> st.SearchStrategy[str]:
    """Expressions of the grammar (docs/logical-plans.md), some deliberately off it."""

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(_BINARY), inner).map(" ".join),
            inner.map(lambda e: f"({e})"),
            st.tuples(st.sampled_from(["-", "!", "- "]), inner).map("".join),
            st.tuples(st.sampled_from(_FUNCS), st.lists(inner, max_size=3)).map(
                lambda t: f"{t[0]}({', '.join(t[1])})"
            ),
            st.tuples(inner, st.sampled_from(_TYPES)).map(lambda t: f"cast({t[0]} as {t[1]})"),
            st.tuples(inner, inner, inner).map(
                lambda t: f"if ({t[0]}) then {t[1]} else {t[2]} end"
            ),
            st.tuples(inner, inner, inner).map(
                lambda t: f"case when {t[0]} then {t[1]} else {t[2]} end"
            ),
            inner.map(lambda e: f"convert_from({e}, 'JSON')"),
        )

    return st.recursive(st.sampled_from(_ATOMS), extend, max_leaves=10)


EXPRESSION_PIECES = list("()[]`'\".,+-*/!<>=&|\\ \n\t0123456789e") + [
    "end",
    "then",
    "else",
    "if",
    "case",
    "when",
    "as",
    "\u00b2",
    "\u0661",
    "\x00",
    "\u2028",
    "99999999999999999999999",
    "/*",
    "//",
]


@st.composite
def mutated_expressions(draw: st.DrawFn) -> str:
    return draw(mutated_text((draw(expressions()),), EXPRESSION_PIECES))


# ------------------------------------------------------------------------------ SQL


@cache
def breadth_sql() -> tuple[str, ...]:
    """The breadth corpus' queries (tables relative to ../shared/data)."""
    with open(BREADTH, encoding="utf-8") as f:
        return tuple(json.loads(line)["sql"] for line in f if line.strip())


SQL_PIECES = [
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP BY",
    "ORDER BY",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "UNION ALL",
    "JOIN",
    "ON",
    "AS",
    "(",
    ")",
    ",",
    "*",
    "CASE WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST(",
    "AS INT)",
    "AS DECIMAL(10, x))",
    "NULL",
    "OVER (",
    "PARTITION BY",
    "LATERAL",
    "UNNEST(",
    "FLATTEN(",
    "IN (",
    "IN",
    "EXISTS (",
    "WITH",
    "VALUES",
    "INTERVAL '1' DAY",
    "DATE '2020-01-01'",
    "t.",
    "[0]",
    "'",
    "`",
    ";",
    "--",
    "/*",
    "1e999",
    "007",
    ".5",
    "-",
    "+",
    "DISTINCT",
    "ALL",
    "`a/b`(",
    "dfs.`{`",
    "dfs.`[x`",
    "dfs.`../x`",
    "99999999999999999999999",
]

_SQL_VALUES = "(VALUES (1, 'a', 2.5), (2, 'b', NULL), (NULL, 'c', -1.0)) AS t(x, s, d)"
_SQL_TABLES = [
    _SQL_VALUES,
    "dfs.`breadth/own/json/people.json` AS t",
    "dfs.`breadth/own/json/nums.json` AS t",
]
_SQL_COLUMNS = ["x", "s", "d", "t.x", "id", "salary", "dept", "t.first_name", "a", "`x`"]
_SQL_ATOMS = _SQL_COLUMNS + [
    "1",
    "0",
    "-1",
    "2.5",
    "'a'",
    "NULL",
    "TRUE",
    "1e3",
    "007",
    "DATE '2020-01-31'",
    "INTERVAL '2' DAY",
    "2147483648",
]
_SQL_FUNCS = [
    "UPPER",
    "LOWER",
    "ABS",
    "LENGTH",
    "CONCAT",
    "COALESCE",
    "SQRT",
    "ROUND",
    "MOD",
    "SUBSTR",
    "TRIM",
    "REPEAT",
    "NULLIF",
    "GREATEST",
    "TYPEOF",
    "SUM",
    "COUNT",
    "MAX",
]
_SQL_BINARY = [
    "+",
    "-",
    "*",
    "/",
    "%",
    "||",
    "=",
    "<>",
    "<",
    ">=",
    "AND",
    "OR",
    "LIKE",
    "IS DISTINCT FROM",
]
_SQL_TYPES = [
    "INT",
    "BIGINT",
    "VARCHAR",
    "VARCHAR(3)",
    "DOUBLE",
    "DECIMAL(10, 2)",
    "DATE",
    "BOOLEAN",
    "DECIMAL(40, 2)",
]


@cache  # one strategy object: hypothesis validates each new one
def sql_expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(_SQL_BINARY), inner).map(" ".join),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"NOT {e}"),
            st.tuples(st.sampled_from(_SQL_FUNCS), st.lists(inner, min_size=1, max_size=3)).map(
                lambda t: f"{t[0]}({', '.join(t[1])})"
            ),
            st.tuples(inner, st.sampled_from(_SQL_TYPES)).map(lambda t: f"CAST({t[0]} AS {t[1]})"),
            st.tuples(inner, inner, inner).map(
                lambda t: f"CASE WHEN {t[0]} THEN {t[1]} ELSE {t[2]} END"
            ),
            st.tuples(inner, st.lists(inner, min_size=1, max_size=3)).map(
                lambda t: f"{t[0]} IN ({', '.join(t[1])})"
            ),
            st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} BETWEEN {t[1]} AND {t[2]}"),
        )

    return st.recursive(st.sampled_from(_SQL_ATOMS), extend, max_leaves=6)


@st.composite
def sql_queries(draw: st.DrawFn, tables: list[str] | None = None) -> str:
    """SELECT <expressions> FROM <table> [WHERE] [GROUP BY] [ORDER BY] [LIMIT]."""
    items = draw(st.lists(sql_expressions(), min_size=1, max_size=3))
    select = ", ".join(f"{e} AS c{i}" for i, e in enumerate(items))
    text = f"SELECT {select} FROM {draw(st.sampled_from(tables or _SQL_TABLES))}"
    if draw(st.booleans()):
        text += f" WHERE {draw(sql_expressions())}"
    if draw(st.booleans()):
        text += f" GROUP BY {draw(st.sampled_from(_SQL_COLUMNS))}"
    if draw(st.booleans()):
        text += f" ORDER BY {draw(st.sampled_from(['1', 'c0', 'x', 'c0 DESC NULLS FIRST']))}"
    if draw(st.booleans()):
        text += f" LIMIT {draw(st.sampled_from(['1', '0', '2147483648', '-1', 'x']))}"
    return text


VALUES_ONLY = [_SQL_VALUES]


@st.composite
def mutated_sql(draw: st.DrawFn) -> str:
    return draw(mutated_text(breadth_sql(), SQL_PIECES))
