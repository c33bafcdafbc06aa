"""NEARESTDATE (Drill's contrib `nearestDate`, which Superset's Drill time grains call): the
start of the bucket a timestamp falls in. The expected values are Drill's own answers, from
apache/drill contrib/udfs TestDateFunctions (the Drill under shared/tools has no contrib jar,
so it cannot be asked); Superset's grains are checked over a real folder's timestamps (Citi Bike)."""

from __future__ import annotations

import datetime as dt

import pytest

from drillspark.sql.errors import SqlError
from drillspark.sql.output import columns_and_rows

UNITS = [  # (input, unit, Drill's answer)
    ("2019-02-01 07:22:00", "YEAR", dt.datetime(2019, 1, 1)),
    ("2019-02-01 07:22:00", "QUARTER", dt.datetime(2019, 1, 1)),
    ("2019-02-15 07:22:00", "MONTH", dt.datetime(2019, 2, 1)),
    ("2019-02-15 07:22:00", "DAY", dt.datetime(2019, 2, 15)),
    ("2019-02-15 07:22:00", "WEEK_SUNDAY", dt.datetime(2019, 2, 10)),
    ("2019-02-15 07:22:00", "WEEK_MONDAY", dt.datetime(2019, 2, 11)),
    ("2019-02-15 07:22:00", "HOUR", dt.datetime(2019, 2, 15, 7)),
    ("2019-02-15 07:42:00", "HALF_HOUR", dt.datetime(2019, 2, 15, 7, 30)),
    ("2019-02-15 07:48:00", "QUARTER_HOUR", dt.datetime(2019, 2, 15, 7, 45)),
    ("2019-02-15 07:22:00", "MINUTE", dt.datetime(2019, 2, 15, 7, 22)),
    ("2019-02-15 07:22:22", "HALF_MINUTE", dt.datetime(2019, 2, 15, 7, 22)),
    ("2019-02-15 07:22:22", "QUARTER_MINUTE", dt.datetime(2019, 2, 15, 7, 22, 15)),
    ("2019-02-15 07:22:31", "SECOND", dt.datetime(2019, 2, 15, 7, 22, 31)),
]


def rows_of(engine, sql):
    return columns_and_rows(engine.execute(sql)[-1])[1]


def test_every_unit_gives_drills_answer(data_engine):
    ts = ", ".join(
        f"nearestDate(TO_TIMESTAMP('{t}', 'yyyy-MM-dd HH:mm:ss'), '{u}') c{i}"
        for i, (t, u, _) in enumerate(UNITS)
    )
    text = ", ".join(
        f"nearestDate('{t}', 'yyyy-MM-dd HH:mm:ss', '{u}') s{i}"
        for i, (t, u, _) in enumerate(UNITS)
    )
    want = [w for _, _, w in UNITS]
    assert rows_of(data_engine, f"SELECT {ts} FROM (VALUES(1))") == [want]
    assert rows_of(data_engine, f"SELECT {text} FROM (VALUES(1))") == [want]


def test_quarters_of_every_month_and_a_sunday_stays(data_engine):
    # Drill: months 1-3 -> Jan 1, 4-6 -> Apr 1, ... ; previousOrSame: a Sunday is its own week
    cols = ", ".join(
        f"nearest_date(TO_TIMESTAMP('2019-{m:02d}-02 07:22:00', "
        f"'yyyy-MM-dd HH:mm:ss'), 'quarter') q{m}"
        for m in range(1, 13)
    )
    got = rows_of(
        data_engine,
        f"SELECT {cols}, nearestDate(TIMESTAMP '2019-02-10 23:59:59', "
        "'WEEK_SUNDAY') sun, nearestDate(CAST(NULL AS TIMESTAMP), 'DAY') n "
        "FROM (VALUES(1))",
    )
    quarters = [dt.datetime(2019, 3 * ((m - 1) // 3) + 1, 1) for m in range(1, 13)]
    assert got == [quarters + [dt.datetime(2019, 2, 10), None]]


def test_superset_grains_group_a_real_file(data_engine):
    # what Superset sends for a time grain: GROUP BY the bucket, here over the text form
    # (text, Java pattern, unit) of 13 Citi Bike snapshots taken five minutes apart
    b = "nearestDate(executionTime, 'yyyy-MM-dd hh:mm:ss a', 'QUARTER_HOUR')"
    rows = rows_of(
        data_engine, f"SELECT {b} AS b, COUNT(*) AS n FROM dfs.`citibike` GROUP BY {b} ORDER BY b"
    )
    times = [
        dt.datetime.strptime(t, "%Y-%m-%d %I:%M:%S %p")
        for (t,) in rows_of(data_engine, "SELECT executionTime FROM dfs.`citibike`")
    ]
    want: dict[dt.datetime, int] = {}
    for t in times:
        start = t.replace(minute=t.minute - t.minute % 15, second=0)
        want[start] = want.get(start, 0) + 1
    assert len(want) > 1 and sorted(want.items()) == [tuple(r) for r in rows]


def test_an_unknown_unit_is_drills_error(data_engine):
    with pytest.raises(
        SqlError,
        match=r"\[FORTNIGHT\] is not a valid time statement. "
        r"Expecting: \[YEAR, QUARTER",
    ):
        data_engine.execute(
            "SELECT nearestDate(TIMESTAMP '2019-02-10 10:00:00', 'FORTNIGHT') FROM (VALUES(1))"
        )
