"""An object or a bucket that vanishes between planning and reading (moto's S3 server: the
query is planned, its DataFrame built, then the object or the whole bucket is deleted, then
the rows are fetched): the query fails with one paragraph naming the path, without a stack
trace or the plugin's secret key, never with rows silently missing."""

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
    return text


def test_a_file_deleted_after_planning_fails_naming_it(spark, s3, bucket):
    result = _planned(spark, s3, bucket, "SELECT x, f FROM s3.root.`logs` WHERE x > 2")
    s3.client().delete_object(Bucket=bucket, Key="logs/p1.json")
    text = _failure(result)  # not the rows of p0 and p2 alone
    assert f"s3a://{bucket}/logs/p1.json" in text and "No such file or directory" in text, text


def test_a_bucket_deleted_after_planning_fails_naming_the_path(spark, s3, bucket):
    result = _planned(spark, s3, bucket, "SELECT count(*) AS n FROM s3.root.`logs`")
    client = s3.client()
    for key in s3.keys(bucket):
        client.delete_object(Bucket=bucket, Key=key)
    client.delete_bucket(Bucket=bucket)
    text = _failure(result)
    assert f"s3a://{bucket}/logs/p" in text, text


def test_a_file_deleted_before_planning_is_not_found_at_its_place(spark, s3, bucket):
    s3.client().delete_object(Bucket=bucket, Key="logs/p2.json")
    engine = SqlEngine(spark, SqlSession(plugins={"s3": s3.plugin(bucket)}))
    with pytest.raises(drillspark.Error) as e:
        engine.execute("SELECT * FROM s3.root.`logs/p2.json`")[-1].rows()
    text = str(e.value)
    assert "s3.root" in text and f"s3a://{bucket}/logs/p2.json" in text, text
    assert SECRET_KEY not in text and "not found" in text
