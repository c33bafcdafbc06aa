"""Formats on another file system: Avro and Excel files in an S3 bucket (moto's S3 server,
tests/storage/s3_server.py, a real S3 API on a loopback port) read through a `file` plugin on
s3a:// by drillspark.sql, with the same answer as from a local folder."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
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


# every format in one bucket, each file one folder down (dir0), read on S3 and from a local
# folder of the same layout: the same rows, dir0 and implicit file columns included
LAYOUT = {
    "xml/2024/books.xml": "books.xml",
    "httpd/2024/access.httpd": "access.httpd",
    "syslog/2024/messages.syslog": "messages.syslog",
    "ltsv/2024/access.ltsv": "access.ltsv",
    "logs/2024/app.log": "app.log",
}
QUERIES = {
    "xml": "SELECT title, dir0, filename, suffix FROM {t}.`xml` ORDER BY title",
    "httpd": "SELECT request_firstline_uri_path AS p, dir0, filename FROM {t}.`httpd` ORDER BY p",
    "syslog": "SELECT app_name, severity, dir0, filename FROM {t}.`syslog` ORDER BY app_name",
    "ltsv": "SELECT host, status, dir0, suffix FROM {t}.`ltsv` ORDER BY host",
    "logs": "SELECT columns[1] AS level, dir0, filename FROM table({t}.`logs`(type => 'logRegex', "
    "regex => '(\\\\d{{4}}-\\\\d\\\\d-\\\\d\\\\d \\\\S+) (\\\\w+) .*')) ORDER BY level",
    "pcap": "SELECT src_ip, dst_port, dir0, filename FROM {t}.`pcap` ORDER BY src_ip, dst_port",
    "pcapng": "SELECT src_ip, dst_port, dir0, filename FROM {t}.`pcapng` ORDER BY src_ip, dst_port",
    "avro": "SELECT a, dir0, filename FROM {t}.`av` ORDER BY a",
    "excel": "SELECT k, v, dir0, filename, suffix FROM {t}.`xl` ORDER BY k",
}


def write_everything(local: Path) -> Path:
    """The files of every format under `local`, in LAYOUT's folders (also test_formats_hdfs)."""
    from tests.formats import pcap_packets
    from tests.formats.conftest import DATA

    for key, name in LAYOUT.items():
        (local / key).parent.mkdir(parents=True, exist_ok=True)
        (local / key).write_bytes((DATA / name).read_bytes())
    for kind, write in (("pcap", pcap_packets.write_pcap), ("pcapng", pcap_packets.write_pcapng)):
        (local / kind / "2024").mkdir(parents=True)
        write(local / kind / "2024" / f"cap.{kind}")
    (local / "av" / "2024").mkdir(parents=True)
    out = io.BytesIO()
    schema = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
    fastavro.writer(out, fastavro.parse_schema(schema), [{"a": 1}, {"a": 2}])
    (local / "av" / "2024" / "x.avro").write_bytes(out.getvalue())
    (local / "xl" / "2024").mkdir(parents=True)
    wb = openpyxl.Workbook()
    wb.active.append(["k", "v"])
    wb.active.append([3, "three"])
    wb.save(local / "xl" / "2024" / "b.xlsx")
    return local


@pytest.fixture(scope="module")
def everything(s3, bucket, tmp_path_factory):
    local = write_everything(tmp_path_factory.mktemp("formats-local"))
    for f in local.rglob("*"):
        if f.is_file():
            s3.put(bucket, f.relative_to(local).as_posix(), f.read_bytes())
    return local


@pytest.mark.parametrize("kind", sorted(QUERIES))
def test_every_format_on_s3_as_from_a_local_folder(spark, s3, bucket, everything, kind):
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    engine = SqlEngine(spark, SqlSession(workspaces={"loc": str(everything)}))
    engine.session.take_storage({"s3": s3.plugin(bucket)})
    on_s3 = engine.execute(QUERIES[kind].format(t="s3.root"))[-1].collect()
    local = engine.execute(QUERIES[kind].format(t="dfs.loc"))[-1].collect()
    assert [r.asDict() for r in on_s3] == [r.asDict() for r in local]
    assert on_s3 and all(r["dir0"] == "2024" for r in on_s3)
