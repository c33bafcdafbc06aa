"""A `file` plugin as a Spark catalog of its own name (#31): after
`drillspark.session(storage={"s3lake": {...}})`, plain `spark.sql` reads
``s3lake.data.`orders/` `` from moto's S3 server (the `s3` fixture) with the plugin's
workspaces, its Hadoop settings scoped to its bucket, and the same workspace rule as `dfs`;
answers compared with drillspark.sql's on the same plugin."""

from __future__ import annotations

import importlib
import io
import json

import pytest

BUCKET = "drill-catalog"
NAME = "s3lake"


@pytest.fixture(scope="module")
def lake(spark, s3):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import drillspark

    s3.client().create_bucket(Bucket=BUCKET)
    s3.put(BUCKET, "data/orders/a.json", '{"id": 1, "amount": 5}\n{"id": 2, "amount": 7}\n')
    s3.put(BUCKET, "data/orders/b.json", '{"id": 3, "amount": 11}\n')
    buf = io.BytesIO()
    pq.write_table(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}), buf)
    s3.put(BUCKET, "data/names.parquet", buf.getvalue())
    s3.put(BUCKET, "private/secret.json", '{"s": 1}\n')
    config = s3.plugin(BUCKET, {"data": {"location": "/data", "writable": False}})
    session_module = importlib.import_module("drillspark.session")
    sql_module = importlib.import_module("drillspark.sql")
    same = drillspark.session(storage={NAME: config})
    assert same is spark
    yield config
    session_module._STORAGE.pop(spark, None)
    engine = sql_module.default_engine(spark)
    engine.session.plugins.pop(NAME, None)
    sql_module._storage_taken.pop(engine, None)


def _drill(spark, query: str) -> list[tuple]:
    import drillspark

    return sorted(tuple(r) for r in drillspark.sql(query, spark=spark).collect())


def test_the_plugin_is_a_spark_catalog_reading_json_and_parquet(spark, lake):
    assert spark.conf.get(f"spark.sql.catalog.{NAME}") == "drillspark.catalog.DfsCatalog"
    query = f"SELECT id, amount FROM {NAME}.data.`orders/` WHERE amount > 6"
    ours = sorted(tuple(r) for r in spark.sql(query).collect())
    assert ours == [(2, 7), (3, 11)] == _drill(spark, query)
    query = f"SELECT o.id, n.name FROM {NAME}.data.`orders/` o JOIN {NAME}.data.`names.parquet` n ON o.id = n.id"
    ours = sorted(tuple(r) for r in spark.sql(query).collect())
    assert ours == [(1, "a"), (2, "b"), (3, "c")] == _drill(spark, query)
    # the default workspace is the bucket's root, confined to it
    rows = spark.sql(f"SELECT count(*) AS n FROM {NAME}.`data/orders/`").collect()
    assert rows[0].n == 3


@pytest.mark.parametrize(
    "table, why",
    [
        ("../private/secret.json", "escapes the workspace root"),
        ("/private/secret.json", "escapes the workspace root|absolute paths"),
        ("s3a://other-bucket/x.json", "URI"),
        ("%2e%2e/private/secret.json", "percent-encoded"),
        ("orders\u2215a.json", "looks like"),
    ],
)
def test_names_leaving_a_workspace_are_refused_as_in_dfs(spark, lake, table, why):
    import re

    with pytest.raises(Exception) as e:
        spark.sql(f"SELECT * FROM {NAME}.data.`{table}`").collect()
    text = str(e.value)
    assert re.search(why, text) and "workspace 'data'" in text, text


def test_no_root_or_tmp_workspace_of_dfs_and_a_changed_config_is_taken(spark, s3, lake):
    import drillspark

    with pytest.raises(Exception, match="no workspace 'tmp'"):
        spark.sql(f"SELECT * FROM {NAME}.tmp.`x.json`").collect()
    # the plugin given again with another workspace: the loaded catalog takes it
    changed = {**lake, "workspaces": {"orders": {"location": "/data/orders"}}}
    drillspark.session(storage={NAME: changed})
    assert spark.sql(f"SELECT count(*) AS n FROM {NAME}.orders.`a.json`").first().n == 2
    with pytest.raises(Exception, match="no workspace 'data'"):
        spark.sql(f"SELECT * FROM {NAME}.data.`orders/`").collect()
    drillspark.session(storage={NAME: lake})


def test_a_disabled_plugin_gets_no_catalog(spark, s3, lake):
    from drillspark.spark.storage import file_catalogs

    off = {**lake, "enabled": False}
    assert not file_catalogs.register(spark, "s3off", off)
    assert spark.conf.get("spark.sql.catalog.s3off", None) is None
    # a name Spark keeps for itself is never a plugin's catalog
    assert not file_catalogs.register(spark, "spark_catalog", lake)
    assert json.dumps(file_catalogs.catalog_confs(NAME, lake)).count("secret") == 0
