"""Credentials on S3 that checks them: a moto server of its own with its IAM authentication on
(tests/storage/s3_server.require_auth). The plugin with the right key pair reads; one with a
wrong secret key fails in one paragraph naming the plugin, the secret nowhere in it; each
plugin's credentials stay its own (scoped to its bucket), so the two work side by side."""

from __future__ import annotations

import pytest
from tests.storage import s3_server

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

WRONG = "wrong-secret-Kx81"


@pytest.fixture(scope="module")
def server():
    server = s3_server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def engine(spark, server):
    access, secret = s3_server.require_auth(server, ["drill-auth-a", "drill-auth-b"])
    import boto3

    boto3.client(
        "s3",
        endpoint_url=server.endpoint,
        aws_access_key_id=access,
        aws_secret_access_key=secret,
        region_name="us-east-1",
    ).put_object(Bucket="drill-auth-a", Key="a.json", Body=b'{"x": 1}\n')
    good = server.plugin("drill-auth-a")
    good["config"] |= {"fs.s3a.access.key": access, "fs.s3a.secret.key": secret}
    bad = server.plugin("drill-auth-b")
    bad["config"] |= {"fs.s3a.access.key": access, "fs.s3a.secret.key": WRONG}
    return SqlEngine(spark, SqlSession(plugins={"good": good, "bad": bad}))


def test_the_right_key_pair_reads(engine):
    assert engine.execute("SELECT x FROM good.root.`a.json`")[-1].rows() == [{"x": 1}]


def test_a_wrong_secret_key_names_the_plugin_and_not_the_secret(engine):
    with pytest.raises(SqlError) as e:
        engine.execute("SELECT x FROM bad.root.`a.json`")
    message = e.value.message
    assert "storage plugin 'bad'" in message, message
    assert WRONG not in str(e.value) and "\n\tat " not in message, message
    assert "403" in message or "Forbidden" in message or "Signature" in message, message
    # the good plugin still reads: the bad one's key never replaced its own
    assert engine.execute("SELECT x FROM good.root.`a.json`")[-1].rows() == [{"x": 1}]
