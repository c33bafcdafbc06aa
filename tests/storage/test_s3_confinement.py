"""Workspace confinement on S3 (docs/security.md, docs/storage.md): a workspace is a key
prefix, and a table name stays under it: `..`, absolute keys, URIs of other buckets or file
systems, percent-encoded path syntax and look-alikes of `.` and `/` are refused naming the
workspace, in reads, CTAS targets and SHOW FILES alike; the keys outside are never read."""

from __future__ import annotations

import pytest

from drillspark.sql import SqlEngine, SqlError
from drillspark.sql.session import SqlSession

BUCKET = "drill-confined"


@pytest.fixture(scope="module")
def engine(spark, s3):
    s3.client().create_bucket(Bucket=BUCKET)
    s3.client().create_bucket(Bucket="drill-other")
    s3.put(BUCKET, "public/ok.json", '{"x": 1}\n')
    s3.put(BUCKET, "private/secret.json", '{"x": "secret"}\n')
    s3.put("drill-other", "x.json", '{"x": "other"}\n')
    config = s3.plugin(
        BUCKET,
        {"pub": {"location": "/public", "writable": True}},
    )
    return SqlEngine(spark, SqlSession(plugins={"s3": config}))


def test_a_name_inside_the_prefix_is_read(engine):
    assert engine.execute("SELECT x FROM s3.pub.`ok.json`")[-1].rows() == [{"x": 1}]


@pytest.mark.parametrize(
    "name",
    [
        "../private/secret.json",
        "sub/../../private/secret.json",
        "/private/secret.json",
        "s3a://drill-other/x.json",
        "s3a://drill-confined/private/secret.json",
        "file:///etc/passwd",
        "%2e%2e/private/secret.json",
        "..%2fprivate/secret.json",
        "\uff0e\uff0e/private/secret.json",  # fullwidth dots
        "..\u2215private/secret.json",  # division slash
    ],
)
def test_names_leaving_the_prefix_are_refused(engine, name):
    with pytest.raises(SqlError) as e:
        engine.execute(f"SELECT x FROM s3.pub.`{name}`")
    assert "refused in workspace 's3.pub'" in e.value.message, e.value.message
    assert "secret" not in str(e.value.message).replace("secret.json", "")


def test_ctas_and_show_files_keep_the_rule(engine, s3):
    with pytest.raises(SqlError, match="refused in workspace 's3.pub'"):
        engine.execute("CREATE TABLE s3.pub.`../private/t` AS SELECT 1 AS a FROM (VALUES (1))")
    assert s3.keys(BUCKET, "private/t") == []
    with pytest.raises(SqlError, match="refused in workspace 's3.pub'"):
        engine.execute("SHOW FILES IN s3.pub.`../private`")
