"""An object or a bucket that vanishes between planning and reading (moto's S3 server: the
query is planned, its DataFrame built, then the object or the whole bucket is deleted, then
the rows are fetched): the query fails with one paragraph naming the plugin, workspace and table as the user wrote
them and the file that went, without Spark's wrapping ("Job aborted ..."), a stack trace or the
plugin's secret key, never with rows silently missing."""

from __future__ import annotations

import itertools
import json

import pytest
from tests.storage.s3_server import SECRET_KEY

import drillspark
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

_COUNT = itertools.count(1)


@pytest.fixture
def bucket(s3):
    name = f"drill-vanish-{next(_COUNT)}"
    s3.client().create_bucket(Bucket=name)
    for i in range(3):
        rows = "".join(json.dumps({"x": j, "f": i}) + "\n" for j in range(5))
        s3.put(name, f"logs/p{i}.json", rows)
    return name


def _planned(spark, s3, bucket: str, sql: str):
    engine = SqlEngine(spark, SqlSession(plugins={"s3": s3.plugin(bucket)}))
    result = engine.execute(sql)[-1]
    assert result.df is not None  # planned: the files are listed, the scan is built
    return result


def _failure(result) -> str:
    with pytest.raises(drillspark.Error) as e:
        result.rows()
    text = str(e.value)
    assert "\n" not in text.strip() and "\tat " not in text and "Traceback" not in text
    assert SECRET_KEY not in text
    for spark_words in ("Job aborted", "SparkException", "stage", "collectToPython", "o1"):
        assert spark_words not in text, text
    return text


def test_a_file_deleted_after_planning_fails_naming_it(spark, s3, bucket):
    result = _planned(spark, s3, bucket, "SELECT x, f FROM s3.root.`logs` WHERE x > 2")
    s3.client().delete_object(Bucket=bucket, Key="logs/p1.json")
    text = _failure(result)  # not the rows of p0 and p2 alone
    assert text.startswith(
        "storage plugin 's3', workspace 's3.root', table `logs`: the file `logs/p1.json` was "
        "listed when the query was planned but it no longer exists"
    ), text
    assert "(in query SELECT x, f FROM s3.root.`logs` WHERE x > 2)" in text, text


def test_a_bucket_deleted_after_planning_fails_naming_the_path(spark, s3, bucket):
    result = _planned(spark, s3, bucket, "SELECT count(*) AS n FROM s3.root.`logs`")
    client = s3.client()
    for key in s3.keys(bucket):
        client.delete_object(Bucket=bucket, Key=key)
    client.delete_bucket(Bucket=bucket)
    text = _failure(result)
    assert text.startswith(
        "storage plugin 's3', workspace 's3.root', table `logs`: the file `logs/p"
    ), text


def test_a_parquet_file_deleted_after_planning_names_the_table(spark, s3, bucket, tmp_path):
    # Spark's own Parquet reader fails with FAILED_READ_FILE.FILE_NOT_EXIST (not the JSON
    # reader's words): the same paragraph
    folder = tmp_path / "pq"
    df = spark.createDataFrame([(i,) for i in range(4)], "id int").repartition(2)
    df.write.parquet(str(folder))
    parts = sorted(p for p in folder.iterdir() if p.suffix == ".parquet")
    for i, part in enumerate(parts):
        s3.put(bucket, f"tables/pq/{i}.parquet", part.read_bytes())
    config = s3.plugin(bucket, {"tables": {"location": "/tables"}})
    engine = SqlEngine(spark, SqlSession(plugins={"lake": config}))
    result = engine.execute("SELECT id FROM lake.tables.`pq` WHERE id >= 0")[-1]
    s3.client().delete_object(Bucket=bucket, Key=f"tables/pq/{len(parts) - 1}.parquet")
    text = _failure(result)
    assert text.startswith(
        f"storage plugin 'lake', workspace 'lake.tables', table `pq`: the file "
        f"`pq/{len(parts) - 1}.parquet` was listed"
    ), text
    assert "FAILED_READ_FILE" not in text


def test_a_plan_whose_file_vanished_names_its_workspace_and_path(spark, s3, bucket):
    """drillspark.run with a plan's `storage` section: the scan by workspace and path."""
    config = s3.plugin(bucket, {"all": {"location": "/"}})
    plan = {
        "head": {"type": "APACHE_DRILL_LOGICAL", "version": 1, "generator": {"type": "tests"}},
        "storage": {"s3": config},
        "query": [
            {
                "@id": 1,
                "op": "scan",
                "storageengine": "s3",
                "selection": {"workspace": "all", "path": "logs"},
            },
            {"@id": 2, "op": "store", "input": 1, "storageEngine": "--SCREEN--"},
        ],
    }
    result = drillspark.run(plan, spark=spark)
    s3.client().delete_object(Bucket=bucket, Key="logs/p1.json")
    text = _failure(result)
    assert text.startswith(
        "storage plugin 's3', workspace 's3.all', table `logs`: the file `logs/p1.json`"
    ), text


def test_a_file_deleted_before_planning_is_not_found_at_its_place(spark, s3, bucket):
    s3.client().delete_object(Bucket=bucket, Key="logs/p2.json")
    engine = SqlEngine(spark, SqlSession(plugins={"s3": s3.plugin(bucket)}))
    with pytest.raises(drillspark.Error) as e:
        engine.execute("SELECT * FROM s3.root.`logs/p2.json`")[-1].rows()
    text = str(e.value)
    assert "s3.root" in text and f"s3a://{bucket}/logs/p2.json" in text, text
    assert SECRET_KEY not in text and "not found" in text
