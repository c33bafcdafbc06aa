"""A SQL decimal literal is the DECIMAL of every digit written, as Drill 1.22 reads it
(Calcite's exact literal): not the DOUBLE nearest to it, and printed with every digit."""

from __future__ import annotations

import json
from decimal import Decimal

from drillspark.cli.main import main as cli_main
from drillspark.sql.output import columns_and_rows

V = "(VALUES(1))"


def rows(engine, sql):
    return [list(r) for r in columns_and_rows(engine.execute(sql)[-1])[1]]


def test_a_long_decimal_literal_keeps_every_digit(data_engine):
    # Drill 1.22 (2026-12-07): 123456789012345678.5, 12345678901234567.25,
    # 0.1234567890123456789, 1234567890.123456789; they had come through a DOUBLE here
    # (123456789012345680.0, 12345678901234568.00, ...), and a filter comparing one found
    # no row where Drill finds one
    assert rows(
        data_engine,
        "SELECT 123456789012345678.5, 12345678901234567.25, 0.1234567890123456789, "
        f"1234567890.123456789, -0.5 FROM {V}",
    ) == [
        [
            Decimal("123456789012345678.5"),
            Decimal("12345678901234567.25"),
            Decimal("0.1234567890123456789"),
            Decimal("1234567890.123456789"),
            Decimal("-0.5"),
        ]
    ]
    assert rows(
        data_engine,
        "SELECT count(*) FROM dfs.root.`breadth/tpch/nation.parquet` "
        "WHERE CAST(n_nationkey AS DECIMAL(19,2)) + 12345678901234567.25 "
        "= CAST('12345678901234567.25' AS DECIMAL(19,2))",
    ) == [[1]]


def test_a_decimal_literals_precision_counts_every_digit_written(data_engine):
    # Drill 1.22 (2026-12-07): 0.5 DECIMAL(2, 1), 00.5 (3, 1), 0.000001 (7, 6), 010.25 (5, 2),
    # 1.50 (3, 2); the leading zeros had not counted here (0.000001 was (6, 6))
    assert rows(
        data_engine,
        "SELECT sqltypeof(0.5), sqltypeof(00.5), sqltypeof(0.000001), sqltypeof(010.25), "
        f"sqltypeof(1.50) FROM {V}",
    ) == [["DECIMAL(2, 1)", "DECIMAL(3, 1)", "DECIMAL(7, 6)", "DECIMAL(5, 2)", "DECIMAL(3, 2)"]]


def test_the_clis_json_writes_a_decimal_as_its_number(spark, capsys):
    # a JSON number of every digit and the scale (Drill's REST writes 1.50); it had been a
    # float of 16 digits (1.2345678901234568e+17) and 3.0 an integer
    sql = f"SELECT 123456789012345678.5 AS f, 1.50 AS a, 3.0 AS b FROM {V}"
    assert cli_main(["sql", "--format", "json", sql]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line == '{"f": 123456789012345678.5, "a": 1.50, "b": 3.0}'
    assert json.loads(line, parse_float=Decimal)["f"] == Decimal("123456789012345678.5")
