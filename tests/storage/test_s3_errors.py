"""Bad input on S3: a missing bucket, an unreachable endpoint, a missing key: one paragraph
naming the plugin (and the SQL position), no stack trace, and the plugin's secret key nowhere
in it; two plugins on one bucket with different credentials are refused (they would mix)."""

from __future__ import annotations

import pytest
from tests.storage.s3_server import SECRET_KEY

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession


@pytest.fixture(scope="module")
def plugins(s3):
    s3.client().create_bucket(Bucket="drill-errs")
    s3.put("drill-errs", "a.json", '{"x": 1}\n')
    gone = s3.plugin("drill-no-such-bucket")
    down = s3.plugin("drill-down")
    down["config"] = {**down["config"], "fs.s3a.endpoint": "http://127.0.0.1:1"}
    return {"s3": s3.plugin("drill-errs"), "gone": gone, "down": down}


@pytest.fixture
def engine(spark, plugins):
    return SqlEngine(spark, SqlSession(plugins=dict(plugins)))


def _failure(engine, sql: str) -> str:
    with pytest.raises(SqlError) as e:
        engine.execute(sql)
    message = e.value.message
    assert SECRET_KEY not in str(e.value) and "Traceback" not in message
    assert "\n\tat " not in message  # no Java stack trace
    return message


def test_a_missing_bucket_names_the_plugin(engine):
    message = _failure(engine, "SELECT * FROM gone.root.`a.json`")
    assert "storage plugin 'gone'" in message and "drill-no-such-bucket" in message, message


def test_an_unreachable_endpoint_names_the_plugin(engine):
    message = _failure(engine, "SELECT * FROM down.root.`a.json`")
    assert "storage plugin 'down'" in message, message


def test_a_missing_key_is_not_found_at_its_place(engine):
    message = _failure(engine, "SELECT * FROM s3.root.`nope.json`")
    assert "not found" in message and "s3.root" in message, message


def test_explain_shows_the_config_masked(engine):
    plan = str(engine.execute("EXPLAIN PLAN FOR SELECT x FROM s3.root.`a.json`")[-1].rows())
    assert "s3a://drill-errs" in plan and SECRET_KEY not in plan and "*****" in plan


def test_two_plugins_on_one_bucket_with_other_credentials_are_refused(spark, s3, plugins):
    other = s3.plugin("drill-errs")
    other["config"] = {**other["config"], "fs.s3a.access.key": "AKIAOTHER"}
    session = SqlSession(plugins={"s3": plugins["s3"], "s3b": other})
    engine = SqlEngine(spark, session)
    assert engine.execute("SELECT x FROM s3.root.`a.json`")[-1].rows() == [{"x": 1}]
    message = _failure(engine, "SELECT x FROM s3b.root.`a.json`")
    assert "storage plugin 's3b'" in message and "'s3'" in message, message
