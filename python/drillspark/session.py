"""Getting a SparkSession that has drillspark's extension: the bundled jar, offline."""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drillspark import class_sharing, jvm_stderr
from drillspark._version import SCALA_BINARY, __version__
from drillspark.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

EXTENSIONS_CLASS = "drillspark.DrillSparkExtensions"
_JARS_DIR = Path(__file__).parent / "jars"


class JarNotFoundError(UsageError, FileNotFoundError):
    """The extension jar is not in the package (a source checkout that was never built)."""


def jar_path() -> str:
    """Absolute path of the extension jar bundled with this package."""
    jar = _JARS_DIR / f"drillspark-extension_{SCALA_BINARY}-{__version__}.jar"
    if not jar.exists():
        raise JarNotFoundError(
            f"drillspark's extension jar is missing ({jar}). In a source checkout run "
            "`make jar`; an installed wheel always carries it."
        )
    return str(jar)


# JDBC drivers for the `jdbc` storage plugin (PostgreSQL's, MariaDB Connector/J), fetched from
# Maven Central at build time by tools/fetch_jdbc_drivers.py and carried by the wheel; other
# drivers are one `--jars` / `spark.jars` away (docs/storage.md)
_DRIVERS_DIR = _JARS_DIR / "drivers"


def driver_jars() -> list[str]:
    """Absolute paths of the JDBC driver jars bundled with this package (none in a source
    checkout where `make setup` has not fetched them)."""
    return sorted(str(p) for p in _DRIVERS_DIR.glob("*.jar"))


# the libraries of drillspark's format readers (Apache POI for `excel`, ...), fetched at build
# time by tools/fetch_format_jars.py, as the drivers are
_FORMATS_DIR = _JARS_DIR / "formats"


def format_jars() -> list[str]:
    """Absolute paths of the format readers' jars bundled with this package."""
    return sorted(str(p) for p in _FORMATS_DIR.glob("*.jar"))


# Hadoop's S3A file system and the AWS SDK parts it uses, for `file` plugins on s3a:// (fetched
# at build time by tools/fetch_hadoop_jars.py, as the drivers are)
_HADOOP_DIR = _JARS_DIR / "hadoop"


def hadoop_jars() -> list[str]:
    """Absolute paths of the Hadoop file-system jars bundled with this package (hadoop-aws and
    the AWS SDK; none where `make setup` has not fetched them)."""
    return sorted(str(p) for p in _HADOOP_DIR.glob("*.jar"))


# the record plugins' client libraries (the MongoDB Java driver for `mongo`), fetched at build
# time by tools/fetch_client_jars.py, as the drivers are
_CLIENTS_DIR = _JARS_DIR / "clients"


def client_jars() -> list[str]:
    """Absolute paths of the record plugins' client jars bundled with this package."""
    return sorted(str(p) for p in _CLIENTS_DIR.glob("*.jar"))


def spark_jars() -> list[str]:
    """Every jar a session needs on `spark.jars`: the extension, the JDBC drivers, then the
    Hadoop file systems' (S3A)."""
    return [jar_path(), *driver_jars(), *hadoop_jars(), *format_jars(), *client_jars()]


def _append(existing: str | None, value: str) -> str:
    parts = [p for p in (existing or "").split(",") if p]
    return ",".join(parts if value in parts else parts + [value])


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Return `builder` with the bundled jars on `spark.jars` (the extension and the JDBC
    drivers) and the extension enabled.

    Like Delta's `configure_spark_with_delta_pip`, but offline: the jar ships in the wheel.
    Settings the builder already has are kept (jars and extensions are appended to). A session
    that runs here (a local master, or none outside spark-submit) gets Python workers on this
    interpreter, as `session()` gives them, unless `PYSPARK_PYTHON` or `spark.pyspark.python`
    says otherwise: drillspark's own functions run in those workers (CSV reads, Arrow
    operators), from any python, activated venv or not.
    """
    options = getattr(builder, "_options", {})
    if _runs_here(options) and "spark.pyspark.python" not in options:
        # Python workers on this machine run this interpreter, as session() makes them: Spark's
        # default is the `python3` on PATH, which a venv's python run by its path (not
        # activated) does not put there, and whose site-packages has no drillspark
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = builder.config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
    jars = options.get("spark.jars")
    for jar in spark_jars():
        jars = _append(jars, jar)
    builder = builder.config("spark.jars", jars)
    builder = builder.config(
        "spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSIONS_CLASS)
    )
    for key, value in catalog_confs().items():
        if key not in options:
            builder = builder.config(key, value)
    return builder


def _runs_here(options: dict[str, Any]) -> bool:
    """Whether a session built with `options` runs its Python workers on this machine: a local
    master (`local`, `local[N]`, `local-cluster[...]`), or none outside spark-submit (Spark's
    local[*]); not Spark Connect, whose workers are the server's."""
    if "spark.remote" in options or os.environ.get("SPARK_REMOTE") or _under_spark_submit():
        return False
    master = options.get("spark.master")
    if master is None:
        given = re.search(r"--master[ =](\S+)", os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
        master = given[1] if given else "local[*]"
    return str(master).startswith("local")


DFS_CATALOG_CLASS = "drillspark.catalog.DfsCatalog"


def catalog_confs() -> dict[str, str]:
    """Catalogs the jar provides: Drill's `dfs`, so plain Spark SQL reads ``dfs.`path` ``;
    Spark's TIME type, which Spark 4.x keeps behind a flag (Drill's TIME is Spark's TIME(3));
    and a Parquet nanosecond timestamp read as the BIGINT Drill 1.22 reads (Spark refuses
    the file's every query without it). The translator never changes a session's settings
    itself."""
    from drillspark.plugin_configs.bootstrap import FILE_PLUGIN

    return {
        f"spark.sql.catalog.{FILE_PLUGIN}": DFS_CATALOG_CLASS,
        TIME_TYPE_CONF: "true",
        NANOS_AS_LONG_CONF: "true",
    }


TIME_TYPE_CONF = "spark.sql.timeType.enabled"
NANOS_AS_LONG_CONF = "spark.sql.legacy.parquet.nanosAsLong"

# Extra JVM flags for the driver of sessions made here (benchmarks/startup_bench.py tries them).
DRIVER_JAVA_OPTS_ENV = "DRILLSPARK_DRIVER_JAVA_OPTS"


def _driver_java_options(log4j: Path, given: str | None = None) -> str:
    """Our log4j config, then the flags given in conf, then those of the environment."""
    parts = [
        f"-Dlog4j.configurationFile={log4j}",
        given or "",
        os.environ.get(DRIVER_JAVA_OPTS_ENV, ""),
    ]
    return " ".join(p.strip() for p in parts if p and p.strip())


# The JDK of the driver JVMs drillspark launches, when not $JAVA_HOME's: Spark 4.3 runs on Java
# 17, 21 and 25, and on 25 drillspark answers TPC-H's 22 queries in 0.86x Java 17's time on a
# first round, 0.94x warm (docs/performance.md, "Java 25"), while Drill itself and other tools
# may keep JAVA_HOME at 17.
JAVA_HOME_ENV = "DRILLSPARK_JAVA_HOME"
# Two threads may start a session at once (the shell warms Spark up while the first statement
# asks for it): one sets and restores JAVA_HOME at a time, so neither restores the other's.
_JAVA_HOME_LOCK = threading.Lock()


@contextlib.contextmanager
def _driver_java_home() -> Iterator[None]:
    """$DRILLSPARK_JAVA_HOME as JAVA_HOME while a driver JVM is launched (PySpark's launcher
    and class sharing read JAVA_HOME), then JAVA_HOME as it was: this process's children keep
    the caller's. Under spark-submit the JVM is running already."""
    home = os.environ.get(JAVA_HOME_ENV)
    if not home or _under_spark_submit():
        yield
        return
    java = Path(home) / "bin" / "java"
    if not (java.is_file() and os.access(java, os.X_OK)):
        raise UsageError(f"{JAVA_HOME_ENV}={home}: no Java there ({java} is not a program)")
    with _JAVA_HOME_LOCK:
        before = os.environ.get("JAVA_HOME")
        os.environ["JAVA_HOME"] = home
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("JAVA_HOME", None)
            else:
                os.environ["JAVA_HOME"] = before


# The CLI's one-statement sessions (`drillspark sql`, `drillspark run`) start with these
# (measured in docs/performance.md); DRILLSPARK_CLI_DEFAULTS=0 leaves them out (the benchmark's
# baseline). `shell` and `serve` live long and keep Spark's defaults.
CLI_DEFAULTS_ENV = "DRILLSPARK_CLI_DEFAULTS"
# C1 only: the driver JVM stops compiling at the quick tier; about 40 % less CPU to a first
# answer, paid back by queries whose generated code runs for minutes.
C1_ONLY = "-XX:TieredStopAtLevel=1"


def short_lived_conf() -> dict[str, str]:
    if os.environ.get(CLI_DEFAULTS_ENV, "1") == "0":
        return {}
    return {
        "spark.ui.enabled": "false",  # no web UI to start (or port to hunt for) per command
        "spark.driver.extraJavaOptions": C1_ONLY,
    }


def local_cores(master: str) -> int | None:
    """The task slots of a local master (`local`, `local[N]`, `local[*]`, `local[N,F]`), else
    None."""
    m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if m is None:
        return None
    n = m.group(1)
    return (os.cpu_count() or 1) if n == "*" else int(n or 1)


def local_conf(master: str | None) -> dict[str, str]:
    """Spark settings for one machine, used unless given: Spark's defaults are a cluster's.
    200 shuffle partitions cost every shuffle 200 files per map task and as many reduce tasks
    before AQE merges them; on a few cores twice their number is as fast or faster (TPC-H SF 1:
    up to 1.6x a query, docs/performance.md), and a shuffled hash join, which Spark picks only
    for a build side far smaller than the other and small per partition, saves sort-merge
    joins their sorts. AQE turns a shuffled join into a broadcast join when a side it has run
    measures at most 32 MB (Spark's 10 MB is for sending it over a network to every executor; a
    local master builds it once, in its own memory, for all its tasks): TPC-H q05 at SF 3, whose
    filtered side measures about 16 MB, 5.4 -> 2.3 s. Only measured sizes: Spark's planner
    still broadcasts a side estimated before running anything at 10 MB at most. Spark's
    runtime bloom filter (the keys of a join side with a selective filter, read first, prune
    the other side's scan) is only tried on a scan estimated at 10 GB, a cluster's size; here
    from 16 MB, built from a side estimated at up to 20 MB (Spark's 10): TPC-H q04 at SF 1,
    whose EXISTS aggregated lineitem's 1.5 million keys for the quarter's 57,000 orders,
    1.35 -> 0.84 s, q17 1.66 -> 0.87 s. The creation side is read twice, so its bound caps
    what a filter that prunes little can cost (q21's, built from lineitem, would: 1.15x)."""
    cores = local_cores(master) if master is not None else None
    if cores is None:
        return {}
    return {
        "spark.sql.shuffle.partitions": str(2 * cores),
        "spark.sql.join.preferSortMergeJoin": "false",
        "spark.sql.adaptive.autoBroadcastJoinThreshold": "32MB",
        "spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold": "16MB",
        "spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold": "20MB",
    }


# Every session drillspark starts: Spark keeps the classes it generates for 100 plans' code
# only. A session that answers more than a few statement shapes (a dashboard, TPC-H's 22
# queries) compiled each shape's code again every time it came back, and ran the new classes
# interpreted until the JIT had compiled them afresh: TPC-H q16 0.44 s run twice in a row,
# 0.82 s after the 21 others (docs/performance.md, "Generated code kept"). Some megabytes of
# classes for 1,000.
# And Spark's object hash aggregate (drillspark's MIN / MAX / ANY_VALUE of a VARCHAR) sorts its
# input once a task meets more than 128 groups; those aggregates keep one short text a group, so
# 65,536: a CSV's MAX of a VARCHAR over 10,000 groups 2.4-3.0 -> 1.5 s (docs/performance.md, "MIN
# and MAX of a VARCHAR in a hash aggregate"). A grouped aggregate whose state grows (collect_list,
# median) is a sort aggregate instead (the jar's compat.BoundedHashAggregates).
SESSION_CONF = {
    "spark.sql.codegen.cache.maxEntries": "1000",
    "spark.sql.objectHashAggregate.sortBased.fallbackThreshold": "65536",
}

# PySpark's DataFrame debugging records the Python call site of every Column and DataFrame
# call in the JVM: ten py4j round trips around each `F.col`, `getField`, `alias`, ... (13 for
# an `F.col` instead of 3), most of a statement's compile (docs/performance.md, "The cost of
# compiling a statement"). The call sites it records are the translator's own lines, of no
# use to someone reading a Drill query's error. A static setting, read once per process.
DEBUGGING_CONF = "spark.python.sql.dataFrameDebugging.enabled"

LOG_LEVELS = ("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
# Query context loggers of PySpark: each failing DataFrame is logged as a JSON line with the
# whole Java stack trace, although the exception itself carries the same message.
_PYSPARK_ERROR_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")


def set_log_level(spark: SparkSession, level: str) -> None:
    """Spark's (log4j) and PySpark's error logging at `level`. drillspark reports a failure as
    one paragraph itself, so the default is FATAL: an executor's ERROR lines repeat it."""
    from pyspark.logger import PySparkLogger

    level = level.upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"log level {level!r}: expected one of {', '.join(LOG_LEVELS)}")
    spark.sparkContext.setLogLevel(level)
    quiet = LOG_LEVELS.index(level) > LOG_LEVELS.index("ERROR")
    for name in _PYSPARK_ERROR_LOGGERS:
        # PySpark's own class: a plain logging.Logger under that name breaks its calls
        PySparkLogger.getLogger(name).disabled = quiet


def _under_spark_submit() -> bool:
    """spark-submit starts the JVM first and hands Python its gateway port: the master and
    the rest of its settings are already in that JVM's configuration."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def session(
    master: str | None = None, app_name: str = "drillspark", log_level: str = "FATAL", **conf: Any
) -> SparkSession:
    """The embedded default: a local SparkSession with drillspark, quiet logs, and Python
    workers on this interpreter. `master` defaults to `local[*]`, except under `spark-submit`,
    whose `--master` (and other settings) the session then keeps. Extra Spark settings go in `conf`, e.g.
    `session(**{"spark.sql.shuffle.partitions": "4"})`; `log_level="WARN"` (or INFO, DEBUG)
    brings back Spark's own logging. `storage`: Drill's storage-plugin configs by name
    (docs/storage.md), which `drillspark.sql` on this session reads: `{"pg": {"type": "jdbc",
    ...}}`; a config without `type` merges into a built-in one (`{"dfs": {"workspaces":
    {"logs": {"location": "/var/log/app"}}}}`).
    """
    storage = conf.pop("storage", None)  # not a Spark setting: drillspark's own keyword
    checked = storage_configs(storage) if storage is not None else None  # fails before Spark
    if log_level.upper() not in LOG_LEVELS:
        raise ValueError(f"log level {log_level!r}: expected one of {', '.join(LOG_LEVELS)}")
    # Python workers must run the interpreter that has drillspark and pyarrow installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master is None and not _under_spark_submit():
        master = "local[*]"
    if master is not None and master.startswith("local"):
        # Embedded: bind to loopback instead of warning that the hostname resolves to it.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    log4j = Path(__file__).parent / "conf" / "log4j2.properties"
    java_options = _driver_java_options(log4j, conf.pop("spark.driver.extraJavaOptions", None))
    with _driver_java_home():
        return _start(master, app_name, log_level, java_options, checked, conf)


def _start(
    master: str | None,
    app_name: str,
    log_level: str,
    java_options: str,
    checked: dict[str, Any] | None,
    conf: dict[str, Any],
) -> SparkSession:
    from pyspark.sql import SparkSession

    sharing = _class_sharing(master, java_options, conf)
    if sharing is not None:
        java_options = f"{java_options} {sharing.flags}"
    builder = SparkSession.builder if master is None else SparkSession.builder.master(master)
    builder = (
        builder.appName(app_name)
        .config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.ui.showConsoleProgress", "false")
    )
    if DEBUGGING_CONF not in conf and "spark.remote" not in conf:
        builder = builder.config(DEBUGGING_CONF, "false")
    if "spark.log.level" not in conf and "spark.remote" not in conf:
        # Spark applies it as its context starts: quiet from the start (a busy UI port, say),
        # not only once set_log_level below runs
        builder = builder.config("spark.log.level", log_level.upper())
    from pyspark import SparkContext

    # a new context's defaults only: a session already running keeps what it was given or set
    # since (getOrCreate would apply the builder's settings to it)
    starting = SparkContext._active_spark_context is None
    if starting and "spark.remote" not in conf and not _under_spark_submit():
        for key, value in {**SESSION_CONF, **local_conf(master)}.items():
            builder = builder.config(key, str(conf.pop(key, value)))
        if sharing is not None and sharing.listener is not None:
            # the writing JVM marks that it ran a job: only then is its archive kept
            listeners = conf.pop("spark.extraListeners", None)
            builder = builder.config("spark.extraListeners", _append(listeners, sharing.listener))
    for key, value in conf.items():
        builder = builder.config(key, str(value))
    if starting and "spark.remote" not in conf:
        _preload(PRELOADED)
    try:
        builder = configure(builder)
        # the driver JVM with Java's incubator notice filtered from its stderr (jvm_stderr.py)
        jvm_stderr.start_driver(getattr(builder, "_options", {}))
        spark = builder.getOrCreate()
    finally:
        class_sharing.started(sharing)  # names the archive once the JVM has written it
    set_log_level(spark, log_level)
    if checked is not None:
        _STORAGE[spark] = checked
        if "spark.remote" not in conf:
            from drillspark.spark.storage import plugin_catalogs

            # each plugin a Spark catalog of its name: spark.sql reads it too
            plugin_catalogs.register_all(spark, checked)
    return spark


# Imported while the driver JVM starts: pandas is imported by pyspark's argument converters
# during the context's start (0.4 s with the JVM waiting), sqlglot, pyarrow and the logical
# plan (0.14 s) by the first statement. Modules that import no pyspark module and of
# drillspark only what `import drillspark` has loaded (the plan's own package aside), so the
# thread never waits on an import the main thread holds.
PRELOADED = ("pandas", "pyarrow", "sqlglot", "drillspark.plan")


def _preload(modules: Sequence[str]) -> None:
    """Imports `modules` in a daemon thread: Python runs it while the main thread sleeps
    waiting for the JVM (launch_gateway polls), so a new process's first answer comes sooner
    (docs/performance.md, "The JSON race on other shapes"). A failed import is left for the
    code that needs the module to report."""

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001, S112  (reported by the import that needs it)
                continue

    threading.Thread(target=load, name="drillspark-preload", daemon=True).start()


# the storage plugins a session was given (session(storage=...)), read by drillspark.sql
_STORAGE: weakref.WeakKeyDictionary[SparkSession, dict[str, Any]] = weakref.WeakKeyDictionary()


def storage_configs(storage: Mapping[str, Any]) -> dict[str, Any]:
    """`storage` checked by the registry's rules (a PluginConfigError names the plugin and
    field): name -> Drill's config, partial ones (no `type`) kept as given, to merge."""
    from drillspark.plugin_configs import PluginConfigError, config_from_json
    from drillspark.plugin_configs.registry import check_name

    if not isinstance(storage, Mapping):
        raise PluginConfigError('storage must be {"NAME": {"type": ...}, ...}')
    out: dict[str, Any] = {}
    for name, config in storage.items():
        check_name(name)
        if isinstance(config, Mapping) and "type" not in config:
            out[name] = dict(config)  # partial: merged into the built-in plugin of that name
        else:
            out[name] = config_from_json(name, config).raw
    return out


def storage_of(spark: SparkSession | None) -> dict[str, Any]:
    """The storage plugins `spark` was given by session(storage=...), else none."""
    return dict(_STORAGE.get(spark, {})) if spark is not None else {}


def _class_sharing(
    master: str | None, java_options: str, conf: dict[str, Any]
) -> class_sharing.Sharing | None:
    """Class-data sharing for a local driver JVM drillspark starts (drillspark/class_sharing.py):
    not under spark-submit (master None here) or Spark Connect, whose JVMs are not ours."""
    import pyspark

    if master is None or "spark.remote" in conf:
        return None
    try:
        jar = jar_path()
    except JarNotFoundError:
        return None  # configure() says so
    spark_id = "|".join(
        [pyspark.__version__, os.path.dirname(pyspark.__file__), os.environ.get("SPARK_HOME", "")]
    )
    return class_sharing.prepare(master, java_options, jar, spark_id)
