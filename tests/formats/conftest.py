"""Shared helpers of the format tests: an SQL engine over a folder, and Drill's JDBC view of
values (how ../shared/tools/drill/query.sh --json writes them) so rows read through either
door compare with the answers pinned from Drill 1.22."""

from __future__ import annotations

import datetime
import decimal
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent / "data"


def answers(name: str) -> dict[str, dict[str, Any]]:
    """Drill 1.22's answers (tests/formats/data/<name>.json) by their SQL."""
    return {a["sql"]: a for a in json.loads((DATA / f"{name}.json").read_text("utf-8"))}


def jdbc_value(v: Any) -> Any:
    """A value as Drill's JDBC driver gives it to query.sh: binary as lower-case hex, dates,
    times (whole seconds) and timestamps (fraction without trailing zeros) as text, a map's
    null members dropped, decimals as numbers."""
    if v is None:
        return None
    if isinstance(v, bytes | bytearray):
        return bytes(v).hex()
    if isinstance(v, datetime.timedelta):
        # Drill's INTERVAL as its JDBC driver gives it: a Joda period, seconds not folded
        # into minutes ('PT5.250S', 'P1DT7384S')
        ms = v.microseconds // 1000
        return (
            "P"
            + (f"{v.days}D" if v.days else "")
            + f"T{v.seconds}"
            + (f".{ms:03d}" if ms else "")
            + "S"
        )
    if isinstance(v, datetime.datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S")
        if v.microsecond:
            text += ("." + f"{v.microsecond:06d}"[:3]).rstrip("0").rstrip(".")
        return text
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S")
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dict):
        return {k: jdbc_value(x) for k, x in v.items() if x is not None}
    if hasattr(v, "asDict"):
        return {k: jdbc_value(x) for k, x in v.asDict().items() if x is not None}
    if isinstance(v, list):
        return [jdbc_value(x) for x in v]
    return v


def jdbc_rows(rows: list[Any]) -> list[list[Any]]:
    return [[jdbc_value(x) for x in r] for r in rows]


# Spark's type of a column -> the JDBC type name Drill's driver gives for it
JDBC_TYPES = {
    "IntegerType": "INTEGER",
    "LongType": "BIGINT",
    "FloatType": "FLOAT",
    "DoubleType": "DOUBLE",
    "BooleanType": "BOOLEAN",
    "StringType": "CHARACTER VARYING",
    "BinaryType": "BINARY VARYING",
    "StructType": "STRUCT",
    "ArrayType": "ARRAY",
    "MapType": "MAP",
    "DecimalType": "DECIMAL",
    "DateType": "DATE",
    "TimeType": "TIME",
    "TimestampNTZType": "TIMESTAMP",
    "DayTimeIntervalType": "INTERVAL DAY TO SECOND",
}


def jdbc_types(schema: Any) -> list[str]:
    return [JDBC_TYPES.get(type(f.dataType).__name__, type(f.dataType).__name__) for f in schema]


@pytest.fixture
def sql(spark, tmp_path) -> Callable[..., Any]:
    """`sql(query, formats=None)`: the query's DataFrame on an engine whose dfs has the
    workspace `data` at tmp_path, given `formats` as session(storage={"dfs": {"formats":
    ...}}) gives them."""
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    def run(query: str, formats: dict[str, Any] | None = None) -> Any:
        engine = SqlEngine(spark, SqlSession(workspaces={"data": str(tmp_path)}))
        if formats:
            engine.session.take_storage({"dfs": {"type": "file", "formats": formats}})
        result = engine.execute(query)[-1]
        return result.df if hasattr(result, "df") else result

    return run
