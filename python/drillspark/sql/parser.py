"""Parsing Drill SQL with sqlglot's `drill` dialect and compiling statements to Drill logical
plans."""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.dialects.drill import Drill
from sqlglot.errors import ParseError, TokenError
from sqlglot.parsers.drill import DrillParser
from sqlglot.tokens import TokenType

from drillspark.plan.depth import MAX_SQL_NESTING, RECURSION_LIMIT, room
from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import Store
from drillspark.sql.catalog import named_table
from drillspark.sql.errors import (
    SqlError,
    SqlSyntaxError,
    UnsupportedSqlError,
    position_of,
)
from drillspark.sql.lower import Lowering, LoweringSteps
from drillspark.sql.select import SelectLowering
from drillspark.sql.session import SqlSession


class DrillSql(Drill):
    """sqlglot's Drill dialect with Drill's real null ordering: NULLs sort high (last when
    ascending, first when descending)."""

    NULL_ORDERING = "nulls_are_large"

    class Parser(DrillParser):
        # sqlglot reads TIMESTAMPDIFF(unit, a, b) in another dialect's argument order (and
        # upper-cases b into a unit): keep Drill's calls as written, the lowering reads them.
        FUNCTIONS = {
            **DrillParser.FUNCTIONS,
            "TIMESTAMPDIFF": lambda args: exp.Anonymous(this="TIMESTAMPDIFF", expressions=args),
            "TIMESTAMPADD": lambda args: exp.Anonymous(this="TIMESTAMPADD", expressions=args),
            # sqlglot rewrites TO_CHAR's Joda pattern into strftime codes; keep it as written
            "TO_CHAR": lambda args: exp.Anonymous(this="TO_CHAR", expressions=args),
            "TO_TIMESTAMP": lambda args: exp.Anonymous(this="TO_TIMESTAMP", expressions=args),
        }


# sqlglot warns on statements it falls back to parsing as commands; we report those ourselves.
logging.getLogger("sqlglot").setLevel(logging.ERROR)


def check_nesting(text: str) -> None:
    """Refuse parentheses nested deeper than MAX_SQL_NESTING, at the first one too deep: the
    recursive-descent parser would run out of stack long before the text ends."""
    if text.count("(") <= MAX_SQL_NESTING:
        return  # no deeper than its parentheses: the tokens need not be read twice
    depth = 0
    try:
        tokens = DrillSql().tokenize(text)
    except TokenError:
        return  # parse_query reports it
    for token in tokens:
        if token.token_type == TokenType.L_PAREN:
            depth += 1
            if depth > MAX_SQL_NESTING:
                line, col = position_of(text, token.start)
                raise SqlSyntaxError(
                    f"parentheses nest more than {MAX_SQL_NESTING} levels deep", text, line, col
                )
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1


def check_characters(text: str) -> None:
    """Refuse half a UTF-16 surrogate pair (a JSON body can carry `\\ud800` alone): it is no
    character, and no later step (py4j, Spark, a file) can encode it."""
    found = _SURROGATE.search(text)
    if found is None:
        return
    line, col = position_of(text, found.start())
    raise SqlSyntaxError(
        f"half a UTF-16 surrogate pair (U+{ord(found.group()):04X}) is not a character",
        text,
        line,
        col,
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_query(text: str) -> exp.Expr:
    """One query (SELECT, set operation, WITH, VALUES, CREATE TABLE AS) as a sqlglot tree, the
    caller's own (a copy of the tree of a text parsed before: a BI tool sends the same texts
    again and again, and a copy costs a quarter of a parse, #37)."""
    with _PARSED_LOCK:
        kept = _PARSED.get(text)
        if kept is not None:
            _PARSED.move_to_end(text)
    if kept is not None:
        with room():
            return kept.copy()
    tree = _parse(text)
    if len(text) > _PARSED_LONGEST:
        return tree
    with room():
        copy = tree.copy()
    with _PARSED_LOCK:
        _PARSED[text] = copy
        while len(_PARSED) > _PARSED_KEPT:
            _PARSED.popitem(last=False)
    return tree


# the trees of the texts parsed last (a text's tree depends on nothing else)
_PARSED: OrderedDict[str, exp.Expr] = OrderedDict()
_PARSED_KEPT = 256
_PARSED_LONGEST = 20_000  # a generated statement longer than a BI tool's is not kept
_PARSED_LOCK = threading.Lock()


def _parse(text: str) -> exp.Expr:
    check_characters(text)
    check_nesting(text)
    try:
        with room():
            trees = sqlglot.parse(text, read=DrillSql)
    except ParseError as e:
        info = e.errors[0] if e.errors else {}
        desc = str(info.get("description") or e).split(". Line")[0]
        highlight = info.get("highlight")
        if highlight:
            desc = f"{desc} near '{highlight}'"
        raise SqlSyntaxError(desc, text, info.get("line"), info.get("col")) from None
    except TokenError as e:
        raise SqlSyntaxError(str(e), text) from None
    except RecursionError:
        raise _too_deep(text) from None
    found = [t for t in trees if t is not None]
    if len(found) != 1:
        raise SqlSyntaxError("expected one statement", text)
    tree: exp.Expr = found[0]
    if isinstance(tree, exp.Command):
        word = str(tree.this).upper()
        line, col = position_of(text, max(text.upper().find(word), 0))
        raise UnsupportedSqlError(f"the statement {word} {_head(tree)}", text, line, col)
    return tree


def _head(tree: exp.Command) -> str:
    rest = tree.expression
    text = rest.this if isinstance(rest, exp.Literal) else str(rest or "")
    return " ".join(str(text).split()[:2]).upper()


@dataclass
class CompiledQuery:
    """A query lowered to a Drill logical plan (`plan.to_json()` is its JSON, for EXPLAIN and
    the profile); `target` is the CTAS target."""

    plan: LogicalPlan
    columns: list[str] | None
    target: str | None = None
    hidden: tuple[str, ...] = ()  # helper columns to drop from a SELECT * result
    sql: str | None = None
    # operator @id -> property prefix ('' = the operator) -> offset in `sql` it comes from
    positions: dict[int, dict[str, int]] = field(default_factory=dict)

    def position(self, op_id: int, prop: str) -> int | None:
        """The SQL offset of operator `op_id`'s property `prop` (the longest recorded prefix
        of it, else the operator's own), or None."""
        where = self.positions.get(op_id, {})
        best = max((k for k in where if prop.startswith(k)), key=len, default=None)
        return where[best] if best is not None else None


def _too_deep(text: str) -> SqlError:
    return SqlSyntaxError(
        f"the statement nests too deeply to compile (Python recursion limit "
        f"{RECURSION_LIMIT} reached)",
        text,
        1,
        1,
    )


def new_lowering(session: SqlSession, text: str) -> Lowering:
    """A Lowering of `text`, handed the steps that sit above sql/lower.py (the one place that
    wires the lowering's mutual recursion, so the modules import each other one way)."""
    return Lowering(session, text, _STEPS)


_STEPS = LoweringSteps(
    select=lambda low, node: SelectLowering(low, node).lower(),
    named_table=named_table,
    parse=parse_query,
)


def compile_query(text: str, session: SqlSession) -> CompiledQuery:
    """Parse and lower one query or CTAS to a Drill logical plan."""
    try:
        with room():
            return _compile(text, session)
    except RecursionError:
        raise _too_deep(text) from None


def _compile(text: str, session: SqlSession) -> CompiledQuery:
    tree = parse_query(text)
    low = new_lowering(session, text)
    if isinstance(tree, exp.Create):
        return _ctas(tree, low, session, text)
    if not isinstance(tree, exp.Query | exp.Values):
        raise UnsupportedSqlError(f"the statement {tree.key.upper()}", text, 1, 1)
    root = low.lower_query(tree)
    hidden = tuple(low.hidden_names) if root.columns is None else ()
    return CompiledQuery(
        low.plan(root), root.columns, hidden=hidden, sql=text, positions=low.builder.positions
    )


def _ctas(tree: exp.Create, low: Lowering, session: SqlSession, text: str) -> CompiledQuery:
    kind = str(tree.args.get("kind") or "").upper()
    query = tree.expression
    if kind != "TABLE" or query is None:
        raise UnsupportedSqlError(f"CREATE {kind} (only CREATE TABLE ... AS SELECT is)", text, 1, 1)
    target = tree.this
    if isinstance(target, exp.Schema):
        raise UnsupportedSqlError("a column list in CREATE TABLE AS", text, 1, 1)
    parts = tuple(p.name for p in target.parts)
    try:
        table = session.resolve_table(parts, check=False)
    except SqlError as e:
        raise type(e)(e.message, text, 1, 1) from None
    if table.plugin != session.home:
        raise UnsupportedSqlError(f"writing to the '{table.plugin}' plugin", text, 1, 1)
    root = low.lower_query(query)
    # The store writes through the home plugin's engine even when the query scans none of it.
    low.builder.storage.setdefault(table.plugin, low.engine_config(table.plugin))
    fmt = str(session.option("store.format")).lower()
    store = Store(
        input=root.op,
        storage_engine=table.plugin,
        target={"path": table.path, "format": fmt, "table": table.display},
    )
    return CompiledQuery(
        low.plan(root, store=store),
        ["Fragment", "Number of records written"],
        target=table.path,
        sql=text,
        positions=low.builder.positions,
    )
