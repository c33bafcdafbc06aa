"""Fuzzing the `drill` source's JSON reader in the JVM (issue #15): generated, real and mutated
files with generated options, read every way the source reads them by a small JVM entry point
(tests/fuzz/json_probe.py: the Jackson path, the byte path, the count scan, line splits), and a
smaller set through the real source on Spark. Only the reader's documented errors may come out
(file, line and column), never a hang, a JVM crash or another exception, and the ways agree.
Inputs found are kept in corpus/json_reader/ (`NAME.json`, its options in `NAME.options`)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from tests.fuzz import checks, json_inputs, json_probe
from tests.fuzz.conftest import long, short


@pytest.fixture(scope="module")
def probe():
    p = json_probe.Probe(json_probe.classpath())
    yield p
    p.close()


def read_and_check(probe, data: bytes, options: dict[str, str], split_bytes: int = 0) -> dict:
    answer = probe.read(data, options, split_bytes)
    json_probe.check(data, options, answer)
    return answer


def corpus() -> list:
    return [pytest.param(p, id=p.name) for p in checks.corpus("json_reader") if p.suffix == ".json"]


@pytest.mark.parametrize("path", corpus())
def test_corpus(probe, path):
    options_file = path.with_suffix(".options")
    options = json.loads(options_file.read_text()) if options_file.exists() else {}
    for split in (0, 16, 64):  # whole, and cut in splits of two sizes found to matter
        read_and_check(probe, path.read_bytes(), options, split)


def test_the_probe_sees_what_the_reader_does(probe):
    # the harness itself: a good file's rows, and a located error for a bad one
    good = read_and_check(probe, b'{"a": 1}\n{"a": 2, "b": "x"}\n', {}, 8)
    assert good["jackson"]["rows"] == ["{a=1, b=null}", "{a=2, b=x}"]
    assert good["count"] == {"records": 2} and good["split"] == good["jackson"]
    bad = read_and_check(probe, b'{"a": 1}\n{"a": }\n', {})
    assert "line 2, column 8" in bad["jackson"]["error"]


@short(300)
@given(json_inputs.files, json_inputs.options, json_inputs.split_bytes)
def test_files_short(probe, data, options, split_bytes):
    read_and_check(probe, data, options, split_bytes)


@pytest.mark.fuzz
@long(8_000)
@given(json_inputs.files, json_inputs.options, json_inputs.split_bytes)
def test_files_long(probe, data, options, split_bytes):
    read_and_check(probe, data, options, split_bytes)


# ---- through the real source on Spark: fewer inputs (a Spark job each), the same property


def spark_outcome(spark, path) -> tuple[str, object]:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        return "rows", len(spark.read.format("drill").load(str(path)).collect())
    except (Py4JJavaError, PySparkException) as e:
        return "error", str(e)


def check_on_spark(spark, probe, tmp_path, data: bytes) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(data)
    kind, got = spark_outcome(spark, path)
    want = probe.read(data, {})["fast"]
    if kind == "rows":
        assert "rows" in want and got == len(want["rows"]), (data, got, want)
    else:
        text = str(got)
        # the reader's own error reaches the user, naming the file; Spark adds no internal error
        assert f"drill: file:{path}" in text or f"drill: {path}" in text, text[:3000]
        assert "INTERNAL_ERROR" not in text and "StackOverflowError" not in text, text[:3000]
        assert "error" in want, (data, want)
    assert spark.range(3).count() == 3  # the session answers the next query


@short(25)
@given(json_inputs.files)
def test_files_through_the_source_short(spark, probe, tmp_path_factory, data):
    check_on_spark(spark, probe, tmp_path_factory.mktemp("s"), data)


@pytest.mark.fuzz
@long(200)
@given(json_inputs.files)
def test_files_through_the_source_long(spark, probe, tmp_path_factory, data):
    check_on_spark(spark, probe, tmp_path_factory.mktemp("s"), data)
