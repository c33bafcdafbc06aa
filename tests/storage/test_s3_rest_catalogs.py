"""A `file` plugin created, changed, disabled and deleted over the server's REST API is a Spark
catalog of its name at once (#31), as one given to drillspark.session(storage=...) is: plain
`spark.sql` in the server's session reads moto's S3 server (the `s3` fixture) through it, takes
a changed workspace, and no longer reads it once the plugin is disabled or deleted. Answers
compared with the server's own (REST `query.json`) over the same plugin."""

from __future__ import annotations

import json

import pytest
from tests.server.helpers import Http

from drillspark.server import DrillServer

BUCKET = "drill-rest-catalog"
NAME = "rests3"


@pytest.fixture(scope="module")
def bucket(s3):
    s3.client().create_bucket(Bucket=BUCKET)
    s3.put(BUCKET, "orders/a.json", '{"id": 1, "amount": 5}\n{"id": 2, "amount": 7}\n')
    s3.put(BUCKET, "orders/b.json", '{"id": 3, "amount": 11}\n')
    s3.put(BUCKET, "archive/old.json", '{"id": 9, "amount": 100}\n')
    return BUCKET


def _post(http: Http, name: str, config: dict) -> None:
    body = json.dumps({"name": name, "config": config}).encode()
    status, _, data = http.request(
        "POST", f"/storage/{name}.json", body, {"Content-Type": "application/json"}
    )
    assert status == 200, data


def _rows(spark, query: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(query).collect())


def _gone(spark, query: str) -> str:
    with pytest.raises(Exception) as e:
        spark.sql(query).collect()
    return str(e.value)


def test_a_plugin_created_changed_disabled_deleted_over_rest_is_spark_catalog_at_once(
    spark, s3, bucket
):
    srv = DrillServer(spark, port=0, workspaces={}).start()
    try:
        http = Http(srv.url)
        assert spark.conf.get(f"spark.sql.catalog.{NAME}", None) is None
        _post(http, NAME, s3.plugin(bucket, {"sales": {"location": "/orders"}}))
        # created: spark.sql reads it, as the server's REST query does
        query = f"SELECT id, amount FROM {NAME}.sales.`a.json` WHERE amount > 6"
        assert _rows(spark, query) == [(2, 7)]
        query = f"SELECT count(*) AS n, sum(amount) AS s FROM {NAME}.sales.`a.json`"
        answer = http.query(query)
        assert answer["rows"] == [{"n": 2, "s": 12}], answer
        n = spark.sql(query).first()
        assert (n.n, n.s) == (2, 12)
        # changed (the workspace now on another prefix): the loaded catalog takes it at once
        _post(http, NAME, s3.plugin(bucket, {"sales": {"location": "/archive"}}))
        assert _rows(spark, f"SELECT id, amount FROM {NAME}.sales.`old.json`") == [(9, 100)]
        assert "TABLE_OR_VIEW_NOT_FOUND" in _gone(spark, f"SELECT * FROM {NAME}.sales.`a.json`")
        # a partial config (no `type`) merges: a second workspace
        _post(
            http,
            NAME,
            {"workspaces": {"sales": {"location": "/orders"}, "old": {"location": "/archive"}}},
        )
        assert _rows(spark, f"SELECT id FROM {NAME}.old.`old.json`") == [(9,)]
        assert _rows(spark, f"SELECT id FROM {NAME}.sales.`b.json`") == [(3,)]
        # disabled: no catalog; enabled again: back
        assert http.get(f"/storage/{NAME}/enable/false")[0] == 200
        assert spark.conf.get(f"spark.sql.catalog.{NAME}", None) is None
        text = _gone(spark, f"SELECT * FROM {NAME}.sales.`b.json`")
        assert "TABLE_OR_VIEW_NOT_FOUND" in text, text
        assert http.get(f"/storage/{NAME}/enable/true")[0] == 200
        assert _rows(spark, f"SELECT id FROM {NAME}.sales.`b.json`") == [(3,)]
        # deleted: the catalog Spark keeps loaded answers "not found", never dfs's workspaces
        status, _, data = http.request("DELETE", f"/storage/{NAME}.json")
        assert status == 200, data
        assert not [k for k in spark.conf.getAll if k.startswith(f"spark.sql.catalog.{NAME}")]
        text = _gone(spark, f"SELECT * FROM {NAME}.sales.`b.json`")
        assert "TABLE_OR_VIEW_NOT_FOUND" in text, text
        assert _gone(spark, f"SELECT * FROM {NAME}.`orders/a.json`")
        # the bucket is free again: another plugin with other settings may take it
        other = s3.plugin(bucket, {"o": {"location": "/orders"}})
        other["config"]["fs.s3a.connection.timeout"] = "20000"
        _post(http, "rests3b", other)
        assert _rows(spark, "SELECT id FROM rests3b.o.`a.json`") == [(1,), (2,)]
    finally:
        srv.stop()
    # the server's catalogs end with it; the session goes on
    assert spark.conf.get("spark.sql.catalog.rests3b", None) is None


def test_plugins_of_a_storage_file_are_catalogs_from_the_start(spark, s3, bucket):
    config = s3.plugin(bucket, {"sales": {"location": "/orders"}})
    srv = DrillServer(spark, port=0, workspaces={}, storage={"boots3": config}).start()
    try:
        assert _rows(spark, "SELECT id FROM boots3.sales.`b.json`") == [(3,)]
        # a plugin of another type, or disabled, is no catalog
        assert spark.conf.get("spark.sql.catalog.s3", None) is None  # Drill's disabled `s3`
    finally:
        srv.stop()
    assert spark.conf.get("spark.sql.catalog.boots3", None) is None


def test_the_python_api_disables_a_plugin_catalog(spark, s3, bucket):
    import drillspark
    from drillspark.spark.storage import file_catalogs

    config = s3.plugin(bucket, {"sales": {"location": "/orders"}})
    try:
        drillspark.sql("SELECT 1", spark=spark, storage={"apis3": config})
        assert _rows(spark, "SELECT id FROM apis3.sales.`b.json`") == [(3,)]
        drillspark.sql("SELECT 1", spark=spark, storage={"apis3": {**config, "enabled": False}})
        assert spark.conf.get("spark.sql.catalog.apis3", None) is None
        assert "TABLE_OR_VIEW_NOT_FOUND" in _gone(spark, "SELECT id FROM apis3.sales.`b.json`")
    finally:
        import importlib

        sql_module = importlib.import_module("drillspark.sql")
        sql_module.default_engine(spark).session.plugins.pop("apis3", None)
        file_catalogs.unregister(spark, "apis3")
