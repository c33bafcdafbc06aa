"""A `jdbc` plugin's config (Drill's fields and defaults), the options Spark is given, and the
messages' hygiene: no Spark, no database (the unit tier)."""

from __future__ import annotations

import pytest

from drillspark.spark.storage import StorageError, make_engine
from drillspark.spark.storage.jdbc import (
    DEFAULTS,
    JdbcConfig,
    JdbcEngine,
    failure,
    selection_of,
)

PG = {
    "type": "jdbc",
    "driver": "org.postgresql.Driver",
    "url": "jdbc:postgresql://127.0.0.1:5432/db",
    "username": "drill",
    "password": "s3cret",
}


def test_drills_fields_and_defaults():
    # Drill 1.22's GET /storage/pgmin.json for {"type": "jdbc", "driver": ..., "url": ...}
    # shows authMode SHARED_USER and writerBatchSize 10000; the rest are absent at their default
    assert DEFAULTS["authMode"] == "SHARED_USER" and DEFAULTS["writerBatchSize"] == 10000
    cfg = JdbcConfig.of("pg", {"type": "jdbc", "url": PG["url"]})
    assert (cfg.driver, cfg.username, cfg.password) == (None, None, None)
    assert (cfg.case_insensitive, cfg.writable, cfg.enabled) == (False, False, True)
    assert cfg.source_parameters == {} and cfg.writer_batch_size == 10000
    cfg = JdbcConfig.of("pg", {**PG, "caseInsensitiveTableNames": "true", "writable": True, "x": 1})
    assert cfg.case_insensitive and cfg.writable and cfg.raw["x"] == 1  # unknown fields kept
    assert "s3cret" not in repr(cfg)


def test_make_engine_registers_jdbc():
    engine = make_engine("pg", PG)
    assert isinstance(engine, JdbcEngine) and engine.readable and engine.kind == "jdbc"


def test_spark_options():
    opts = JdbcConfig.of("pg", {**PG, "writerBatchSize": 500}).options()
    assert opts["url"] == PG["url"] and opts["driver"] == "org.postgresql.Driver"
    assert (opts["user"], opts["password"], opts["batchsize"]) == ("drill", "s3cret", "500")
    for key in ("pushDownPredicate", "pushDownAggregate", "pushDownLimit", "pushDownOffset"):
        assert opts[key] == "true"
    assert opts["preferTimestampNTZ"] == "true"
    params = {
        "maximumPoolSize": 5,  # HikariCP's: nothing in Spark
        "FETCHSIZE": 100,  # Spark's option, any case
        "pushDownAggregate": False,
        "dataSource.ssl": "true",  # the driver's property `ssl`
    }
    opts = JdbcConfig.of("pg", {**PG, "sourceParameters": params}).options()
    assert opts["fetchsize"] == "100" and opts["pushDownAggregate"] == "false"
    assert opts["ssl"] == "true" and "maximumPoolSize" not in opts


def test_a_mariadb_url_gets_mysqls_dialect():
    cfg = JdbcConfig.of(
        "m", {"url": "jdbc:mariadb://h:3306/shop", "driver": "org.mariadb.jdbc.Driver"}
    )
    assert cfg.kind == "mysql"
    assert cfg.spark_url() == "jdbc:mysql://h:3306/shop?permitMysqlScheme"
    cfg = JdbcConfig.of("m", {"url": "jdbc:mariadb://h/shop?useSSL=false"})
    assert cfg.spark_url() == "jdbc:mysql://h/shop?useSSL=false&permitMysqlScheme"
    assert JdbcConfig.of("m", {"url": "jdbc:mysql://h/shop"}).spark_url() == "jdbc:mysql://h/shop"
    assert JdbcConfig.of("o", {"url": "jdbc:h2:mem:x"}).kind == "other"


def test_bad_configs_name_the_plugin():
    with pytest.raises(
        StorageError, match="storage plugin 'p' \\(jdbc\\): field 'url' is required"
    ):
        JdbcConfig.of("p", {"type": "jdbc"})
    with pytest.raises(StorageError, match="field 'sourceParameters' must be an object"):
        JdbcConfig.of("p", {**PG, "sourceParameters": [1]})
    with pytest.raises(StorageError, match="field 'writerBatchSize' must be a number"):
        JdbcConfig.of("p", {**PG, "writerBatchSize": "many"})


def test_selections():
    assert selection_of({"schema": "public", "table": "t"}, "pg") == (["public"], "t")
    assert selection_of({"schema": ["sales"], "table": "t"}, "pg") == (["sales"], "t")
    assert selection_of({"table": "t"}, "pg") == ([], "t")
    with pytest.raises(StorageError, match='needs a selection {"schema"'):
        selection_of({"path": "/t"}, "pg")


class Captured(Exception):
    """What PySpark raises for a JVM error: its message and cause chain."""

    def __init__(self, desc, cause=None, trace=""):
        super().__init__(desc)
        self._desc, self._cause, self._stackTrace = desc, cause, trace


def test_failures_are_one_paragraph_without_secrets():
    url = "jdbc:postgresql://u:urlpw@h:5432/db?password=qpw&ssl=true"
    cfg = JdbcConfig.of("pg", {**PG, "url": url})
    cause = Captured(
        'org.postgresql.util.PSQLException: FATAL: password authentication failed for user "drill" (s3cret)'
    )
    error = Captured(
        f"[FAILED_JDBC.CONNECTION] Failed JDBC {url} on the operation: Couldn't connect",
        cause,
        "org.apache.spark.sql.AnalysisException: ...\n\tat org.apache.spark.X(X.scala:1)\n"
        "Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed",
    )
    text = str(failure(cfg, error, "cannot read pg.public.t"))
    assert text.startswith("jdbc storage plugin 'pg': cannot")
    assert "password authentication failed" in text
    for secret in ("s3cret", "urlpw", "qpw"):
        assert secret not in text
    assert "\n" not in text and "\tat " not in text


def test_a_missing_driver_says_how_to_add_one():
    cfg = JdbcConfig.of("x", {"url": "jdbc:x://h/db", "driver": "com.x.Driver"})
    error = Captured(
        "[CANNOT_LOAD_CATALOG.PLUGIN_CLASS_NOT_FOUND] ...",
        Captured("java.lang.ClassNotFoundException: com.x.Driver"),
    )
    text = str(failure(cfg, error, "cannot read x.s.t"))
    assert "the JDBC driver com.x.Driver is not on Spark's class path" in text and "--jars" in text
