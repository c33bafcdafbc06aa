"""The `mongo` storage plugin against a real MongoDB-protocol server (FerretDB 1.24.2 over SQLite,
tests/storage/mongo_server.py, on a free loopback port, stopped by its process id), loaded with
tests/storage/mongo_data.py's documents through the MongoDB Java driver; answers checked against
what Drill 1.22's own mongo plugin answered over the same server
(tests/storage/data/drill_mongo_answers.json): ObjectId, int32, int64, double, date, binary,
nested documents and arrays typed as Drill types them, null fields as no column, databases as
schemas, collections as tables; bad names, a server that is down, bad configs, masked secrets."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.storage import mongo_data, mongo_server

from drillspark.errors import Error
from drillspark.plugin_configs import PluginConfigError, config_from_json
from drillspark.plugin_configs.base import MASK
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

HERE = Path(__file__).resolve().parent
DRILL = json.loads((HERE / "data" / "drill_mongo_answers.json").read_text("utf-8"))
ANSWERS = {a["sql"]: a for a in DRILL["answers"]}


@pytest.fixture(scope="module")
def ferretdb(tmp_path_factory) -> Iterator[mongo_server.FerretDB]:
    reason = mongo_server.missing()
    if reason:
        pytest.fail(f"{reason}: the mongo plugin's tests run against a real server")
    server = mongo_server.FerretDB(tmp_path_factory.mktemp("ferretdb"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def engine(spark, ferretdb) -> SqlEngine:
    mongo_data.load(spark._jvm, ferretdb.uri)
    config = {"type": "mongo", "connection": ferretdb.uri, "batchSize": 100}
    return SqlEngine(spark, SqlSession(workspaces={}, plugins={"mongo": config}))


def run(engine: SqlEngine, sql: str) -> tuple[list[str], list[dict[str, Any]]]:
    result = engine.execute(sql)[-1]
    return list(result.columns), result.rows()


def _drillish(value: Any) -> Any:
    """A value as Drill's JSON answer shows it: binary as hex, a timestamp as its text, a map
    without its null members."""
    if isinstance(value, bytes | bytearray):
        return value.hex()
    if isinstance(value, dt.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return text + (f".{value.microsecond // 1000:03d}" if value.microsecond else "")
    if isinstance(value, dict):
        return {k: _drillish(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drillish(v) for v in value]
    return value


SAME_AS_DRILL = [
    "SELECT * FROM mongo.shop.orders",
    "SELECT typeof(_id) t_id, typeof(n) tn, typeof(big) tbig, typeof(price) tprice, "
    "typeof(at) tat, typeof(raw) traw, typeof(name) tname, typeof(ok) tok, typeof(none) tnone, "
    "typeof(customer) tcust, typeof(tags) ttags FROM mongo.shop.orders LIMIT 1",
    "SELECT * FROM mongo.shop.people",
    "SELECT name, FLATTEN(langs) AS lang FROM mongo.shop.people ORDER BY name, lang",
    "SELECT * FROM mongo.crm.accounts",
    "SELECT SCHEMA_NAME, TYPE FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME LIKE 'mongo%' "
    "ORDER BY SCHEMA_NAME",
    "SHOW TABLES IN mongo.shop",
]


@pytest.mark.parametrize("sql", SAME_AS_DRILL)
def test_documents_as_drill_reads_them(engine, sql):
    want = ANSWERS[" ".join(sql.split())]
    assert want["ok"]
    columns, rows = run(engine, sql)
    assert columns == want["columns"]
    got = [_drillish(list(r.values())) for r in rows]
    expected = [_drillish(r) for r in want["rows"]]
    if "tnone" in columns:
        # a column no document has: drillspark's typeof says VARCHAR for one, as over files
        # (its missing-column rule), Drill NULL; the field itself is no column, as in Drill
        at = columns.index("tnone")
        assert (expected[0][at], got[0][at]) == ("NULL", "VARCHAR")
        got[0][at] = expected[0][at]
    assert got == expected


def test_nested_fields_and_aggregates(engine):
    """Drill pushed these into FerretDB, which answered them wrongly (the recorded answers
    hold its `$address.city` and `$_id`); the documents say what they must be."""
    assert ANSWERS[
        "SELECT p.name, p.address.city AS city FROM mongo.shop.people p ORDER BY p.name"
    ]["rows"][0] == ["ann", "$address.city"]
    _, rows = run(
        engine, "SELECT p.name, p.address.city AS city FROM mongo.shop.people p ORDER BY p.name"
    )
    assert [(r["name"], r["city"]) for r in rows] == [
        ("ann", None),
        ("bob", "Oslo"),
        ("cy", "Rome"),
    ]
    _, rows = run(
        engine,
        "SELECT o.customer.id AS cid, sum(o.price) AS total FROM mongo.shop.orders o "
        "GROUP BY o.customer.id ORDER BY cid",
    )
    assert [(r["cid"], r["total"]) for r in rows] == [("c1", 1.5), ("c2", 20.0)]
    assert run(engine, "SELECT count(*) AS n FROM mongo.shop.people")[1] == [{"n": 3}]


def test_a_filter_keeps_drills_rows(engine):
    want = ANSWERS["SELECT * FROM mongo.shop.orders WHERE n = 2"]
    columns, rows = run(engine, "SELECT * FROM mongo.shop.orders WHERE n = 2")
    # Drill pushed the filter, read one document and so had no `tags` (that one's is empty)
    assert set(want["columns"]) <= set(columns)
    got = [_drillish([r[c] for c in want["columns"]]) for r in rows]
    assert got == [_drillish(r) for r in want["rows"]]


def test_a_missing_collection_is_drills_error_at_its_place(engine):
    want = ANSWERS["SELECT * FROM mongo.shop.nope"]["error"]
    assert "Object 'nope' not found within 'mongo.shop'" in want
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM mongo.shop.nope")
    assert "Object 'nope' not found within 'mongo.shop'" in str(e.value)
    assert "line 1, column 15" in str(e.value)
    with pytest.raises(Error, match=r"mongo.nodb\] is not valid: no such database"):
        run(engine, "SELECT * FROM mongo.nodb.orders")


def test_a_server_that_is_down_is_one_clear_error_within_the_timeout(spark):
    config = {"type": "mongo", "connection": "mongodb://reader:hush-pw@127.0.0.1:1/"}
    engine = SqlEngine(spark, SqlSession(workspaces={}, plugins={"down": config}))
    started = time.monotonic()
    with pytest.raises(Error) as e:
        run(engine, "SELECT * FROM down.shop.orders")
    assert time.monotonic() - started < 30
    message = str(e.value)
    assert "mongo plugin 'down'" in message and "cannot list the databases" in message
    assert "hush-pw" not in message and "\n\tat " not in message


def test_secrets_in_the_uri_are_masked():
    uri = "mongodb://reader:hush-pw@db.example:27017/?authSource=admin"
    config = config_from_json("m", {"type": "mongo", "connection": uri})
    shown = config.to_json(masked=True)["connection"]
    assert "hush-pw" not in shown and MASK in shown and shown.startswith("mongodb://reader:")
    assert "hush-pw" in config.secrets()
    back = config_from_json("m", config.to_json(masked=True)).keeping_secrets_of(config)
    assert back.raw["connection"] == uri


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"connection": "http://x/"}, "field 'connection' must be a mongodb:// URI"),
        ({"batchSize": "many"}, "field 'batchSize' must be"),
        ({"batchSize": -1}, "field 'batchSize' must not be negative"),
    ],
)
def test_a_bad_config_names_plugin_and_field(raw, message):
    with pytest.raises(PluginConfigError) as e:
        config_from_json("m", {"type": "mongo", **raw})
    assert "storage plugin 'm'" in str(e.value) and message in str(e.value)


def test_a_plan_scans_a_collection(spark, ferretdb, engine):
    import drillspark

    plan = {
        "head": {"version": 1, "type": "APACHE_DRILL_LOGICAL"},
        "storage": {"m": {"type": "mongo", "connection": ferretdb.uri}},
        "query": [
            {
                "op": "scan",
                "@id": 1,
                "storageengine": "m",
                "selection": {"database": "shop", "collection": "people"},
            },
            {"op": "store", "@id": 2, "input": 1, "target": None, "storageEngine": "--SCREEN--"},
        ],
    }
    rows = drillspark.run(plan, spark=spark).to_pandas()
    assert sorted(rows["name"]) == ["ann", "bob", "cy"]


def test_the_server_reads_a_mongo_plugin_created_over_rest(spark, ferretdb, engine):
    from tests.server.helpers import Http

    from drillspark.server import DrillServer

    srv = DrillServer(spark, port=0, workspaces={}).start()
    try:
        http = Http(srv.url)
        config = {"type": "mongo", "connection": ferretdb.uri}
        body = json.dumps({"name": "mdb", "config": config}).encode()
        status, _, data = http.request(
            "POST", "/storage/mdb.json", body, {"Content-Type": "application/json"}
        )
        assert status == 200, data
        assert http.get_json("/storage/mdb.json")["config"]["connection"] == ferretdb.uri
        tables = http.query("SHOW TABLES IN mdb.shop")
        assert [r["TABLE_NAME"] for r in tables["rows"]] == ["orders", "people"], tables
        answer = http.query("SELECT name FROM mdb.shop.people ORDER BY name")
        assert [r["name"] for r in answer["rows"]] == ["ann", "bob", "cy"], answer
        missing = http.query("SELECT * FROM mdb.shop.nope")
        assert missing["queryState"] == "FAILED", missing
        assert "Object 'nope' not found within 'mdb.shop'" in missing["errorMessage"]
    finally:
        srv.stop()


# Push-down (#32): the same statements through a plugin that asks the server for filters,
# columns and limits (the default, as Drill) and through one with Drill's pluginOptimizations
# all off (every document read, everything evaluated by Spark): the answers must be the same,
# and match what Drill 1.22's mongo plugin answered over the same server.
PUSHED = [
    "SELECT sku, qty FROM mongo.crm.contacts WHERE qty > 3 ORDER BY sku",
    "SELECT sku FROM mongo.crm.contacts WHERE kind = 'b' AND qty <= 2 ORDER BY sku",
    "SELECT sku FROM mongo.crm.contacts WHERE kind IN ('a', 'c') OR qty = 5 ORDER BY sku",
    "SELECT sku FROM mongo.crm.contacts WHERE qty IS NULL ORDER BY sku",
    "SELECT sku, kind FROM mongo.crm.contacts WHERE qty IS NOT NULL AND kind <> 'a' ORDER BY sku",
    "SELECT sku FROM mongo.crm.contacts WHERE kind NOT IN ('a', 'b') ORDER BY sku",
    "SELECT c.sku, c.dim.w AS w FROM mongo.crm.contacts c WHERE c.dim.w = 2 ORDER BY c.sku",
    "SELECT sku, price FROM mongo.crm.contacts WHERE price < 5 ORDER BY sku",
    "SELECT count(*) AS n FROM mongo.crm.contacts WHERE qty >= 2",
    "SELECT kind, count(*) AS n, sum(qty) AS q, min(sku) AS lo, max(price) AS hi "
    "FROM mongo.crm.contacts GROUP BY kind ORDER BY kind",
    "SELECT c.dim.tag AS tag FROM mongo.crm.contacts c WHERE c.sku = 's04'",
]
PLAIN = {
    "pluginOptimizations": {
        k: False
        for k in (
            "supportsProjectPushdown",
            "supportsFilterPushdown",
            "supportsAggregatePushdown",
            "supportsLimitPushdown",
        )
    }
}


@pytest.fixture(scope="module")
def both(spark, ferretdb, engine) -> tuple[SqlEngine, SqlEngine]:
    """(the `engine` fixture's session, one whose `mongo` plugin pushes nothing down)"""
    plain = {"type": "mongo", "connection": ferretdb.uri, "batchSize": 100, **PLAIN}
    return engine, SqlEngine(spark, SqlSession(workspaces={}, plugins={"mongo": plain}))


def _from_documents(sql: str) -> list[list[Any]]:
    """What the documents say for the statements Drill pushed into FerretDB, which answered
    them wrongly (`$dim.w` as a value) or not at all (no `$literal`, no `$min` in `$group`)."""
    docs = [json.loads(d) for d in mongo_data.DOCUMENTS["crm"]["contacts"]]
    if "c.dim.w = 2" in sql:
        return [[d["sku"], 2] for d in docs if d["dim"]["w"] == 2]
    if "c.sku = 's04'" in sql:
        return [[d["dim"]["tag"]] for d in docs if d["sku"] == "s04"]
    if "WHERE qty >= 2" in sql:
        return [[sum(1 for d in docs if (d.get("qty") or 0) >= 2)]]
    kinds = sorted({d["kind"] for d in docs})
    of = {k: [d for d in docs if d["kind"] == k] for k in kinds}
    return [
        [
            k,
            len(of[k]),
            sum(d.get("qty") or 0 for d in of[k]),
            min(d["sku"] for d in of[k]),
            max(d["price"] for d in of[k]),
        ]
        for k in kinds
    ]


def _drills(sql: str) -> list[list[Any]]:
    want = ANSWERS[" ".join(sql.split())]
    wrong = (
        not want["ok"]
        or any("$" in str(v) for r in want["rows"] for v in r)
        or ("c.dim.w = 2" in sql)
    )
    return _from_documents(sql) if wrong else want["rows"]


@pytest.mark.parametrize("sql", PUSHED)
def test_pushed_down_answers_are_the_unpushed_ones_and_drills(both, sql):
    pushed, plain = both
    columns, rows = run(pushed, sql)
    assert (columns, rows) == run(plain, sql)
    assert [list(r.values()) for r in rows] == _drills(sql)
    want = ANSWERS[" ".join(sql.split())]
    if want["ok"]:
        assert columns == want["columns"]


def _spark_plan(engine: SqlEngine, sql: str) -> str:
    return engine.execute(sql)[-1].explain(print_it=False)


def test_the_plan_shows_what_the_server_was_asked(both):
    pushed, plain = both
    plan = _spark_plan(pushed, "SELECT sku FROM mongo.crm.contacts WHERE qty > 3 AND kind = 'b'")
    assert '{"qty": {"$gt": {"$numberLong": "3"}}}, {"kind": {"$eq": "b"}}]}' in plan
    assert 'pushed: filter: {"$and": [' in plan
    assert 'projection: {"sku": 1, "kind": 1, "qty": 1, "_id": 0}' in plan
    plan = _spark_plan(pushed, "SELECT c.dim.w AS w FROM mongo.crm.contacts c LIMIT 2")
    assert 'projection: {"dim.w": 1, "_id": 0}' in plan and "limit: 2" in plan
    # a double is compared by Spark alone (a Decimal128 or NaN compares otherwise in MongoDB)
    plan = _spark_plan(pushed, "SELECT sku FROM mongo.crm.contacts WHERE price < 5")
    assert 'filter: {"price": {"$ne": null}}, projection: {"sku": 1, "price": 1, "_id": 0}' in plan
    plan = _spark_plan(plain, "SELECT sku FROM mongo.crm.contacts WHERE qty > 3")
    assert "nothing pushed" in plan


def test_a_field_spelled_two_ways_or_of_mixed_kinds_is_not_asked_of_the_server(engine):
    """`qty` and `QTY` are one column (Drill's names), `mix` holds 1, "2" and 3 (VARCHAR text):
    MongoDB matches names exactly and compares values of one kind, so neither filter can be
    pushed; the documents say what the answers must be."""
    sql = "SELECT qty FROM mongo.crm.drift WHERE qty >= 2 ORDER BY qty"
    assert "filter:" not in _spark_plan(engine, sql)
    assert run(engine, sql)[1] == [{"qty": 2}, {"qty": 3}]
    sql = "SELECT mix FROM mongo.crm.drift WHERE mix = '1' OR mix = '2' ORDER BY mix"
    assert "filter:" not in _spark_plan(engine, sql)
    assert run(engine, sql)[1] == [{"mix": "1"}, {"mix": "2"}]


def test_a_collection_is_read_in_pages_of_id_ranges(spark, ferretdb, engine, monkeypatch):
    """Pages of 10 documents: the 25 contacts are three `_id` ranges, each a Spark task's; the
    mixed-kind `_id`s of another collection are one page (a range compares one kind only)."""
    from drillspark.spark.storage import mongo

    monkeypatch.setattr(mongo, "PAGE_DOCUMENTS", 10)
    plan = _spark_plan(engine, "SELECT sku FROM mongo.crm.contacts WHERE qty > 3")
    assert "pages: 3" in plan, plan
    for sql in PUSHED:
        assert [list(r.values()) for r in run(engine, sql)[1]] == _drills(sql), sql
    _, rows = run(engine, "SELECT count(*) AS n, sum(c.dim.w) AS w FROM mongo.crm.contacts c")
    assert rows == [{"n": 25, "w": sum(i % 4 for i in range(1, 26))}]
    sql = "SELECT count(*) AS n, sum(v) AS v FROM mongo.crm.mixed WHERE v >= 0"
    assert "pages: 1" in _spark_plan(engine, sql)
    assert run(engine, sql)[1] == [{"n": 12, "v": sum(range(12))}]


# Simple aggregates (#32): asked of the server as pipelines, a page at a time, when no filter
# or limit stands between them and the scan; what the documents say is the reference (Drill
# 1.22 pushes the same aggregates as one pipeline, which FerretDB answers wrongly or refuses:
# tests/storage/data/drill_mongo_aggregates.json), and so is the same statement with the
# push-downs off.
def _contacts() -> list[dict[str, Any]]:
    return [json.loads(d) for d in mongo_data.DOCUMENTS["crm"]["contacts"]]


def _by(key: Any) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = {}
    for d in _contacts():
        out.setdefault(key(d), []).append(d)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] is not None, kv[0])))


def _sum(docs: list[dict[str, Any]], f: Any) -> Any:
    values = [f(d) for d in docs if f(d) is not None]
    return sum(values) if values else None


def _qty(d: dict[str, Any]) -> Any:
    return d.get("qty")


AGGREGATES: list[tuple[str, Any]] = [
    (
        "SELECT kind, count(*) AS n FROM mongo.crm.contacts GROUP BY kind ORDER BY kind",
        lambda: [[k, len(g)] for k, g in _by(lambda d: d["kind"]).items()],
    ),
    (
        "SELECT kind, sum(qty) AS q, count(qty) AS c FROM mongo.crm.contacts GROUP BY kind "
        "ORDER BY kind",
        lambda: [
            [k, _sum(g, _qty), sum(1 for d in g if _qty(d) is not None)]
            for k, g in _by(lambda d: d["kind"]).items()
        ],
    ),
    (
        "SELECT kind, avg(qty) AS a FROM mongo.crm.contacts GROUP BY kind ORDER BY kind",
        lambda: [
            [k, _sum(g, _qty) / sum(1 for d in g if _qty(d) is not None)]
            for k, g in _by(lambda d: d["kind"]).items()
        ],
    ),
    (
        "SELECT qty, count(*) AS n, sum(qty) AS s FROM mongo.crm.contacts GROUP BY qty "
        "ORDER BY qty NULLS FIRST",
        lambda: [[k, len(g), _sum(g, _qty)] for k, g in _by(_qty).items()],
    ),
    (
        "SELECT c.dim.tag AS tag, count(*) AS n, sum(c.dim.w) AS w FROM mongo.crm.contacts c "
        "GROUP BY c.dim.tag ORDER BY tag",
        lambda: [
            [k, len(g), _sum(g, lambda d: d["dim"]["w"])]
            for k, g in _by(lambda d: d["dim"]["tag"]).items()
        ],
    ),
    (
        "SELECT kind, c.dim.tag AS tag, count(*) AS n, sum(qty) AS q, count(price) AS p "
        "FROM mongo.crm.contacts c GROUP BY kind, c.dim.tag ORDER BY kind, tag",
        lambda: [
            [k[0], k[1], len(g), _sum(g, _qty), len(g)]
            for k, g in _by(lambda d: (d["kind"], d["dim"]["tag"])).items()
        ],
    ),
    (
        "SELECT sum(qty) AS q, count(*) AS n FROM mongo.crm.contacts",
        lambda: [[_sum(_contacts(), _qty), len(_contacts())]],
    ),
]


@pytest.mark.parametrize(("sql", "want"), AGGREGATES, ids=[str(i) for i in range(len(AGGREGATES))])
@pytest.mark.parametrize("page", [10, 50_000])
def test_simple_aggregates_are_asked_of_the_server(both, monkeypatch, sql, want, page):
    """In pages of 10 documents (three `_id` ranges: each page's pipelines `$match` its range)
    and of the whole collection: the answer is the documents' and the unpushed one."""
    from drillspark.spark.storage import mongo

    monkeypatch.setattr(mongo, "PAGE_DOCUMENTS", page)
    pushed, plain = both
    plan = _spark_plan(pushed, sql)
    assert "pushed: aggregate: group by" in plan, plan
    columns, rows = run(pushed, sql)
    assert [list(r.values()) for r in rows] == want()
    assert (columns, rows) == run(plain, sql)
    assert "aggregate:" not in _spark_plan(plain, sql)


def test_aggregates_the_server_cannot_answer_alike_stay_in_spark(engine):
    """MIN and MAX (FerretDB has no $min / $max accumulator), a sum of doubles, an aggregate
    under a filter (Spark checks every filter again, so the scan is not the whole input of
    the aggregate): read as before, the aggregate in Spark. (A DISTINCT count reaches the scan as
    a GROUP BY without aggregates: the server answers the groups.)"""
    for sql in (
        "SELECT kind, min(qty) AS lo FROM mongo.crm.contacts GROUP BY kind",
        "SELECT kind, sum(price) AS p FROM mongo.crm.contacts GROUP BY kind",
        "SELECT kind, count(*) AS n FROM mongo.crm.contacts WHERE qty > 1 GROUP BY kind",
    ):
        assert "aggregate:" not in _spark_plan(engine, sql), sql
    sql = "SELECT count(DISTINCT kind) AS n FROM mongo.crm.contacts"
    assert 'pushed: aggregate: group by {"g0": "$kind"}, []' in _spark_plan(engine, sql)
    assert run(engine, sql)[1] == [{"n": len({d["kind"] for d in _contacts()})}]
    rows = run(
        engine, "SELECT kind, min(qty) AS lo FROM mongo.crm.contacts GROUP BY kind ORDER BY kind"
    )[1]
    assert rows == [
        {"kind": k, "lo": min(_qty(d) for d in g if _qty(d) is not None)}
        for k, g in _by(lambda d: d["kind"]).items()
    ]


def test_drills_pushed_pipelines_are_recorded():
    """What Drill 1.22 pushed for the same statements (EXPLAIN PLAN FOR over the same server):
    one pipeline of `$group` with every accumulator, which FerretDB refuses ($cond, $avg,
    $min, $literal) or answers wrongly (its `$project` renames came back as the text "$_id",
    and the second accumulator of a `$group` as 0)."""
    recorded = json.loads((HERE / "data" / "drill_mongo_aggregates.json").read_text("utf-8"))
    plans = {a["sql"]: a["pipeline"] for a in recorded["answers"]}
    group = plans["SELECT kind, count(*) AS n FROM mongo.crm.contacts GROUP BY kind"]
    assert {"$group": {"_id": "$kind", "n": {"$sum": 1}}} in group
    both = plans["SELECT sum(qty) AS q, count(*) AS n FROM mongo.crm.contacts"]
    assert {"$group": {"_id": {}, "q": {"$sum": "$qty"}, "n": {"$sum": 1}}} in both
    answered = {a["sql"]: a for a in recorded["answers"]}
    assert answered["SELECT sum(qty) AS q, count(*) AS n FROM mongo.crm.contacts"]["rows"] == [
        [54, 0]
    ]


def test_information_schema_lists_the_collections(engine):
    # Drill 1.22 (2026-12-07) lists a mongo database's collections in INFORMATION_SCHEMA.TABLES
    # (TABLE) and their columns as `**` (known when read); none had been listed here
    _, shown = run(engine, "SHOW TABLES IN mongo.shop")
    want = sorted(r["TABLE_NAME"] for r in shown)
    _, listed = run(
        engine,
        "SELECT TABLE_NAME, TABLE_TYPE FROM INFORMATION_SCHEMA.`TABLES` "
        "WHERE TABLE_SCHEMA = 'mongo.shop' ORDER BY TABLE_NAME",
    )
    assert [(r["TABLE_NAME"], r["TABLE_TYPE"]) for r in listed] == [(t, "TABLE") for t in want]
    assert "orders" in want
    _, columns = run(
        engine,
        "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.`COLUMNS` "
        "WHERE TABLE_SCHEMA = 'mongo.shop' AND TABLE_NAME = 'orders'",
    )
    assert [r["COLUMN_NAME"] for r in columns] == ["**"]
