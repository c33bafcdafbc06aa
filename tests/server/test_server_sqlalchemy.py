"""sqlalchemy-drill (what Superset uses) against `drillspark serve`. On connecting it asks
`select min(version) version from sys.drillbits` and `show schemas`, and inspection runs
SHOW SCHEMAS / SHOW TABLES / SELECT * ... LIMIT 1: the `sys` schema and INFORMATION_SCHEMA
come from the SQL engine (the ddl work), not from the server."""

from __future__ import annotations

import datetime as dt
import json
import warnings

import pandas as pd
from sqlalchemy import create_engine, inspect, text


def _engine(server, schema: str = "dfs.data"):
    return create_engine(
        f"drill+sadrill://127.0.0.1:{server.port}/{schema.replace('.', '/')}?use_ssl=False"
    )


def test_connect_and_query(server):
    engine = _engine(server)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT N_NAME FROM `breadth/tpch_json/nation.json` "
                "WHERE N_NATIONKEY < 3 ORDER BY N_NATIONKEY"
            )
        ).fetchall()
    assert [r[0] for r in rows] == ["ALGERIA", "ARGENTINA", "BRAZIL"]


def test_pandas_read_sql(server):
    # sqlalchemy-drill's inspection needs SQLAlchemy 1.4 (as Superset pins it), and pandas 2
    # takes 1.4 connections only as DB-API ones: hand it sqlalchemy-drill's DB-API connection
    engine = _engine(server)
    conn = engine.raw_connection()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "other DBAPI2 objects are not tested"
            frame = pd.read_sql(
                "SELECT N_REGIONKEY, count(*) AS n FROM "
                "`breadth/tpch_json/nation.json` GROUP BY N_REGIONKEY "
                "ORDER BY N_REGIONKEY",
                conn,
            )
    finally:
        conn.close()
    assert list(frame.columns) == ["N_REGIONKEY", "n"]
    assert list(frame["n"]) == [5, 5, 5, 5, 5]


def test_inspect(server):
    inspector = inspect(_engine(server))
    schemas = inspector.get_schema_names()
    assert "dfs.data" in schemas and "dfs.tmp" in schemas
    tables = inspector.get_table_names(schema="dfs.data")
    assert "breadth" in tables
    columns = inspector.get_columns("`breadth/tpch_json/nation.json`", schema="dfs.data")
    assert [c["name"] for c in columns] == ["N_NATIONKEY", "N_NAME", "N_REGIONKEY", "N_COMMENT"]


def test_superset_time_grain(server, shared):
    # Superset's Drill time grains are NEARESTDATE calls (PT15M: 'QUARTER_HOUR'), grouped by,
    # over a real folder: Citi Bike snapshots taken about five minutes apart
    grain = "NEARESTDATE(executionTime, 'yyyy-MM-dd hh:mm:ss a', 'QUARTER_HOUR')"
    with _engine(server).connect() as conn:
        rows = conn.execute(
            text(
                f"SELECT {grain} AS __timestamp, COUNT(*) AS `count` "
                f"FROM `citibike` GROUP BY {grain} ORDER BY __timestamp "
                "LIMIT 10000"
            )
        ).fetchall()
    want: dict[str, int] = {}
    for f in sorted((shared / "data" / "citibike").iterdir()):
        for line in f.read_text().splitlines():
            t = dt.datetime.strptime(json.loads(line)["executionTime"], "%Y-%m-%d %I:%M:%S %p")
            start = t.replace(minute=t.minute - t.minute % 15, second=0).isoformat(" ")
            want[start] = want.get(start, 0) + 1
    assert len(want) > 1
    assert [(str(r[0])[:19], r[1]) for r in rows] == sorted(want.items())
