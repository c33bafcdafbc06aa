"""The `drill` reader over pages of records from no file (drillspark.records.RecordBatch, what the
http and mongo plugins hand it): the same discovery, type lattice, options and errors as over
files, each error naming the page it read; dataPath keeping the answer's own lines and columns;
the pages held while a table reads them and read again by a second action."""

from __future__ import annotations

import gc

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException


def _batch(spark, pages: list[tuple[str, bytes, str]]):
    batch = spark._jvm.drillspark.records.RecordBatch()
    counts = [int(batch.add(place, bytearray(body), path)) for place, body, path in pages]
    return batch, counts


def _read(spark, batch, **options):
    return spark.read.format("drill").options(**options).load(list(batch.paths()))


def test_pages_read_as_files_would_be(spark, tmp_path):
    body = b'{"a": 1, "b": {"c": "x"}, "l": [1, 2]}\n{"a": 2.5, "b": {"d": true}, "l": []}\n'
    (tmp_path / "same.json").write_bytes(body)
    batch, counts = _batch(spark, [("test page 1", body, "")])
    from_pages = _read(spark, batch)
    from_file = spark.read.format("drill").load(str(tmp_path / "same.json"))
    assert from_pages.schema == from_file.schema
    assert from_pages.collect() == from_file.collect()
    assert counts == [1]  # no dataPath: the first record is what it looks at


def test_data_path_counts_records_and_keeps_positions(spark):
    body = b'{"meta": {"n": 3},\n "data": {"items": [\n  {"k": 1},\n  {"k": 2},\n  {"k": 3}]}}'
    batch, counts = _batch(spark, [("api page 1", body, "data/items")])
    assert counts == [3]
    assert [r.k for r in _read(spark, batch).collect()] == [1, 2, 3]
    _, nothing = _batch(spark, [("api page 2", body, "data/none")])
    assert nothing == [0]


def test_the_reader_options_apply(spark):
    batch, _ = _batch(spark, [("p", b'{"a": 1, "b": NaN}\n{"a": 2, "b": 1.5}', "")])
    df = _read(spark, batch, allTextMode="true", allowNanInf="true")
    assert [(r.a, r.b) for r in df.collect()] == [("1", "NaN"), ("2", "1.5")]
    assert [r.a for r in _read(spark, batch, readNumbersAsDouble="true").collect()] == [1.0, 2.0]
    with pytest.raises((Py4JJavaError, PySparkException)) as e:
        _read(spark, batch, allowNanInf="false").collect()
    assert "option nanInf is false" in str(e.value) and "line 1, column" in str(e.value)


def test_a_conflict_across_pages_names_both_pages(spark):
    batch, _ = _batch(
        spark,
        [
            ("http plugin 'api', connection 'c', page 1", b'{"v": 1}', ""),
            ("http plugin 'api', connection 'c', page 2", b'{"v": {"x": 1}}', ""),
        ],
    )
    with pytest.raises((Py4JJavaError, PySparkException)) as e:
        _read(spark, batch, typeConflict="error").collect()
    message = str(e.value)
    assert "page 1" in message and "page 2" in message and "type conflict" in message


def test_a_bad_value_names_its_page_line_and_column(spark):
    body = b'{"t": "2024-01-01T00:00:00Z"}\n{"t": "2024-01-01T00:00:00Z"}\n{"t": "not a time"}\n'
    batch, _ = _batch(spark, [("mongo plugin 'm', collection db.c, documents 1 to 3", body, "")])
    df = _read(spark, batch, schema="t timestamp")
    with pytest.raises((Py4JJavaError, PySparkException)) as e:
        df.collect()
    message = str(e.value)
    assert "collection db.c, documents 1 to 3 line 3" in message


def test_pages_outlive_the_batch_while_a_table_reads_them(spark):
    batch, _ = _batch(spark, [("p", b'{"a": 1}\n{"a": 2}\n', "")])
    df = _read(spark, batch)
    del batch
    gc.collect()
    spark._jvm.System.gc()
    assert df.count() == 2 and sorted(r.a for r in df.collect()) == [1, 2]
