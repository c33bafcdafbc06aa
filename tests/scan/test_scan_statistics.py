"""What a scan tells Spark's planner of its size (source/input/ScanSize, the scans'
SupportsReportStatistics; on by default, spark.drillspark.scanStatistics): the files' length, so that a join with a small file broadcasts that
side instead of shuffling both (issue 37: BI charts join small files). Sizes are checked
against the files' lengths on disk; answers against sums computed here."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from drillspark.sql import SqlEngine, SqlSession

UNKNOWN = 2**63 - 1  # spark.sql.defaultSizeInBytes: Spark's "large" when a scan reports none


@pytest.fixture(autouse=True)
def sizes(spark):
    # both on by default (docs/scan.md); set here so that a test that turns one off and then
    # unsets it cannot change the others
    spark.conf.set("spark.drillspark.scanStatistics", "true")
    spark.conf.set("spark.drillspark.singlePartitionScans", "true")
    yield
    spark.conf.unset("spark.drillspark.scanStatistics")
    spark.conf.unset("spark.drillspark.singlePartitionScans")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("stats")
    (d / "facts.json").write_text(
        "".join(json.dumps({"k": i % 5, "v": i}) + "\n" for i in range(200))
    )
    (d / "names.json").write_text(
        "".join(json.dumps({"k": i, "name": f"n{i}"}) + "\n" for i in range(5))
    )
    with gzip.open(d / "names.json.gz", "wt") as f:
        f.write("".join(json.dumps({"k": i, "name": f"n{i}"}) + "\n" for i in range(5)))
    (d / "names.csvh").write_text("k,name\n" + "".join(f"{i},n{i}\n" for i in range(5)))
    pq.write_table(
        pa.table({"k": list(range(5)), "name": [f"n{i}" for i in range(5)]}), d / "names.parquet"
    )
    return d


def size_of(df) -> int:
    return int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())


def plan_of(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


def test_a_scan_reports_its_files_length(spark, files):
    spark.conf.set("spark.drillspark.scanStatistics", "false")  # off: no size
    assert size_of(spark.read.format("drill").load(str(files / "names.json"))) == UNKNOWN
    spark.conf.set("spark.drillspark.scanStatistics", "true")
    for name, fmt in (
        ("names.json", "drill"),
        ("facts.json", "drill"),
        ("names.csvh", "drill-text"),
    ):
        df = spark.read.format(fmt).load(str(files / name))
        assert size_of(df) == (files / name).stat().st_size, name
    # a compressed file's length says little of its rows: no size, Spark assumes a large input
    assert size_of(spark.read.format("drill").load(str(files / "names.json.gz"))) == UNKNOWN


def test_a_join_of_small_files_is_a_hash_join_in_one_task(spark, files):
    # both sides small and one partition each: compat/SinglePartitionScans makes the
    # planner's broadcast a hash join in place (no broadcast job, no shuffle)
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(files)}))
    expected = sorted((f"n{k}", sum(v for v in range(200) if v % 5 == k)) for k in range(5))
    for small in ("names.json", "names.csvh", "names.parquet", "names.json.gz"):
        sql = (
            "SELECT b.name AS name, sum(CAST(a.v AS INT)) AS s FROM dfs.data.`facts.json` a "
            f"JOIN dfs.data.`{small}` b ON a.k = CAST(b.k AS INT) GROUP BY b.name"
        )
        result = engine.execute(sql)[-1]
        plan = plan_of(result.df)
        if small.endswith(".gz"):
            # a compressed file has no size: Spark would not keep it in one partition for a
            # join, so the facts (3 kB) are broadcast to it instead
            assert "BroadcastHashJoin" in plan and "BuildLeft" in plan, plan
        else:  # the names are the hash table, and nothing moves
            assert "ShuffledHashJoin" in plan and "BuildRight" in plan, (small, plan)
            assert "Exchange" not in plan, (small, plan)
        assert sorted((r["name"], r["s"]) for r in result.rows()) == expected, small
    spark.conf.set("spark.drillspark.singlePartitionScans", "false")  # Spark's own plan
    try:
        plan = plan_of(engine.execute(sql.replace("names.json.gz", "names.json"))[-1].df)
    finally:
        spark.conf.set("spark.drillspark.singlePartitionScans", "true")
    assert "BroadcastHashJoin" in plan and "SortMergeJoin" not in plan, plan


def test_a_join_side_that_is_a_bare_scan_is_sized(spark, files):
    # a LEFT JOIN's preserved side is the marked scan itself (no filter or projection above
    # it): its size must count. Under spark.sql.maxSinglePartitionBytes the facts (3 kB) are
    # too large to join in place, so the names are broadcast to them; the bare mark once
    # passed as small whatever its file's size (#37)
    facts = spark.read.format("drill").load(str(files / "facts.json"))
    names = spark.read.format("drill").load(str(files / "names.json"))
    assert (files / "names.json").stat().st_size < 1000 < (files / "facts.json").stat().st_size

    def joined():
        return facts.join(names, "k", "left").groupBy("name").count()

    assert "ShuffledHashJoin" in plan_of(joined())  # both small: in place
    spark.conf.set("spark.sql.maxSinglePartitionBytes", "1000")
    try:
        df = joined()
        plan = plan_of(df)
        rows = sorted(map(tuple, df.collect()))
    finally:
        spark.conf.unset("spark.sql.maxSinglePartitionBytes")
    assert "BroadcastHashJoin" in plan and "ShuffledHashJoin" not in plan, plan
    assert rows == [(f"n{k}", 40) for k in range(5)]


def test_a_bare_row_based_scan_keeps_its_unsafe_projection(spark, files, tmp_path):
    # a CSV file (a row-based scan: Spark's projection above it makes the unsafe rows the
    # operators above expect) as the large preserved side, and sorted: the join is sized and
    # that projection stays (with the scan's logical plan on the mark, Spark's
    # RemoveRedundantProjects dropped it: GenericInternalRow cannot be cast to UnsafeRow)
    facts = tmp_path / "facts.csvh"
    facts.write_text("k,v\n" + "".join(f"{i % 5},{i}\n" for i in range(200)))
    assert facts.stat().st_size > 1000
    a = spark.read.format("drill-text").load(str(facts))
    names = (
        spark.read.format("drill")
        .load(str(files / "names.json"))
        .selectExpr("CAST(k AS STRING) AS k", "name")
    )
    spark.conf.set("spark.sql.maxSinglePartitionBytes", "1000")
    try:
        df = a.join(names, "k", "left").orderBy("name", "v")
        plan = plan_of(df)
        rows = [(r["name"], r["v"]) for r in df.collect()]
        alone = [r["v"] for r in a.orderBy("v").collect()]  # ORDER BY over the one file
    finally:
        spark.conf.unset("spark.sql.maxSinglePartitionBytes")
    assert "BroadcastHashJoin" in plan and "ShuffledHashJoin" not in plan, plan
    assert rows == sorted((f"n{i % 5}", str(i)) for i in range(200))
    assert alone == sorted(str(i) for i in range(200))


def test_a_scan_of_several_partitions_joined_with_a_small_file_broadcasts_it(spark, files):
    # the large side (here three partitions) is not shuffled: the small file goes to its tasks
    big = spark.read.format("drill").option("splitBytes", "256").load(str(files / "facts.json"))
    names = spark.read.format("drill").load(str(files / "names.json"))
    assert big.rdd.getNumPartitions() > 1
    joined = big.join(names, "k").groupBy("name").count()
    plan = plan_of(joined)
    assert "BroadcastHashJoin" in plan and "SortMergeJoin" not in plan, plan
    assert sorted(map(tuple, joined.collect())) == [(f"n{k}", 40) for k in range(5)]


def test_a_side_above_the_threshold_is_not_hashed(spark, files):
    # the planner's own threshold decides with the reported size: below the files' lengths,
    # the join is not broadcast, as when drill scans reported no size (in place here: both
    # sides are one partition)
    engine = SqlEngine(spark, SqlSession(workspaces={"data": str(files)}))
    sql = (
        "SELECT b.name, count(*) AS n FROM dfs.data.`facts.json` a "
        "JOIN dfs.data.`names.json` b ON a.k = b.k GROUP BY b.name"
    )
    small = (files / "names.json").stat().st_size
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", str(small // 2))
    try:
        result = engine.execute(sql)[-1]
        plan = plan_of(result.df)
        rows = sorted((r["name"], r["n"]) for r in result.rows())
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    # a join of both sides as they are: sort-merge, or shuffled hash where Spark finds the
    # build side small enough per partition (drillspark.session's local default allows it)
    assert "BroadcastHashJoin" not in plan, plan
    assert "SortMergeJoin" in plan or "ShuffledHashJoin" in plan, plan
    assert rows == [(f"n{k}", 40) for k in range(5)]


def test_a_small_file_joined_above_a_join_of_multi_partition_scans(spark, files):
    # a sort-merge join of a one-partition scan (marked by compat/SinglePartitionScans) with a
    # scan of several partitions, and a small file broadcast to it: the rule asked that join
    # its partitioning before Spark's exchanges made its sides agree, and Spark refused
    # ("PartitioningCollection requires all of its partitionings have the same
    # numPartitions": TPC-H q05, q08, q09, q10 at scale 1)
    a = spark.read.format("drill").option("splitBytes", "256").load(str(files / "facts.json"))
    b = spark.read.format("drill").load(str(files / "facts.json"))
    names = spark.read.format("drill").load(str(files / "names.json"))
    assert a.rdd.getNumPartitions() > 1
    assert b.rdd.getNumPartitions() == 1 and names.rdd.getNumPartitions() == 1
    # the facts (3 kB) too large to broadcast, the names (under 200 bytes) small enough
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "1000")
    try:
        joined = (
            a.select("k", "v")
            .join(b.selectExpr("v", "v * 2 AS w"), "v")
            .join(names, "k")
            .groupBy("name")
            .agg({"w": "sum", "v": "count"})
        )
        plan = plan_of(joined)
        rows = sorted(map(tuple, joined.select("name", "count(v)", "sum(w)").collect()))
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    assert "SortMergeJoin" in plan and "BroadcastHashJoin" in plan, plan
    expected = [(f"n{k}", 40, sum(2 * v for v in range(200) if v % 5 == k)) for k in range(5)]
    assert rows == expected


def test_a_cancelled_nested_loop_join_stops_its_task(spark, tmp_path):
    # with sizes, a non-equi join of two small files is a broadcast nested-loop join whose
    # generated code checked for a cancel only between the scan's batches, each hours of its
    # work: the job was cancelled and its task kept computing (the shell's Ctrl-C test with
    # the scan options on). compat/InterruptibleNestedLoops: its streamed rows check one by one
    import threading
    import time

    with open(tmp_path / "n.json", "w") as f:
        for i in range(20000):
            f.write(json.dumps({"i": i, "s": "x" * 40 + str(i)}) + "\n")
    df = spark.read.format("drill").load(str(tmp_path / "n.json"))
    df.createOrReplaceTempView("n_cancel")
    slow = spark.sql(
        "SELECT count(*) AS c FROM n_cancel a, n_cancel b "
        "WHERE regexp_replace(a.s, 'x+', 'y') < regexp_replace(b.s, 'x+', 'z')"
    )
    assert "BroadcastNestedLoopJoin" in plan_of(slow)
    context = spark.sparkContext
    tracker = context.statusTracker()
    failure: list[BaseException] = []

    def run() -> None:
        context.addJobTag("nested-loop-cancel")
        context.setLocalProperty("spark.job.interruptOnCancel", "true")
        try:
            slow.collect()
        except Exception as e:  # noqa: BLE001 - the cancel's error, checked below
            failure.append(e)

    def running() -> int:
        return sum(e.numRunningTasks for e in tracker.getExecutorInfos())

    before = set(tracker.getJobIdsForGroup(None))

    def joining() -> bool:
        # the broadcast's job has a job group of its own; the join's job has none
        ours = set(tracker.getJobIdsForGroup(None)) - before
        return bool(ours & set(tracker.getActiveJobsIds())) and running() > 0

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    end = time.monotonic() + 120
    while not joining() and time.monotonic() < end:
        time.sleep(0.2)
    assert joining()
    time.sleep(2)  # well inside the join's minutes of work
    context.cancelJobsWithTag("nested-loop-cancel")
    worker.join(60)
    end = time.monotonic() + 30
    while running() and time.monotonic() < end:
        time.sleep(0.2)
    assert running() == 0 and not worker.is_alive()
    assert failure and "cancelled" in str(failure[0])
