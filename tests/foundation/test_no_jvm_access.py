"""The Python side reaches the JVM only through names (docs/architecture.md: `drill_*`
functions, the `drill` source), never through py4j, so the same code runs on Spark Connect and
Spark-internal APIs stay in the JVM's compat package. Few exceptions, each with a Connect
fallback, none touching Spark's internals: the server's metrics read the JVM's
heap (java.lang.Runtime, the memory pools' use after collection), its health check asks the
driver whether its SparkContext stopped (a dead JVM fails the call: /status.json says so), and
the workspace rule is one py4j call into drillspark's own
`WorkspacePaths` on classic Spark (its SQL form, `drill_workspace_path`, costs a parse, an
analysis and a collect per table reference: 0.27 s of a 0.58 s SQL compile, and n SQL queries
for an n-way UNION ALL). And, each failing clearly on Spark Connect: `sys.memory` /
`sys.threads` read the driver JVM's Runtime and ThreadMXBean (as the server's metrics do); the
console's operator metrics read Spark's SQL status store (none on Connect); a `file` plugin on
`s3a://` or `hdfs://` lists its files through Hadoop's FileSystem with the plugin's scoped
settings; the `http` plugin hands its pages of records to drillspark's own
`records.RecordBatch` (the one reach: `spark/storage/record_pages.py`), so the one `drill`
reader reads them, and so do `mongo` and `kafka` on classic Spark (on Connect they read through
their plugins' Spark catalogs instead, by name). Flight SQL streams an answer's
Arrow record batches from its tasks as the JVM encodes them (the Dataset's `toArrowBatchRdd`:
no Python object per row, a batch at a time in the driver), each task sending its batches from
the JVM (the jar's `drillspark.server.PartitionStream`, server/partition_stream.py), and so
does REST for an answer's first rows; on Connect, with no `_jdf`, Flight SQL collects the
answer whole and REST's rows are written in Python workers. The server's kept statements ask the jar once per kept plan whether
Spark fixes anything in it per query, and a catalog-only plan for its answer as a local
relation, and the confs its key holds in one round trip (`compat.ReusablePlans`,
spark/plan_reuse.py); on Connect each run is planned afresh. An answer collected whole as
Arrow (`to_arrow()`, Flight SQL's and the native protocol's small answers) is Spark's own Arrow
stream served by the jar's `compat.ArrowCollect` (spark/arrow_collect.py: the same stream
through a job function the closure cleaner skips); on Connect pyspark's own collect. The
server's small answers are the pickled rows of `Dataset.collectToPython` returned by the jar's
`compat.PickledCollect` in the reply of one call (spark/pickled_collect.py: no socket served per
answer), and a query's job properties are set and cleared in one call each into the jar's
`drillspark.server.JobProperties` (spark/job_properties.py); on Connect pyspark's own calls. A
statement whose one task runs where it is collected (no job to cancel) is cancelled through
`compat.LocalPartitionRun.cancel` by every path that cancels a job group or tag
(spark/cancel_jobs.py); on Connect nothing runs that way."""

from __future__ import annotations

import re
from pathlib import Path

import drillspark

PACKAGE = Path(drillspark.__file__).parent
JVM_ACCESS = re.compile(
    r"""[.'"]_(jvm|jsc|jdf|jcol|jsparkSession|jconf)\b|^\s*(from|import)\s+py4j\b"""
)
ALLOWED = {
    "server/app.py": (
        "jvm = self.spark._jvm",
        "if self.spark.sparkContext._jsc.sc().isStopped():",
    ),
    "spark/storage/workspaces.py": ('jvm = getattr(spark, "_jvm", None)',),
    "spark/storage/metadata.py": ('jvm = getattr(spark, "_jvm", None)',),
    "server/operator_metrics.py": (
        "jvm = spark._jvm",
        "store = spark._jsparkSession.sharedState().statusStore()",
    ),
    "spark/storage/filesystems.py": (
        'jsc = getattr(spark.sparkContext, "_jsc", None)',
        'jvm = getattr(spark, "_jvm", None)',
        "return path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())",
    ),
    "spark/storage/record_pages.py": ('jvm = getattr(spark, "_jvm", None)',),
    "server/flight/batches.py": ('if getattr(df, "_jdf", None) is None or whole:',),
    "server/partition_stream.py": (
        "elements = df._jdf.toArrowBatchRdd()",
        'if getattr(df, "_jdf", None) is None or values.holds_year_month(df.schema):',
        "elements = df._jdf.toArrowBatchRdd()",
        "stream = df.sparkSession._jvm.drillspark.server.PartitionStream",
        "here = stream.runsHere(df._jdf, elements)",
        "df._jdf, elements, partition, host, port, bytearray(secret), here",
    ),
    "spark/cancel_jobs.py": ('jvm = getattr(spark, "_jvm", None)',),
    "spark/job_properties.py": (
        'jvm = getattr(spark, "_jvm", None)',
        'jss = getattr(spark, "_jsparkSession", None)',
    ),
    "spark/pickled_collect.py": (
        'jdf = getattr(df, "_jdf", None)',
        'jvm = getattr(df.sparkSession, "_jvm", None)',
    ),
    "spark/arrow_collect.py": (
        'jdf = getattr(df, "_jdf", None)',
        'jvm = getattr(df.sparkSession, "_jvm", None)',
        'jconf = getattr(df.sparkSession, "_jconf", None)',
        'if getattr(df, "_jdf", None) is None or jconf is None:',
    ),
    "spark/plan_reuse.py": (
        'jdf = getattr(df, "_jdf", None)',
        'jss = getattr(spark, "_jsparkSession", None)',
        'jvm = getattr(spark, "_jvm", None)',
        'jvm = getattr(spark, "_jvm", None)',
    ),
}


def test_no_py4j_access_outside_the_listed_exceptions():
    found = {
        f"{path.relative_to(PACKAGE)}:{n}": line.strip()
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if JVM_ACCESS.search(line.split("#", 1)[0])
    }
    allowed = {k: v for k, v in found.items() if v in ALLOWED.get(k.rsplit(":", 1)[0], ())}
    assert found.keys() - allowed.keys() == set(), found
    # each exception is still there (else drop it here)
    assert sorted(allowed.values()) == sorted(v for vs in ALLOWED.values() for v in vs)
