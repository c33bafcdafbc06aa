"""Drill's hash32 / hash / hash32AsDouble / hash64 / hash64AsDouble, with the values real Drill
1.22 gave for the same expressions (asked through shared/tools/drill): numbers, booleans, dates
and times hash as their DOUBLE, text and binary as bytes, a DECIMAL as its unscaled bytes
(or its DOUBLE in the AsDouble forms), NULL as the seed, and seeds of either sign."""

from __future__ import annotations

import re

import pytest

from drillspark.sql import SqlError
from drillspark.sql.output import columns_and_rows

NATION = "dfs.`breadth/tpch/nation.parquet`"


def row(engine, select):
    _, rows = columns_and_rows(engine.execute(f"SELECT {select} FROM (VALUES(1))")[-1])
    return list(rows[0])


@pytest.fixture
def breadth(spark, shared, tmp_path):
    from drillspark.sql import SqlEngine, SqlSession

    return SqlEngine(
        spark, SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp_path)})
    )


def test_numbers_hash_as_their_double(engine):
    assert row(
        engine,
        "hash64(1), hash64(CAST(1 AS BIGINT)), hash64(CAST(1 AS FLOAT)), "
        "hash64(true), hash64(false), hash64(-1), hash64(cast('NaN' as double)), "
        "hash64(2147483647), hash32(1), hash32(0), hash32(-1), "
        "hash32(cast(9223372036854775807 as bigint)), hash32(cast(1.1 as float))",
    ) == [
        4308238529031811090,
        4308238529031811090,
        4308238529031811090,
        4308238529031811090,
        2945182322382062539,
        1114018494065328705,
        3958114705316880442,
        690697084546275091,
        -142385009,
        1669671676,
        -494280847,
        2053154296,
        2064079020,
    ]


def test_dates_and_times_hash_as_milliseconds(engine):
    assert row(
        engine,
        "hash64(date '2020-01-02'), hash64(timestamp '2020-01-02 03:04:05'), "
        "hash64(time '03:04:05'), hash32(date '2020-01-02'), "
        "hash32(timestamp '2020-01-02 03:04:05'), hash32(time '03:04:05')",
    ) == [
        6971436362109710847,
        2125887025539500406,
        8581150376222741054,
        1725196582,
        1609166171,
        2025781536,
    ]


def test_text_and_binary_hash_their_bytes(engine):
    assert row(
        engine,
        "hash64('a'), hash64(''), hash64('hello world'), hash64('héllo'), "
        "hash64('abcdefghijklmnop'), hash64('abcdefghijklmnopq'), "
        "hash64('abcdefghijklmnopqrstuvwxyz0123456789'), hash64AsDouble('a'), "
        "hash32('a'), hash32(''), hash32('héllo'), hash('a'), "
        "hash32('abcdefghijklmnopqrstuvwxyz0123456789'), "
        "hash64(cast('ab' as varbinary)), hash32(cast('ab' as varbinary))",
    ) == [
        -8839064797231613815,
        0,
        5998619086395760910,
        5634419923683204234,
        -4266531025627334877,
        8459014091212432983,
        -983632591049499078,
        -8839064797231613815,
        1009084850,
        0,
        -1130389400,
        1009084850,
        1531718678,
        -7815133031266706642,
        -1681926305,
    ]


def test_decimals_hash_their_unscaled_bytes_or_double(engine):
    assert row(
        engine,
        "hash64(1.0), hash64(1.5), hash64(cast(1.5 as decimal(10,2))), "
        "hash32(1.0), hash32(cast(1.5 as decimal(10,2))), hash32(2.5, 4), "
        "hash64AsDouble(2.5), hash32AsDouble(cast(1.5 as decimal(10,2)))",
    ) == [
        3924702969362948632,
        1440240768098792060,
        3948408565404569315,
        -1840324437,
        688380365,
        2133244480,
        -5263782969017861669,
        -260406309,
    ]


def test_seeds_and_nulls(engine):
    assert row(
        engine,
        "hash64('a', 4), hash64(1, 4), hash64('a', -3), hash64(1, -3), "
        "hash64(1, 4294967296), hash64(1, 9999999999), hash32(1, 9999999999), "
        "hash32('a', 4), hash32(1, -3), hash32('a', -3), hash32('a', -1), "
        "hash32('abcd', -3), hash32('', -3), hash32('a', -2147483648), "
        "hash32(2.5, -3), hash64AsDouble(cast('Infinity' as float), 4), "
        "hash64(cast(null as int), 4), hash32(cast(null as varchar), 4), "
        "hash64(cast(null as double)), hash32(cast(null as bigint))",
    ) == [
        1228377497390879443,
        4337828385203353736,
        -5319157096397334943,
        7675187283350667099,
        4308238529031811090,
        8362259637410933397,
        1293282908,
        -1911403394,
        -25014039,
        -810024386,
        1009084850,
        -1195298030,
        821347078,
        -720722383,
        585397861,
        3366606454132759012,
        4,
        4,
        0,
        0,
    ]


def test_columns(breadth):
    _, rows = columns_and_rows(
        breadth.execute(
            f"SELECT hash64(n_name), hash32(n_name), hash64(n_nationkey), hash32(n_nationkey) "
            f"FROM {NATION} WHERE n_nationkey = 2"
        )[-1]
    )
    assert [list(r) for r in rows] == [
        [-6793855088720392565, 195271805, -1243006452765186581, -1149829158]
    ]
    _, rows = columns_and_rows(
        breadth.execute(
            f"SELECT hash64(n_comment, 17), hash32(n_comment, 17) FROM {NATION} "
            f"WHERE n_nationkey = 3"
        )[-1]
    )
    assert [list(r) for r in rows] == [[7099652488859252841, -1637630514]]


@pytest.mark.parametrize(
    "select, phrase",
    [
        ("hash64(2.5, 0)", "hash64() of a DECIMAL with a seed is not supported"),
        ("hash64(interval '1' day)", "hash64() of a interval day to second value is not supported"),
        ("hash32('a', 'b')", "the seed must be an INT or BIGINT"),
    ],
)
def test_refusals_name_the_function(engine, select, phrase):
    with pytest.raises(SqlError, match=re.escape(phrase)):
        row(engine, select)
