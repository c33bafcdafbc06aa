"""Formats on another file system: Avro and Excel files in an S3 bucket (moto's S3 server,
tests/storage/s3_server.py, a real S3 API on a loopback port) read through a `file` plugin on
s3a:// by drillspark.sql, with the same answer as from a local folder."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import fastavro
import openpyxl
import pytest

BUCKET = "drill-formats"


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    from tests.storage import s3_server

    server = s3_server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bucket(s3) -> str:
    s3.client().create_bucket(Bucket=BUCKET)
    out = io.BytesIO()
    schema = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
    fastavro.writer(out, fastavro.parse_schema(schema), [{"a": 1}, {"a": 2}])
    s3.put(BUCKET, "t/x.avro", out.getvalue())
    wb = openpyxl.Workbook()
    wb.active.append(["k", "v"])
    wb.active.append([3, "three"])
    book = io.BytesIO()
    wb.save(book)
    s3.put(BUCKET, "t/b.xlsx", book.getvalue())
    return BUCKET


def test_avro_and_excel_on_s3(spark, s3, bucket):
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    engine = SqlEngine(spark, SqlSession())
    engine.session.take_storage({"s3": s3.plugin(bucket)})
    rows = engine.execute("SELECT a, filename FROM s3.root.`t/x.avro` ORDER BY a")[-1].collect()
    assert [tuple(r) for r in rows] == [(1, "x.avro"), (2, "x.avro")]
    rows = engine.execute(
        "SELECT * FROM table(s3.root.`t/b.xlsx`(type => 'excel', headerRow => 0))"
    )[-1].collect()
    assert [tuple(r) for r in rows] == [(3.0, "three")]
