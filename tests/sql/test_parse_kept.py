"""A text's parsed tree is kept (sql/parser.py, parse_query): each caller gets its own copy,
and a text that fails to parse fails every time."""

from __future__ import annotations

import pytest
from sqlglot import exp

from drillspark.sql.errors import SqlSyntaxError
from drillspark.sql.parser import parse_query

SQL = "SELECT t.a AS x, count(*) FROM dfs.tmp.`f.json` t WHERE t.b > 1 GROUP BY t.a"


def test_each_caller_gets_its_own_tree():
    first = parse_query(SQL)
    first.find(exp.Alias).set("alias", exp.to_identifier("changed"))
    first.find(exp.Table).set("alias", None)
    second, third = parse_query(SQL), parse_query(SQL)
    assert second is not third and second is not first
    assert second.sql(dialect="drill") == third.sql(dialect="drill")
    assert "changed" not in second.sql() and "AS x" in second.sql()
    assert second.find(exp.Table).alias == "t"
    # positions for errors survive the copy
    assert second.find(exp.Table).meta == parse_query(SQL + " ").find(exp.Table).meta


@pytest.mark.parametrize(
    "text, message",
    [
        ("SELECT ((1)", r"Expecting \)"),
        ("SELECT " + "(" * 501 + "1" + ")" * 501, "nest more than 500 levels"),
        ("SELECT 'a\ud800'", "half a UTF-16 surrogate pair"),
    ],
)
def test_a_text_that_fails_fails_every_time(text, message):
    for _ in range(2):
        with pytest.raises(SqlSyntaxError, match=message):
            parse_query(text)


def test_a_long_generated_text_is_not_kept():
    from drillspark.sql import parser

    long = "SELECT 1 AS a" + " UNION ALL SELECT 1" * 1200
    assert len(long) > parser._PARSED_LONGEST
    parse_query(long)
    assert long not in parser._PARSED
    parse_query(SQL)
    assert SQL in parser._PARSED
