"""Flight SQL through ADBC's Flight SQL driver (its DBAPI) against `drillspark serve
--flight-port`: statements, Arrow types, real data, the catalog, sessions, prepared statements,
errors, limits, cancel, logins and many clients at once."""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.flight as flight
import pytest
from tests.flight.conftest import MAX_ROWS, PASSWORDS, adbc_connect

from drillspark.server.flight import messages as fm


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_select_literals_as_arrow_types(adbc):
    cur = adbc.cursor()
    cur.execute(
        "SELECT 1 AS i, CAST(2 AS BIGINT) AS b, 'x' AS s, CAST(1.50 AS DECIMAL(5,2)) AS d, "
        "DATE '2020-01-02' AS dt, CAST(0.5 AS DOUBLE) AS f, TRUE AS bo"
    )
    table = cur.fetch_arrow_table()
    types = {f.name: f.type for f in table.schema}
    assert types == {
        "i": pa.int32(),
        "b": pa.int64(),
        "s": pa.string(),
        "d": pa.decimal128(5, 2),
        "dt": pa.date32(),
        "f": pa.float64(),
        "bo": pa.bool_(),
    }
    assert table.to_pylist() == [
        {
            "i": 1,
            "b": 2,
            "s": "x",
            "d": Decimal("1.50"),
            "dt": __import__("datetime").date(2020, 1, 2),
            "f": 0.5,
            "bo": True,
        }
    ]
    # Drill's type names ride on the columns (Flight SQL's column metadata)
    meta = {f.name: (f.metadata or {}).get(b"ARROW:FLIGHT:SQL:TYPE_NAME") for f in table.schema}
    assert meta["i"] == b"INT" and meta["s"] == b"VARCHAR" and meta["d"] == b"VARDECIMAL(5, 2)"


def test_real_data_whole(adbc, shared):
    """Every yelp business, as its JSON file has it."""
    path = shared / "data" / "yelp" / "yelp_business_small.ndjson"
    expected = _records(path)
    cur = adbc.cursor()
    cur.execute(
        "SELECT business_id, name, stars, review_count, categories, t.hours.Monday.`open` AS mo "
        "FROM dfs.data.`yelp/yelp_business_small.ndjson` t"
    )
    table = cur.fetch_arrow_table()
    assert table.num_rows == len(expected)
    assert table.schema.field("categories").type == pa.list_(pa.string())
    got = {r["business_id"]: r for r in table.to_pylist()}
    for rec in expected:
        row = got[rec["business_id"]]
        assert row["name"] == rec["name"]
        assert row["stars"] == rec["stars"]
        assert row["review_count"] == rec["review_count"]
        assert row["categories"] == rec["categories"]
        assert row["mo"] == (rec["hours"].get("Monday") or {}).get("open")


def test_a_statement_sent_again_keeps_its_translation(adbc, spark):
    """Flight SQL is a door of the one query service: a statement sent again reuses its kept
    translation (spark/plan_reuse.py) and answers the same rows."""
    from drillspark.spark import plan_reuse

    sql = (
        "SELECT state, count(*) AS n FROM dfs.data.`yelp/yelp_business_small.ndjson` "
        "GROUP BY state ORDER BY state"
    )
    answers = []
    for _ in range(2):
        cur = adbc.cursor()
        cur.execute(sql)
        answers.append(cur.fetch_arrow_table().to_pylist())
        cur.close()
    assert answers[0] == answers[1] and sum(r["n"] for r in answers[0]) > 0
    keys = [k for k in plan_reuse._KEPT.get(spark, {}) if "yelp_business_small" in str(k[0])]
    assert keys and all(k[-1][0] == "user" for k in keys), keys


def test_nested_values_as_structs_and_lists(adbc):
    cur = adbc.cursor()
    cur.execute("SELECT id, m, arr FROM dfs.tmp.`complex.json` ORDER BY id")
    table = cur.fetch_arrow_table()
    assert pa.types.is_struct(table.schema.field("m").type)
    assert pa.types.is_list(table.schema.field("arr").type)
    rows = table.to_pylist()
    assert rows[0]["m"] == {"k": 1, "s": "a"}
    assert rows[0]["arr"] == [1, 2]
    assert rows[1]["m"]["k"] == 2 and rows[1]["m"]["s"] is None
    assert rows[1]["arr"] == []


def test_maps_are_arrow_maps(adbc, flight_tmp):
    """A Parquet map (Drill's DICT, Spark's map) is an Arrow map."""
    import pyarrow.parquet as pq

    dicts = [[("a", 1)], [("b", 2), ("c", 3)], None]
    pq.write_table(
        pa.table({"id": [1, 2, 3], "d": pa.array(dicts, pa.map_(pa.string(), pa.int64()))}),
        flight_tmp / "dicts.parquet",
    )
    cur = adbc.cursor()
    cur.execute("SELECT id, d FROM dfs.tmp.`dicts.parquet` ORDER BY id")
    table = cur.fetch_arrow_table()
    assert table.schema.field("d").type == pa.map_(pa.string(), pa.int64())
    assert table.column("d").to_pylist() == dicts


INTERVALS = (
    "SELECT INTERVAL '14' MONTH AS m, INTERVAL '2' YEAR AS y, "
    "INTERVAL '-1-2' YEAR TO MONTH AS ym, CAST(NULL AS INTERVAL YEAR TO MONTH) AS n, "
    "INTERVAL '1 02:03:04.5' DAY TO SECOND AS ds, INTERVAL '-0.5' SECOND AS neg"
)


def test_intervals_as_arrow_intervals(adbc):
    """A year-month interval (Spark writes no Arrow for it) is Arrow's month-day-nano interval
    of its months; a day-time one a duration: pyarrow reads both as values, not text."""
    cur = adbc.cursor()
    cur.execute(INTERVALS)
    table = cur.fetch_arrow_table()
    types = [f.type for f in table.schema]
    assert types == [pa.month_day_nano_interval()] * 4 + [pa.duration("us")] * 2
    mdn = pa.MonthDayNano
    assert table.to_pylist() == [
        {
            "m": mdn([14, 0, 0]),
            "y": mdn([24, 0, 0]),
            "ym": mdn([-14, 0, 0]),
            "n": None,
            "ds": __import__("datetime").timedelta(days=1, seconds=7384, microseconds=500_000),
            "neg": __import__("datetime").timedelta(microseconds=-500_000),
        }
    ]
    meta = [(f.metadata or {}).get(b"ARROW:FLIGHT:SQL:TYPE_NAME") for f in table.schema]
    assert meta == [b"INTERVALYEAR"] * 4 + [b"INTERVALDAY"] * 2
    # the same columns from a table (the answer streamed from Spark's tasks, not collected)
    cur.execute(
        "SELECT i, CASE WHEN mod(i, 3) = 0 THEN INTERVAL '1-2' YEAR TO MONTH END AS m "
        "FROM dfs.tmp.`big.json` WHERE i < 30000 ORDER BY i"
    )
    streamed = cur.fetch_arrow_table()
    assert streamed.schema.field("m").type == pa.month_day_nano_interval()
    got = [None if v is None else v.months for v in streamed.column("m").to_pylist()]
    assert got == [14 if i % 3 == 0 else None for i in range(30_000)]


def test_empty_answer_has_its_schema(adbc):
    cur = adbc.cursor()
    cur.execute("SELECT i, s FROM dfs.tmp.`big.json` WHERE i < 0")
    table = cur.fetch_arrow_table()
    assert table.num_rows == 0
    assert table.schema.names == ["i", "s"]
    assert table.schema.field("i").type == pa.int64()


def test_many_batches(adbc):
    cur = adbc.cursor()
    cur.execute("SELECT i, s FROM dfs.tmp.`big.json` WHERE i < 150000")
    reader = cur.fetch_record_batch()
    batches = list(reader)
    assert len(batches) > 1
    table = pa.Table.from_batches(batches)
    assert table.num_rows == 150_000
    assert sorted(table.column("i").to_pylist()) == list(range(150_000))


def test_a_converted_json_value_as_its_text(adbc):
    """Spark's Arrow for a VARIANT (CONVERT_FROM(..., 'JSON')) is its binary encoding, which no
    client reads: it goes as its JSON text, as Drill's JDBC driver prints the map."""
    cur = adbc.cursor()
    cur.execute(
        "SELECT CONVERT_FROM(CONCAT('{\"a\":', CAST(N_NATIONKEY AS VARCHAR), ',\"b\":[1.5]}'), "
        "'JSON') AS m FROM dfs.data.`breadth/tpch_json/nation.json` ORDER BY N_NATIONKEY"
    )
    table = cur.fetch_arrow_table()
    assert table.schema.field("m").type == pa.string()
    assert table.schema.field("m").metadata[b"ARROW:FLIGHT:SQL:TYPE_NAME"] == b"VARCHAR"
    assert table.column("m").to_pylist()[:2] == ['{"a":0,"b":[1.5]}', '{"a":1,"b":[1.5]}']


def test_errors_name_the_sql_position(adbc):
    cur = adbc.cursor()
    with pytest.raises(Exception) as e:
        cur.execute("SELEC 1")
    text = str(e.value)
    assert "PARSE ERROR" in text and "(line 1, column 7)" in text
    assert "Traceback" not in text and "server.py" not in text
    with pytest.raises(Exception) as e:
        cur.execute("SELECT * FROM dfs.data.`no-such-file.json`")
    assert "VALIDATION ERROR" in str(e.value) and "no-such-file.json" in str(e.value)
    assert "/work" not in str(e.value) and str(Path.home()) not in str(e.value)
    cur.execute("SELECT 1 AS one")  # the connection goes on
    assert cur.fetchall() == [(1,)]


def test_session_keeps_use_and_alter_session(adbc, shared):
    cur = adbc.cursor()
    cur.execute("USE dfs.data")
    cur.fetchall()
    cur.execute("SELECT count(*) AS c FROM `citibike`")
    files = sorted((shared / "data" / "citibike").glob("*.ndjson"))
    assert cur.fetchall() == [(sum(len(_records(f)) for f in files),)]
    cur.execute("ALTER SESSION SET `store.json.all_text_mode` = true")
    cur.fetchall()
    cur.execute("SELECT id FROM dfs.tmp.`complex.json` ORDER BY id")
    table = cur.fetch_arrow_table()
    assert table.schema.field("id").type == pa.string()  # all text, as the session says


def test_another_connection_has_its_own_session(flight_server, adbc):
    cur = adbc.cursor()
    cur.execute("USE dfs.tmp")
    cur.fetchall()
    other = adbc_connect(flight_server)
    try:
        with pytest.raises(Exception, match="no default schema"):
            other.cursor().execute("SELECT * FROM `complex.json`")
    finally:
        other.close()
    cur.execute("SELECT count(*) FROM `complex.json`")
    assert cur.fetchall() == [(2,)]


def test_catalog_objects(adbc):
    objects = adbc.adbc_get_objects(depth="db_schemas").read_all().to_pylist()
    assert [o["catalog_name"] for o in objects] == ["DRILL"]
    schemas = [s["db_schema_name"] for s in objects[0]["catalog_db_schemas"]]
    assert {"dfs.data", "dfs.tmp", "information_schema", "sys", "cp.default"} <= set(schemas)
    tables = (
        adbc.adbc_get_objects(depth="tables", db_schema_filter="information_schema")
        .read_all()
        .to_pylist()
    )
    names = {
        t["table_name"]
        for s in tables[0]["catalog_db_schemas"]
        for t in s["db_schema_tables"] or []
    }
    assert {"CATALOGS", "SCHEMATA", "TABLES", "COLUMNS"} <= names
    # Drill 1.22 answered `SELECT DISTINCT TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES` with
    # "SYSTEM TABLE" (its other types: TABLE, VIEW), and its one catalog is DRILL
    assert set(adbc.adbc_get_table_types()) == {"SYSTEM TABLE", "TABLE", "VIEW"}


def test_table_schema_of_a_file(adbc):
    schema = adbc.adbc_get_table_schema("complex.json", db_schema_filter="dfs.tmp")
    assert schema.names == ["id", "m", "arr", "f", "t"]
    assert schema.field("id").type == pa.int64()
    assert pa.types.is_struct(schema.field("m").type)
    with pytest.raises(Exception, match="(?i)not.?found"):
        adbc.adbc_get_table_schema("nope.json", db_schema_filter="dfs.tmp")


def test_info(adbc):
    info = adbc.adbc_get_info()
    assert info["vendor_name"].startswith("drillspark")
    assert info["vendor_version"] == "1.22.0"


def test_prepared_statement(adbc):
    cur = adbc.cursor()
    cur.adbc_prepare("SELECT count(*) AS c FROM dfs.tmp.`complex.json`")
    cur.execute("SELECT count(*) AS c FROM dfs.tmp.`complex.json`")
    assert cur.fetchall() == [(2,)]
    with pytest.raises(Exception) as e:
        cur.execute("SELECT id FROM dfs.tmp.`complex.json` WHERE id = ?", (1,))
    assert "PLACEHOLDER ('?') is not supported" in str(e.value)  # Drill takes none either


def test_max_rows_fails_the_answer(adbc):
    cur = adbc.cursor()
    with pytest.raises(Exception) as e:
        cur.execute("SELECT i FROM dfs.tmp.`big.json`")
        cur.fetch_arrow_table()
    assert f"more than {MAX_ROWS} rows" in str(e.value)


def test_a_session_row_limit_cuts_a_streamed_answer(flight_server, adbc):
    """`exec.query.max_rows` (JDBC's setMaxRows) over an answer too large to collect whole: the
    stream is cut as it is read, mid-batch, in the answer's order, and the query COMPLETED."""
    cur = adbc.cursor()
    cur.execute("ALTER SESSION SET `exec.query.max_rows` = 12345")
    cur.fetchall()
    cur.execute("SELECT i, s FROM dfs.tmp.`big.json` ORDER BY i")
    table = cur.fetch_arrow_table()
    assert table.column("i").to_pylist() == list(range(12_345))
    assert table.column("s").to_pylist()[-1] == "row12344"
    mine = [q for q in flight_server.queries.finished() if "ORDER BY i" in q.text]
    assert mine and mine[0].state == "COMPLETED" and mine[0].rows == 12_345


def test_profiles_record_flight_queries(flight_server, adbc):
    cur = adbc.cursor()
    cur.execute("SELECT 'flight-profile-marker' AS m")
    cur.fetchall()
    texts = [q.text for q in flight_server.queries.finished()]
    mine = [q for q in flight_server.queries.finished() if "flight-profile-marker" in q.text]
    assert mine and mine[0].state == "COMPLETED" and mine[0].rows == 1, texts[:5]


def test_many_clients_at_once(flight_server):
    errors: list[BaseException] = []
    answers: dict[int, list] = {}

    def client(n: int) -> None:
        try:
            conn = adbc_connect(flight_server)
            try:
                cur = conn.cursor()
                cur.execute(f"SELECT i FROM dfs.tmp.`big.json` WHERE i < {100 + n} ORDER BY i")
                answers[n] = cur.fetch_arrow_table().column("i").to_pylist()
            finally:
                conn.close()
        except BaseException as e:  # handed to the test
            errors.append(e)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    assert {n: len(v) for n, v in answers.items()} == {n: 100 + n for n in range(8)}
    assert all(v == list(range(len(v))) for v in answers.values())


def _statement_info(client: flight.FlightClient, sql: str, options) -> flight.FlightInfo:
    command = fm.pack(fm.CommandStatementQuery(query=sql))
    return client.get_flight_info(flight.FlightDescriptor.for_command(command), options)


def test_cancel_flight_info(flight_server):
    """pyarrow's own Flight client: a statement planned, cancelled (CancelFlightInfo) before
    it is read: its ticket is gone and its profile CANCELED."""
    client = flight.FlightClient(flight_server.flight.uri)
    options = flight.FlightCallOptions()
    sql = "SELECT i, s FROM dfs.tmp.`big.json` WHERE s <> 'cancel-marker'"
    info = _statement_info(client, sql, options)
    request = fm.CancelFlightInfoRequest(info=fm.FlightInfo.decode(info.serialize())).encode()
    results = list(client.do_action(flight.Action("CancelFlightInfo", request), options))
    assert fm.CancelFlightInfoResult.decode(results[0].body.to_pybytes()).status == 1
    with pytest.raises(flight.FlightError, match="unknown, already read, or expired"):
        client.do_get(info.endpoints[0].ticket, options).read_all()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        mine = [q for q in flight_server.queries.finished() if "cancel-marker" in q.text]
        if mine:
            break
        time.sleep(0.2)
    assert mine and mine[0].state == "CANCELED"
    client.close()


def test_unread_ticket_of_another_user_is_not_given(flight_auth_server):
    alice = flight.FlightClient(flight_auth_server.flight.uri)
    bob = flight.FlightClient(flight_auth_server.flight.uri)
    a_token = alice.authenticate_basic_token("alice", PASSWORDS["alice"])
    b_token = bob.authenticate_basic_token("bob", PASSWORDS["bob"])
    a_opts = flight.FlightCallOptions(headers=[a_token])
    b_opts = flight.FlightCallOptions(headers=[b_token])
    info = _statement_info(alice, "SELECT 'alice-only' AS s", a_opts)
    with pytest.raises(flight.FlightError, match="unknown, already read"):
        bob.do_get(info.endpoints[0].ticket, b_opts).read_all()
    assert alice.do_get(info.endpoints[0].ticket, a_opts).read_all().to_pylist() == [
        {"s": "alice-only"}
    ]
    alice.close()
    bob.close()


def test_logins(flight_auth_server):
    with pytest.raises(Exception) as e:
        conn = adbc_connect(flight_auth_server)
        conn.cursor().execute("SELECT 1")
    assert "needs a user name and password" in str(e.value)
    with pytest.raises(Exception) as e:
        adbc_connect(flight_auth_server, username="alice", password="not-her-password-42")
    assert "UNAUTHENTICATED" in str(e.value) and "not-her-password-42" not in str(e.value)
    # bob's name and password make a base64 text ADBC sends without its padding
    conn = adbc_connect(flight_auth_server, username="bob", password=PASSWORDS["bob"])
    try:
        cur = conn.cursor()
        cur.execute("SELECT user AS u FROM (VALUES(1))")
        assert cur.fetchall() == [("bob",)]
        with pytest.raises(Exception, match="ALTER SYSTEM needs an admin"):
            cur.execute("ALTER SYSTEM SET `planner.width.max_per_node` = 2")
    finally:
        conn.close()
    mine = [q for q in flight_auth_server.queries.finished() if "AS u FROM" in q.text]
    assert mine and mine[0].user == "bob"


def test_bad_commands_are_refused(flight_server):
    client = flight.FlightClient(flight_server.flight.uri)
    with pytest.raises(flight.FlightError, match="not a Flight SQL command"):
        client.get_flight_info(flight.FlightDescriptor.for_command(b"garbage"))
    with pytest.raises(flight.FlightError, match="does not take the action"):
        list(client.do_action(flight.Action("DropEverything", b"")))
    with pytest.raises(flight.FlightError, match="not a Flight SQL command"):
        client.do_get(flight.Ticket(b"\x00\x01")).read_all()
    other = fm.pack(fm.CommandGetCatalogs())
    with pytest.raises(flight.FlightError, match="a ticket of this server's FlightInfo"):
        client.do_get(flight.Ticket(other)).read_all()
    client.close()


def test_ctas_and_its_update_count(adbc, flight_tmp):
    cur = adbc.cursor()
    cur.execute("CREATE TABLE dfs.tmp.`flight_ctas` AS SELECT id, arr FROM dfs.tmp.`complex.json`")
    answer = cur.fetch_arrow_table().to_pylist()
    assert answer[0]["Number of records written"] == 2
    cur.execute("SELECT id FROM dfs.tmp.`flight_ctas` ORDER BY id")
    assert cur.fetchall() == [(1,), (2,)]
    # an update (CommandStatementUpdate through DoPut) answers the records a CTAS wrote
    stmt = cur.adbc_statement
    stmt.set_sql_query(
        "CREATE TABLE dfs.tmp.`flight_ctas2` AS SELECT id FROM dfs.tmp.`complex.json`"
    )
    assert stmt.execute_update() == 2
    stmt.set_sql_query("USE dfs.tmp")
    assert stmt.execute_update() == 0
    assert (flight_tmp / "flight_ctas2").is_dir()


def test_client_cancel_stops_the_query(flight_server):
    """ADBC's cancel while the answer is being computed: the query ends CANCELED (its Spark
    job cancelled), the connection answers the next statement."""
    conn = adbc_connect(flight_server)
    cur = conn.cursor()
    sql = (
        "SELECT count(*) AS c FROM dfs.tmp.`big.json` a JOIN dfs.tmp.`big.json` b "
        "ON mod(a.i, 100) = mod(b.i, 100) WHERE a.s <> 'client-cancel-marker'"
    )
    failure: list[BaseException] = []

    def fetch() -> None:
        try:
            cur.execute(sql)
            cur.fetchall()
        except BaseException as e:  # handed to the test
            failure.append(e)

    reader = threading.Thread(target=fetch)
    reader.start()
    # cancel while a job of the query runs (a fixed pause let a fast machine finish the join
    # first: every job SUCCEEDED, the cancel then came between the jobs and the answer)
    tracker = flight_server.spark.sparkContext.statusTracker()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        running = [q for q in flight_server.queries.running() if "client-cancel-marker" in q.text]
        jobs = [tracker.getJobInfo(j) for q in running for j in tracker.getJobIdsForGroup(q.id)]
        if any(j is not None and j.status == "RUNNING" for j in jobs):
            break
        time.sleep(0.05)
    cur.adbc_cancel()
    reader.join(120)
    assert failure, "the statement was not cancelled"
    deadline = time.monotonic() + 60
    mine = []
    while time.monotonic() < deadline and not mine:
        mine = [q for q in flight_server.queries.finished() if "client-cancel-marker" in q.text]
        time.sleep(0.2)
    assert mine and mine[0].state == "CANCELED"
    # the Spark jobs ran in the query's job group, and were cancelled, not run to their end
    jobs = [tracker.getJobInfo(j) for j in tracker.getJobIdsForGroup(mine[0].id)]
    assert jobs, "the query's Spark jobs were not in its job group"
    # (jobs done before the cancel, reading the files, may have succeeded; the join's did not)
    assert any(j is not None and j.status == "FAILED" for j in jobs), [
        j.status for j in jobs if j is not None
    ]
    other = conn.cursor()
    other.execute("SELECT 1 AS one")
    assert other.fetchall() == [(1,)]
    conn.close()


def test_time_limit_cancels_the_query(spark, flight_tmp):
    """--max-seconds over Flight SQL: the query's Spark job is stopped, and the client reads
    the time limit's RESOURCE ERROR."""
    from drillspark.server import DrillServer, Limits

    srv = DrillServer(
        spark,
        port=0,
        flight_port=0,
        workspaces={"tmp": str(flight_tmp)},
        limits=Limits(max_seconds=3),
    ).start()
    try:
        conn = adbc_connect(srv)
        cur = conn.cursor()
        with pytest.raises(Exception) as e:
            # 4 * 10^9 pairs: a minute's work on two cores, so only the limit ends it
            cur.execute(
                "SELECT count(*) AS c FROM dfs.tmp.`big.json` a JOIN dfs.tmp.`big.json` b "
                "ON mod(a.i, 10) = mod(b.i, 10)"
            )
            cur.fetchall()
        assert "RESOURCE ERROR" in str(e.value)
        assert "time limit of 3 s" in str(e.value)
        conn.close()
    finally:
        srv.stop()


def test_execute_schema_plans_without_running(flight_server, adbc):
    """GetSchema: a statement's answer schema, planned and not run (no profile is made)."""
    before = len(flight_server.queries.finished())
    cur = adbc.cursor()
    schema = cur.adbc_execute_schema("SELECT id, m FROM dfs.tmp.`complex.json`")
    assert schema.names == ["id", "m"]
    assert schema.field("id").type == pa.int64()
    assert len(flight_server.queries.finished()) == before
