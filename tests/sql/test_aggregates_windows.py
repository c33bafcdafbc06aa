"""Aggregates (DISTINCT next to other aggregates, FILTER, Drill's statistics and boolean
aggregates, MEDIAN), window functions (WINDOW clause, frames, windows over aggregate queries)
and PIVOT, end to end over the breadth data. Every expected answer is what real Drill 1.22
returned for the same query (../shared/tools/drill/query.sh).

breadth/own/json/nums.json:            breadth/own/json/people.json (id, dept, salary, active):
    id grp  i     d     s                  1 Sales 5200.5 t    5 Marketing 4800.75 f
    1  a    10    1.5   x                  2 Sales 4100.0 f    6 Engineering 7300.25 f
    2  a    -3    2.25  y                  3 Engineering 7300.25 t  7 Marketing 5100.0 t
    3  a    null  -0.5  null               4 Engineering 6900.0 t   8 Support 3900.1 t
    4  b    7     null  x
    5  b    7     10.0  z
    6  c    0     3.75  y
    7  null 4     4.0   x
"""

from __future__ import annotations

import math

import pytest

from drillspark.sql import UnsupportedSqlError
from drillspark.sql.errors import ValidationError
from drillspark.sql.output import columns_and_rows
from drillspark.sql.parser import compile_query

N = "dfs.`breadth/own/json/nums.json`"
P = "dfs.`breadth/own/json/people.json`"
NATION = "dfs.`breadth/tpch/nation.parquet`"


def q(data_engine, text):
    return columns_and_rows(data_engine.execute(text)[-1])


def rows(data_engine, text):
    return sorted(q(data_engine, text)[1], key=repr)


def ops(data_engine, text):
    return compile_query(text, data_engine.session).plan.to_json()["query"]


def same_types(got, want):
    """Cells equal and of the same Python type (Drill's BIGINT vs DOUBLE)."""
    return len(got) == len(want) and all(
        len(g) == len(w) and all(type(a) is type(b) and a == b for a, b in zip(g, w, strict=True))
        for g, w in zip(got, want, strict=True)
    )


# ---------------------------------------------------------------- aggregates
def test_distinct_aggregates_next_to_plain_ones(data_engine):
    sql = (
        f"SELECT grp, COUNT(DISTINCT i) cdi, SUM(DISTINCT i) sdi, AVG(DISTINCT i) adi, "
        f"COUNT(*) c, SUM(i) si, COUNT(DISTINCT s) cds, MIN(DISTINCT d) mdd FROM {N} "
        "GROUP BY grp"
    )
    assert same_types(
        rows(data_engine, sql),
        sorted(
            [
                ["a", 2, 7, 3.5, 3, 7, 2, -0.5],
                ["b", 1, 7, 7.0, 2, 14, 2, 10.0],
                ["c", 1, 0, 0.0, 1, 0, 1, 3.75],
                [None, 1, 4, 4.0, 1, 4, 1, 4.0],
            ],
            key=repr,
        ),
    )
    plan = ops(data_engine, sql)
    # one first-row marker per DISTINCT argument, all aggregates in one groupingaggregate
    markers = [o for o in plan if o["op"] == "window"]
    assert [o["aggregations"][0]["expr"] for o in markers] == ["row_number()"] * 3
    assert len([o for o in plan if o["op"] == "groupingaggregate"]) == 1


def test_distinct_in_having_and_statistics(data_engine):
    assert rows(
        data_engine,
        f"SELECT grp, COUNT(DISTINCT i) c FROM {N} GROUP BY grp HAVING COUNT(DISTINCT s) > 1",
    ) == [["a", 2], ["b", 1]]
    _, got = q(
        data_engine,
        f"SELECT STDDEV(DISTINCT i) a, VAR_POP(DISTINCT d) b, COUNT(DISTINCT i) c FROM {N}",
    )
    assert (
        got[0][2] == 5
        and math.isclose(got[0][0], 5.224940191045253)
        and math.isclose(got[0][1], 10.6875)
    )
    _, got = q(
        data_engine, f"SELECT COUNT(*) c, COUNT(i) ci, COUNT(s) cs, COUNT(DISTINCT s) cds FROM {N}"
    )
    assert got == [[7, 6, 6, 3]]


def test_single_distinct_argument_groups_twice(data_engine):
    plan = ops(data_engine, f"SELECT grp, COUNT(DISTINCT i), SUM(DISTINCT i) FROM {N} GROUP BY grp")
    inner, outer = [o for o in plan if o["op"] == "groupingaggregate"]
    # the plan's JSON spelling (it backquotes only names that need it)
    assert [k["expr"] for k in inner["keys"]] == ["grp", "i"]
    assert [e["expr"] for e in outer["exprs"]] == ["count($distinct)", "sum($distinct)"]
    assert rows(data_engine, f"SELECT grp, SUM(DISTINCT i) s FROM {N} GROUP BY grp") == [
        ["a", 7],
        ["b", 7],
        ["c", 0],
        [None, 4],
    ]


def test_filter_clause(data_engine):
    got = rows(
        data_engine,
        f"SELECT grp, COUNT(*) FILTER (WHERE i > 0) b, "
        f"AVG(d) FILTER (WHERE s = 'x') c FROM {N} GROUP BY grp",
    )
    assert got == [["a", 1, 1.5], ["b", 2, None], ["c", 0, None], [None, 1, 4.0]]
    assert q(data_engine, f"SELECT BIT_AND(i) FILTER (WHERE i > 0) a FROM {N}")[1] == [[0]]


def test_result_types_as_drill(data_engine):
    got = rows(
        data_engine,
        f"SELECT grp, SUM(i) s, AVG(i) a, MIN(i) m, ANY_VALUE(i) av, "
        f"BIT_AND(i) ba FROM {N} GROUP BY grp",
    )
    # ANY_VALUE: Drill keeps the last non-NULL value read
    assert same_types(
        got,
        sorted(
            [
                ["a", 7, 3.5, -3, -3, 8],
                ["b", 14, 7.0, 7, 7, 7],
                ["c", 0, 0.0, 0, 0, 0],
                [None, 4, 4.0, 4, 4, 4],
            ],
            key=repr,
        ),
    )
    _, got = q(
        data_engine,
        f"SELECT SUM(i) + 1 a, COUNT(*) * 2 b, AVG(i + d) c, SUM(i) / COUNT(i) e FROM {N}",
    )
    assert same_types(got, [[26, 14, 7.9, 4]])


def test_median(data_engine):
    # the middle value as DOUBLE, truncated to BIGINT for integers (5.5 -> 5, -2.5 -> -2)
    assert same_types(
        q(data_engine, f"SELECT MEDIAN(i) a, MEDIAN(d) b, MEDIAN(id) c FROM {N}")[1], [[5, 3.0, 4]]
    )
    assert q(data_engine, "SELECT MEDIAN(x) FROM (VALUES (-3), (-2)) t(x)")[1] == [[-2]]
    assert rows(data_engine, f"SELECT grp, MEDIAN(i) m, MEDIAN(d) md FROM {N} GROUP BY grp") == [
        ["a", 3, 1.5],
        ["b", 7, 10.0],
        ["c", 0, 3.75],
        [None, 4, 4.0],
    ]


def test_boolean_aggregates(data_engine):
    # EVERY is TINYINT in Drill; BOOL_AND / BOOL_OR are false without rows, and only NULLs
    # leave BOOL_AND at true
    assert same_types(
        q(
            data_engine,
            f"SELECT BOOL_OR(i > 100) a, BOOL_AND(i > 100) b, EVERY(i > -100) c FROM {N}",
        )[1],
        [[False, False, 1]],
    )
    assert q(
        data_engine,
        f"SELECT BOOL_AND(i > 0) f, EVERY(i > 0) e, BOOL_OR(i > 0) o FROM {N} WHERE 1 = 0",
    )[1] == [[False, None, False]]
    assert q(
        data_engine,
        f"SELECT BOOL_AND(b) a, BOOL_OR(b) o, EVERY(b) e FROM (SELECT CAST(NULL "
        f"AS BOOLEAN) b FROM {P})",
    )[1] == [[True, False, None]]


def test_grouping_sets_are_refused_as_in_drill(data_engine):
    for g in ("ROLLUP(grp)", "CUBE(grp)", "GROUPING SETS((grp), ())"):
        with pytest.raises(
            UnsupportedSqlError,
            match="Rollup, Cube, Grouping Sets are not supported in GROUP BY clause",
        ):
            q(data_engine, f"SELECT grp, COUNT(*) FROM {N} GROUP BY {g}")


# ---------------------------------------------------------------- windows
def test_window_clause(data_engine):
    got = rows(
        data_engine,
        f"SELECT id, SUM(salary) OVER w s, AVG(salary) OVER w a, COUNT(*) OVER w "
        f"c, MIN(id) OVER w mi FROM {P} "
        "WINDOW w AS (PARTITION BY dept ORDER BY salary)",
    )
    assert got == sorted(
        [
            [4, 6900.0, 6900.0, 1, 4],
            [3, 21500.5, 7166.833333333333, 3, 3],
            [6, 21500.5, 7166.833333333333, 3, 3],
            [5, 4800.75, 4800.75, 1, 5],
            [7, 9900.75, 4950.375, 2, 5],
            [2, 4100.0, 4100.0, 1, 2],
            [1, 9300.5, 4650.25, 2, 1],
            [8, 3900.1, 3900.1, 1, 8],
        ],
        key=repr,
    )
    # the four functions share one window operator
    assert (
        len(
            [
                o
                for o in ops(
                    data_engine,
                    f"SELECT SUM(salary) OVER w, COUNT(*) OVER w FROM {P} "
                    "WINDOW w AS (PARTITION BY dept)",
                )
                if o["op"] == "window"
            ]
        )
        == 1
    )
    want = sorted(
        [
            [3, 7300.25],
            [4, 14200.25],
            [6, 21500.5],
            [5, 4800.75],
            [7, 9900.75],
            [1, 5200.5],
            [2, 9300.5],
            [8, 3900.1],
        ],
        key=repr,
    )
    assert (
        rows(
            data_engine,
            f"SELECT id, SUM(salary) OVER (w ORDER BY id) s FROM {P} "
            "WINDOW w AS (PARTITION BY dept)",
        )
        == want
    )
    assert (
        rows(
            data_engine,
            f"SELECT id, SUM(salary) OVER w2 s FROM {P} "
            "WINDOW w AS (PARTITION BY dept), w2 AS (w ORDER BY id)",
        )
        == want
    )
    with pytest.raises(ValidationError, match="PARTITION BY not allowed with existing window"):
        q(
            data_engine,
            f"SELECT SUM(salary) OVER (w PARTITION BY dept) FROM {P} WINDOW w AS (ORDER BY id)",
        )
    with pytest.raises(ValidationError, match="Window 'v' not found"):
        q(data_engine, f"SELECT SUM(salary) OVER v FROM {P} WINDOW w AS (ORDER BY id)")


def test_frames_drill_runs(data_engine):
    # RANGE CURRENT ROW .. CURRENT ROW: the row and its peers
    got = rows(
        data_engine,
        f"SELECT id, SUM(salary) OVER (PARTITION BY dept ORDER BY salary RANGE "
        f"BETWEEN CURRENT ROW AND CURRENT ROW) s FROM {P}",
    )
    assert got == sorted(
        [
            [4, 6900.0],
            [3, 14600.5],
            [6, 14600.5],
            [5, 4800.75],
            [7, 5100.0],
            [2, 4100.0],
            [1, 5200.5],
            [8, 3900.1],
        ],
        key=repr,
    )
    plan = ops(
        data_engine,
        f"SELECT FIRST_VALUE(id) OVER (ORDER BY salary RANGE BETWEEN CURRENT "
        f"ROW AND CURRENT ROW) FROM {P}",
    )
    (win,) = [o for o in plan if o["op"] == "window"]
    assert (win["frameUnitsRows"], win["start"], win["end"]) == (False, 0, 0)
    got = rows(
        data_engine,
        f"SELECT id, SUM(salary) OVER (ORDER BY salary ROWS UNBOUNDED PRECEDING) s FROM {P}",
    )
    assert got == sorted(
        [
            [8, 3900.1],
            [2, 8000.1],
            [5, 12800.85],
            [7, 17900.85],
            [1, 23101.35],
            [4, 30001.35],
            [3, 37301.6],
            [6, 44601.85],
        ],
        key=repr,
    )


def test_frames_beyond_drill(data_engine):
    # Drill refuses these (DRILL-3188); they run here, RANGE frames with offsets do not
    got = rows(
        data_engine,
        f"SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 "
        f"FOLLOWING) s, COUNT(*) OVER (PARTITION BY dept ORDER BY salary RANGE "
        f"BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) c FROM {P}",
    )
    assert got == [
        [1, 3, 1],
        [2, 6, 2],
        [3, 9, 2],
        [4, 12, 3],
        [5, 15, 2],
        [6, 18, 2],
        [7, 21, 1],
        [8, 15, 1],
    ]
    with pytest.raises(UnsupportedSqlError, match="This type of window frame is currently not"):
        ops(
            data_engine,
            f"SELECT SUM(salary) OVER (ORDER BY salary RANGE BETWEEN 1 PRECEDING AND "
            f"CURRENT ROW) FROM {P}",
        )


def test_window_function_rules(data_engine):
    with pytest.raises(UnsupportedSqlError, match="Function LAG only supports"):
        ops(data_engine, f"SELECT LAG(id, 2) OVER (ORDER BY id) FROM {P}")
    with pytest.raises(UnsupportedSqlError, match="Function LEAD only supports"):
        ops(data_engine, f"SELECT LEAD(id, 1, 0) OVER (ORDER BY id) FROM {P}")
    with pytest.raises(ValidationError, match="RANK or DENSE_RANK functions require ORDER BY"):
        ops(data_engine, f"SELECT RANK() OVER (PARTITION BY dept) FROM {P}")
    with pytest.raises(ValidationError, match="ROW/RANGE not allowed"):
        ops(data_engine, f"SELECT LAG(id) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM {P}")
    with pytest.raises(UnsupportedSqlError, match="DISTINCT for window aggregate functions"):
        ops(data_engine, f"SELECT COUNT(DISTINCT dept) OVER () FROM {P}")


def test_windows_over_an_aggregate_query(data_engine):
    got = rows(
        data_engine,
        f"SELECT dept, SUM(SUM(salary)) OVER () t, RANK() OVER (ORDER BY "
        f"SUM(salary) DESC) r, COUNT(*) OVER (PARTITION BY COUNT(*)) c, "
        f"SUM(salary) p FROM {P} GROUP BY dept",
    )
    assert got == sorted(
        [
            ["Support", 44601.85, 4, 1, 3900.1],
            ["Marketing", 44601.85, 2, 2, 9900.75],
            ["Sales", 44601.85, 3, 2, 9300.5],
            ["Engineering", 44601.85, 1, 1, 21500.5],
        ],
        key=repr,
    )
    assert q(data_engine, f"SELECT COUNT(*) c, SUM(COUNT(*)) OVER () t FROM {P}")[1] == [[8, 8]]
    assert rows(
        data_engine,
        f"SELECT dept, ROW_NUMBER() OVER (ORDER BY dept) rn FROM {P} "
        "GROUP BY dept HAVING COUNT(*) > 1",
    ) == [["Engineering", 1], ["Marketing", 2], ["Sales", 3]]


def test_window_statistics_and_booleans(data_engine):
    got = rows(
        data_engine,
        f"SELECT id, STDDEV(salary) OVER (PARTITION BY dept) sd, "
        f"BOOL_AND(active) OVER (PARTITION BY dept) b FROM {P}",
    )
    by_id = {r[0]: r for r in got}
    assert math.isclose(by_id[3][1], 231.08444524313697)
    assert math.isnan(by_id[8][1])  # one row: Drill's 0/0
    assert [by_id[i][2] for i in range(1, 9)] == [False] * 7 + [True]


def test_decimal_statistics(data_engine):
    _, got = q(
        data_engine,
        f"SELECT STDDEV(CAST(d AS DECIMAL(10,2))) sd, VARIANCE(CAST(d AS "
        f"DECIMAL(10,2))) v, STDDEV_POP(CAST(d AS DECIMAL(10,2))) sp FROM {N}",
    )
    assert [str(x.normalize()) for x in got[0]] == ["3.581201", "12.825", "3.269174"]


def test_drill_types_aggregates_next_to_two_reductions_as_double(data_engine):
    _, got = q(data_engine, f"SELECT AVG(i) a, STDDEV(i) b, SUM(i) s, MIN(i) m FROM {N}")
    assert same_types([got[0][2:]], [[25.0, -3.0]])
    _, got = q(data_engine, f"SELECT SUM(i) s, STDDEV(i) b FROM {N}")  # one reduction: BIGINT
    assert same_types([got[0][:1]], [[25]])


# ---------------------------------------------------------------- PIVOT
def test_pivot(data_engine):
    cols, got = q(
        data_engine,
        f"SELECT * FROM (SELECT dept, salary, active FROM {P}) "
        "PIVOT (SUM(salary) FOR dept IN ('Sales' s, 'Engineering' e))",
    )
    assert cols == ["active", "s", "e"]
    assert sorted(got, key=repr) == sorted(
        [[True, 5200.5, 14200.25], [False, 4100.0, 7300.25]], key=repr
    )
    cols, got = q(
        data_engine,
        f"SELECT * FROM (SELECT dept, salary, id FROM {P}) PIVOT (SUM(salary) "
        "AS total, COUNT(*) AS cnt FOR dept IN ('Sales', 'Engineering'))",
    )
    assert cols == [
        "id",
        "'Sales'_total",
        "'Sales'_cnt",
        "'Engineering'_total",
        "'Engineering'_cnt",
    ]
    assert sorted(got)[0] == [1, 5200.5, 1, None, 0]
    assert q(
        data_engine,
        f"SELECT p.* FROM (SELECT dept, salary FROM {P}) PIVOT (SUM(salary) "
        "FOR dept IN ('Sales' s, 'Marketing' m)) AS p",
    ) == (["s", "m"], [[9300.5, 9900.75]])
