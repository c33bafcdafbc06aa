"""Small files share input partitions (issue #15): the `drill` source packs files into splits
by Spark's own rule for file sources (`FilePartition`: spark.sql.files.maxPartitionBytes, each
file counting spark.sql.files.openCostInBytes more than its length, lowered so every core gets
work), so the partition counts below are Spark's `spark.read.json` counts on the same folder,
and the answers are exactly the files' records, in file order. Before, 10,000 tiny files were
10,000 partitions (docs/reliability.md has the measurement)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILES = 300


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny")
    for i in range(FILES):  # every file the same length, so Spark's size sort changes nothing
        (folder / f"part-{i:04d}.json").write_text(
            json.dumps({"id": i, "v": f"{i % 7:03d}"}) + "\n"
        )
    return folder


@pytest.fixture
def confs(spark_confs):
    """Spark's file packing settings (`spark.sql.files.<name>`) for one test."""
    return lambda **kv: spark_confs({f"spark.sql.files.{k}": v for k, v in kv.items()})


def test_tiny_files_are_packed_as_spark_packs_them(spark, tiny):
    df = spark.read.format("drill").load(str(tiny))
    # 2 cores, 128 MiB partitions, 4 MiB per file opened: 32 files a partition
    assert (
        df.rdd.getNumPartitions()
        == -(-FILES // 32)
        == spark.read.json(str(tiny)).rdd.getNumPartitions()
    )
    assert [r.id for r in df.collect()] == list(range(FILES))  # every record once, in file order
    assert df.selectExpr("sum(id)", "count(*)").first() == (sum(range(FILES)), FILES)
    assert df.filter("v = '003'").count() == len([i for i in range(FILES) if i % 7 == 3])


def evened(spark_count: int, cores: int) -> int:
    """Spark's partition count as the drill source evens it: fewer than 4 a core and not a
    multiple of the cores is raised to the next multiple (InputFiles.partitions)."""
    if spark_count % cores == 0 or spark_count >= 4 * cores:
        return spark_count
    return (spark_count // cores + 1) * cores


def test_packing_follows_sparks_open_cost_and_partition_size(spark, tiny, confs):
    confs(openCostInBytes="1k", maxPartitionBytes="64k")
    df = spark.read.format("drill").load(str(tiny))
    sparks = spark.read.json(str(tiny)).rdd.getNumPartitions()
    assert sparks == 5  # 300 files of ~1 KiB each with the open cost, 64 KiB partitions
    assert df.rdd.getNumPartitions() == evened(sparks, spark.sparkContext.defaultParallelism) == 6
    assert sorted(r.id for r in df.collect()) == list(range(FILES))
    confs(minPartitionNum="100")  # more, smaller partitions: Spark's minimum partition count
    df = spark.read.format("drill").load(str(tiny))
    assert df.rdd.getNumPartitions() == spark.read.json(str(tiny)).rdd.getNumPartitions() >= 100
    assert sorted(r.id for r in df.collect()) == list(range(FILES))


def test_option_split_bytes_is_the_partition_size(spark, tiny):
    # the source's own option wins over Spark's size: 1 MiB < one file's 4 MiB open cost
    df = spark.read.format("drill").option("splitBytes", "1m").load(str(tiny))
    assert df.rdd.getNumPartitions() == FILES
    assert [r.id for r in df.collect()] == list(range(FILES))
    # 200 MiB: 50 files of 4 MiB (open cost) and ~27 bytes a partition
    df = spark.read.format("drill").option("splitBytes", "200m").load(str(tiny))
    assert df.rdd.getNumPartitions() == -(-FILES // 50)
    assert [r.id for r in df.collect()] == list(range(FILES))


def test_big_and_small_files_mixed_keep_every_record(spark, tmp_path, confs):
    confs(maxPartitionBytes="64k", openCostInBytes="4k")
    big = [{"id": i, "pad": "x" * 100} for i in range(2000)]  # ~230 KB: cut into lines splits
    (tmp_path / "a-big.json").write_text("".join(json.dumps(r) + "\n" for r in big))
    for i in range(50):
        (tmp_path / f"b-{i:02d}.json").write_text(json.dumps({"id": 10_000 + i}) + "\n")
    df = spark.read.format("drill").load(str(tmp_path))
    ids = [r.id for r in df.select("id").collect()]
    assert ids == [r["id"] for r in big] + [10_000 + i for i in range(50)]
    assert df.rdd.getNumPartitions() > 4  # the big file split, the small ones packed


def test_few_partitions_are_evened_to_the_cores(spark, tmp_path, confs):
    """Spark's rule packs 3 equal files into 3 partitions here; on 2 cores the third would run
    alone after the other two (2 rounds of work where 1.5 do), so the source cuts 4 partitions of
    equal bytes, each a run of lines in file order (files cut where a quarter ends)."""
    cores = spark.sparkContext.defaultParallelism
    assert cores == 2  # the test session is local[2]
    confs(maxPartitionBytes="100k", openCostInBytes="4k")
    rows = [{"id": i, "pad": "y" * 70} for i in range(3000)]  # 93 KB a file: one a partition
    for f in range(3):
        part = rows[f * 1000 : (f + 1) * 1000]
        (tmp_path / f"p-{f}.json").write_text("".join(json.dumps(r) + "\n" for r in part))
    sparks = spark.read.json(str(tmp_path)).rdd.getNumPartitions()
    df = spark.read.format("drill").load(str(tmp_path))
    assert (sparks, df.rdd.getNumPartitions()) == (3, 4)
    sizes = df.rdd.glom().map(len).collect()
    # equal bytes, ~750 lines each (ids of 1 to 4 digits make lines differ by a few bytes)
    assert sum(sizes) == 3000 and max(sizes) - min(sizes) <= 15, sizes
    assert [r.id for r in df.select("id").collect()] == list(range(3000))  # in file order
    assert df.selectExpr("count(*)").first()[0] == 3000  # the count path, the same partitions
    # a partition size asked for is kept: option splitBytes, spark.sql.files.minPartitionNum
    asked = spark.read.format("drill").option("splitBytes", "100k").load(str(tmp_path))
    assert asked.rdd.getNumPartitions() == 3
    confs(minPartitionNum="3")
    assert spark.read.format("drill").load(str(tmp_path)).rdd.getNumPartitions() == 3
