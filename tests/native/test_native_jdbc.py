"""Drill's own JDBC driver (1.22.0) and sqlline against `drillspark serve`'s user port.

Each answer is compared with what the same client got from a real Drill 1.22 Drillbit for
the same step (../shared/tools/drill/server.sh, its user port; recorded with this file's
DrillJdbcProbe.java and pinned here as DRILL_*). Where drillspark answers otherwise the test
says so and why."""

from __future__ import annotations

import time

import pytest
from tests.server.helpers import PASSWORDS

TYPES = (
    "SELECT CAST(1.5 AS DECIMAL(5,2)) AS d, CAST(2 AS INT) AS i, CAST(3 AS BIGINT) AS bi, "
    "CAST(0.5 AS FLOAT) AS f4, 1.5e0 AS f8, DATE '2024-01-02' AS dt, "
    "TIMESTAMP '2024-01-02 03:04:05.678' AS ts, TIME '03:04:05' AS tm, true AS b, "
    "CAST(NULL AS VARCHAR) AS n, 'héllo' AS s, CAST('ab' AS VARBINARY) AS vb FROM (VALUES(1))"
)
INTERVALS = (
    "SELECT INTERVAL '1' DAY AS ids, "
    "INTERVAL '1 02:03:04.5' DAY TO SECOND AS ids2, CAST(NULL AS INT) AS ni, "
    "CAST(NULL AS DOUBLE) AS nd, CAST(NULL AS BOOLEAN) AS nb, CAST(NULL AS DATE) AS ndt, "
    "CAST(NULL AS DECIMAL(10,3)) AS ndec, CAST(-12345.678 AS DECIMAL(10,3)) AS dec3 "
    "FROM (VALUES(1))"
)
SPECIAL = (
    "SELECT CAST('NaN' AS DOUBLE) AS nan, CAST('-Infinity' AS DOUBLE) AS ninf, "
    "CAST(0.1 AS FLOAT) AS f FROM (VALUES(1))"
)
NATION = (
    "SELECT N_NATIONKEY, N_NAME, N_REGIONKEY FROM dfs.data.`breadth/tpch_json/nation.json` "
    "WHERE N_NATIONKEY < 3"
)
EMPTY = "SELECT N_NAME FROM dfs.data.`breadth/tpch_json/nation.json` WHERE 1 = 0"
COMPLEX = "SELECT id, m, arr, sa, f FROM dfs.tmp.`complex.json`"
NESTED = "SELECT id, objs, nest, tags FROM dfs.tmp.`nested.json`"

# ---------------------------------------------------------------- Drill 1.22's answers
DRILL_TYPES = {
    "columns": ["d", "i", "bi", "f4", "f8", "dt", "ts", "tm", "b", "n", "s", "vb"],
    "types": ["DECIMAL", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP", "TIME",
              "BOOLEAN", "CHARACTER VARYING", "CHARACTER VARYING", "BINARY VARYING"],
    "classes": ["java.math.BigDecimal", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
                "java.lang.Double", "java.sql.Date", "java.sql.Timestamp", "java.sql.Time",
                "java.lang.Boolean", "java.lang.String", "java.lang.String", "[B"],
    "rows": [[1.50, 2, 3, 0.5, 1.5, "2024-01-02", "2024-01-02 03:04:05.678", "03:04:05", True,
              None, "héllo", "6162"]],
}  # fmt: skip
DRILL_INTERVALS = {
    "types": ["INTERVAL DAY TO SECOND", "INTERVAL DAY TO SECOND", "INTEGER", "DOUBLE", "BOOLEAN",
              "DATE", "DECIMAL", "DECIMAL"],
    "rows": [["P1D", "P1DT7384.500S", None, None, None, None, None, -12345.678]],
}  # fmt: skip
YEAR_MONTH = (
    "SELECT INTERVAL '14' MONTH AS m, INTERVAL '2' YEAR AS y, "
    "INTERVAL '1-2' YEAR TO MONTH AS ym, CAST(NULL AS INTERVAL YEAR) AS n, "
    "INTERVAL '-3' MONTH AS neg FROM (VALUES(1))"
)
DICTS = "SELECT id, d FROM dfs.tmp.`dicts.parquet` ORDER BY id"
DRILL_YEAR_MONTH = {
    "types": ["INTERVAL YEAR TO MONTH"] * 5,
    "classes": ["oadd.org.joda.time.Period"] * 5,
    "nullable": [0, 0, 0, 1, 0],
    "rows": [["P1Y2M", "P2Y", "P1Y2M", None, "P-3M"]],
}
# getString of the same values
DRILL_YEAR_MONTH_TEXT = [["1 year 2 months", "2 years 0 months", "1 year 2 months", None,
                          "0 years -3 months"]]  # fmt: skip
# a Parquet map: Drill's DICT
DRILL_DICTS = {
    "types": ["BIGINT", "MAP"],
    "classes": ["java.lang.Long", "java.lang.Object"],
    "nullable": [1, 0],
    "rows": [[1, '{"a":1,"b":2}'], [2, "{}"], [3, "{}"]],
}
# a Parquet list of maps: Drill's REPEATED DICT (a null list shows as an empty one)
LIST_OF_MAPS = "SELECT id, ld FROM dfs.tmp.`rdicts.parquet` ORDER BY id"
DRILL_LIST_OF_MAPS = {
    "types": ["BIGINT", "ARRAY"],
    "classes": ["java.lang.Long", "java.lang.Object"],
    "nullable": [1, 0],
    "rows": [[1, '[{"a":1,"b":2},{"c":3}]'], [2, "[]"], [3, "[]"], [4, "[{}]"]],
}
DRILL_NATION = {
    "types": ["BIGINT", "CHARACTER VARYING", "BIGINT"],
    "nullable": [1, 1, 1],
    "rows": [[0, "ALGERIA", 0], [1, "ARGENTINA", 1], [2, "BRAZIL", 1]],
}
DRILL_COMPLEX = {
    "types": ["BIGINT", "STRUCT", "ARRAY", "ARRAY", "DOUBLE"],
    "rows": [
        [1, '{"k":1,"s":"a"}', "[1,2]", '["x","y"]', 0.5],
        [2, '{"k":2}', "[]", "[]", None],
    ],
}
DRILL_NESTED = {
    "types": ["BIGINT", "ARRAY", "ARRAY", "ARRAY"],
    "rows": [
        [1, '[{"a":1,"b":"x"},{"a":2}]', "[[1,2],[3]]", '["p"]'],
        [2, "[]", "[]", "[]"],
    ],
}
DRILL_META = {
    "product": "Apache Drill Server",
    "version": "1.22.0",
    "major": 1,
    "minor": 22,
    "driver": "Apache Drill JDBC Driver 1.22.0",
    "quote": "`",
    "catalogTerm": "catalog",
    "schemaTerm": "schema",
    "catalogSeparator": ".",
    "readOnly": False,
    "nullsAreSortedHigh": True,
    "storesMixedCase": False,
    "searchEscape": "\\",
}
DRILL_IS_TABLES = [
    ["DRILL", "information_schema", t, "SYSTEM TABLE", None, None, None, None, None, None]
    for t in ["CATALOGS", "COLUMNS", "FILES", "PARTITIONS", "SCHEMATA", "TABLES", "VIEWS"]
]
DRILL_CATALOG_COLUMNS = [
    ["DRILL", "information_schema", "CATALOGS", name, 12, "CHARACTER VARYING", 65536, None,
     None, None, 0, None, None, None, None, 262144, i, "NO", None, None, None, None, "", ""]
    for i, name in enumerate(["CATALOG_NAME", "CATALOG_DESCRIPTION", "CATALOG_CONNECT"], 1)
]  # fmt: skip
DRILL_PORT_COLUMNS = [
    ["DRILL", "sys", "drillbits", name, 4, "INTEGER", 32, None, 0, 2, 1, None, None, None,
     None, None, i, "YES", None, None, None, None, "", ""]
    for i, name in enumerate(["user_port", "control_port", "data_port", "http_port"], 2)
]  # fmt: skip


@pytest.fixture(scope="module")
def answers(jdbc, native_url) -> dict:
    """One connection, every step of the basic tests (a JVM start each costs seconds)."""
    return jdbc.run(
        native_url,
        "query:SELECT 1 AS one",
        f"query:{TYPES}",
        f"query:{INTERVALS}",
        f"query:{SPECIAL}",
        f"query:{NATION}",
        f"query:{EMPTY}",
        f"query:{COMPLEX}",
        f"query:{NESTED}",
        f"query:{CONVERTED}",  # before maxrows: its session option bounds the later ones
        "query:SELEC 1",
        "query:SELECT * FROM dfs.data.`nosuch.json`",
        "meta",
        "catalogs",
        "schemas::dfs%",
        "tables::INFORMATION_SCHEMA:%",
        "tables::dfs.data:%nation%",
        "columns::information_schema:CATALOGS:",
        "columns:DRILL:sys:drillbits:%port",
        f"prepare:{NATION}",
        "prepare:SELECT CAST(1 AS INT) AS i, 'a' AS s, CAST(1.5 AS DECIMAL(5,2)) AS d",
        "query:SELECT i, s FROM dfs.tmp.`big.json`",
        "maxrows:2:SELECT N_NAME FROM dfs.data.`breadth/tpch_json/nation.json`",
        "query:SELECT N_NAME FROM dfs.data.`breadth/tpch_json/nation.json`",
        "query:USE dfs.data",
        "query:SELECT count(*) AS n FROM `breadth/tpch_json/nation.json`",
        "query:SELECT user_port, http_port FROM sys.drillbits",
    )


# a schema-free value (Spark's VARIANT): Drill 1.22 answers a STRUCT whose getObject prints the
# same JSON text for each row (`{"a":0,"b":[1.5,2.5]}` for N_NATIONKEY 0)
CONVERTED = (
    "SELECT CONVERT_FROM(CONCAT('{\"a\":', CAST(N_NATIONKEY AS VARCHAR), ',\"b\":[1.5,2.5]}'), "
    "'JSON') AS m FROM dfs.data.`breadth/tpch_json/nation.json` ORDER BY N_NATIONKEY"
)


def test_a_converted_json_value_as_its_text(answers):
    got = answers[f"query:{CONVERTED}"]
    assert got["types"] == ["CHARACTER VARYING"]
    assert got["rows"][:2] == [['{"a":0,"b":[1.5,2.5]}'], ['{"a":1,"b":[1.5,2.5]}']]
    assert len(got["rows"]) == 25


def test_connects_and_selects_one(answers):
    assert answers["connect"] == {"step": "connect", "ok": True}
    one = answers["query:SELECT 1 AS one"]
    assert (one["columns"], one["types"], one["classes"], one["rows"]) == (
        ["one"],
        ["INTEGER"],
        ["java.lang.Integer"],
        [[1]],
    )
    assert one["nullable"] == [0]  # as Drill: a literal is not nullable
    assert answers["close"]["ok"]


def test_types_as_drill(answers):
    got = answers[f"query:{TYPES}"]
    for key, value in DRILL_TYPES.items():
        assert got[key] == value, key
    # Drill: [0,0,0,0,0,0,0,0,0,1,0,0]; Spark types these casts nullable
    assert got["nullable"] == [1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0]
    # Drill: DECIMAL 5/2 as here; its VARCHAR literal carries its length (5/0), Spark's no length
    assert got["precision"][0] == "5/2" and got["precision"][10] == "65535/0"
    special = answers[f"query:{SPECIAL}"]  # Drill 1.22: the same types and values
    assert special["types"] == ["DOUBLE", "DOUBLE", "FLOAT"]
    assert special["rows"] == [["NaN", "-Infinity", 0.1]]
    intervals = answers[f"query:{INTERVALS}"]
    for key, value in DRILL_INTERVALS.items():
        assert intervals[key] == value, key


def test_shared_data_as_drill(answers):
    nation = answers[f"query:{NATION}"]
    assert nation["columns"] == ["N_NATIONKEY", "N_NAME", "N_REGIONKEY"]
    for key, value in DRILL_NATION.items():
        assert nation[key] == value, key
    counted = answers["query:SELECT count(*) AS n FROM `breadth/tpch_json/nation.json`"]
    assert counted["rows"] == [[25]] and counted["types"] == ["BIGINT"]


def test_a_statement_sent_again_keeps_its_translation(answers, spark):
    """The native protocol is a door of the one query service: the nation query the steps
    send twice (a query, then prepared) kept its translation (spark/plan_reuse.py)."""
    from drillspark.spark import plan_reuse

    assert answers[f"prepare:{NATION}"]["rows"] == answers[f"query:{NATION}"]["rows"]
    keys = [k for k in plan_reuse._KEPT.get(spark, {}) if "nation.json" in str(k[0])]
    assert ("user", "anonymous") in {k[-1] for k in keys}, keys


def test_empty_result_keeps_its_schema(answers):
    empty = answers[f"query:{EMPTY}"]
    assert (empty["columns"], empty["types"], empty["rows"]) == (
        ["N_NAME"],
        ["CHARACTER VARYING"],
        [],
    )


def test_maps_and_arrays_as_drill(answers):
    got = answers[f"query:{COMPLEX}"]
    assert got["types"] == DRILL_COMPLEX["types"]
    assert got["rows"] == DRILL_COMPLEX["rows"]
    nested = answers[f"query:{NESTED}"]  # arrays of maps (REPEATED MAP), of arrays (LIST)
    assert nested["types"] == DRILL_NESTED["types"]
    assert nested["rows"] == DRILL_NESTED["rows"]


def test_several_batches(answers, native_server):
    got = answers["query:SELECT i, s FROM dfs.tmp.`big.json`"]
    assert sorted(r[0] for r in got["rows"]) == list(range(10_000))
    assert all(s == f"row{i}" for i, s in got["rows"])


def test_year_month_intervals_and_maps_as_drill(jdbc, native_url, native_tmp):
    import pyarrow as pa
    import pyarrow.parquet as pq

    dicts = [[("a", 1), ("b", 2)], [], None]
    pq.write_table(
        pa.table({"id": [1, 2, 3], "d": pa.array(dicts, pa.map_(pa.string(), pa.int64()))}),
        native_tmp / "dicts.parquet",
    )
    map_type = pa.map_(pa.string(), pa.int64())
    lists = [[[("a", 1), ("b", 2)], [("c", 3)]], [], None, [[]]]
    pq.write_table(
        pa.table({"id": [1, 2, 3, 4], "ld": pa.array(lists, pa.list_(map_type))}),
        native_tmp / "rdicts.parquet",
    )
    got = jdbc.run(
        native_url,
        f"query:{YEAR_MONTH}",
        f"strings:{YEAR_MONTH}",
        f"query:{DICTS}",
        f"query:{LIST_OF_MAPS}",
        f"strings:{LIST_OF_MAPS}",
    )
    intervals = got[f"query:{YEAR_MONTH}"]
    for key, value in DRILL_YEAR_MONTH.items():
        if key != "nullable":
            assert intervals[key] == value, key
    # Drill: [0, 0, 0, 1, 0] (literals are not nullable); drillspark's as Spark types them
    assert intervals["nullable"] == [1, 1, 1, 1, 1]
    assert got[f"strings:{YEAR_MONTH}"]["rows"] == DRILL_YEAR_MONTH_TEXT
    maps = got[f"query:{DICTS}"]
    for key, value in DRILL_DICTS.items():
        assert maps[key] == value, key
    lists_of_maps = got[f"query:{LIST_OF_MAPS}"]
    for key, value in DRILL_LIST_OF_MAPS.items():
        assert lists_of_maps[key] == value, key
    # getString: the same JSON text, the id as its digits (as from Drill)
    texts = got[f"strings:{LIST_OF_MAPS}"]["rows"]
    assert texts == [[str(r[0]), r[1]] for r in DRILL_LIST_OF_MAPS["rows"]]


def test_errors_as_drill(answers):
    # Drill: "PARSE ERROR: Non-query expression encountered in illegal context ... [Error Id: "
    parse = answers["query:SELEC 1"]["error"]
    assert parse.startswith("java.sql.SQLException: PARSE ERROR: ")
    assert "(line 1, column 7)" in parse and parse.rstrip().endswith("]")
    assert "[Error Id: " in parse
    # Drill: "VALIDATION ERROR: From line 1, column 15 to line 1, column 36: Object
    # 'nosuch.json' not found within 'dfs.data'"
    missing = answers["query:SELECT * FROM dfs.data.`nosuch.json`"]["error"]
    assert missing.startswith("java.sql.SQLException: VALIDATION ERROR: ")
    assert "nosuch.json" in missing and "(line 1, column 15)" in missing
    assert "/work" not in missing and "shared" not in missing  # no server folder


def test_database_metadata_as_drill(answers):
    meta = answers["meta"]
    for key, value in DRILL_META.items():
        assert meta[key] == value, key
    assert answers["catalogs"]["rows"] == [["DRILL"]]
    schemas = answers["schemas::dfs%"]
    assert schemas["columns"] == ["TABLE_SCHEM", "TABLE_CATALOG"]
    assert schemas["rows"] == [
        ["dfs.data", "DRILL"],
        ["dfs.default", "DRILL"],
        ["dfs.root", "DRILL"],
        ["dfs.tmp", "DRILL"],
    ]
    assert answers["tables::INFORMATION_SCHEMA:%"]["rows"] == DRILL_IS_TABLES
    # files are not tables in Drill's INFORMATION_SCHEMA: none listed
    assert answers["tables::dfs.data:%nation%"]["rows"] == []
    assert answers["columns::information_schema:CATALOGS:"]["rows"] == DRILL_CATALOG_COLUMNS
    assert answers["columns:DRILL:sys:drillbits:%port"]["rows"] == DRILL_PORT_COLUMNS


def test_prepared_statements_and_max_rows(answers):
    prepared = answers[f"prepare:{NATION}"]
    assert prepared["prepared"] == [
        "N_NATIONKEY:BIGINT",
        "N_NAME:CHARACTER VARYING",
        "N_REGIONKEY:BIGINT",
    ]
    assert prepared["rows"] == DRILL_NATION["rows"]
    typed = answers["prepare:SELECT CAST(1 AS INT) AS i, 'a' AS s, CAST(1.5 AS DECIMAL(5,2)) AS d"]
    # Drill 1.22: the same names and types, and [[1, "a", 1.5]]
    assert typed["prepared"] == ["i:INTEGER", "s:CHARACTER VARYING", "d:DECIMAL"]
    assert typed["rows"] == [[1, "a", 1.50]]
    # setMaxRows(2): the driver sends ALTER SESSION SET `exec.query.max_rows` = 2 first
    limited = answers["maxrows:2:SELECT N_NAME FROM dfs.data.`breadth/tpch_json/nation.json`"]
    assert limited["rows"] == [["ALGERIA"], ["ARGENTINA"]]
    # ... a session option: the connection's later statements get 2 rows too, as from Drill
    later = answers["query:SELECT N_NAME FROM dfs.data.`breadth/tpch_json/nation.json`"]
    assert later["rows"] == [["ALGERIA"], ["ARGENTINA"]]


def test_a_connection_is_a_session(answers, native_server):
    assert answers["query:USE dfs.data"]["rows"] == [[True, "Default schema changed to [dfs.data]"]]
    # the ports the server listens on, as sys.drillbits names them
    ports = answers["query:SELECT user_port, http_port FROM sys.drillbits"]["rows"]
    assert ports == [[native_server.native.port, native_server.port]]


def test_schema_property_and_profiles(jdbc, native_url, native_server):
    got = jdbc.run(
        native_url + ";schema=dfs.tmp",
        "query:SELECT count(*) AS n FROM `complex.json`",
    )
    assert got["query:SELECT count(*) AS n FROM `complex.json`"]["rows"] == [[2]]
    texts = {q.text: q for q in native_server.queries.finished()}
    done = texts["SELECT count(*) AS n FROM `complex.json`"]
    assert done.state == "COMPLETED" and done.user == "anonymous" and done.rows == 1


def test_cancel(jdbc, native_url, native_server):
    # 300,000 x 1,000 rows: the native encoder sends the 300,000 rows of huge.json alone
    # before a cancel arrives, so the answer must be one no server finishes in that time
    sql = (
        "SELECT a.i, b.s FROM dfs.tmp.`huge.json` a JOIN dfs.tmp.`big.json` b "
        "ON mod(a.i, 10) = mod(b.i, 10)"
    )
    got = jdbc.run(native_url, f"cancel:{sql}")[f"cancel:{sql}"]
    # as against Drill: one row read, cancel(), then the driver's own "Statement canceled"
    assert got["first"] is True
    assert got["after"] in ("java.sql.SQLException: Statement canceled", "end")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ended = [q for q in native_server.queries.finished() if q.text == sql]
        if ended:
            break
        time.sleep(0.5)
    assert ended and ended[0].state == "CANCELED", ended
    assert ended[0].rows < 300_000 * 1_000


def test_sqlline(jdbc, native_url, tmp_path):
    script = tmp_path / "script.sql"
    script.write_text(
        "SELECT N_NAME, N_REGIONKEY FROM dfs.data.`breadth/tpch_json/nation.json` "
        "WHERE N_NATIONKEY < 3;\n!tables\n"
    )
    out = jdbc.sqlline(native_url, str(script), "-n", "anonymous", "-p", "")
    # Drill 1.22 through the same sqlline printed these lines
    lines = [line for line in out.splitlines() if line.startswith("'")]
    assert lines[:4] == [
        "'N_NAME','N_REGIONKEY'",
        "'ALGERIA','0'",
        "'ARGENTINA','1'",
        "'BRAZIL','1'",
    ], out
    assert "'DRILL','information_schema','CATALOGS','SYSTEM TABLE','','','','','',''" in lines


def test_login(jdbc, native_auth_server):
    url = f"jdbc:drill:drillbit=127.0.0.1:{native_auth_server.native.port}"
    ok = jdbc.run(
        url,
        "query:SELECT 1 AS one",
        env={"PROBE_USER": "bob", "PROBE_PASSWORD": PASSWORDS["bob"]},
    )
    assert ok["query:SELECT 1 AS one"]["rows"] == [[1]]
    assert [q.user for q in native_auth_server.queries.finished()][:1] == ["bob"]
    wrong = jdbc.run(url, env={"PROBE_USER": "bob", "PROBE_PASSWORD": "nope"})
    assert "error" in wrong["connect"]
    assert "Authentication failed" in wrong["connect"]["error"], wrong
    anonymous = jdbc.run(url)
    assert "error" in anonymous["connect"]
    assert "Insufficient credentials" in anonymous["connect"]["error"], anonymous


def test_temporary_tables_live_with_the_connection(jdbc, native_url, native_tmp):
    create = "query:CREATE TEMPORARY TABLE dfs.tmp.native_tt AS SELECT 1 AS x FROM (VALUES(1))"
    got = jdbc.run(native_url, create, "query:SELECT * FROM native_tt")
    assert got[create]["rows"] == [["0_0", 1]]  # Drill's CTAS summary
    assert got["query:SELECT * FROM native_tt"]["rows"] == [[1]]
    later = jdbc.run(native_url, "query:SELECT * FROM dfs.tmp.native_tt")
    assert "VALIDATION ERROR" in later["query:SELECT * FROM dfs.tmp.native_tt"]["error"]
    # the connection's session folder (its temporary tables) went with it
    assert [p.name for p in native_tmp.iterdir() if p.is_dir()] == []


def test_a_tools_metadata_calls_as_drill(jdbc, native_url):
    """The DatabaseMetaData calls a JDBC tool such as DBeaver makes on connecting and opening a
    table (the probe's `tool:` step: table types, catalogs, schemas, tables, columns, keys,
    indexes, type info, procedures, functions, UDTs, the connection's state) answer as the
    same calls against real Drill 1.22's user port (drill_tool.json, recorded with the same
    probe). The schemas listed are the server's own workspaces, so only their shape and the
    dfs ones are compared."""
    import json
    from pathlib import Path

    step = "tool:information_schema:CATALOGS"
    drill = json.loads((Path(__file__).parent / "drill_tool.json").read_text())["answer"]
    ours = jdbc.run(native_url, step)[step]
    assert ours.keys() == drill.keys()
    for key, value in drill.items():
        if key == "schemas":
            assert ours[key]["columns"] == value["columns"]
            names = [r[0] for r in ours[key]["rows"]]
            assert {"dfs.default", "dfs.root", "dfs.tmp"} <= set(names), names
            continue
        assert ours[key] == value, key


def test_connection_get_schema_is_the_sessions_default_schema(jdbc, native_url):
    # Drill 1.22 (2026-12-07): Connection.getSchema() (the driver asks GET_SERVER_META) is the
    # connection's default schema: dfs.tmp from the URL's schema=, dfs.data after USE; it
    # had been null here whatever the session's schema
    step = "tool:information_schema:CATALOGS"
    assert jdbc.run(native_url + ";schema=dfs.tmp", step)[step]["schema"] == "dfs.tmp"
    got = jdbc.run(native_url, "query:USE dfs.data", step)
    assert got[step]["schema"] == "dfs.data"


def test_metadata_patterns_match_names_as_drill(jdbc, native_url):
    # Drill 1.22 (2026-12-07), getTables/getColumns over a view dfs.tmp.vcase(a, b): a schema
    # pattern in any case (DFS.TMP), but table and column patterns case-sensitively (VCASE:
    # none, B%: none), and an escape before another character is "Invalid escape sequence";
    # all had matched in any case here, and the escape had been taken
    steps = [
        "query:CREATE OR REPLACE VIEW dfs.tmp.vcase AS SELECT 1 AS a, 'x' AS b FROM (VALUES(1))",
        "tables::DFS.TMP:vcase",
        "tables::dfs.tmp:VCASE",
        "columns::dfs.tmp:vcase:",
        "columns::dfs.tmp:VCASE:",
        "columns::dfs.tmp:vcase:B%",
        "columns::dfs.tmp:vcase:b%",
        "tables::dfs\\.tmp:vcase",
        "query:DROP VIEW dfs.tmp.vcase",
    ]
    got = jdbc.run(native_url, *steps)
    counts = {s: len(got[s].get("rows", [])) for s in steps[1:7]}
    assert counts == {
        "tables::DFS.TMP:vcase": 1,
        "tables::dfs.tmp:VCASE": 0,
        "columns::dfs.tmp:vcase:": 2,
        "columns::dfs.tmp:VCASE:": 0,
        "columns::dfs.tmp:vcase:B%": 0,
        "columns::dfs.tmp:vcase:b%": 1,
    }, got
    assert "Invalid escape sequence 'dfs\\.tmp', 3" in got["tables::dfs\\.tmp:vcase"]["error"]


def test_prepared_metadata_names_drills_classes(jdbc, native_url):
    # Drill 1.22 (2026-12-07), a prepared statement's metadata before it runs: an interval's
    # class org.joda.time.Period (display 22 / 9), a VARBINARY's [B (display and precision
    # 0), an array's its element's class; they had been java.lang.Object and byte[] (65535)
    sql = (
        "SELECT INTERVAL '1' DAY AS ids, INTERVAL '14' MONTH AS iym, "
        "CAST('ab' AS VARBINARY) AS vb, arr, sa FROM dfs.tmp.`complex.json`"
    )
    got = jdbc.run(native_url, f"preparedmeta:{sql}")[f"preparedmeta:{sql}"]
    assert got["prepared"] == [
        "ids:INTERVAL DAY TO SECOND:org.joda.time.Period:22:0",
        "iym:INTERVAL YEAR TO MONTH:org.joda.time.Period:9:0",
        "vb:BINARY VARYING:[B:0:0",
        "arr:ARRAY:java.lang.Long:0:0",
        "sa:ARRAY:java.lang.String:0:0",
    ], got
