"""Flight SQL through the Arrow Flight SQL JDBC driver 18.3.0 (jdbc:arrow-flight-sql://...)
against `drillspark serve --flight-port`: connect, statements and their JDBC types, real data,
DatabaseMetaData (catalogs, schemas, tables, columns), prepared statements, errors, logins. The
driver prepares every statement (CreatePreparedStatement) and reads its rows with DoGet."""

from __future__ import annotations

import json

from tests.flight.conftest import PASSWORDS


def test_query_types_and_values(jdbc, flight_server):
    sql = (
        "SELECT 1 AS i, CAST(2 AS BIGINT) AS b, 'x' AS s, CAST(1.50 AS DECIMAL(5,2)) AS d, "
        "DATE '2020-01-02' AS dt, TIMESTAMP '2020-01-02 03:04:05' AS ts, TRUE AS bo"
    )
    out = jdbc.run(flight_server.flight.port, f"query:{sql}")[f"query:{sql}"]
    assert out["columns"] == ["i", "b", "s", "d", "dt", "ts", "bo"]
    assert out["types"] == [
        "INTEGER", "BIGINT", "VARCHAR", "DECIMAL", "DATE", "TIMESTAMP", "BOOLEAN",
    ]  # fmt: skip
    assert out["precision"][3] == "5/2"
    assert out["rows"] == [[1, 2, "x", 1.50, "2020-01-02", "2020-01-02 03:04:05.0", True]]


def test_real_data(jdbc, flight_server, shared):
    path = shared / "data" / "yelp" / "yelp_business_small.ndjson"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    sql = (
        "SELECT business_id, name, review_count FROM dfs.data.`yelp/yelp_business_small.ndjson` "
        "ORDER BY business_id"
    )
    count = "SELECT count(*) AS c FROM dfs.data.`citibike`"
    out = jdbc.run(flight_server.flight.port, f"query:{sql}", f"query:{count}")
    expected = sorted([r["business_id"], r["name"], r["review_count"]] for r in records)
    assert out[f"query:{sql}"]["rows"] == expected
    lines = sum(
        1
        for f in (shared / "data" / "citibike").glob("*.ndjson")
        for line in f.read_text().splitlines()
        if line.strip()
    )
    assert out[f"query:{count}"]["rows"] == [[lines]]


def test_metadata(jdbc, flight_server):
    steps = [
        "catalogs",
        "schemas::dfs%",
        "tables::information_schema:%",
        "columns::dfs.tmp:complex.json:",
        "tables::dfs.tmp:complex.json",
        "meta",
    ]
    out = jdbc.run(flight_server.flight.port, *steps)
    assert out["catalogs"]["rows"] == [["DRILL"]]
    assert [r[0] for r in out["schemas::dfs%"]["rows"]] == [
        "dfs.data", "dfs.default", "dfs.root", "dfs.tmp",
    ]  # fmt: skip
    info = {r[2]: r[3] for r in out["tables::information_schema:%"]["rows"]}
    assert info["TABLES"] == "SYSTEM TABLE" and "COLUMNS" in info and "SCHEMATA" in info
    # a file, which INFORMATION_SCHEMA never lists, named exactly: its columns
    assert out["tables::dfs.tmp:complex.json"]["rows"][0][:4] == [
        "DRILL", "dfs.tmp", "complex.json", "TABLE",
    ]  # fmt: skip
    cols = out["columns::dfs.tmp:complex.json:"]
    names = cols["columns"]
    rows = [dict(zip(names, r, strict=True)) for r in cols["rows"]]
    assert [r["COLUMN_NAME"] for r in rows] == ["id", "m", "arr", "f", "t"]
    assert rows[0]["TYPE_NAME"] == "BIGINT"
    meta = out["meta"]
    assert meta["product"].startswith("drillspark") and meta["version"] == "1.22.0"
    assert meta["quote"] == "`"


def test_prepared_statement_and_session(jdbc, flight_server):
    prep = "prepare:SELECT count(*) AS c FROM dfs.tmp.`complex.json`"
    use = "query:USE dfs.tmp"
    after = "query:SELECT id FROM `complex.json` ORDER BY id"
    out = jdbc.run(flight_server.flight.port, prep, use, after)
    assert out[prep]["prepared"] == ["c:BIGINT"]
    assert out[prep]["rows"] == [[2]]
    # JDBC's executeQuery of a statement announcing no columns: the driver runs it as an
    # update (DoPut), and says so; the session keeps its USE
    assert "did not return a result set" in out[use]["error"]
    assert out[after]["rows"] == [[1], [2]]


def test_errors(jdbc, flight_server):
    bad = "query:SELEC 1"
    missing = "query:SELECT * FROM dfs.tmp.`nope.json`"
    ok = "query:SELECT 1 AS one"
    out = jdbc.run(flight_server.flight.port, bad, missing, ok)
    assert "PARSE ERROR" in out[bad]["error"] and "(line 1, column 7)" in out[bad]["error"]
    assert "VALIDATION ERROR" in out[missing]["error"] and "nope.json" in out[missing]["error"]
    assert "Traceback" not in out[bad]["error"] + out[missing]["error"]
    assert out[ok]["rows"] == [[1]]


def test_logins(jdbc, flight_auth_server):
    port = flight_auth_server.flight.port
    who = "query:SELECT user AS u FROM (VALUES(1))"
    out = jdbc.run(port, who, env={"PROBE_USER": "alice", "PROBE_PASSWORD": PASSWORDS["alice"]})
    assert out[who]["rows"] == [["alice"]]
    wrong = jdbc.run(port, who, env={"PROBE_USER": "alice", "PROBE_PASSWORD": "guess-1234"})
    assert "error" in wrong["connect"]
    assert "guess-1234" not in wrong["connect"]["error"]
    anonymous = jdbc.run(port, who)
    assert "error" in anonymous["connect"] or "error" in anonymous[who]


def test_intervals(jdbc, flight_server):
    """Intervals as the driver reads Arrow's interval types, not text: a year-month one
    (month-day-nano) as Arrow's PeriodDuration (getString: ISO 8601, `P14M`), a day-time one
    (a duration) as java.time.Duration. The driver types both JAVA_OBJECT, with no class."""
    from tests.flight.test_flight_adbc import INTERVALS

    out = jdbc.run(flight_server.flight.port, f"query:{INTERVALS}", f"strings:{INTERVALS}")
    got = out[f"query:{INTERVALS}"]
    assert got["columns"] == ["m", "y", "ym", "n", "ds", "neg"]
    assert got["types"] == ["JAVA_OBJECT"] * 6
    assert got["rows"] == [["P14M PT0S", "P24M PT0S", "P-14M PT0S", None, "PT26H3M4.5S", "PT-0.5S"]]
    texts = out[f"strings:{INTERVALS}"]["rows"]
    assert texts == [["P14M", "P24M", "P-14M", None, "PT26H3M4.5S", "PT-0.5S"]]
