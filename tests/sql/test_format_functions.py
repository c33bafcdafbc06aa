"""ISDATE, BYTE_SUBSTR, TO_NUMBER and TO_CHAR of numbers (java.text.DecimalFormat patterns),
with the answers real Drill 1.22 gave for the same queries (asked through shared/tools/drill,
`query.sh --root shared/data`)."""

from __future__ import annotations

import pytest

from drillspark.result import DrillRuntimeError
from drillspark.sql import SqlError
from drillspark.sql.output import columns_and_rows

EVENTS = "dfs.`breadth/own/json/events.json`"
PEOPLE = "dfs.`breadth/own/json/people.json`"


def row(engine, select):
    _, rows = columns_and_rows(engine.execute(f"SELECT {select} FROM (VALUES(1))")[-1])
    return rows[0]


def test_isdate_reads_year_month_day_at_the_start(data_engine):
    # Drill: three digit runs, one separator of any kind between them, a real calendar day;
    # whatever follows the day is ignored; NULL is not a date (false, not NULL)
    assert row(
        data_engine,
        "ISDATE('2023-01-15'), ISDATE('not a date'), ISDATE('2023-02-30'), "
        "ISDATE('2023-1-5'), ISDATE('20230115'), ISDATE('2023/01/15'), "
        "ISDATE('2023-01-15T10:00:00'), ISDATE('2023-01-15 25:00:00')",
    ) == [True, False, False, True, False, True, True, True]
    assert row(
        data_engine,
        "ISDATE(' 2023-01-15'), ISDATE('2023-13-01'), ISDATE('2024-02-29'), "
        "ISDATE('2023-02-29'), ISDATE('15-01-2023'), ISDATE('2023-01-15abc'), "
        "ISDATE(''), ISDATE(CAST(NULL AS VARCHAR)), ISDATE('10:00:00')",
    ) == [False, False, True, False, False, True, False, False, False]
    assert row(
        data_engine,
        "ISDATE('2023x01x15'), ISDATE('12023-01-15'), ISDATE('0000-01-01'), "
        "ISDATE('2023-00-10'), ISDATE('2023-01-00'), ISDATE('2023--01-15'), "
        "ISDATE('-2023-01-15'), ISDATE('2023-01'), ISDATE('1-1-1')",
    ) == [True, True, True, False, False, False, False, False, True]


def test_isdate_over_a_file(data_engine):
    _, rows = columns_and_rows(
        data_engine.execute(f"SELECT id, ISDATE(d) a, ISDATE(ts) b FROM {EVENTS} ORDER BY id")[-1]
    )
    assert rows == [[i, True, True] for i in range(1, 6)]


def test_byte_substr_cuts_utf8_bytes(data_engine):
    assert row(
        data_engine,
        "CAST(BYTE_SUBSTR('Apache Drill', 8, 5) AS VARCHAR(10)), "
        "CAST(BYTE_SUBSTR('naïve', 3, 2) AS VARCHAR), "
        "CAST(BYTE_SUBSTR('Drill', 2, 0) AS VARCHAR), "
        "CAST(BYTE_SUBSTR('Drill', 2, -1) AS VARCHAR), "
        "CAST(BYTE_SUBSTR(CAST(NULL AS VARCHAR), 1, 2) AS VARCHAR), "
        "typeof(BYTE_SUBSTR('Drill', 1, 2))",
    ) == ["Drill", "ï", "", "", None, "VARBINARY"]
    assert row(data_engine, "BYTE_SUBSTR('Apache Drill', 1, 6)") == [bytearray(b"Apache")]


def test_to_number_reads_decimal_format_patterns(data_engine):
    # the documentation's examples and more patterns, all DOUBLE
    assert row(
        data_engine,
        "TO_NUMBER('987,966', '######'), TO_NUMBER('1,234.56', '#,###.##'), "
        "TO_NUMBER('$1,234.50', '$#,###.00'), TO_NUMBER('45%', '#%'), "
        "TO_NUMBER('-12.5', '#.#'), TO_NUMBER('1.2E3', '0.0E0'), "
        "TO_NUMBER('(42)', '#;(#)')",
    ) == [987.0, 1234.56, 1234.5, 0.0, -12.5, 1200.0, -42.0]
    # rounded half up to the pattern's fraction digits; text after the number is ignored
    assert row(
        data_engine,
        "TO_NUMBER('2.5', '#'), TO_NUMBER('-2.5', '#'), "
        "TO_NUMBER('1234.5678', '#,###.##'), TO_NUMBER('12abc', '#'), "
        "TO_NUMBER('1,234', '#,###'), TO_NUMBER('.5', '#.#'), "
        "TO_NUMBER('-.5', '#.#'), TO_NUMBER('5.', '#'), "
        "TO_NUMBER('1,2,34', '#,###'), TO_NUMBER('1E3', '#'), "
        "TO_NUMBER('1.5E+2', '0.0E0'), TO_NUMBER('1.5E-2', '0.0E0')",
    ) == [3.0, -3.0, 1234.57, 12.0, 1234.0, 0.5, -0.5, 5.0, 1234.0, 1000.0, 1.5, 0.0]
    assert row(
        data_engine,
        "TO_NUMBER('USD 12', '''USD ''#'), TO_NUMBER('12.5%', '#.#%'), "
        "TO_NUMBER('3.7', '0'), TO_NUMBER('0.123456789', '#.#####'), "
        "TO_NUMBER('12,345.678', '#,##0.0#'), "
        "TO_NUMBER('1.23456789E8', '0.00E0'), TO_NUMBER('5-', '#'), "
        "TO_NUMBER('(1,234.5)', '#,###.#;(#,###.#)'), "
        "TO_NUMBER(CAST(NULL AS VARCHAR), '#')",
    ) == [12.0, 0.1, 4.0, 0.12346, 12345.68, 123456789.0, 5.0, -1234.5, None]


def test_to_number_over_rows(data_engine):
    _, rows = columns_and_rows(
        data_engine.execute(
            "SELECT TO_NUMBER(s, '#') a FROM (VALUES('7'), ('8.5'), (CAST(NULL AS VARCHAR))) t(s)"
        )[-1]
    )
    assert sorted(rows, key=lambda r: (r[0] is None, r[0])) == [[7.0], [9.0], [None]]


@pytest.mark.parametrize(
    "text,pattern", [("abc", "#"), (" 12", "#"), ("45", "#%"), ("-5", "#;(#)")]
)
def test_to_number_fails_on_text_the_pattern_does_not_read(data_engine, text, pattern):
    # Drill: "Cannot parse input: abc with pattern : #"
    with pytest.raises((DrillRuntimeError, SqlError), match="cannot parse"):
        row(data_engine, f"TO_NUMBER('{text}', '{pattern}')")


def test_to_number_needs_a_digit_in_the_pattern(data_engine):
    with pytest.raises(SqlError, match="no digits"):
        row(data_engine, "TO_NUMBER('12', 'abc')")


def test_to_char_formats_numbers_with_decimal_format(data_engine):
    assert row(
        data_engine,
        "TO_CHAR(1256.789383, '#,###.###'), TO_CHAR(125677.4567, '#,###.###'), "
        "TO_CHAR(1234.5, '#,###.00'), TO_CHAR(0.5, '#.##'), "
        "TO_CHAR(-1234.567, '#,##0.00'), TO_CHAR(42, '000000'), "
        "TO_CHAR(0.256, '#.#%'), TO_CHAR(1234567.891, '0.###E0'), "
        "TO_CHAR(12345, '##0.##E0'), TO_CHAR(2.5, '#'), TO_CHAR(3.5, '#'), "
        "TO_CHAR(0, '#'), TO_CHAR(CAST(7 AS INT), '00.0')",
    ) == [
        "1,256.789",
        "125,677.457",
        "1,234.50",
        "0.5",
        "-1,234.57",
        "000042",
        "25.6%",
        "1.235E6",
        "12.345E3",
        "2",
        "4",
        "0",
        "07.0",
    ]
    _, rows = columns_and_rows(
        data_engine.execute(
            f"SELECT id, TO_CHAR(salary, '#,###.00') s FROM {PEOPLE} WHERE id < 4 ORDER BY id"
        )[-1]
    )
    assert rows == [[1, "5,200.50"], [2, "4,100.00"], [3, "7,300.25"]]


def test_string_binary_prints_printable_bytes(data_engine):
    # Drill: letters, digits, space and these punctuation marks as themselves, others \xHH
    assert row(
        data_engine,
        "STRING_BINARY(CONVERT_TO('a b~`!@#$%^&*()-_=+[]{}|;:\",.<>/?', 'UTF8')), "
        "STRING_BINARY(CONVERT_TO('''', 'UTF8')), STRING_BINARY(CONVERT_TO('a\\tb', 'UTF8')), "
        "STRING_BINARY(CONVERT_TO('naïve', 'UTF8')), STRING_BINARY(CONVERT_TO(1, 'INT')), "
        "STRING_BINARY(CONVERT_TO('Drill', 'UTF8'))",
    ) == [
        'a b~`!@#$%^&*()-_=+[]{}|;:",.<>/?',
        "'",
        "a\\x5Ctb",
        "na\\xC3\\xAFve",
        "\\x01\\x00\\x00\\x00",
        "Drill",
    ]


def test_binary_string_reads_escapes(data_engine):
    assert row(
        data_engine, "BINARY_STRING('\\x41 b\\x4'), CAST(BINARY_STRING('\\x48\\x49') AS VARCHAR)"
    ) == [bytearray(b"A b\\x4"), "HI"]


def test_regexp_extract_gives_the_groups(data_engine):
    assert row(
        data_engine,
        "REGEXP_EXTRACT('abc123def', '([0-9]+)'), "
        "REGEXP_EXTRACT('a1b22', '([a-z])([0-9]+)'), "
        "REGEXP_EXTRACT('abc123def', '[0-9]+'), "
        "REGEXP_EXTRACT('abc', '([0-9]+)')",
    ) == [["123"], ["a", "1"], [], None]
