"""A `mongo` plugin as a Spark catalog of its own name (#32), through Spark's own `spark.sql`
and `spark.table`: ``spark.table("mgs.shop.orders")`` reads a real MongoDB-wire-protocol
server (FerretDB, tests/storage/mongo_server.py) through the same pages and `drill-mongo`
source as drillspark.sql, so both answer alike; its databases and collections are Spark's
namespaces and tables; a server that does not answer fails naming the plugin, never showing
the URI's password."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.storage import mongo_data, mongo_server
from tests.storage.conftest import forget_plugins

NAME = "mgs"


@pytest.fixture(scope="module")
def ferretdb(tmp_path_factory) -> Iterator[mongo_server.FerretDB]:
    reason = mongo_server.missing()
    if reason:
        pytest.fail(f"{reason}: the mongo plugin's tests run against a real server")
    server = mongo_server.FerretDB(tmp_path_factory.mktemp("ferretdb"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def mgs(spark, ferretdb):
    import drillspark

    mongo_data.load(spark._jvm, ferretdb.uri)
    config = {"type": "mongo", "connection": ferretdb.uri, "batchSize": 100}
    drillspark.sql("SELECT 1", spark=spark, storage={NAME: config}).collect()
    yield config
    forget_plugins(spark, NAME)


def _drill(spark, query: str) -> list[tuple]:
    import drillspark

    return sorted(tuple(r) for r in drillspark.sql(query, spark=spark).collect())


def test_spark_sql_reads_a_mongo_plugin_by_its_name(spark, mgs):
    assert spark.conf.get(f"spark.sql.catalog.{NAME}") == "drillspark.catalog.MongoPluginCatalog"
    people = spark.table(f"{NAME}.shop.people")
    assert sorted(r["name"] for r in people.collect()) == ["ann", "bob", "cy"]
    query = (
        f"SELECT name, address.city AS city FROM {NAME}.shop.people WHERE address.city IS NOT NULL"
    )
    ours = sorted(tuple(r) for r in spark.sql(query).collect())
    assert ours == [("bob", "Oslo"), ("cy", "Rome")]
    assert (
        _drill(
            spark,
            f"SELECT p.name, p.address.city FROM {NAME}.shop.people p WHERE p.address.city IS NOT NULL",
        )
        == ours
    )
    # a column no document holds is NULL (the extension's missing-column rule), as in Drill
    assert {r[0] for r in spark.sql(f"SELECT nosuch FROM {NAME}.shop.people").collect()} == {None}
    # the push-downs of the drill-mongo source (the same source as drillspark.sql's scans)
    query = f"SELECT sku, qty FROM {NAME}.crm.contacts WHERE qty > 4"
    ours = sorted(tuple(r) for r in spark.sql(query).collect())
    want = sorted(
        (d["sku"], d["qty"])
        for d in map(__import__("json").loads, mongo_data.DOCUMENTS["crm"]["contacts"])
        if (d.get("qty") or 0) > 4
    )
    assert ours == want == _drill(spark, query)
    plan = spark.sql(f"EXPLAIN {query}").first()[0]
    assert "mongo" in plan and "qty" in plan


def test_databases_and_collections_are_namespaces_and_tables(spark, mgs):
    spaces = {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {NAME}").collect()}
    assert {"shop", "crm"} <= spaces
    tables = {r["tableName"] for r in spark.sql(f"SHOW TABLES IN {NAME}.crm").collect()}
    assert {"accounts", "contacts", "mixed", "drift"} <= tables
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table(f"{NAME}.crm.nosuch")
    # Drill's rule: a database and a collection match in any case
    assert spark.table(f"{NAME}.CRM.Accounts").count() == 1


def test_a_table_is_looked_up_by_its_name_alone(spark, mgs, ferretdb):
    """loadTable asks the server for the one name (a case-insensitive name filter, not the
    whole listing): a name's regex characters are its own, and as spelt wins over another
    case."""
    client = spark._jvm.com.mongodb.client.MongoClients.create(ferretdb.uri)
    try:
        crm = client.getDatabase("crm")
        for coll, n in (("odd.name(1)+", 1), ("Odd.Name(1)+", 2), ("oddXname(1)", 3)):
            crm.getCollection(coll).drop()
            crm.getCollection(coll).insertOne(spark._jvm.org.bson.Document.parse(f'{{"n": {n}}}'))
        ns = [r["n"] for r in spark.table(f"{NAME}.crm.`odd.name(1)+`").collect()]
        assert ns == [1]  # as spelt, though another collection differs only in case
        assert [r["n"] for r in spark.table(f"{NAME}.crm.`Odd.Name(1)+`").collect()] == [2]
        assert [r["n"] for r in spark.table(f"{NAME}.crm.`ODD.NAME(1)+`").collect()] in ([1], [2])
        for missing in ("odd.name(1)", "odd.name", "oddXname(1)+", ".*"):
            with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
                spark.table(f"{NAME}.crm.`{missing}`")
        with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
            spark.table(f"{NAME}.`c.m`.accounts")  # a database's name is no pattern either
    finally:
        for coll in ("odd.name(1)+", "Odd.Name(1)+", "oddXname(1)"):
            client.getDatabase("crm").getCollection(coll).drop()
        client.close()


def test_a_server_that_does_not_answer_is_named_without_the_password(spark):
    import drillspark

    down = {"type": "mongo", "connection": "mongodb://u:hush-pw@127.0.0.1:1/"}
    drillspark.sql("SELECT 1", spark=spark, storage={"mgdown": down}).collect()
    try:
        shown = [tuple(r) for r in spark.sql("SET").collect()]
        assert not any("hush-pw" in str(v) for _, v in shown)
        with pytest.raises(Exception) as e:
            spark.table("mgdown.shop.orders")
        assert "storage plugin 'mgdown'" in str(e.value)
        assert "hush-pw" not in str(e.value)
    finally:
        forget_plugins(spark, "mgdown")
