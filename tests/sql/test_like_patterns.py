"""LIKE patterns of several '%' wildcards, answered by ordered searches instead of a regex
(spark/functions_like.py): the answers real Drill 1.22 gave (asked through shared/tools/drill),
and every generated pattern over the TPC-H comments of ../shared/data agreeing with a regex
written here from the SQL standard's meaning of LIKE."""

from __future__ import annotations

import itertools
import re

import pyarrow.parquet as pq
import pytest

from drillspark.spark.functions_like import ordered_pieces
from drillspark.sql.output import columns_and_rows

NATION = "dfs.`breadth/tpch/nation.parquet`"


def keys(engine, where: str) -> list[int]:
    sql = f"SELECT n_nationkey FROM {NATION} WHERE {where} ORDER BY 1"
    return [r[0] for r in columns_and_rows(engine.execute(sql)[-1])[1]]


def test_multi_wildcard_like_gives_drills_rows(data_engine):
    # Drill 1.22 on the same file
    assert keys(data_engine, "n_comment LIKE '%fur%de%'") == [14, 18, 19]
    assert keys(data_engine, "n_comment LIKE '%ly%ly%s'") == [18]
    assert keys(data_engine, "n_comment NOT LIKE 'a%c%s%'") == [0, *range(2, 25)]
    assert keys(data_engine, "ilike(n_comment, '%THE%FURIOUS%')") == [4, 15, 19]


def test_multi_wildcard_like_of_literals_gives_drills_answers(data_engine):
    _, rows = columns_and_rows(
        data_engine.execute(
            "SELECT 'abcabc' LIKE 'a%bc%c', 'abc' LIKE 'ab%b%c', 'abcbc' LIKE 'ab%b%c', "
            "'aXbXc' LIKE '%X%X%', CAST(NULL AS VARCHAR) LIKE '%a%b%', 'ab' LIKE 'a%%%b', "
            "'abab' LIKE 'ab%a%b', 'aab' LIKE 'a%a%b', 'ab' LIKE 'a%a%b' FROM (VALUES(1))"
        )[-1]
    )
    # Drill 1.22's answers
    assert rows == [[True, False, True, True, None, True, True, True, False]]


def test_the_plan_searches_in_order_instead_of_a_regex(data_engine):
    result = data_engine.execute(f"SELECT n_name FROM {NATION} WHERE n_comment LIKE '%fur%de%'")
    plan = result[-1].explain(print_it=False)
    assert "locate" in plan and " LIKE " not in plan.upper().replace("'%FUR%DE%'", "")


def test_only_patterns_spark_sends_to_a_regex_are_rewritten():
    nul = "\u0000"
    assert ordered_pieces("%special%requests%", nul) == ("", ["special", "requests"], "")
    assert ordered_pieces("a%b%c", nul) == ("a", ["b"], "c")
    assert ordered_pieces("a%%b%", nul) == ("a", ["b"], "")
    # Spark's own plain tests, a '_', the escape in the pattern: left to Spark's LIKE
    for pattern in ("abc", "a%", "%a", "%a%", "a%b", "%", "%%", "%a_%b%", "a!%b%c%"):
        assert ordered_pieces(pattern, "!") is None, pattern


def _standard_like(pattern: str) -> re.Pattern:
    return re.compile("".join(".*" if c == "%" else re.escape(c) for c in pattern), re.S)


@pytest.fixture(scope="module")
def comments(shared) -> list[str]:
    folder = shared / "data" / "breadth" / "tpch"
    return [
        text
        for t in ("nation", "region", "supplier")
        for text in pq.read_table(folder / f"{t}.parquet").column(f"{t[0]}_comment").to_pylist()
    ]


def test_generated_patterns_agree_with_the_standard_meaning(data_engine, comments):
    # pieces common in the comments, so that matches, near misses and overlaps all occur
    pieces = ["the", "ly", "s", "e", "al", "ing", "ca", "ve"]
    patterns = [
        f"{pre}%{a}%{b}%{post}".replace("%%", "%")
        for pre, a, b, post in itertools.product(["", "s", "ca"], pieces, pieces, ["", "s", "."])
    ][:120]
    assert all(ordered_pieces(p, "\u0000") for p in patterns)
    columns = ", ".join(f"c LIKE '{p}'" for p in patterns)
    values = ", ".join("('" + c.replace("'", "''") + "')" for c in comments)
    sql = f"SELECT {columns} FROM (VALUES {values}) AS t(c)"
    _, rows = columns_and_rows(data_engine.execute(sql)[-1])
    expected = [[bool(_standard_like(p).fullmatch(c)) for p in patterns] for c in comments]
    assert rows == expected
    assert any(any(r) for r in rows) and not all(all(r) for r in rows)
